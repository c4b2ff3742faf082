/**
 * AgentServer: answers other agents over the agent protocol, from
 * [/settings/agent/server]. Query and exec requests go to the core as they
 * are (they are plugin messages already); submitted results are logged and
 * the latest per command and source is kept, listed by the query
 * `agent_submissions` (JSON in the message) for the API.
 *
 * A peer runs only what `allowed queries` and `allowed exec commands`
 * allow (src/formats/command-allow-list.ts; default: every query, no exec
 * command); the core checks nested queries against the same lists.
 *
 * `apply(next)` takes allowed hosts, the allow-lists, timeout and max frame size in place
 * (open connections from addresses no longer allowed are closed). New TLS
 * settings (use ssl, certificate, key, ca, verify mode, ciphers) apply to
 * new connections on the same port; open ones finish their requests and
 * close, so clients reconnect under the new rules. A new port or bind
 * address starts the new listener before the old one closes.
 */
import type { TlsOptions } from 'node:tls';
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { fallbackSource } from '../../settings/module-view.js';
import { allowedHosts } from '../../protocols/allowed-host-names.js';
import { startAgentListener, type AgentListener, type AgentPolicy } from '../../protocols/agent/server.js';
import { agentServerTls } from '../../protocols/agent/tls.js';
import { loadOrCreateCertificate } from '../../protocols/server-certificate.js';
import { errorMessage } from '../../errors.js';
import { rebind } from '../rebind.js';
import { assertTlsFiles, listenerTlsFiles } from '../../settings/tls-checks.js';
import { describeSubmission, SubmissionStore } from '../../core/submission-store.js';
import { decode, responseToResult } from '../../core/plugin/codec.js';
import { ALLOWED_EXECS, ALLOWED_QUERIES, parseAllowList } from '../../formats/command-allow-list.js';
import { commandGuard, type GuardOptions } from '../../protocols/command-guard.js';
import { withLinkedSignal } from '../../abort-link.js';

const SECTION = '/settings/agent/server';

type Settings = SettingsOf<'AgentServer'>;

