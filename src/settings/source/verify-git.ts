/**
 * The signature of what a git source's ref names, checked with Debian's
 * git: an annotated (or signed) tag by `git verify-tag`, a commit by
 * `git verify-commit`. git tells the signature's kind by its header:
 * - ssh (`gpg.format=ssh`): checked against `allowed signers`
 *   (gpg.ssh.allowedSignersFile, namespace `git`, as ssh-keygen -Y verify);
 * - OpenPGP: checked by gpg against the keys of `gpg keyring`, imported
 *   into a private temporary GNUPGHOME made for this check and removed
 *   after it, never the user's own keyring or trust database.
 * Without a file of one kind, a signature of that kind verifies against
 * nothing: the user's own git or gpg settings never lend it keys.
 * Any failure throws AGENT_ERR_SOURCE_SIGNATURE naming the object.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../errors.js';
import { runVerifier, type Trust } from './trust.js';

/**
 * The cache repository belongs to the agent's user; `sudo config-agent settings pull` runs git as
 * root on it, which git refuses ("detected dubious ownership") unless the folder is a safe.directory.
 * Every git run of a pull only ever works on that repository (or asks a remote): trusted, as
 * command-line configuration (GIT_CONFIG_COUNT), which git honours for safe.directory.
 */
export const TRUST_OWN_REPOSITORY = {
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.directory',
  GIT_CONFIG_VALUE_0: '*',
};

const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', ...TRUST_OWN_REPOSITORY };

/** Throws AGENT_ERR_SOURCE_SIGNATURE unless `object` (in repoDir) is signed by a trusted key. */
export async function verifyGitObject(repoDir: string, object: string, trust: Trust, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  const type = await runVerifier('git', ['-C', repoDir, 'cat-file', '-t', object], { timeoutMs: left(), env: GIT_ENV });
  const kind = type.stdout.trim() === 'tag' ? 'tag' : 'commit';
  const id = (
    await runVerifier('git', ['-C', repoDir, 'rev-parse', object], { timeoutMs: left(), env: GIT_ENV })
  ).stdout.trim();
  const refuse = (why: string): AgentError =>
    new AgentError('AGENT_ERR_SOURCE_SIGNATURE', [trust.url, `${kind} ${id} ${why}`]);
  const home = mkdtempSync(join(tmpdir(), 'agent-gnupg-'));
  chmodSync(home, 0o700);
  try {
    const env = { ...GIT_ENV, GNUPGHOME: home };
    if (trust.gpgKeyring !== '') {
      const imported = await runVerifier(
        'gpg',
        ['--batch', '--quiet', '--no-autostart', '--import', trust.gpgKeyring],
        {
          timeoutMs: left(),
          env,
        },
      );
      if (!imported.ok) throw refuse(`cannot be checked: gpg cannot import ${trust.gpgKeyring} (${imported.said})`);
    }
    const signers = trust.allowedSigners || '/dev/null';
    const args = ['-C', repoDir, '-c', `gpg.ssh.allowedSignersFile=${signers}`, '-c', 'gpg.program=gpg'];
    const check = await runVerifier('git', [...args, `verify-${kind}`, '--raw', id], { timeoutMs: left(), env });
    if (check.ok) return;
    throw refuse(`is ${describe(check.said)}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** What git (ssh-keygen, gpg) said, in the words of a refusal. */
function describe(said: string): string {
  if (said === '') return 'not signed';
  if (/no principal matched|NO_PUBKEY|No public key|allowedSignersFile/i.test(said))
    return `signed by a key that is not trusted (${said})`;
  if (/BADSIG|bad signature|Signature verification failed/i.test(said))
    return `signed, but the signature is bad (${said})`;
  return `not signed by a trusted key (${said})`;
}
