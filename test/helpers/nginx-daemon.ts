/**
 * Starts Debian's nginx (/usr/sbin/nginx) for a test, in the foreground,
 * on a loopback port, with its own configuration, logs and temp folders in
 * a temp folder: `www/` is served as static files (ETag and 304 as nginx
 * does them), plus the `locations` given (raw nginx `location` blocks).
 * Run by foreground-daemon.ts (stopped with SIGQUIT, nginx's graceful stop).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './agent-process.js';
import { foregroundDaemon } from './foreground-daemon.js';

export const NGINX = '/usr/sbin/nginx';

export interface Nginx {
  readonly port: number;
  readonly dir: string;
  /** The folder served at / . */
  readonly www: string;
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  /** `https://127.0.0.1:TLSPORT` when started with `tls` (the same files), else ''. */
  readonly httpsBase: string;
  /** The access log's lines so far (`$status $request`). */
  accessLines(): string[];
  /** The master's process id while it runs (its worker is its child). */
  pid(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startNginx(
  options: { locations?: string; tls?: { cert: string; key: string } } = {},
): Promise<Nginx> {
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : 0;
  const tls = options.tls
    ? `    listen 127.0.0.1:${tlsPort} ssl;\n    ssl_certificate ${options.tls.cert};\n    ssl_certificate_key ${options.tls.key};\n`
    : '';
  const dir = mkdtempSync(join(tmpdir(), 'nginx-test-'));
  // Workers run as nobody when the test runs as root: the folders must be readable by others.
  chmodSync(dir, 0o755);
  const www = join(dir, 'www');
  mkdirSync(www, { mode: 0o755 });
  for (const t of ['client', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, `${t}-temp`));
  const access = join(dir, 'access.log');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 64; }
http {
  log_format short '$status $request';
  access_log ${access} short;
  client_body_temp_path ${dir}/client-temp;
  proxy_temp_path ${dir}/proxy-temp;
  fastcgi_temp_path ${dir}/fastcgi-temp;
  uwsgi_temp_path ${dir}/uwsgi-temp;
  scgi_temp_path ${dir}/scgi-temp;
  types { text/plain ini txt; text/html html; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
${tls}    root ${www};
${options.locations ?? ''}
  }
}
`,
  );
  const run = foregroundDaemon({
    name: 'nginx',
    command: NGINX,
    args: ['-c', conf, '-p', dir, '-e', join(dir, 'error.log')],
    port,
    dir,
    stopSignal: 'SIGQUIT',
  });
  const daemon: Nginx = {
    port,
    dir,
    www,
    base: `http://127.0.0.1:${port}`,
    httpsBase: options.tls ? `https://127.0.0.1:${tlsPort}` : '',
    accessLines: () =>
      existsSync(access)
        ? readFileSync(access, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
    ...run,
  };
  await daemon.start();
  return daemon;
}

/** Write a file under the served folder (readable by nginx's workers). */
export function serve(nginx: Nginx, rel: string, body: string | Buffer): void {
  const file = join(nginx.www, rel);
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o755 });
  writeFileSync(file, body, { mode: 0o644 });
}
