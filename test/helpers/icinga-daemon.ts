/**
 * Starts Icinga 2 (/usr/sbin/icinga2 from icinga2-bin) as a private
 * instance for a test: its own config, data, log, cache, spool and run
 * folders in a temp folder (the -D constants), running as the current user,
 * the API feature alone (an ApiListener on a free loopback port with a
 * certificate for localhost/127.0.0.1 signed by a test CA), one ApiUser,
 * and the host and passive service objects the test names. Readiness is
 * the API answering (bounded). With `commandPipe`, the external command
 * feature too (ExternalCommandListener): a FIFO, `commandPipe` on the
 * result, that Icinga reads Nagios external commands from, as an nsca
 * daemon writes them. `object()` reads an object's attributes back
 * over the API. With `nrpeChecks`, Icinga polls as a monitoring server
 * does: the checker feature runs the ITL's `nrpe` command (check_nrpe) for
 * those services every second. `stop()` sends SIGTERM and waits (SIGKILL
 * after 5 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './agent-process.js';
import { certDir } from './agent-certs.js';
import { waitUntil } from './wait-until.js';

export const ICINGA2 = '/usr/sbin/icinga2';
export const API_USER = 'agent';
export const API_PASSWORD = 'api secret';

export interface IcingaDaemon {
  readonly port: number;
  readonly dir: string;
  /** The CA that signed the API's certificate (PEM file). */
  readonly ca: string;
  /** A CA that did not (PEM file), for the refusal test. */
  readonly otherCa: string;
  /** The external command FIFO (with `commandPipe`), else ''. */
  readonly commandPipe: string;
  /** An object's attributes (`services/host!service` or `hosts/host`), or undefined when absent. */
  object(path: string): Promise<Record<string, unknown> | undefined>;
  log(): string;
  stop(): Promise<void>;
}

export async function startIcingaDaemon(options: {
  hosts: string[];
  services: [host: string, service: string][];
  commandPipe?: boolean;
  /** Services Icinga checks itself, every second, with the ITL's `nrpe` command (Debian's check_nrpe, plain). */
  nrpeChecks?: { host: string; service: string; port: number; command: string }[];
}): Promise<IcingaDaemon> {
  const port = await freePort(); // icinga2, an external daemon, reads its port from its configuration before it starts
  const dir = mkdtempSync(join(tmpdir(), 'icinga2-'));
  for (const d of ['lib', 'log', 'cache', 'spool', 'run']) mkdirSync(join(dir, d));
  const certs = certDir();
  const ca = certs.ca('icinga-ca');
  const server = certs.issue(ca, 'localhost', 'server');
  const other = certs.ca('other-ca');
  const config = join(dir, 'icinga2.conf');
  const commandPipe = options.commandPipe ? join(dir, 'run', 'icinga2.cmd') : '';
  const q = (s: string): string => JSON.stringify(s);
  writeFileSync(
    config,
    [
      'include <itl>',
      'const NodeName = "localhost"',
      'object Endpoint NodeName {}',
      'object Zone "localhost" { endpoints = [ NodeName ] }',
      `object ApiListener "api" { bind_host = "127.0.0.1"; bind_port = ${port}; cert_path = ${q(server.cert)}; key_path = ${q(server.key)}; ca_path = ${q(ca.cert)} }`,
      ...(commandPipe ? [`object ExternalCommandListener "command" { command_path = ${q(commandPipe)} }`] : []),
      ...(options.nrpeChecks?.length
        ? [
            'include <plugins>',
            'const PluginDir = "/usr/lib/nagios/plugins"',
            'object CheckerComponent "checker" {}',
            ...options.nrpeChecks.map(
              (c) =>
                `object Service ${q(c.service)} { host_name = ${q(c.host)}; check_command = "nrpe"; check_interval = 1s; retry_interval = 1s; max_check_attempts = 1; vars.nrpe_address = "127.0.0.1"; vars.nrpe_port = ${c.port}; vars.nrpe_command = ${q(c.command)}; vars.nrpe_no_ssl = true }`,
            ),
          ]
        : []),
      `object ApiUser ${q(API_USER)} { password = ${q(API_PASSWORD)}; permissions = [ "actions/process-check-result", "objects/query/*", "status/query" ] }`,
      ...options.hosts.map((h) => `object Host ${q(h)} { check_command = "dummy"; enable_active_checks = false }`),
      ...options.services.map(
        ([h, s]) =>
          `object Service ${q(s)} { host_name = ${q(h)}; check_command = "dummy"; enable_active_checks = false }`,
      ),
      '',
    ].join('\n'),
  );
  const user = userInfo();
  const defines = {
    RunAsUser: user.username,
    RunAsGroup: user.username,
    DataDir: 'lib',
    LogDir: 'log',
    CacheDir: 'cache',
    SpoolDir: 'spool',
    InitRunDir: 'run',
  };
  const args = [
    'daemon',
    '-c',
    config,
    ...Object.entries(defines).flatMap(([k, v]) => [
      '-D',
      `${k}=${k === 'RunAsUser' || k === 'RunAsGroup' ? v : join(dir, v)}`,
    ]),
  ];
  let output = '';
  const proc: ChildProcess = spawn(ICINGA2, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const kill = (): void => void proc.kill('SIGKILL');
  process.on('exit', kill);
  const caText = readFileSync(ca.cert, 'utf8');
  const api = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          servername: 'localhost',
          ca: caText,
          headers: {
            Accept: 'application/json',
            Authorization: `Basic ${Buffer.from(`${API_USER}:${API_PASSWORD}`).toString('base64')}`,
          },
          timeout: 5000,
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  const daemon: IcingaDaemon = {
    port,
    dir,
    ca: ca.cert,
    otherCa: other.cert,
    commandPipe,
    async object(path) {
      const r = await api(`/v1/objects/${path.split('/').map(encodeURIComponent).join('/')}`);
      if (r.status === 404) return undefined;
      if (r.status !== 200) throw new Error(`icinga2 API ${path}: HTTP ${r.status} ${r.body}`);
      return (JSON.parse(r.body) as { results: { attrs: Record<string, unknown> }[] }).results[0]?.attrs;
    },
    log: () => output,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(timer);
      }
      process.off('exit', kill);
      certs.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitUntil(
      async () => (await api('/v1/status').catch(() => ({ status: 0 }))).status === 200,
      30_000,
      `icinga2 API on ${port}`,
    );
  } catch (err) {
    await daemon.stop();
    throw new Error(`${(err as Error).message}\n${output}`, { cause: err });
  }
  return daemon;
}
