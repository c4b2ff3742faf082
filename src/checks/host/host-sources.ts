/**
 * Where the host checks read the machine from. Every reader takes a
 * HostSources instead of hard-coding /proc, /sys or running a program, so
 * tests point them at recorded trees and recorded command output (under
 * test/fixtures/host/) without mocking node internals; in the agent they
 * read the real machine (`realHost()`).
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { runProgram } from '../scripts/shared-spawner.js';

/** What a command left behind. `code` is null when it was killed or never started. */
export interface CommandOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started (ENOENT, EACCES, ...). */
  error?: string;
}

export interface CommandOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Runs argv (no shell) and answers its outcome; never rejects. */
export type CommandRunner = (argv: readonly string[], options: CommandOptions) => Promise<CommandOutcome>;

export interface HostSources {
  /** The proc file system: `/proc`, or a recorded copy. */
  readonly proc: string;
  /** The sys file system: `/sys`, or a recorded copy. */
  readonly sys: string;
  /** Prefix of every other absolute path read (`/run/systemd/system`, `/var/lib/apt/lists`): `/` or a recorded tree. */
  readonly root: string;
  readonly run: CommandRunner;
}

/** Runs a command in its own process group with a time limit (killed with its group), C locale, output capped at 4 MiB. */
export const runHostCommand: CommandRunner = async (argv, options) => {
  const env = { ...(options.env ?? process.env), LC_ALL: 'C', LANG: 'C' };
  const r = await runProgram({
    argv,
    env,
    timeoutMs: options.timeoutMs,
    maxOutputBytes: 4 * 1024 * 1024,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const out: CommandOutcome = { code: r.code, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut };
  if (r.error !== undefined) out.error = r.error;
  return out;
};

const REAL: HostSources = { proc: '/proc', sys: '/sys', root: '/', run: runHostCommand };

/** The machine the agent runs on. */
export function realHost(): HostSources {
  return REAL;
}

/** An absolute host path inside the sources' root. */
export function hostPath(host: HostSources, path: string): string {
  return host.root === '/' ? path : join(host.root, path);
}

/** True when the host path exists. */
export async function hostPathExists(host: HostSources, path: string): Promise<boolean> {
  try {
    await access(hostPath(host, path));
    return true;
  } catch {
    return false;
  }
}

/** A short description of a failed command for a check message: exit code and the first line of stderr. */
export function describeFailure(argv: readonly string[], r: CommandOutcome): string {
  const name = argv[0] ?? '';
  if (r.error !== undefined) return `${name} could not be started: ${r.error}`;
  if (r.timedOut) return `${name} timed out`;
  const first = (r.stderr.trim() || r.stdout.trim()).split('\n')[0]?.slice(0, 300) ?? '';
  return `${name} exited with ${r.code ?? 'a signal'}${first ? `: ${first}` : ''}`;
}
