/**
 * The generated password of the web user `root`, kept in the state folder as `web-password`
 * (mode 0600, in a folder of mode 0700 when it creates it), so that a service keeps one password
 * across restarts and an admin reads it from a file instead of from the journal. An existing file
 * is used as it is; a missing one is written atomically (temporary file, then rename). When the
 * folder cannot be written the password lives only in this run, and the result says why.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsReason } from '../../errors.js';
import { readRegularFileSync, SECRET_FILE_LIMIT } from '../../formats/regular-file.js';

export const PASSWORD_FILE_NAME = 'web-password';

export interface StoredPassword {
  readonly password: string;
  /** The file that holds it, or undefined when it could not be written. */
  readonly file: string | undefined;
  /** Why the file could not be written (undefined when it was). */
  readonly problem: string | undefined;
}

/** The stored password from `stateDir`, or a new one written there. */
export function storedPassword(stateDir: string): StoredPassword {
  const text = readStoredPassword(stateDir);
  if (text !== undefined) return { password: text, file: join(stateDir, PASSWORD_FILE_NAME), problem: undefined };
  return writeStoredPassword(stateDir, randomBytes(18).toString('base64url'));
}

/**
 * The password stored in `stateDir`, or undefined when the file is missing, empty, unreadable or
 * not a small regular file (a FIFO there would block the start; formats/regular-file.ts).
 */
export function readStoredPassword(stateDir: string): string | undefined {
  try {
    const text = readRegularFileSync(join(stateDir, PASSWORD_FILE_NAME), SECRET_FILE_LIMIT).toString('utf8').trim();
    return text !== '' ? text : undefined;
  } catch {
    // missing or unreadable: a new one is written (an unreadable one fails there too)
    return undefined;
  }
}

/**
 * Write `password` as the stored password of `stateDir` (replacing one that is there), the
 * same way: mode 0600, atomically. `config-agent web install|password` keep the password they set
 * here and point the settings at it with `${file:}`, so the settings file (kept in git) holds
 * no secret and the agent and the command read one file.
 */
export function writeStoredPassword(stateDir: string, password: string): StoredPassword {
  const file = join(stateDir, PASSWORD_FILE_NAME);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, `${password}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
    return { password, file, problem: undefined };
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder itself is not there or not a folder: nothing was written
    }
    return { password, file: undefined, problem: fsReason(err) };
  }
}
