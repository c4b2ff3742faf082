/**
 * A git repository served by Debian's `git daemon` on loopback for a test
 * (git://127.0.0.1:PORT/fleet.git), with a work tree to commit to and push
 * from (`commit`, `forcePush`). Run by foreground-daemon.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './agent-process.js';
import { foregroundDaemon, type ForegroundDaemon } from './foreground-daemon.js';

export interface GitDaemon extends ForegroundDaemon {
  readonly url: string;
  /** Write the files (null: remove it), commit them on main and push; returns the commit id. */
  commit(files: Record<string, string | null>, message: string, signingKey?: string): string;
  /** Point main of the served repository at `commit` (git push --force). */
  forcePush(commit: string): void;
}

export async function startGitDaemon(): Promise<GitDaemon> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'git-daemon-'));
  const repos = join(dir, 'repos');
  const bare = join(repos, 'fleet.git');
  const work = join(dir, 'work');
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync(
      'git',
      ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args],
      { cwd, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] },
    ).trim();
  mkdirSync(repos);
  git(dir, 'init', '--quiet', '--bare', bare);
  git(dir, 'init', '--quiet', work);
  const run = foregroundDaemon({
    name: 'git daemon',
    command: 'git',
    args: [
      'daemon',
      '--reuseaddr',
      '--listen=127.0.0.1',
      `--port=${port}`,
      `--base-path=${repos}`,
      '--export-all',
      '--informative-errors',
      repos,
    ],
    port,
    dir,
    stopSignal: 'SIGTERM',
  });
  await run.start();
  return {
    ...run,
    url: `git://127.0.0.1:${port}/fleet.git`,
    commit(files, message, signingKey) {
      for (const [rel, text] of Object.entries(files)) {
        if (text === null) {
          rmSync(join(work, rel));
          continue;
        }
        mkdirSync(dirname(join(work, rel)), { recursive: true });
        writeFileSync(join(work, rel), text);
      }
      git(work, 'add', '-A');
      // Signed with an ssh key (git's gpg.format=ssh) when one is given.
      const sign = signingKey
        ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${signingKey}`, 'commit', '-S']
        : ['commit'];
      git(work, ...sign, '--quiet', '-m', message);
      git(work, 'push', '--quiet', '--force', bare, 'HEAD:refs/heads/main');
      return git(work, 'rev-parse', 'HEAD');
    },
    forcePush(commit) {
      git(work, 'reset', '--quiet', '--hard', commit);
      git(work, 'push', '--quiet', '--force', bare, 'HEAD:refs/heads/main');
    },
  };
}
