/**
 * The raw handlers behind registerSimpleQuery and registerSimpleExec: a
 * function of the arguments wrapped to decode its request, run, and encode
 * its answer, a throw becoming an UNKNOWN answer that names it.
 */
import { AgentError, errorMessage } from '../errors.js';
import { answerHeader, decode, encode, type Plugin, proto, resultToResponse } from './plugin/codec.js';
import type { QueryResult, Status } from './result.js';
import type { CallOptions, RawExecHandler, RawQueryHandler, SimpleExec, SimpleQuery } from './core.js';

/** The signal of a call whose caller cannot give up; shared, so the hot path allocates none. */
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

export type SimpleRun = (
  p: Plugin.QueryRequestMessage.Request.$Properties,
  call: CallOptions,
) => Promise<Plugin.QueryResponseMessage.Response.$Properties>;

/**
 * The run of one request payload behind each simple query's raw handler. queryRaw, which has
 * decoded the request already, calls it directly and encodes its answer into the response it
 * sends anyway: the request and the response cross as bytes once each, not twice.
 */
const simpleRuns = new WeakMap<RawQueryHandler, SimpleRun>();

/** The run behind a handler made by simpleQueryHandler, else undefined. */
export function simpleRunOf(handler: RawQueryHandler): SimpleRun | undefined {
  return simpleRuns.get(handler);
}

/** Wrap a function of the arguments as a raw query handler (decode, run, encode). */
export function simpleQueryHandler(fn: SimpleQuery): RawQueryHandler {
  const run: SimpleRun = async (p, call) => {
    const signal = call.signal ?? NEVER_ABORTED;
    let r: QueryResult;
    try {
      const out = await fn([...(p.arguments ?? [])], call.allow ? { signal, allow: call.allow } : { signal });
      r = { ...out, command: out.command ?? p.command };
    } catch (err) {
      r = {
        command: p.command,
        result: 3,
        message: err instanceof AgentError ? err.message : `${p.command} failed: ${errorMessage(err)}`,
        perf: [],
      };
    }
    return resultToResponse({ ...r, arguments: [...(p.arguments ?? [])] }, p.id ?? undefined);
  };
  const handler: RawQueryHandler = async (bytes, call = {}) => {
    const request = decode('QueryRequestMessage', bytes);
    const payload: Plugin.QueryResponseMessage.Response.$Properties[] = [];
    for (const p of request.payload) payload.push(await run(p, call));
    return encode('QueryResponseMessage', {
      header: answerHeader(request.header, proto().Header.Type.QUERY_RESPONSE),
      payload,
    });
  };
  simpleRuns.set(handler, run);
  return handler;
}

/** A simple query's answer as encode would take it, else the AGENT_ERR_PROTOBUF encoding it in its own message would have thrown. */
export function verified(
  response: Plugin.QueryResponseMessage.Response.$Properties,
): Plugin.QueryResponseMessage.Response.$Properties {
  const problem = proto().QueryResponseMessage.Response.verify(response);
  if (problem) throw new AgentError('AGENT_ERR_PROTOBUF', ['QueryResponseMessage', `payload.${problem}`]);
  return response;
}

export function simpleExecHandler(fn: SimpleExec): RawExecHandler {
  return async (bytes) => {
    const request = decode('ExecuteRequestMessage', bytes);
    const payload: Plugin.ExecuteResponseMessage.Response.$Properties[] = [];
    for (const p of request.payload) {
      let result: Status = 3;
      let message: string;
      try {
        const out = await fn([...(p.arguments ?? [])], { signal: NEVER_ABORTED });
        result = out.result;
        message = out.message;
      } catch (err) {
        message = `${p.command} failed: ${errorMessage(err)}`;
      }
      payload.push({
        ...(p.id != null ? { id: p.id } : {}),
        command: p.command,
        arguments: p.arguments,
        result: result,
        message,
      });
    }
    return encode('ExecuteResponseMessage', {
      header: answerHeader(request.header, proto().Header.Type.EXEC_RESPONSE),
      payload,
    });
  };
}
