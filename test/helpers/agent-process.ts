/**
 * Start the agent as a user does: `node dist/agent.cjs run --settings
 * <tmp>/agent.ini` in a fresh temp folder, with its output captured.
 * Every wait is bounded; `stop()` sends SIGTERM (SIGKILL after 10 s) and
 * removes the folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `agent` command as built and installed (the bundle's launcher, package.json "bin"), not dist/src/main.js. */
export const MAIN = fileURLToPath(new URL('../../agent.cjs', import.meta.url));
export const REPO = fileURLToPath(new URL('../../..', import.meta.url));

export interface AgentProcess {
  dir: string;
  settingsFile: string;
  proc: ChildProcess;
  /** performance.now() right before the spawn: what a benchmark times a start from (the folder and files are written before it). */
  spawnedAt: number;
  /** Everything the process printed so far (stdout and stderr interleaved). */
  logs(): string;
  /** Resolve with the first match of re in the output (past or future); reject after ms. */
  waitForLog(re: RegExp, ms?: number, from?: number): Promise<RegExpMatchArray>;
  /** Length of the output so far, to wait only for what comes after. */
  mark(): number;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
  /** SIGTERM, wait for exit, remove the folder; resolves with the exit code. */
  stop(options?: { keepDir?: boolean }): Promise<number | null>;
}

export interface StartOptions {
  ini: string;
  /** Extra files relative to the temp folder. */
  files?: Record<string, string>;
  /** Wait for "agent ready" (default true). */
  waitReady?: boolean;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Limit of open files of the agent process (prlimit --nofile), to see what exhausting them would do. */
  nofile?: number;
  /** Where the settings file goes, relative to the temp folder (default agent.ini). */
  settingsPath?: string;
  /**
   * Run the agent as this user and group id (setpriv, no supplementary groups) instead of the
   * test's root, the temp folder given to it: to see what a process of the agent's own user may do.
   */
  asUser?: number;
  /** With asUser: the group id (default the same number as the user id). */
  asGroup?: number;
  /** Start the agent with no_new_privs set (setpriv --no-new-privs), as the packaged unit's NoNewPrivileges=yes does. */
  noNewPrivs?: boolean;
  /**
   * The runtime and launcher to run instead of this node and MAIN: a packaged tree's, e.g. the
   * arm64 package's node under qemu-aarch64-static and its dist/agent.cjs.
   */
  command?: readonly [string, ...string[]];
}

export async function startAgent(options: StartOptions): Promise<AgentProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-test-'));
  const settingsFile = join(dir, options.settingsPath ?? 'agent.ini');
  mkdirSync(dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, options.ini);
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  const args = ['run', '--settings', settingsFile];
  const user = options.asUser;
  const group = options.asGroup ?? user;
  if (user !== undefined && group !== undefined) for (const path of [dir, ...walk(dir)]) chownSync(path, user, group);
  // prlimit and setpriv exec the command: the child's pid is the agent's.
  const wrappers = [
    ...(options.nofile !== undefined ? ['/usr/bin/prlimit', `--nofile=${options.nofile}`] : []),
    ...(user !== undefined || options.noNewPrivs === true
      ? [
          '/usr/bin/setpriv',
          ...(user !== undefined ? [`--reuid=${user}`, `--regid=${group ?? user}`, '--clear-groups'] : []),
          ...(options.noNewPrivs === true ? ['--no-new-privs'] : []),
        ]
      : []),
  ];
  const [program, ...programArgs] = [...wrappers, ...(options.command ?? [process.execPath, MAIN]), ...args] as [
    string,
    ...string[],
  ];
  const spawnedAt = performance.now();
  const proc = spawn(program, programArgs, {
    cwd: dir,
    env: { ...process.env, AGENT_LOG_LEVEL: 'debug', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const w of [...waiters]) w();
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const w of [...waiters]) w();
  });

  const waitForLog = (re: RegExp, ms = 10_000, from = 0): Promise<RegExpMatchArray> =>
    new Promise((res, rej) => {
      const check = (): void => {
        const m = output.slice(from).match(re);
        if (m) {
          done();
          res(m);
        } else if (ended) {
          done();
          rej(new Error(`agent exited before printing ${re}; output:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        rej(new Error(`timed out after ${ms} ms waiting for ${re}; output:\n${output}`));
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  const agent: AgentProcess = {
    dir,
    settingsFile,
    proc,
    spawnedAt,
    logs: () => output,
    mark: () => output.length,
    waitForLog,
    exited,
    async stop(opts = {}) {
      if (!ended) {
        proc.kill('SIGTERM');
        const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
      return exited;
    },
  };
  if (options.waitReady !== false) {
    try {
      await waitForLog(/agent ready/, options.readyTimeoutMs ?? 20_000);
    } catch (err) {
      await agent.stop();
      throw err;
    }
  }
  return agent;
}

/**
 * The port the web server took, from its "listening on" line (past or
 * future, after `from`): with `port = 0s` in [/settings/WEB/server] the
 * system picks a free one, so a test never races another for a port that
 * was free a moment ago (freePort).
 */
export async function webPort(agent: AgentProcess, from = 0): Promise<number> {
  const m = await agent.waitForLog(/web server listening on https?:\/\/\S+:(\d+)/, 20_000, from);
  return Number(m[1]);
}

/** The port RemoteServer, AgentServer or NSClientServer took with `port = 0`, from its "listening on" line (past or future, after `from`). */
export async function listenerPort(
  agent: AgentProcess,
  module: 'RemoteServer' | 'AgentServer' | 'NSClientServer',
  from = 0,
): Promise<number> {
  const m = await agent.waitForLog(new RegExp(`${module}: listening on \\S+:(\\d+) `), 20_000, from);
  return Number(m[1]);
}

/** Every path under `dir`. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((rel) => join(dir, rel));
}

/** A TCP port that was free a moment ago on 127.0.0.1 (racy: prefer port 0 and webPort or listenerPort). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Write a file atomically (temp + rename), as editors and git checkout do. */
export function replaceFile(file: string, text: string): void {
  const tmp = `${file}.swp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
