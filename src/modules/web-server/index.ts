/**
 * WEBServer: the JSON API and the web UI over HTTPS (port `8443s`) or HTTP
 * (port without `s`).
 *
 * start: builds the app (src/web/app.ts), loads or creates the certificate,
 * listens on `bind to` (empty = every address) and the port, and logs
 * `web server listening on https://127.0.0.1:PORT` (with `bind to` empty:
 * `https://[::]:PORT (every address; …)`). When the effective web
 * password is empty, a strong one is generated once and kept in
 * `${state}/web-password` (0600: stored-password.ts), told as
 * `web password for user root: <pw>` on stdout unless stdout is the journal.
 *
 * The listener is a managed listener (protocols/listener/managed-listener.ts).
 * apply(next): passwords, users, roles, allowed hosts and limits apply to the
 * next request. A new certificate on the same listener is swapped in place
 * (setSecureContext); a changed port, bind address or scheme rebinds: the new
 * listener is up before the old one closes (when the port is the same, the
 * old one closes first). The new snapshot is taken only once the listener
 * took the change: when the new listener cannot be opened, the old one keeps
 * serving with every part of the old settings and the error is logged
 * (AGENT_ERR_WEB_LISTEN). A renewed certificate file is served without a
 * settings edit. `port = 0` (or `0s`) lets the system pick a port; the
 * "listening on" line says which. Disabling WEBServer stops the module,
 * which closes the listener.
 *
 * Every listener caps its connections in total and per address and closes
 * one that has not sent its first request's headers (TLS handshake
 * included) within `timeout` of being accepted (connection-guard.ts); the
 * limits apply in place.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TlsOptions } from 'node:tls';
import { formatMessage } from '../../errors.js';
import { consoleIsJournal } from '../../log-journal.js';
import { PASSWORD_FILE_NAME, storedPassword, type StoredPassword } from './stored-password.js';
import type { Logger } from '../../log.js';
import { logTlsClientError, type TlsFailureWords } from '../../protocols/listener/tls-peer.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import type { ConnectionGuard } from '../../protocols/connection-guard.js';
import { buildApp, type WebApp } from '../../web/app.js';
import { rootPassword } from '../../web/access.js';
import { answerClientError } from '../../web/security-headers.js';
import type { AgentModule, ModuleContext } from '../module.js';
import type { AgentControl } from '../../core/control.js';
import { listenerTlsFiles } from '../../settings/store/tls-checks.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';
import { listenerWants } from '../listener-wants.js';
import { closeGracefully } from '../../protocols/listener/graceful-close.js';
import { listenOn } from '../../protocols/listener/listen.js';
import type { ListenerWants, OpenArgs, Transport } from '../../protocols/listener/listener-contract.js';
import { ManagedListener } from '../../protocols/listener/managed-listener.js';

type Server = HttpServer | HttpsServer;

/** Marks a connection whose first request the guard has been told about. */
const FIRST_SERVED = Symbol('agent.firstServed');

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

export const agentModule: AgentModule<Settings, WebServerContext> = {
  name: 'WEBServer',
  async start(ctx) {
    const control = ctx.control;
    if (control === undefined)
      throw new Error('WEBServer started without the control interface (its catalogue entry asks for it)');
    let snapshot = ctx.settings;
    ensurePassword(snapshot);
    const web = buildApp({
      core: ctx.core,
      control,
      getSnapshot: () => snapshot,
      generatedPassword: () => stored?.password,
      log: ctx.log,
    });
    const listener = new ManagedListener<null>({
      what: 'the web server',
      counter: 'web',
      log: ctx.log,
      open: (a) => openWeb(a, web, ctx.log),
      describe: describeTarget,
    });
    // Told once, and only when a listener is up: a password for a server
    // that could not bind would be a promise the agent cannot keep.
    let announced = false;
    const announce = (): void => {
      if (stored === undefined || announced || !listener.address()) return;
      announced = true;
      announcePassword(stored, ctx.log, snapshot.variables.state);
    };
    // Given up (time limit, agent stopping) before it binds: opens nothing.
    await listener.start(wantsOf(snapshot), ctx.signal);
    announce();
    return {
      async apply(next) {
        const how = await listener.apply(wantsOf(next), () => {
          snapshot = next;
          ensurePassword(next);
        });
        if (how === 'swapped')
          ctx.log.info(`web server certificate replaced from ${listenerTlsFiles(next, 'WEBServer')?.pair?.cert ?? ''}`);
        announce();
        return true;
      },
      listening: () => listener.address(),
      stop: () => listener.close(),
    };
  },
};

function ensurePassword(s: Settings): void {
  if (stored !== undefined || rootPassword(s, undefined) !== '') return;
  stored = storedPassword(s.variables.state);
}

