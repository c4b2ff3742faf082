/**
 * Runs scripts through a long-lived spawner process instead of forking the
 * agent for each one: the C spawner (spawner-c/, posix_spawn) when it was
 * built, else the Perl one (spawner-source.ts, which documents the
 * protocol both speak); spawner-program.ts chooses. The same RunOptions and
 * RunOutcome as runScript, the same guarantees (own process group, time
 * limit and abort kill the group, leftovers killed at exit, output capped).
 *
 * Lifecycle: the spawner starts with the first run and lives until stop().
 * If it dies, the runs it had are answered with an error that says so and
 * their process groups are killed; the next run starts a new one. A
 * spawner that cannot start at all hands its runs to the next one (C, then
 * Perl). Where none can run (none there, or one died three times in a row
 * without finishing a run) every run goes through runScript in the agent
 * itself, said once in the log. Its environment is empty (no PERL5OPT or
 * PERL5LIB from the agent's); each script gets the environment of its
 * request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { runScript, spawnReason, type RunOptions, type RunOutcome } from './runner.js';
import { envBlock, killRequest, maxReply, ReplyReader, runRequest, type Reply } from './spawner-frames.js';
import { SPAWNER_PERL } from './spawner-source.js';
import { envGeneration } from '../../settings/variables.js';
import { spawnerCandidates, type SpawnerKind, type SpawnerProgram } from './spawner-program.js';

export type SpawnerLog = (level: 'info' | 'warning', message: string) => void;

export interface SpawnerOptions {
  log?: SpawnerLog;
  /** The spawner to use (AGENT_SCRIPT_SPAWNER); default: the C one when built, else the Perl one; `agent`: runScript in the agent itself. */
  kind?: SpawnerKind;
  /** The perl to start; default: `perl` found in PATH, /usr/bin or /bin. */
  perl?: string;
  /** The C spawner to start; default: the one the build made (dist/bin/script-spawner). */
  program?: string;
}

