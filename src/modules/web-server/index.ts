/**
 * WEBServer: the JSON API and the web UI over HTTPS (port `8443s`) or HTTP
 * (port without `s`).
 *
 * start: builds the app (src/web/app.ts), loads or creates the certificate,
 * listens on `bind to` (empty = every address) and the port, and logs
 * `web server listening on https://127.0.0.1:PORT`. When the effective web
 * password is empty, a strong one is generated once and kept in
 * `${state}/web-password` (0600: stored-password.ts), told as
 * `web password for user root: <pw>` on stdout unless stdout is the journal.
 *
 * apply(next): takes the new snapshot at once (passwords, users, roles,
 * allowed hosts, limits apply to the next request). A new certificate on the
 * same listener is swapped in place (setSecureContext); a changed port, bind
 * address or scheme rebinds: the new listener is up before the old one
 * closes (when the port is the same, the old one closes first). When the new
 * listener cannot be opened, the old one keeps serving and the error is
 * logged (AGENT_ERR_WEB_LISTEN). Disabling WEBServer stops the module, which
 * closes the listener.
 *
 * Every listener caps its connections in total and per address and closes
 * one that has not sent its first request's headers (TLS handshake
 * included) within `timeout` of being accepted (connection-guard.ts); the
 * limits apply in place.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { AgentError, errorMessage, formatMessage } from '../../errors.js';
import { consoleIsJournal } from '../../log-journal.js';
import { PASSWORD_FILE_NAME, storedPassword, type StoredPassword } from './stored-password.js';
import type { Logger } from '../../log.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { ConnectionGuard, type ConnectionLimits } from '../../protocols/connection-guard.js';
import { expandVariables } from '../../settings/variables.js';
import { buildApp, type WebApp } from '../../web/app.js';
import { rootPassword, WEB_SECTION } from '../../web/access.js';
import { loadOrCreateCertificate, type LoadedCertificate } from '../../protocols/server-certificate.js';
import { answerClientError, SecureResponse } from '../../web/security-headers.js';
import type { AgentModule, ModuleContext } from '../module.js';
import type { AgentControl } from '../../core/control.js';
import { rebind } from '../rebind.js';
import { assertTlsFiles } from '../../settings/tls-checks.js';

type Server = HttpServer | HttpsServer;

/** What decides the listener; a change of any field rebinds or swaps the certificate. */
interface ListenerConfig {
  port: number;
  tls: boolean;
  host: string;
  cert: string;
  key: string;
  /** `certificate key` is written in the settings (a default key yields to one inside the certificate file). */
  keyExplicit: boolean;
}

/** Marks a connection whose first request the guard has been told about. */
const FIRST_SERVED = Symbol('agent.firstServed');

/** Time given to open requests when a listener closes, before connections are cut. */
const CLOSE_GRACE_MS = 2000;
/**
 * The web server asks no client certificate (Basic auth), so its TLS context needs no trust
 * store: an empty CA list keeps node from loading its ~140 root certificates into it (about 45 ms
 * of the agent's start, the first TLS context of the process). What it sends is unchanged: the
 * certificate file's own chain (OpenSSL would only have added a root the file's last
 * certificate names as issuer, which clients ignore).
 */
const NO_CLIENT_CAS: string[] = [];

/**
 * The generated root password and the file that keeps it (stored-password.ts)
 * live as long as the process, not the module instance: a restart, a retry or
 * an unload and load of WEBServer keep it, so it is told once.
 */
let stored: StoredPassword | undefined;

type Settings = SettingsOf<'WEBServer'>;

/**
 * WEBServer's context: the one module whose catalogue entry asks for the
 * control interface (load, unload, edit settings) for the API and the UI;
 * the module runner fills it (start fails without it).
 */
export interface WebServerContext extends ModuleContext<Settings> {
  readonly control?: AgentControl;
}

