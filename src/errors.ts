/**
 * The one error catalogue. Every error and warning the agent reports has a
 * stable code in its table, src/error-codes.ts (re-exported here), with a
 * message template and, where it reaches HTTP, a status. Codes never change
 * meaning; new ones are appended. docs/errors.md documents every code (a
 * test checks both directions). This file adds the error class and the
 * helpers that format and describe errors.
 */
import { CODES, type CodeInfo, type ErrorCode } from './error-codes.js';

export { CODES, type CodeInfo, type ErrorCode };

/** Fill `%s` placeholders in order; missing arguments stay as `%s`. */
export function formatMessage(code: ErrorCode, args: readonly unknown[]): string {
  let i = 0;
  return CODES[code].message.replace(/%s/g, () => (i < args.length ? String(args[i++]) : '%s'));
}

/** An error with a stable code from the catalogue. */
export class AgentError extends Error {
  readonly code: ErrorCode;
  readonly status: number | undefined;
  /** Extra structured detail (for example the invalid fields of a 422). */
  readonly details: unknown;

  constructor(code: ErrorCode, args: readonly unknown[] = [], options: { cause?: unknown; details?: unknown } = {}) {
    super(formatMessage(code, args), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentError';
    this.code = code;
    this.status = 'status' in CODES[code] ? (CODES[code] as CodeInfo).status : undefined;
    this.details = options.details;
  }
}

/**
 * Thrown by a module's `apply(next)` when the new settings could not be taken and the
 * module keeps serving on the settings it had, every part of them (a listener that cannot
 * move to a busy port, say). The reconciler records the failure, keeps the module
 * running, and tries again with backoff instead of restarting it.
 */
export class ApplyKeptError extends Error {
  override readonly name = 'ApplyKeptError';
}

/** The message of anything thrown, for logs and UNKNOWN results. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Why `signal` was aborted, as an Error to reject with (a reason that is not an Error is wrapped in one). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'too many symbolic links',
  ENXIO: 'not a regular file: a socket or a device with nothing behind it',
};

/**
 * A file-system error in a few words, for a message that already names the
 * file ("no such file", not "ENOENT: …, open '/x'"): the known codes in
 * words, any other error's message without the `, open '/x'` that repeats
 * the path.
 */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (code && FS_REASONS[code]) || errorMessage(err).replace(/, \w+ '[^']*'$/, '');
}