const DEFAULT_MAX = 1024 * 1024;
/** The spawner's stderr kept for the log line about its exit. */
const STDERR_KEPT = 2000;
const GIVE_UP_AFTER = 3;
/** Reads the program from fd 3, so that ps shows this line and not the whole program. */
const BOOT = 'open(my $s, "<&=", 3) or die "fd 3: $!\\n"; my $p = do { local $/; <$s> }; close $s; eval($p); die $@ if $@; exit 0;';

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
  private failures = 0;
  private fallback: string | undefined;
  /** The spawners still to try, best first; chosen with the first run. */
  private candidates: SpawnerProgram[] | undefined;
  /**
   * The agent's own environment, which scripts get unless their run names
   * another, encoded at the first such run (reading process.env is slow)
   * and again only when a variable has left it since (the secrets a
   * `${env:}` reads: settings/variables.ts).
   */
  private agentEnv: { generation: number; block: Buffer | { bad: string } } | undefined;
  /** The kinds whose first start was logged. */
  private readonly announced = new Set<string>();
  private readonly log: SpawnerLog;

  constructor(private readonly options: SpawnerOptions = {}) {
    this.log = options.log ?? (() => undefined);
    if (options.kind === 'agent') this.fallback = 'AGENT_SCRIPT_SPAWNER=agent';
  }

  /** The kind of spawner that runs the scripts now, or `agent` once they are forked by the agent itself; undefined before the first run. */
  get kind(): SpawnerKind | undefined {
    return this.fallback !== undefined ? 'agent' : this.candidates?.[0]?.kind;
  }

  /** The spawner's pid while it runs (for tests and the log). */
  get pid(): number | undefined {
    return this.helper?.proc.pid;
  }

  /** Why runs go through the agent itself, once they do. */
  get fallbackReason(): string | undefined {
    return this.fallback;
  }

  private ownEnv(): Buffer | { bad: string } {
    const generation = envGeneration();
    if (this.agentEnv?.generation !== generation) this.agentEnv = { generation, block: envBlock(process.env) };
    return this.agentEnv.block;
  }

  /** Runs one script; always resolves, as runScript does. */
  run(options: RunOptions): Promise<RunOutcome> {
    if (this.fallback !== undefined || options.argv.length === 0) return runScript(options);
    const env = options.env === undefined || options.env === process.env ? this.ownEnv() : envBlock(options.env);
    const bad = 'bad' in env ? `the environment variable ${env.bad} holds a NUL character` : [...options.argv, options.cwd ?? ''].some((w) => w.includes('\0')) ? 'a word of the command line holds a NUL character' : undefined;
    if (bad !== undefined || 'bad' in env) return Promise.resolve(failed(bad ?? '', Date.now()));
    const helper = this.helper ?? this.start();
    if (!helper) return runScript(options);
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
    if (this.candidates === undefined) {
      const found = spawnerCandidates(this.options.kind, this.options);
      this.candidates = 'none' in found ? [] : found;
      if ('none' in found) this.giveUp(found.none);
    }
    const program = this.candidates[0];
    if (program === undefined) return undefined;
    const proc = program.kind === 'c'
      ? spawn(program.file, [], { stdio: ['pipe', 'pipe', 'pipe'], env: {}, detached: true })
      : spawn(program.file, ['-e', BOOT], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], env: {}, detached: true });
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
    if (program.kind === 'perl') {
      const source = proc.stdio[3] as Writable;
      source.on('error', () => undefined);
      source.end(SPAWNER_PERL);
    }
    proc.on('error', (err: NodeJS.ErrnoException) => {
      if (proc.pid !== undefined) return;
      if (this.helper === helper) this.helper = undefined;
      const reason = `${program.kind === 'c' ? 'the C script spawner' : 'perl'} could not start: ${spawnReason(err)}`;
      this.candidates?.shift();
      const next = this.candidates?.[0];
      if (next) this.log('warning', `${reason}; the ${next.kind} spawner is used instead`);
      else this.giveUp(reason);
      // Nothing was started: these go to the next spawner, or run in the agent.
      for (const p of helper.pending.values()) {
        p.signal?.removeEventListener('abort', p.onAbort as () => void);
        void this.run(p.options).then(p.resolve);
      }
      helper.pending.clear();
    });
    proc.once('spawn', () => {
      const first = !this.announced.has(program.kind);
      this.announced.add(program.kind);
      this.log('info', first ? `scripts are started by the ${program.kind === 'c' ? 'C' : 'Perl'} script spawner (${program.file}, pid ${proc.pid})` : `script spawner started again (${program.kind}, pid ${proc.pid})`);
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
    this.failures = 0;
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
      this.failures++;
      this.log('warning', `script spawner (pid ${helper.proc.pid}) exited (${why})${detail}; ${helper.pending.size} running script(s) answered with an error, the next run starts a new one`);
    }
    for (const p of helper.pending.values()) {
      p.signal?.removeEventListener('abort', p.onAbort as () => void);
      if (p.pid !== undefined) killGroup(p.pid);
      if (helper.stopping && p.signal?.aborted) p.resolve({ ...failed('', p.started), error: undefined, aborted: true, signal: 'SIGKILL' });
      else p.resolve(failed(helper.stopping ? 'the script spawner was stopped; its process group was killed' : `the script spawner exited (${why}) while it ran; its process group was killed`, p.started));
    }
    helper.pending.clear();
    if (this.failures >= GIVE_UP_AFTER) this.giveUp(`the spawner exited ${this.failures} times in a row (${why})${detail}`);
  }

  private giveUp(reason: string): void {
    if (this.fallback !== undefined) return;
    this.fallback = reason;
    this.log('warning', `scripts are spawned by the agent itself from now on (slower for a large agent): ${reason}`);
  }

  /** Holds the agent's event loop open only while scripts run. */
  private setRef(helper: Helper, on: boolean): void {
    if (helper.refd === on) return;
    helper.refd = on;
    const streams = [helper.proc.stdout, helper.proc.stderr, helper.proc.stdin] as unknown as { ref?(): void; unref?(): void }[];
    for (const s of streams) {
      if (on) s.ref?.();
      else s.unref?.();
    }
    if (on) helper.proc.ref();
    else helper.proc.unref();
  }
}

function failed(error: string, started: number): RunOutcome {
  return { code: null, signal: null, timedOut: false, aborted: false, stdout: '', stderr: '', truncated: false, error, durationMs: Date.now() - started };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already empty.
  }
}
