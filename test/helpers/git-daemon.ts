/**
 * A git repository served by Debian's `git daemon` on loopback for a test
 * (git://127.0.0.1:PORT/fleet.git), with a work tree to commit to and push
 * from (git-work.ts). Run by foreground-daemon.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './agent-process.js';
import { foregroundDaemon, type ForegroundDaemon } from './foreground-daemon.js';
import { gitWork, type GitWork } from './git-work.js';

export type { SigningKey } from './git-work.js';

export interface GitDaemon extends ForegroundDaemon, GitWork {
  readonly url: string;
}

export async function startGitDaemon(): Promise<GitDaemon> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'git-daemon-'));
  const repos = join(dir, 'repos');
  const work = gitWork(join(repos, 'fleet.git'), join(dir, 'work'));
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
  return { ...run, ...work, url: `git://127.0.0.1:${port}/fleet.git` };
}
