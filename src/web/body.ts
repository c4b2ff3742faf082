/**
 * Request bodies: read with a size limit, parse JSON, validate with the
 * precompiled ajv validators of bodies.ts.
 *
 * - A declared Content-Length over the limit is refused before reading; a
 *   body that grows past the limit while streaming is refused as soon as it
 *   does (AGENT_ERR_HTTP_BODY_TOO_LARGE, 413, connection closed).
 * - Text that is not JSON is AGENT_ERR_HTTP_BAD_JSON (400, text/plain,
 *   naming the parse problem).
 * - A JSON value that fails its schema is AGENT_ERR_HTTP_UNPROCESSABLE (422)
 *   with `details` = [{field, message}] for every problem (ajv allErrors).
 * - A client that closes the connection before the whole body came (it
 *   declared 1000 bytes, sent 10, then closed) is AGENT_WARN_HTTP_BODY_ABORTED:
 *   the client's doing, logged as a warning by on-error.ts, not a 500.
 * - Unknown fields are ignored: the schemas do not forbid them and the
 *   routes read only the fields they know.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { AgentError } from '../errors.js';

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit)
    throw new AgentError('AGENT_ERR_HTTP_BODY_TOO_LARGE', [limit]);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > limit) throw new AgentError('AGENT_ERR_HTTP_BODY_TOO_LARGE', [limit]);
      chunks.push(buf);
    }
  } catch (err) {
    if (err instanceof AgentError) throw err;
    // Node ends the body with `Error: aborted` (ECONNRESET) when the peer closes mid-body.
    if (req.destroyed || (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
      throw new AgentError('AGENT_WARN_HTTP_BODY_ABORTED', [size, declared ?? 'chunked'], { cause: err });
    }
    throw err;
  }
  return Buffer.concat(chunks, size);
}

/** Parse JSON text; AGENT_ERR_HTTP_BAD_JSON naming the problem when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new AgentError('AGENT_ERR_HTTP_BAD_JSON', [msg.split('\n')[0]]);
  }
}

/** Read, parse and validate a JSON body; resolves to the validated value. */
export async function readJsonBody<T>(req: IncomingMessage, limit: number, validate: ValidateFunction<T>): Promise<T> {
  const raw = await readBody(req, limit);
  const value = parseJson(raw.toString('utf8'));
  if (!validate(value)) {
    throw new AgentError('AGENT_ERR_HTTP_UNPROCESSABLE', [], { details: fieldsOf(validate.errors ?? []) });
  }
  return value;
}

/** ajv errors as `[{field, message}]`; `field` is the JSON path without the leading slash ("" = the body). */
export function fieldsOf(errors: readonly ErrorObject[]): { field: string; message: string }[] {
  return errors.map((e) => {
    let field = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      field = field ? `${field}.${missing}` : missing;
      return { field, message: 'is required' };
    }
    return { field, message: e.message ?? e.keyword };
  });
}
