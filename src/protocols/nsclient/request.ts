/**
 * The check_nt request (NSClient++'s NSClientServer, Debian's check_nt):
 * `PASSWORD&CODE&ARG&ARG…` in one write, without terminator; the server
 * answers one line of text and closes. check_nt sends `None` as the
 * password when it is given no -s. Anything after a CR or LF is ignored,
 * as NSClient++ does.
 *
 * The command codes and NSClient++'s `allow` setting (groups, names, any)
 * are here too; what each command answers is in answers.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The request codes of the check_nt protocol. */
export const NSCLIENT_CODES = {
  clientversion: 1,
  cpuload: 2,
  uptime: 3,
  useddiskspace: 4,
  servicestate: 5,
  procstate: 6,
  memuse: 7,
  counter: 8,
  fileage: 9,
  instances: 10,
} as const;

export type NsClientCommand = keyof typeof NSCLIENT_CODES;

/** The most a request may hold (NSClient++'s parser stops at 4 KiB too; real ones are well under 1 KiB). */
export const NSCLIENT_MAX_REQUEST = 4096;

/** The answers of NSClient++ to requests it cannot take (check_nt prints them after `NSClient - `). */
export const BAD_REQUEST = 'ERROR: Bad request.';
export const NOT_ALLOWED = 'ERROR: Command not allowed.';
export const UNKNOWN_COMMAND = 'ERROR: Unknown command.';

export interface NsClientRequest {
  password: string;
  /** The command, or undefined when the code is a number of no command. */
  command: NsClientCommand | undefined;
  /** The code as sent. */
  code: string;
  /** The arguments after the code, split at `&` (check_nt turns the commas of -l into `&`). */
  args: string[];
}

/** Splits a request; undefined when it has no command code (answered BAD_REQUEST). */
export function parseRequest(text: string): NsClientRequest | undefined {
  const line = text.split(/[\r\n]/, 1)[0] ?? '';
  const amp = line.indexOf('&');
  if (amp < 0) return undefined;
  const password = line.slice(0, amp);
  const rest = line.slice(amp + 1).split('&');
  const code = rest[0] ?? '';
  if (code === '') return undefined;
  const command = /^\d{1,3}$/.test(code) ? COMMAND_BY_CODE.get(Number(code)) : undefined;
  return { password, command, code, args: rest.slice(1) };
}

/**
 * NSClient++'s `allow`: comma-separated groups (metrics, info, service,
 * process, counters, files), command names, or any/all; case and blanks do
 * not matter. Unknown words enable nothing (they are returned, to be
 * logged); an empty result refuses every command.
 */
export function parseAllow(spec: string): { allowed: Set<NsClientCommand>; unknown: string[] } {
  const allowed = new Set<NsClientCommand>();
  const unknown: string[] = [];
  for (const raw of spec.split(',')) {
    const word = raw.trim().toLowerCase();
    if (word === '') continue;
    const group =
      word === 'any' || word === 'all'
        ? (Object.keys(NSCLIENT_CODES) as NsClientCommand[])
        : (GROUPS[word] ?? (word in NSCLIENT_CODES ? [word as NsClientCommand] : undefined));
    if (group) for (const c of group) allowed.add(c);
    else unknown.push(word);
  }
  return { allowed, unknown };
}

/** Whether the request's password is the configured one, compared in constant time; an empty configured password matches nothing. */
export function passwordMatches(sent: string, configured: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(configured)) && configured !== '';
}

// ---------------------------------------------------------------- helpers

const COMMAND_BY_CODE = new Map<number, NsClientCommand>(
  Object.entries(NSCLIENT_CODES).map(([name, code]) => [code, name as NsClientCommand]),
);

const GROUPS: Readonly<Record<string, readonly NsClientCommand[]>> = {
  metrics: ['cpuload', 'uptime', 'useddiskspace', 'memuse'],
  info: ['clientversion'],
  service: ['servicestate'],
  process: ['procstate'],
  counters: ['counter', 'instances'],
  files: ['fileage'],
};