export function createModule(): AgentModule<Settings> {
  let ctx: ModuleContext<Settings> | undefined;
  let listener: AgentListener | undefined;
  let bindKey = '';
  let tlsKey = '';
  let allowed: GuardOptions;
  /** The settings the listener runs on (for reopening it after a failed move). */
  let applied: Settings | undefined;
  const store = new SubmissionStore();
  const cleanup: (() => void)[] = [];

  let hostsReady: Promise<void> = Promise.resolve();
  const policyOf = (view: Settings): AgentPolicy => {
    const s = view.sections[SECTION];
    const from = fallbackSource(view, SECTION, 'allowed hosts');
    // Host names are resolved now (start, reload); `hostsReady` lets start wait for them.
    const hosts = allowedHosts(s['allowed hosts'], (p) => ctx!.log.warning(`${from}: ${p}`));
    hostsReady = hosts.ready;
    return {
      isAllowed: (address) => hosts.isAllowed(address),
      allowedHostsFrom: from,
      maxFrame: s['max frame size'],
      maxPerFrame: s['max queries per frame'],
      idleTimeoutMs: s.timeout * 1000,
      maxConnections: s['max connections'],
      maxPerAddress: s['max connections per address'],
    };
  };

  /** TLS options; a problem of the files throws the lines `agent settings validate` prints (TlsFilesError). */
  const tlsOf = async (view: Settings): Promise<TlsOptions | undefined> => {
    const s = view.sections[SECTION];
    const files = listenerTlsFiles(view, 'AgentServer');
    if (!files?.pair) return undefined;
    assertTlsFiles(view, 'AgentServer');
    const { cert, key, keyExplicit } = files.pair;
    // Throws AGENT_ERR_AGENT_CERTIFICATE naming the bad file and what is wrong with it.
    const loaded = await loadOrCreateCertificate({ cert, key: key || cert, keyExplicit }, 'AGENT_ERR_AGENT_CERTIFICATE');
    if (loaded.generated) ctx!.log.info(`created a self-signed certificate ${cert}${key && key !== cert ? ` (key ${key})` : ''}`);
    return agentServerTls({
      cert: loaded.cert,
      key: loaded.key,
      ca: files.ca ?? '',
      verifyMode: s['verify mode'],
      allowedCiphers: s['allowed ciphers'],
    });
  };

  /** The allow-lists of these settings (compiled once per apply). */
  const allowOf = (view: Settings): GuardOptions => {
    const s = view.sections[SECTION];
    return {
      server: 'AgentServer',
      section: SECTION,
      queries: parseAllowList(s[ALLOWED_QUERIES]),
      execs: parseAllowList(s[ALLOWED_EXECS]),
      log: ctx!.log,
    };
  };

  const listen = async (view: Settings, tls: TlsOptions | undefined): Promise<AgentListener> => {
    const s = view.sections[SECTION];
    const srv = await startAgentListener({
      ...policyOf(view),
      host: s['bind to'],
      port: s.port,
      ...(tls ? { tls } : {}),
      log: ctx!.log,
      handlers: {
        // A query runs until its peer goes (signal) or the module stops (ctx.signal).
        query: (bytes, peer, signal) => {
          const allow = commandGuard(allowed, peer.address);
          return withLinkedSignal([signal, ctx!.signal], (both) => ctx!.core.queryRaw(bytes, allow ? { allow, signal: both, channel: 'agent' } : { signal: both, channel: 'agent' }));
        },
        exec: (bytes, peer) => {
          const allow = commandGuard(allowed, peer.address);
          return ctx!.core.execRaw(bytes, allow ? { allow } : {});
        },
        submit: async (bytes, peer) => {
          // A message that does not decode throws AGENT_ERR_PROTOBUF (an Error frame to the client).
          const message = decode('SubmitResponseMessage', bytes);
          const source = message.header.sender || peer.certificate || peer.address;
          for (const entry of store.keep(message.payload.map((p) => responseToResult(p)), source, peer.address)) ctx!.log.info(describeSubmission(entry));
        },
      },
    });
    const a = srv.address();
    ctx!.log.info(`listening on ${a.address}:${a.port} (${describeTls(tls)})`);
    return srv;
  };

  return {
    name: 'AgentServer',
    async start(context) {
      ctx = context;
      allowed = allowOf(context.settings);
      applied = context.settings;
      bindKey = bindKeyOf(context.settings);
      tlsKey = tlsKeyOf(context.settings);
      const tls = await tlsOf(context.settings);
      // Given up (time limit, agent stopping): open nothing.
      context.signal.throwIfAborted();
      listener = await listen(context.settings, tls);
      // Names in allowed hosts answer before the module counts as started (each lookup is bounded).
      await hostsReady;
      cleanup.push(
        context.core.registerSimpleQuery(
          {
            name: 'agent_submissions',
            module: 'AgentServer',
            title: 'Results submitted by other agents',
            description: 'The latest result submitted over the agent protocol per command and source, as a JSON list in the message.',
          },
          async () => ({ result: 0, message: JSON.stringify(store.list()), perf: [] }),
        ),
      );
    },
    async apply(next) {
      if (listener === undefined) return false;
      allowed = allowOf(next);
      const nextBind = bindKeyOf(next);
      const nextTls = tlsKeyOf(next);
      if (nextBind !== bindKey || nextTls !== tlsKey) {
        const previous = applied as Settings;
        const current = listener;
        const s = next.sections[SECTION];
        try {
          await rebind<AgentListener, TlsOptions | undefined>(current, {
            target: `the agent-protocol server to ${s['bind to'] || '*'}:${s.port}`,
            load: () => tlsOf(next),
            // Same port and address: TLS settings change on the listener itself (open connections finish, then close).
            swap: (tls) => {
              if (nextBind !== bindKey) return false;
              current.setTls(tls);
              ctx!.log.info(`new TLS settings (${describeTls(tls)}); open connections close after their requests`);
              return true;
            },
            samePort: s.port === previous.sections[SECTION].port,
            open: (tls) => listen(next, tls),
            reopen: async () => listen(previous, await tlsOf(previous)),
            close: (old) => old.close(),
            adopt: (l) => {
              listener = l;
            },
          });
        } catch (err) {
          ctx!.log.error(errorMessage(err));
          throw err;
        }
        bindKey = nextBind;
        tlsKey = nextTls;
      }
      listener?.setPolicy(policyOf(next));
      applied = next;
      return true;
    },
    async stop() {
      for (const c of cleanup.splice(0)) c();
      await listener?.close();
      listener = undefined;
    },
  };
}

// ---------------------------------------------------------------- helpers

function bindKeyOf(view: Settings): string {
  const s = view.sections[SECTION];
  return JSON.stringify([s.port, s['bind to']]);
}

function tlsKeyOf(view: Settings): string {
  const s = view.sections[SECTION];
  return JSON.stringify([s['use ssl'], s.certificate, s['certificate key'], s.ca, s['verify mode'], s['allowed ciphers']]);
}

function describeTls(tls: TlsOptions | undefined): string {
  if (!tls) return 'plain';
  if (!tls.requestCert) return 'TLS, no client certificates';
  return tls.rejectUnauthorized ? 'TLS, client certificates required' : 'TLS, client certificates checked when sent';
}
