/**
 * The one place where errors become HTTP responses (STYLE habit 11).
 *
 * - An AgentError with an HTTP status becomes that status and the JSON
 *   envelope `{status: "error", code, error}` (422 adds `fields`).
 * - AGENT_ERR_HTTP_BAD_JSON is the exception the spec asks for: a short
 *   text/plain body naming the parse problem, with its Content-Length.
 * - A few catalogue codes without a status map to one here (conflict, unknown module).
 * - AGENT_WARN_HTTP_BODY_ABORTED (the client closed the connection in the
 *   middle of its body) is the client's doing: one warning line with the
 *   code, and no answer when the connection is gone.
 * - Anything else is a defect: logged with its stack, answered 500 with the
 *   generic envelope, never with details.
 */
import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import { AgentError, type ErrorCode } from '../errors.js';
import { escapeForLog, type Logger } from '../log.js';
import { sendJson, sendText } from './respond.js';

/** Catalogue codes that carry no status of their own but reach HTTP. */
const MAPPED: Partial<Record<ErrorCode, number>> = {
  AGENT_ERR_SETTINGS_CONFLICT: 409,
  // An API edit refused because the settings file is missing or invalid.
  AGENT_ERR_SETTINGS_UNREADABLE: 409,
  AGENT_ERR_SETTINGS_INVALID: 409,
  AGENT_ERR_SETTINGS_NOT_FOUND: 409,
  AGENT_ERR_MODULE_UNKNOWN: 404,
  // An edit naming an impossible section, key or value (a line break, a key with =): the reason, as a 422.
  AGENT_ERR_VALUE_INVALID: 422,
};

export type WebErrorHandler = (err: unknown, req: Request, res: ServerResponse) => void;

/**
 * `hide` turns absolute paths of the machine in an answer's message (and a
 * 422's field messages) into relative paths or bare file names; the log
 * keeps them whole.
 */
export function createOnError(log: Logger, hide: (text: string) => string = (t) => t): WebErrorHandler {
  return (err, req, res) => {
    if (res.headersSent || res.writableEnded) {
      log.error(
        `error after the response started (${escapeForLog(req.method)} ${escapeForLog(req.path)}): ${stackOf(err)}`,
      );
      res.destroy();
      return;
    }
    if (err instanceof AgentError && err.code === 'AGENT_WARN_HTTP_BODY_ABORTED') {
      log.warning(
        `${err.code}: ${escapeForLog(req.method)} ${escapeForLog(req.path)} from ${escapeForLog(req.socket.remoteAddress ?? '?')}: ${err.message}`,
      );
      if (req.socket.destroyed) res.destroy();
      else sendError(res, 400, err, hide);
      return;
    }
    if (err instanceof AgentError) {
      const status = err.status ?? MAPPED[err.code];
      if (status !== undefined && status < 500) {
        sendError(res, status, err, hide);
        return;
      }
      if (status === 503) {
        sendError(res, status, err, hide);
        return;
      }
    }
    log.error(`internal error on ${escapeForLog(req.method)} ${escapeForLog(req.path)}: ${stackOf(err)}`);
    const internal = new AgentError('AGENT_ERR_HTTP_INTERNAL');
    sendJson(res, 500, envelope(internal));
  };
}

/** The envelope of an AgentError (exported for the access layer's 403). */
export function envelope(err: AgentError, hide: (text: string) => string = (t) => t): Record<string, unknown> {
  const body: Record<string, unknown> = { status: 'error', code: err.code, error: hide(err.message) };
  if (err.code === 'AGENT_ERR_HTTP_UNPROCESSABLE' && Array.isArray(err.details)) {
    body.fields = (err.details as { field: string; message: unknown }[]).map((f) => ({
      ...f,
      message: hide(String(f.message)),
    }));
  }
  return body;
}

/** Answer with an AgentError's status and body. */
export function sendError(res: ServerResponse, status: number, err: AgentError, hide?: (text: string) => string): void {
  if (err.code === 'AGENT_ERR_HTTP_BAD_JSON') {
    sendText(res, status, err.message);
    return;
  }
  const headers: Record<string, string> = {};
  // The rest of an oversized body is not read: close the connection after answering.
  if (status === 413) headers.Connection = 'close';
  sendJson(res, status, envelope(err, hide), headers);
}

function stackOf(err: unknown): string {
  if (err instanceof Error) return err.stack ?? err.message;
  return String(err);
}
