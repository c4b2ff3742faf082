/**
 * Starts Debian's NSCA daemon (/usr/sbin/nsca from the nsca package) for a
 * test, in the foreground (-f) on a loopback port, with its own config:
 * the given decryption method and password, writing the external commands
 * it receives to a plain file (append_to_file=1) that `lines()` reads, or
 * to `commandFile` when given (a monitoring server's command pipe, which
 * `lines()` does not read).
 * Readiness is the port accepting a connection (bounded). `stop()` kills it
 * (SIGTERM, then SIGKILL after 3 s); `start()` brings it back on the same
 * port and file. A process exit hook kills it too.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './agent-process.js';
import { foregroundDaemon } from './foreground-daemon.js';

export const NSCA_DAEMON = '/usr/sbin/nsca';
export const SEND_NSCA = '/usr/sbin/send_nsca';

export interface NscaDaemon {
  readonly port: number;
  readonly dir: string;
  readonly commandFile: string;
  /** The command lines written so far. */
  lines(): string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops and removes the folder. */
  close(): Promise<void>;
}

export async function startNscaDaemon(options: {
  method: number;
  password: string;
  port?: number;
  /** An existing command file or FIFO to write to instead of the daemon's own file. */
  commandFile?: string;
}): Promise<NscaDaemon> {
  const port = options.port ?? (await freePort()); // nsca, an external daemon, reads its port from nsca.cfg before it starts
  const dir = mkdtempSync(join(tmpdir(), 'nsca-daemon-'));
  const commandFile = options.commandFile ?? join(dir, 'nagios.cmd');
  const config = join(dir, 'nsca.cfg');
  if (options.commandFile === undefined) writeFileSync(commandFile, '');
  writeFileSync(
    config,
    [
      `server_port=${port}`,
      'server_address=127.0.0.1',
      `command_file=${commandFile}`,
      `alternate_dump_file=${join(dir, 'dump')}`,
      `pid_file=${join(dir, 'nsca.pid')}`,
      'append_to_file=1',
      'aggregate_writes=0',
      'max_packet_age=30',
      'debug=0',
      `password=${options.password}`,
      `decryption_method=${options.method}`,
      '',
    ].join('\n'),
  );
  const run = foregroundDaemon({
    name: 'nsca',
    command: NSCA_DAEMON,
    args: ['-c', config, '-f'],
    port,
    dir,
    stopSignal: 'SIGTERM',
  });
  const daemon: NscaDaemon = {
    port,
    dir,
    commandFile,
    lines: () =>
      options.commandFile === undefined && existsSync(commandFile)
        ? readFileSync(commandFile, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
    ...run,
  };
  await daemon.start();
  return daemon;
}
