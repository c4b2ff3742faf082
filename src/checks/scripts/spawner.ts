/**
 * Runs programs through a long-lived spawner process instead of forking the
 * agent for each one: the C spawner (spawner-c/, posix_spawn; built by
 * `npm run build`, spawner-program.ts), the one way the agent starts
 * scripts and host commands. RunOptions and RunOutcome (run-types.ts) say
 * what every run guarantees: own process group, time limit and abort kill
 * the group, leftovers killed at exit, output capped.
 *
 * Lifecycle: the spawner starts with the first run and lives until stop().
 * If it dies, the runs it had are answered with an error that says so and
 * their process groups are killed; the next run starts a new one. Where it
 * is not there (a checkout not built) or cannot start, every run is
 * answered with an error that says why and how to get it. Its environment
 * is empty; each program gets the environment of its request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { spawnReason, type RunOptions, type RunOutcome } from './run-types.js';
import { envBlock, killRequest, maxReply, ReplyReader, runRequest, type Reply } from './spawner-frames.js';
import { envGeneration } from '../../settings/model/variables.js';
import { spawnerProgram } from './spawner-program.js';

export type SpawnerLog = (level: 'info' | 'warning', message: string) => void;

export interface SpawnerOptions {
  log?: SpawnerLog;
  /** The C spawner to start; default: the one the build made (dist/bin/script-spawner). */
  program?: string;
}

const DEFAULT_MAX = 1024 * 1024;
/** The spawner's stderr kept for the log line about its exit. */
const STDERR_KEPT = 2000;

interface Pending {
  resolve: (outcome: RunOutcome) => void;
  options: RunOptions;
  started: number;
  pid?: number;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Helper {
  proc: ChildProcess;
  stdin: Writable;
  pending: Map<number, Pending>;
  stderr: string;
  stopping: boolean;
  refd: boolean;
}

export class ScriptSpawner {
  private helper: Helper | undefined;
  private nextId = 1;
  /** Why no spawner can run here (none built, or it cannot start); runs are answered with it. */
  private missing: string | undefined;
  /**
   * The agent's own environment, which programs get unless their run names
   * another, encoded at the first such run (reading process.env is slow)
   * and again only when a variable has left it since (the secrets a
   * `${env:}` reads: settings/model/variables.ts).
   */
  private agentEnv: { generation: number; block: Buffer | { bad: string } } | undefined;
  private announced = false;
  private readonly log: SpawnerLog;

  constructor(private readonly options: SpawnerOptions = {}) {
    this.log = options.log ?? (() => undefined);
  }

  /** The spawner's pid while it runs (for tests and the log). */
  get pid(): number | undefined {
    return this.helper?.proc.pid;
  }

  /** Why runs are answered with an error instead of run, once they are. */
  get missingReason(): string | undefined {
    return this.missing;
  }

  private ownEnv(): Buffer | { bad: string } {
    const generation = envGeneration();
    if (this.agentEnv?.generation !== generation) this.agentEnv = { generation, block: envBlock(process.env) };
    return this.agentEnv.block;
  }

  /** Runs one program; always resolves (run-types.ts). */
  run(options: RunOptions): Promise<RunOutcome> {
    const started = Date.now();
    if (options.argv.length === 0) return Promise.resolve(failed('empty command line', started));
    const env = options.env === undefined || options.env === process.env ? this.ownEnv() : envBlock(options.env);
    const bad =
      'bad' in env
        ? `the environment variable ${env.bad} holds a NUL character`
        : [...options.argv, options.cwd ?? ''].some((w) => w.includes('\0'))
          ? 'a word of the command line holds a NUL character'
          : undefined;
    if (bad !== undefined || 'bad' in env) return Promise.resolve(failed(bad ?? '', started));
    const helper = this.helper ?? this.start();
    if (!helper) return Promise.resolve(failed(this.missing ?? 'no script spawner', started));
    const id = this.nextId++;
    const max = options.maxOutputBytes ?? DEFAULT_MAX;
    return new Promise((resolve) => {
      const pending: Pending = { resolve, options, started: Date.now() };
      helper.pending.set(id, pending);
      this.setRef(helper, true);
      helper.stdin.write(runRequest(id, options.timeoutMs, max, options.cwd ?? '', options.argv, env));
      const signal = options.signal;
      if (signal) {
        pending.signal = signal;
        pending.onAbort = () => {
          if (helper.pending.has(id)) helper.stdin.write(killRequest(id));
        };
        if (signal.aborted) pending.onAbort();
        else signal.addEventListener('abort', pending.onAbort, { once: true });
      }
    });
  }

  /** Ends the spawner: it kills the groups of the scripts still running, whose runs are answered as stopped. */
  stop(): void {
    const helper = this.helper;
    if (!helper) return;
    helper.stopping = true;
    this.helper = undefined;
    helper.stdin.end();
  }