export function createModule(): AgentModule<Settings, WebServerContext> {
  let snapshot: Settings | undefined;
  let web: WebApp | undefined;
  let server: Server | undefined;
  let config: ListenerConfig | undefined;
  let log: Logger | undefined;
  let guard: ConnectionGuard | undefined;

  let announced = false;
  const ensurePassword = (s: Settings): void => {
    if (stored !== undefined || rootPassword(s, undefined) !== '') return;
    stored = storedPassword(s.variables.state);
  };
  // Told once, and only when a listener is up: a password for a server
  // that could not bind would be a promise the agent cannot keep. The
  // password itself goes to a terminal or a redirect, never to the journal.
  const announcePassword = (): void => {
    if (stored === undefined || announced || !server) return;
    announced = true;
    if (stored.file !== undefined) log?.info(`the password of web user root is in ${stored.file}`);
    else log?.warning(`AGENT_WARN_STATE_FOLDER: ${formatMessage('AGENT_WARN_STATE_FOLDER', [PASSWORD_FILE_NAME, snapshot?.variables.state ?? '', stored.problem ?? ''])}: the generated password of web user root lasts only as long as this process`);
    if (!consoleIsJournal()) process.stdout.write(`web password for user root: ${stored.password}\n`);
  };

  /**
   * The listener's certificate and key, checked (created self-signed when
   * missing); undefined for plain HTTP. With `settings`, a problem of the
   * files throws the lines `agent settings validate` prints (TlsFilesError).
   */
  const loadTls = async (cfg: ListenerConfig, settings?: Settings): Promise<LoadedCertificate | undefined> => {
    if (!cfg.tls) return undefined;
    if (settings) assertTlsFiles(settings, 'WEBServer');
    const pems = await loadOrCreateCertificate({ cert: cfg.cert, key: cfg.key, keyExplicit: cfg.keyExplicit });
    if (pems.generated) log?.info(`created a self-signed certificate ${cfg.cert} (key ${cfg.key})`);
    return pems;
  };

  const open = async (cfg: ListenerConfig, pems: LoadedCertificate | undefined): Promise<Server> => {
    const handler = (web as WebApp).handler;
    let srv: Server;
    if (pems) {
      // noDelay: small JSON answers must not wait for Nagle's algorithm.
      // ALPN: curl --http1.0 offers only http/1.0, which Node's default list leaves out.
      // SecureResponse: every head written carries the security headers (security-headers.ts).
      srv = createHttpsServer({ cert: pems.cert, key: pems.key, ca: NO_CLIENT_CAS, minVersion: 'TLSv1.2', noDelay: true, ALPNProtocols: ['http/1.1', 'http/1.0'], ServerResponse: SecureResponse }, handler);
    } else {
      srv = createHttpServer({ noDelay: true, ServerResponse: SecureResponse }, handler);
    }
    // Node's own 400/408/431 for a request it cannot parse, with the security headers.
    srv.on('clientError', answerClientError);
    srv.headersTimeout = 20_000;
    srv.requestTimeout = 60_000;
    // Limits on the raw connection, before any TLS byte is read; the deadline ends with the first request.
    const g = guard as ConnectionGuard;
    srv.on('connection', (raw: Socket) => void g.admit(raw));
    // Once per connection: later requests on it have nothing left to clear.
    srv.on('request', (req: IncomingMessage) => {
      const socket = req.socket as Socket & { [FIRST_SERVED]?: true };
      if (socket[FIRST_SERVED]) return;
      socket[FIRST_SERVED] = true;
      g.served(socket);
    });
    await listen(srv, cfg);
    log?.info(`web server listening on ${urlOf(cfg, srv)}`);
    return srv;
  };

  return {
    name: 'WEBServer',

    async start(ctx) {
      const control = ctx.control;
      if (control === undefined) throw new Error('WEBServer started without the control interface (its catalogue entry asks for it)');
      log = ctx.log;
      snapshot = ctx.settings;
      guard = new ConnectionGuard(limitsOf(snapshot), ctx.log, 'web');
      ensurePassword(snapshot);
      web = buildApp({ core: ctx.core, control, getSnapshot: () => snapshot as Settings, generatedPassword: () => stored?.password, log: ctx.log });
      config = listenerConfig(snapshot);
      const tls = await loadTls(config, snapshot);
      // Given up (time limit, agent stopping): open nothing.
      ctx.signal.throwIfAborted();
      server = await open(config, tls);
      announcePassword();
    },

    async apply(next) {
      snapshot = next;
      guard?.setLimits(limitsOf(next));
      ensurePassword(next);
      const cfg = listenerConfig(next);
      const old = config as ListenerConfig;
      if (!server || sameListener(cfg, old)) {
        config = cfg;
        return true;
      }
      const current = server;
      const inPlace = cfg.port === old.port && cfg.tls && old.tls && cfg.host === old.host;
      const samePort = cfg.port === old.port && cfg.port !== 0;
      try {
        const how = await rebind<Server, LoadedCertificate | undefined>(current, {
          target: `the web server to ${cfg.tls ? 'https' : 'http'}://${cfg.host || '*'}:${cfg.port}${cfg.tls ? ` (certificate ${cfg.cert})` : ''}`,
          load: () => loadTls(cfg, next),
          swap: (pems) => {
            if (!inPlace || !pems || !('setSecureContext' in current)) return false;
            (current).setSecureContext({ cert: pems.cert, key: pems.key, ca: NO_CLIENT_CAS });
            return true;
          },
          samePort,
          open: (pems) => open(cfg, pems),
          reopen: async () => open(old, await loadTls(old)),
          // Not awaited unless the new listener waits for the address: the request that caused this reload may be running on the old listener.
          close: async (previous, freesAddress) => (freesAddress ? close(previous) : void close(previous)),
          adopt: (s) => {
            server = s;
          },
        });
        if (how === 'swapped') log?.info(`web server certificate replaced from ${cfg.cert}`);
      } catch (err) {
        log?.error(errorMessage(err));
        throw err;
      }
      config = cfg;
      announcePassword();
      return true;
    },

    async stop() {
      const s = server;
      server = undefined;
      if (s) await close(s);
      guard?.dispose();
    },
  };
}

