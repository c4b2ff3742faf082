/**
 * A daemon from a Debian package run in the foreground for a test, on a
 * loopback port: `start()` spawns it and waits (bounded) until the port
 * accepts a connection, failing with its output when it exits first;
 * `stop()` sends `stopSignal` and SIGKILL after 3 s; `close()` stops it and
 * removes its folder. A process exit hook kills it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { waitUntil } from './wait-until.js';

export interface ForegroundDaemon {
  start(): Promise<void>;
  /** The process id while it runs (for benchmarks that read its CPU time). */
  pid(): number | undefined;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export function foregroundDaemon(options: {
  name: string;
  command: string;
  args: string[];
  /** The loopback TCP port it listens on, or the path of its unix socket. */
  port: number | string;
  dir: string;
  stopSignal: NodeJS.Signals;
}): ForegroundDaemon {
  let proc: ChildProcess | undefined;
  const kill = (): void => void proc?.kill('SIGKILL');
  process.on('exit', kill);
  const daemon: ForegroundDaemon = {
    pid: () => (proc?.exitCode === null ? proc.pid : undefined),
    async start() {
      let output = '';
      const p = spawn(options.command, options.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      proc = p;
      p.stderr.on('data', (c: Buffer) => (output += c.toString()));
      await waitUntil(
        async () => {
          if (p.exitCode !== null) throw new Error(`${options.name} exited ${p.exitCode}: ${output}`);
          return accepts(options.port);
        },
        5000,
        `${options.name} listening on ${options.port}`,
      );
    },
    async stop() {
      const p = proc;
      proc = undefined;
      if (!p || p.exitCode !== null) return;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill(options.stopSignal);
      const timer = setTimeout(() => p.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(timer);
    },
    async close() {
      await daemon.stop();
      process.off('exit', kill);
      rmSync(options.dir, { recursive: true, force: true });
    },
  };
  return daemon;
}

/** True when a connection to the loopback TCP port (or the unix socket at that path) opens (closed at once). */
export function accepts(port: number | string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = typeof port === 'number' ? connect({ host: '127.0.0.1', port }) : connect({ path: port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
