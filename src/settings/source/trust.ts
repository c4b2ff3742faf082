/**
 * Which keys a pull must be signed by (`allowed signers`, `gpg keyring`),
 * and one program run of the verifiers (git, ssh-keygen, gpg) with a time
 * limit, stdin and what the program said on failure.
 *
 * `trustId` names the keys by the hash of the files' content: the cache
 * records it with each verified pull, so a pull cached before signatures
 * were required, or verified against keys since changed (a key revoked),
 * is fetched and verified again instead of being taken as unchanged.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { AgentError, errorMessage } from '../../errors.js';
import { signaturesRequired, type SourceConfig } from './source-config.js';

export type Trust = Pick<SourceConfig, 'url' | 'allowedSigners' | 'gpgKeyring'>;

export { signaturesRequired };

/** '' when no signature is required, else the hash of the key files' content; AGENT_ERR_SOURCE_SIGNATURE when one cannot be read. */
export function trustId(cfg: Trust): string {
  if (!signaturesRequired(cfg)) return '';
  const hash = createHash('sha256');
  for (const [name, file] of [
    ['allowed signers', cfg.allowedSigners],
    ['gpg keyring', cfg.gpgKeyring],
  ] as const) {
    if (file === '') continue;
    try {
      hash.update(`${name}\0`).update(readFileSync(file)).update('\0');
    } catch (err) {
      throw new AgentError('AGENT_ERR_SOURCE_SIGNATURE', [
        cfg.url,
        `cannot read ${name} ${file}: ${errorMessage(err)}`,
      ]);
    }
  }
  return hash.digest('hex');
}

export interface RunResult {
  ok: boolean;
  stdout: string;
  /** The last lines the program wrote to stderr (or why it did not run), for the error. */
  said: string;
}

/** Run a verifier; a non-zero exit is `ok: false`, never a rejection. */
export function runVerifier(
  file: string,
  args: readonly string[],
  o: { timeoutMs: number; input?: Buffer; env?: Record<string, string> },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { timeout: o.timeoutMs, maxBuffer: 1024 * 1024, env: { ...process.env, LC_ALL: 'C', ...o.env } },
      (err, stdout, stderr) => {
        const lines = stderr
          .trim()
          .split('\n')
          .filter((l) => l !== '');
        const killed = (err as { killed?: boolean } | null)?.killed === true;
        // A program that could not start at all (ENOENT) says so in the error's code, not on stderr.
        const notRun = err !== null && typeof err.code === 'string' ? `${file}: ${err.message}` : '';
        const said = killed ? `${file} took more than ${o.timeoutMs} ms` : lines.slice(-2).join('; ') || notRun;
        resolve({ ok: !err, stdout, said });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(o.input);
  });
}