// ---------------------------------------------------------------- helpers

function limitsOf(s: Settings): ConnectionLimits {
  const web = s.sections[WEB_SECTION];
  return {
    maxConnections: web['max connections'],
    maxPerAddress: web['max connections per address'],
    firstRequestMs: web.timeout * 1000,
  };
}

function listenerConfig(s: Settings): ListenerConfig {
  const web = s.sections[WEB_SECTION];
  const portText = web.port;
  return {
    port: Number(portText.replace(/s$/, '')),
    tls: portText.endsWith('s'),
    host: web['bind to'],
    cert: filePath(s, web.certificate),
    key: filePath(s, web['certificate key']),
    keyExplicit: s.origins[WEB_SECTION]?.['certificate key'] !== undefined,
  };
}

/**
 * A certificate path as an absolute file name: `${...}` expanded (schema
 * defaults may still hold them), relative paths taken from base-path.
 */
function filePath(s: Settings, value: string): string {
  const expanded = expandVariables(value, s.variables).value;
  return resolve(s.variables['base-path'], expanded);
}

function sameListener(a: ListenerConfig, b: ListenerConfig): boolean {
  return a.port === b.port && a.tls === b.tls && a.host === b.host && a.cert === b.cert && a.key === b.key && a.keyExplicit === b.keyExplicit;
}

function listen(srv: Server, cfg: ListenerConfig): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(new AgentError('AGENT_ERR_WEB_LISTEN', [`${cfg.host || '*'}:${cfg.port}`, errorMessage(err)], { cause: err }));
    srv.once('error', onError);
    srv.listen({ port: cfg.port, ...(cfg.host !== '' ? { host: cfg.host } : {}) }, () => {
      srv.off('error', onError);
      resolve();
    });
  });
}

/** Stop accepting, let open requests finish for a moment, then cut what is left. */
function close(srv: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => srv.closeAllConnections(), CLOSE_GRACE_MS);
    srv.close(() => {
      clearTimeout(timer);
      resolve();
    });
    srv.closeIdleConnections();
  });
}

function urlOf(cfg: ListenerConfig, srv: Server): string {
  const port = (srv.address() as AddressInfo).port;
  const any = cfg.host === '' || cfg.host === '0.0.0.0' || cfg.host === '::';
  const host = any ? '127.0.0.1' : cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host;
  return `${cfg.tls ? 'https' : 'http'}://${host}:${port}`;
}
