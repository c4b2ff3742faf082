/**
 * A git repository served over https by `git http-backend` (Debian's git)
 * behind Debian's nginx, through Debian's `fcgiwrap` run by the test in
 * the foreground on a unix socket in a temp folder (not as a service), all
 * on loopback: https://127.0.0.1:PORT/git/fleet.git, smart HTTP (ls-remote,
 * fetch), with a work tree to commit to and push from (git-work.ts).
 * `stop()` takes nginx and fcgiwrap away, `start()` brings them back.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foregroundDaemon } from './foreground-daemon.js';
import { gitWork, type GitWork } from './git-work.js';
import { startNginx, type Nginx } from './nginx-daemon.js';
import { childrenOf } from './proc-cpu.js';

export const FCGIWRAP = '/usr/sbin/fcgiwrap';
const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitHttp extends GitWork {
  /** https://127.0.0.1:PORT/git/fleet.git */
  readonly url: string;
  readonly nginx: Nginx;
  /** The process ids of nginx's master and fcgiwrap while they run (git http-backend runs under fcgiwrap). */
  serverPids(): number[];
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `tls`: nginx's certificate and key (certs made by the test, e.g. agent-certs.ts); `children`: fcgiwrap
 * preforks that many (-c) to serve requests in parallel (a benchmark; a test that stops and starts the
 * server keeps one process, see below).
 */
export async function startGitHttp(tls: { cert: string; key: string }, children?: number): Promise<GitHttp> {
  const dir = mkdtempSync(join(tmpdir(), 'git-http-'));
  // nginx's workers run as nobody when the test runs as root: the socket's folder must be reachable.
  chmodSync(dir, 0o755);
  const repos = join(dir, 'repos');
  const work = gitWork(join(repos, 'fleet.git'), join(dir, 'work'));
  const socket = join(dir, 'fcgiwrap.sock');
  const fcgi = foregroundDaemon({
    name: 'fcgiwrap',
    command: FCGIWRAP,
    // One process (no -c): a preforked child would outlive a stop of its parent.
    args: ['-s', `unix:${socket}`, '-p', HTTP_BACKEND, ...(children ? ['-c', String(children)] : [])],
    port: socket,
    dir,
    stopSignal: 'SIGTERM',
  });
  const startFcgi = async (): Promise<void> => {
    rmSync(socket, { force: true });
    await fcgi.start();
    chmodSync(socket, 0o777);
  };
  await startFcgi();
  // fcgiwrap's preforked children (-c) outlive a stop of their parent: they are stopped after it.
  const stopFcgi = async (stop: () => Promise<void>): Promise<void> => {
    const pid = fcgi.pid();
    const kids = pid === undefined ? [] : childrenOf(pid);
    await stop();
    for (const kid of kids) {
      try {
        process.kill(kid, 'SIGTERM');
      } catch {
        // gone with its parent
      }
    }
  };
  const nginx = await startNginx({
    tls,
    locations: `
    location ~ ^/git(/.*)$ {
      fastcgi_pass unix:${socket};
      fastcgi_param SCRIPT_FILENAME ${HTTP_BACKEND};
      fastcgi_param GIT_PROJECT_ROOT ${repos};
      fastcgi_param GIT_HTTP_EXPORT_ALL "";
      fastcgi_param PATH_INFO $1;
      fastcgi_param QUERY_STRING $query_string;
      fastcgi_param REQUEST_METHOD $request_method;
      fastcgi_param CONTENT_TYPE $content_type;
      fastcgi_param CONTENT_LENGTH $content_length;
      fastcgi_param REMOTE_ADDR $remote_addr;
      fastcgi_param GIT_PROTOCOL $http_git_protocol;
    }`,
  });
  return {
    ...work,
    url: `${nginx.httpsBase}/git/fleet.git`,
    nginx,
    serverPids: () => [nginx.pid(), fcgi.pid()].filter((p): p is number => p !== undefined),
    async start() {
      await startFcgi();
      await nginx.start();
    },
    async stop() {
      await nginx.stop();
      await stopFcgi(() => fcgi.stop());
    },
    async close() {
      await nginx.close();
      await stopFcgi(() => fcgi.close());
    },
  };
}