  private start(): Helper | undefined {
    const program = spawnerProgram(this.options.program);
    if (typeof program !== 'string') {
      this.markMissing(program.none);
      return undefined;
    }
    const proc = spawn(program, [], { stdio: ['pipe', 'pipe', 'pipe'], env: {}, detached: true });
    const { stdin, stdout, stderr } = proc as ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };
    const helper: Helper = { proc, stdin, pending: new Map(), stderr: '', stopping: false, refd: true };
    this.helper = helper;
    const reader = new ReplyReader(maxReply(DEFAULT_MAX * 64));
    stdout.on('data', (chunk: Buffer) => {
      let replies: Reply[];
      try {
        replies = reader.push(chunk);
      } catch (err) {
        helper.stderr += `unreadable reply: ${(err as Error).message}`;
        proc.kill('SIGKILL');
        return;
      }
      for (const r of replies) this.onReply(helper, r);
    });
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string) => {
      if (helper.stderr.length < STDERR_KEPT) helper.stderr += text.slice(0, STDERR_KEPT - helper.stderr.length);
    });
    // EPIPE when it died: its exit is handled below.
    stdin.on('error', () => undefined);
    proc.on('error', (err: NodeJS.ErrnoException) => {
      if (proc.pid !== undefined) return;
      if (this.helper === helper) this.helper = undefined;
      this.markMissing(`the script spawner ${program} could not start: ${spawnReason(err)}`);
      // Nothing was started: each run is answered with the reason (a later run tries again).
      for (const p of helper.pending.values()) {
        p.signal?.removeEventListener('abort', p.onAbort as () => void);
        p.resolve(failed(this.missing ?? '', p.started));
      }
      helper.pending.clear();
    });
    proc.once('spawn', () => {
      this.missing = undefined;
      this.log(
        'info',
        this.announced
          ? `script spawner started again (pid ${proc.pid})`
          : `programs are started by the script spawner (${program}, pid ${proc.pid})`,
      );
      this.announced = true;
    });
    // 'close', not 'exit': the replies it wrote before exiting are read first.
    proc.on('close', (code: number | null, signal: NodeJS.Signals | null) => this.onExit(helper, code, signal));
    this.setRef(helper, false);
    return helper;
  }

  private onReply(helper: Helper, r: Reply): void {
    const p = helper.pending.get(r.id);
    if (!p) return;
    if (r.kind === 'started') {
      p.pid = r.pid;
      return;
    }
    helper.pending.delete(r.id);
    if (helper.pending.size === 0) this.setRef(helper, false);
    p.signal?.removeEventListener('abort', p.onAbort as () => void);
    const outcome: RunOutcome = {
      code: r.code,
      signal: r.signal,
      timedOut: r.timedOut,
      aborted: r.aborted,
      stdout: r.stdout.toString('utf8'),
      stderr: r.stderr.toString('utf8'),
      truncated: r.truncated,
      durationMs: Date.now() - p.started,
    };
    if (r.errno !== undefined) outcome.error = spawnReason(Object.assign(new Error(r.errno), { code: r.errno }));
    p.resolve(outcome);
  }

  private onExit(helper: Helper, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.helper === helper) this.helper = undefined;
    if (helper.proc.pid === undefined) return;
    const why = signal ? `killed by ${signal}` : `exit code ${code}`;
    const detail = helper.stderr.trim() === '' ? '' : `: ${helper.stderr.trim().split('\n')[0]}`;
    if (!helper.stopping) {
      this.log(
        'warning',
        `script spawner (pid ${helper.proc.pid}) exited (${why})${detail}; ${helper.pending.size} running script(s) answered with an error, the next run starts a new one`,
      );
    }
    for (const p of helper.pending.values()) {
      p.signal?.removeEventListener('abort', p.onAbort as () => void);
      if (p.pid !== undefined) killGroup(p.pid);
      if (helper.stopping && p.signal?.aborted)
        p.resolve({ ...failed('', p.started), error: undefined, aborted: true, signal: 'SIGKILL' });
      else
        p.resolve(
          failed(
            helper.stopping
              ? 'the script spawner was stopped; its process group was killed'
              : `the script spawner exited (${why}) while it ran; its process group was killed`,
            p.started,
          ),
        );
    }
    helper.pending.clear();
  }

  /** Said once per reason: runs are answered with it until a spawner starts. */
  private markMissing(reason: string): void {
    if (this.missing !== reason) this.log('warning', `programs cannot be started: ${reason}`);
    this.missing = reason;
  }

  /** Holds the agent's event loop open only while scripts run. */
  private setRef(helper: Helper, on: boolean): void {
    if (helper.refd === on) return;
    helper.refd = on;
    const streams = [helper.proc.stdout, helper.proc.stderr, helper.proc.stdin] as unknown as {
      ref?(): void;
      unref?(): void;
    }[];
    for (const s of streams) {
      if (on) s.ref?.();
      else s.unref?.();
    }
    if (on) helper.proc.ref();
    else helper.proc.unref();
  }
}

function failed(error: string, started: number): RunOutcome {
  return {
    code: null,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: '',
    stderr: '',
    truncated: false,
    error,
    durationMs: Date.now() - started,
  };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already empty.
  }
}
