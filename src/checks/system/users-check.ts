/**
 * check_users: the login sessions of utmp (as check_users of the
 * monitoring plugins and SNClient+ count them). Each USER_PROCESS record
 * of the utmp file is one item; the summary `count` is the number of
 * sessions. A host without a utmp file (many containers) has none.
 *
 * The record layout is glibc's `struct utmp` on 64-bit Linux, 384 bytes:
 * type (int32) at 0, pid at 4, line char[32] at 8, id char[4] at 40, user
 * char[32] at 44, host char[256] at 76, exit status at 332, session at
 * 336, login time (int32 seconds, int32 microseconds) at 340, address at
 * 348.
 */
import { readFile } from 'node:fs/promises';
import type { CheckDefinition } from '../engine.js';

const RECORD = 384;
const USER_PROCESS = 7;

export interface UtmpSession {
  user: string;
  line: string;
  host: string;
  pid: number;
  login: number;
}

/** The USER_PROCESS records of a utmp file's bytes (a trailing partial record is ignored). */
export function parseUtmp(bytes: Buffer): UtmpSession[] {
  const out: UtmpSession[] = [];
  const text = (start: number, length: number): string => {
    const field = bytes.subarray(start, start + length);
    const end = field.indexOf(0);
    return field.subarray(0, end < 0 ? length : end).toString('utf8');
  };
  for (let at = 0; at + RECORD <= bytes.length; at += RECORD) {
    if (bytes.readInt32LE(at) !== USER_PROCESS) continue;
    out.push({
      pid: bytes.readInt32LE(at + 4),
      line: text(at + 8, 32),
      user: text(at + 44, 32),
      host: text(at + 76, 256),
      login: bytes.readInt32LE(at + 340),
    });
  }
  return out;
}

export function usersCheck(defaultFile = '/var/run/utmp'): CheckDefinition {
  return {
    name: 'check_users',
    title: 'Logged-in users',
    description: 'Login sessions from utmp (who): one item per session; count is the number of sessions.',
    options: { file: { description: 'The utmp file to read.', default: defaultFile } },
    vars: {
      user: { kind: 'string', description: 'User name.' },
      line: { kind: 'string', description: "Terminal, such as 'pts/0'." },
      host: { kind: 'string', description: 'Where the session comes from (empty for a local login).' },
      pid: { kind: 'number', description: 'Process id of the login.' },
      login: { kind: 'date', description: 'When the session started.' },
    },
    defaults: {
      topSyntax: '${status}: ${count} user(s) logged in',
      detailSyntax: '${user} on ${line}',
      emptySyntax: '%(status): 0 user(s) logged in',
      emptyState: 'ok',
    },
    async collect(args) {
      const file = args.get('file') ?? defaultFile;
      const bytes = await readFile(file).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
        throw err;
      });
      return parseUtmp(bytes).map((s) => ({ ...s }));
    },
    summaryPerf: [{ object: 'users', key: 'count', alias: 'users', minimum: 0 }],
  };
}
