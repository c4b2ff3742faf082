/**
 * A bare repository for a test's git server to serve (`bare`), with a work
 * tree to commit to and push from: `commit` (signed with an ssh key, or an
 * OpenPGP key of a test GNUPGHOME, when asked), `tag` and `forcePush`.
 * git-daemon.ts and git-http.ts serve it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** An ssh private key file, or an OpenPGP key (its id) in a test's own GNUPGHOME. */
export type SigningKey = string | { gpgKey: string; gnupgHome: string };

export interface GitWork {
  /** The bare repository the server serves. */
  readonly bare: string;
  /** Write the files (null: remove it), commit them on main and push; returns the commit id. */
  commit(files: Record<string, string | null>, message: string, signingKey?: SigningKey): string;
  /** Make an annotated tag of main (signed when a key is given) and push it. */
  tag(name: string, message: string, signingKey?: SigningKey): void;
  /** Point main of the served repository at `commit` (git push --force). */
  forcePush(commit: string): void;
}

function signArgs(key: SigningKey | undefined): { args: string[]; env: Record<string, string> } {
  if (key === undefined) return { args: [], env: {} };
  if (typeof key === 'string') return { args: ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`], env: {} };
  return {
    args: ['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${key.gpgKey}`],
    env: { GNUPGHOME: key.gnupgHome },
  };
}

/** Make `bare` (a bare repository, main its default branch) and `work` (its work tree) under `dir`. */
export function gitWork(bare: string, work: string): GitWork {
  const git = (cwd: string, args: string[], env: Record<string, string> = {}): string =>
    execFileSync(
      'git',
      ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
      { cwd, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    ).trim();
  mkdirSync(dirname(bare), { recursive: true });
  git(dirname(bare), ['init', '--quiet', '--bare', bare]);
  git(dirname(bare), ['init', '--quiet', work]);
  return {
    bare,
    commit(files, message, signingKey) {
      for (const [rel, text] of Object.entries(files)) {
        if (text === null) {
          rmSync(join(work, rel));
          continue;
        }
        mkdirSync(dirname(join(work, rel)), { recursive: true });
        writeFileSync(join(work, rel), text);
      }
      git(work, ['add', '-A']);
      const sign = signArgs(signingKey);
      git(work, [...sign.args, 'commit', ...(signingKey ? ['-S'] : []), '--quiet', '-m', message], sign.env);
      git(work, ['push', '--quiet', '--force', bare, 'HEAD:refs/heads/main']);
      return git(work, ['rev-parse', 'HEAD']);
    },
    tag(name, message, signingKey) {
      const sign = signArgs(signingKey);
      git(work, [...sign.args, 'tag', '--force', signingKey ? '-s' : '-a', '-m', message, name], sign.env);
      git(work, ['push', '--quiet', '--force', bare, `refs/tags/${name}:refs/tags/${name}`]);
    },
    forcePush(commit) {
      git(work, ['reset', '--quiet', '--hard', commit]);
      git(work, ['push', '--quiet', '--force', bare, 'HEAD:refs/heads/main']);
    },
  };
}
