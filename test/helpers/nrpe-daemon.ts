/**
 * Starts Debian's NRPE daemon (/usr/sbin/nrpe) on a free loopback port for a
 * test, in the foreground (-f) so this process is its parent and can wait
 * for it. Readiness is the "Listening for connections" log line, waited for
 * at most 5 s. `stop()` always kills it (SIGTERM, then SIGKILL after 3 s) and
 * removes its folder; a process exit hook kills it too.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './agent-process.js';
import { waitUntil } from './wait-until.js';

export const NRPE_DAEMON = '/usr/sbin/nrpe';
export const CHECK_NRPE = '/usr/lib/nagios/plugins/check_nrpe';

/** Commands every daemon started here defines. */
export const DAEMON_COMMANDS: Record<string, string> = {
  check_ok: `/bin/echo 'OK: fine|x=1;2;3'`,
  check_warn: `/bin/sh -c 'echo "WARNING: meh|w=5"; exit 1'`,
  check_args: `/bin/echo OK: args $ARG1$ $ARG2$`,
  check_big: `/bin/sh -c 'head -c 3000 /dev/zero | tr "\\000" x'`,
  check_slow: `/bin/sleep 10`,
};

export interface NrpeDaemon {
  readonly port: number;
  readonly dir: string;
  /** The daemon's process id (it runs in the foreground). */
  readonly pid: number;
  /** The daemon's log so far. */
  log(): string;
  stop(): Promise<void>;
}

export interface NrpeDaemonOptions {
  /** Plain TCP (-n) instead of TLS. */
  plain?: boolean;
  /** Seconds before the daemon kills a command (default 2). */
  commandTimeout?: number;
  /** Extra nrpe.cfg lines. */
  extra?: string;
  /** The daemon's allowed_hosts (default 127.0.0.1). */
  allowedHosts?: string;
}

export async function startNrpeDaemon(options: NrpeDaemonOptions = {}): Promise<NrpeDaemon> {
  const port = await freePort(); // nrpe, an external daemon, reads its port from nrpe.cfg before it starts
  const dir = mkdtempSync(join(tmpdir(), 'nrpe-daemon-'));
  chmodSync(dir, 0o755);
  const logFile = join(dir, 'nrpe.log');
  const lines = [
    `log_file=${logFile}`,
    'debug=1',
    'disable_syslog=1',
    `pid_file=${join(dir, 'nrpe.pid')}`,
    'server_address=127.0.0.1',
    `server_port=${port}`,
    `allowed_hosts=${options.allowedHosts ?? '127.0.0.1'}`,
    'connection_timeout=30',
    `command_timeout=${options.commandTimeout ?? 2}`,
    'dont_blame_nrpe=1',
    ...Object.entries(DAEMON_COMMANDS).map(([name, cmd]) => `command[${name}]=${cmd}`),
  ];
  if (process.getuid?.() === 0) lines.push('nrpe_user=nagios', 'nrpe_group=nagios');
  if (options.extra) lines.push(options.extra);
  writeFileSync(join(dir, 'nrpe.cfg'), `${lines.join('\n')}\n`);
  const args = ['-c', join(dir, 'nrpe.cfg'), '-f', ...(options.plain ? ['-n'] : [])];
  const child = spawn(NRPE_DAEMON, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const log = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => log().includes('Listening for connections on port'), child, 5000);
  } catch (err) {
    const text = log();
    await stop();
    throw new Error(`${(err as Error).message}; nrpe log:\n${text}`, { cause: err });
  }
  return { port, dir, pid: child.pid as number, log, stop };
}

async function waitFor(ready: () => boolean, child: ChildProcess, ms: number): Promise<void> {
  await waitUntil(
    () => {
      if (child.exitCode !== null) throw new Error(`nrpe exited with code ${child.exitCode} before it was ready`);
      return ready();
    },
    ms,
    'nrpe ready',
  );
}

/** Runs Debian's check_nrpe against 127.0.0.1:port (15 s cap); resolves with its exit code and output. */
export function checkNrpe(port: number, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      CHECK_NRPE,
      ['-H', '127.0.0.1', '-p', String(port), '-t', '10', ...args],
      { timeout: 15_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, out: `${stdout}${stderr}`.trim() });
      },
    );
  });
}
