/**
 * Run a script as a child process in its own process group, with a time
 * limit. Guarantees: the promise always resolves (spawn failures come back
 * as `error`); on timeout or abort the whole group gets SIGKILL; when the
 * script itself exits, whatever it left behind in its group is killed too,
 * so no grandchild outlives it or keeps its pipes open. Output beyond
 * `maxOutputBytes` per stream is dropped and flagged.
 */
import { spawn } from 'node:child_process';
import { fsReason } from '../../errors.js';

export interface RunOptions {
  argv: readonly string[];
  cwd?: string;
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
  /** Why the process could not be started (ENOENT, EACCES, ...). */
  error?: string;
  durationMs: number;
}

/** After the script exits, how long to wait for its pipes to close before giving up on them. */
const PIPE_GRACE_MS = 1000;

export function runScript(options: RunOptions): Promise<RunOutcome> {
  const started = Date.now();
  const max = options.maxOutputBytes ?? 1024 * 1024;
  return new Promise((resolve) => {
    const [file, ...rest] = options.argv;
    if (!file) {
      resolve({ code: null, signal: null, timedOut: false, aborted: false, stdout: '', stderr: '', truncated: false, error: 'empty command line', durationMs: 0 });
      return;
    }
    let timedOut = false;
    let aborted = false;
    let truncated = false;
    let settled = false;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = { out: 0, err: 0 };
    const child = spawn(file, rest, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already empty.
      }
    };
    const collect = (into: Buffer[], key: 'out' | 'err') => (chunk: Buffer) => {
      const room = max - sizes[key];
      if (room <= 0) {
        truncated = true;
        return;
      }
      if (chunk.length > room) truncated = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      into.push(part);
      sizes[key] += part.length;
    };
    child.stdout.on('data', collect(out, 'out'));
    child.stderr.on('data', collect(err, 'err'));

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    let graceTimer: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null, error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const outcome: RunOutcome = {
        code,
        signal,
        timedOut,
        aborted,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        truncated,
        durationMs: Date.now() - started,
      };
      if (error !== undefined) outcome.error = error;
      resolve(outcome);
    };
    child.on('error', (e) => {
      // Spawn failed (no pid) or a kill failed; only the first matters.
      // Named by reason and code, not by Node's message, which holds the program's absolute path.
      if (child.pid === undefined) finish(null, null, spawnReason(e));
    });
    child.on('exit', (code, signal) => {
      // The script is done: its leftovers die with it, which also closes the pipes.
      killGroup();
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, PIPE_GRACE_MS);
      graceTimer.unref();
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** A failed spawn in a few words with its code (`no such file (ENOENT)`), without the path Node's message carries. */
export function spawnReason(err: NodeJS.ErrnoException): string {
  return err.code ? `${fsReason(err)} (${err.code})` : err.message;
}
