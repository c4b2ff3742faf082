/**
 * What a program run asks for and what it gives back, for the one way the
 * agent starts programs: the script spawner (spawner.ts, which starts the
 * C program of spawner-c/). Guarantees of every run: the promise always
 * resolves (a program that cannot start comes back as `error`); the
 * program runs in its own process group; on timeout or abort the whole
 * group gets SIGKILL; when the program exits, whatever it left behind in
 * its group is killed too, so no grandchild outlives it or keeps its
 * pipes open (its pipes get a grace of 1 s after the exit); output beyond
 * `maxOutputBytes` per stream is dropped and flagged.
 */
import { fsReason } from '../../errors.js';

export interface RunOptions {
  argv: readonly string[];
  cwd?: string;
  /** The program's environment; the agent's own when absent. */
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Per stream; default 1 MiB. */
  maxOutputBytes?: number;
}

export interface RunOutcome {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** Why the process could not be started (`no such file (ENOENT)`, ...). */
  error?: string;
  durationMs: number;
}

/** A failed spawn in a few words with its code (`no such file (ENOENT)`), without the path a message would carry. */
export function spawnReason(err: NodeJS.ErrnoException): string {
  return err.code ? `${fsReason(err)} (${err.code})` : err.message;
}