/** Tells where the generated password is; the password itself goes to a terminal or a redirect, never to the journal. */
function announcePassword(stored: StoredPassword, log: Logger, stateFolder: string): void {
  if (stored.file !== undefined) log.info(`the password of web user root is in ${stored.file}`);
  else
    log.warning(
      `AGENT_WARN_STATE_FOLDER: ${formatMessage('AGENT_WARN_STATE_FOLDER', [PASSWORD_FILE_NAME, stateFolder, stored.problem ?? ''])}: the generated password of web user root lasts only as long as this process`,
    );
  if (!consoleIsJournal()) process.stdout.write(`web password for user root: ${stored.password}\n`);
}

/** Opens the HTTP(S) server of the app (a managed listener's Transport). */
async function openWeb(a: OpenArgs<null>, web: WebApp, log: Logger): Promise<Transport<null>> {
  // noDelay: small JSON answers must not wait for Nagle's algorithm.
  // The app's SecureResponse: every head written carries the security headers (security-headers.ts),
  // and each answer is counted in the metrics as it finishes (app.ts).
  const { handler, ServerResponse } = web;
  const srv: Server = a.tls
    ? createHttpsServer({ ...a.tls, noDelay: true, ServerResponse }, handler)
    : createHttpServer({ noDelay: true, ServerResponse }, handler);
  // Node's own 400/408/431 for a request it cannot parse, with the security headers.
  srv.on('clientError', answerClientError);
  // A failed handshake in words (plain HTTP to the HTTPS port, no common cipher, old TLS); others (a browser ending one over the self-signed certificate) at debug.
  if (a.tls) srv.on('tlsClientError', logTlsClientError(log, WEB_TLS_WORDS, { level: 'info', otherAtDebug: true }));
  srv.headersTimeout = 20_000;
  srv.requestTimeout = 60_000;
  // Limits on the raw connection, before any TLS byte is read; the deadline ends with the first request.
  const g: ConnectionGuard = a.guard;
  srv.on('connection', (raw: Socket) => void g.admit(raw));
  // Once per connection: later requests on it have nothing left to clear.
  srv.on('request', (req: IncomingMessage) => {
    const socket = req.socket as Socket & { [FIRST_SERVED]?: true };
    if (socket[FIRST_SERVED]) return;
    socket[FIRST_SERVED] = true;
    g.served(socket);
  });
  await listenOn(srv, a.host, a.port, 'AGENT_ERR_WEB_LISTEN');
  log.info(`web server listening on ${urlOf(a.host, a.tls !== undefined, srv)}`);
  return {
    address: () => srv.address() as AddressInfo,
    // The policy is the snapshot the app reads (switched by apply's commit).
    setPolicy: () => undefined,
    setTls: (tls: TlsOptions | undefined) => {
      if (!tls || !('setSecureContext' in srv)) return false;
      srv.setSecureContext(tls);
      return true;
    },
    // Idle keep-alive connections close at once, the others after their answer or the grace.
    close: () =>
      closeGracefully({
        server: srv,
        open: () => g.open,
        drain: () => srv.closeIdleConnections(),
        cut: () => {
          srv.closeAllConnections();
          g.dispose();
        },
      }),
  };
}

// ---------------------------------------------------------------- helpers

/** The listener these settings want: `port` with a trailing s is TLS (ALPN offers http/1.0 too: curl --http1.0 asks for it alone). */
function wantsOf(s: Settings): ListenerWants<null> {
  const pair = listenerTlsFiles(s, 'WEBServer')?.pair;
  const tls: ServerTlsSpec | undefined = pair
    ? {
        pair,
        verifyMode: 'none',
        verify: 'by-mode',
        alpn: ['http/1.1', 'http/1.0'],
        certificateError: 'AGENT_ERR_WEB_CERTIFICATE',
      }
    : undefined;
  return listenerWants(s, 'WEBServer', tls, null);
}

function describeTarget(w: ListenerWants<null>): string {
  return `to ${w.tls ? 'https' : 'http'}://${w.host || '*'}:${w.port}${w.tls?.pair ? ` (certificate ${w.tls.pair.cert})` : ''}`;
}

/** Where the server listens, as bound: every address says so (and how this host reaches it), never just 127.0.0.1. */
function urlOf(bindTo: string, tls: boolean, srv: Server): string {
  const { port, address } = srv.address() as AddressInfo;
  const scheme = tls ? 'https' : 'http';
  const any = bindTo === '' || bindTo === '0.0.0.0' || bindTo === '::';
  const bracket = (host: string): string => (host.includes(':') ? `[${host}]` : host);
  if (any)
    return `${scheme}://${bracket(address)}:${port} (every address; from this host ${scheme}://127.0.0.1:${port})`;
  return `${scheme}://${bracket(bindTo)}:${port}`;
}

/** Failed handshakes on the HTTPS port, in words for the admin (protocols/listener/tls-peer.ts). */
const WEB_TLS_WORDS: TlsFailureWords = {
  'not-tls':
    'the client spoke plain HTTP to this HTTPS port: use https://, or write [/settings/WEB/server] port without its trailing s to serve plain HTTP',
  'no-shared-cipher': 'the client offered no cipher this server accepts (a very old client?): update the client',
  'old-protocol': 'the client speaks a TLS version below 1.2, which this server does not accept: update the client',
};
