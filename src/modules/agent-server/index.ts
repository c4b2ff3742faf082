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
 * The listener is a managed listener (protocols/listener/managed-listener.ts):
 * `apply(next)` takes allowed hosts, the allow-lists, timeout and max frame
 * size in place (open connections from addresses no longer allowed are
 * closed). New TLS settings (certificate, key, ca, verify mode, ciphers)
 * apply to new connections on the same port; open ones finish their
 * requests and close, so clients reconnect under the new rules. A new port,
 * bind address or `use ssl` starts the new listener before the old one
 * closes. Every part of the change is switched only after the listener took
 * it: a failed move keeps the whole previous policy. A renewed certificate
 * file is served without a settings edit. `port = 0` lets the system pick a
 * port (logged).
 */
import type { TlsOptions } from 'node:tls';
import type { AgentModule, ModuleContext, RunningModule } from '../module.js';
import { startWithReleases, type Releases } from '../releases.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { fallbackSource } from '../../settings/module-view.js';
import { allowedHosts } from '../../protocols/allowed-host-names.js';
import { startAgentListener, type AgentListener, type AgentPolicy } from '../../protocols/agent/server.js';
import type { ConnectionGuard } from '../../protocols/connection-guard.js';
import { listenerTlsFiles } from '../../settings/tls-checks.js';
import { describeSubmission, SubmissionStore } from '../../core/submission-store.js';
import { decode, responseToResult } from '../../core/plugin/codec.js';
import { ALLOWED_EXECS, ALLOWED_QUERIES, parseAllowList } from '../../formats/command-allow-list.js';
import { commandGuard, type GuardOptions } from '../../protocols/command-guard.js';
import { withLinkedSignal } from '../../abort-link.js';
import type { ListenerWants } from '../../protocols/listener/listener-contract.js';
import { ManagedListener } from '../../protocols/listener/managed-listener.js';
import { listenerWants } from '../listener-wants.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';

const SECTION = '/settings/agent/server';

type Settings = SettingsOf<'AgentServer'>;

export const agentModule: AgentModule<Settings> = {
  name: 'AgentServer',
  start: (ctx) => startWithReleases(ctx, (releases) => startAgentServer(ctx, releases)),
};

// long function: start, apply and stop share the module's state in one closure (issue 42 item 4: one listener skeleton)
async function startAgentServer(ctx: ModuleContext<Settings>, releases: Releases): Promise<RunningModule<Settings>> {
  const store = new SubmissionStore();

  let hostsReady: Promise<void> = Promise.resolve();
  const policyOf = (view: Settings): AgentPolicy => {
    const s = view.sections[SECTION];
    const from = fallbackSource(view, SECTION, 'allowed hosts');
    // Host names are resolved now (start, reload); `hostsReady` lets start wait for them.
    const hosts = allowedHosts(s['allowed hosts'], (p) => ctx.log.warning(`${from}: ${p}`));
    hostsReady = hosts.ready;
    return {
      isAllowed: (address) => hosts.isAllowed(address),
      allowedHostsFrom: from,
      maxFrame: s['max frame size'],
      maxPerFrame: s['max queries per frame'],
      idleTimeoutMs: s.timeout * 1000,
    };
  };

  const wantsOf = (view: Settings): ListenerWants<AgentPolicy> =>
    listenerWants(view, 'AgentServer', tlsSpecOf(view), policyOf(view));

  /** The allow-lists of these settings (compiled once per apply). */
  const allowOf = (view: Settings): GuardOptions => {
    const s = view.sections[SECTION];
    return {
      server: 'AgentServer',
      section: SECTION,
      queries: parseAllowList(s[ALLOWED_QUERIES]),
      execs: parseAllowList(s[ALLOWED_EXECS]),
      log: ctx.log,
    };
  };

  const newListener = (context: ModuleContext<Settings>): ManagedListener<AgentPolicy> =>
    new ManagedListener<AgentPolicy>({
      what: 'the agent-protocol server',
      counter: 'agent',
      log: context.log,
      describe: (w) => `to ${w.host || '*'}:${w.port}`,
      open: (a) => listen(a.policy, a.host, a.port, a.tls, a.guard),
    });

  const listen = async (
    policy: AgentPolicy,
    host: string,
    port: number,
    tls: TlsOptions | undefined,
    guard: ConnectionGuard,
  ): Promise<AgentListener> => {
    const srv = await startAgentListener({
      ...policy,
      host,
      port,
      ...(tls ? { tls } : {}),
      guard,
      log: ctx.log,
      handlers: {
        // A query runs until its peer goes (signal) or the module stops (ctx.signal).
        query: (bytes, peer, signal) => {
          const allow = commandGuard(allowed, peer.address);
          return withLinkedSignal([signal, ctx.signal], (both) =>
            ctx.core.queryRaw(
              bytes,
              allow ? { allow, signal: both, channel: 'agent' } : { signal: both, channel: 'agent' },
            ),
          );
        },
        exec: (bytes, peer) => {
          const allow = commandGuard(allowed, peer.address);
          return ctx.core.execRaw(bytes, allow ? { allow } : {});
        },
        submit: async (bytes, peer) => {
          // A message that does not decode throws AGENT_ERR_PROTOBUF (an Error frame to the client).
          const message = decode('SubmitResponseMessage', bytes);
          const source = message.header.sender || peer.certificate || peer.address;
          for (const entry of store.keep(
            message.payload.map((p) => responseToResult(p)),
            source,
            peer.address,
          ))
            ctx.log.info(describeSubmission(entry));
        },
      },
    });
    const a = srv.address();
    ctx.log.info(`listening on ${a.address}:${a.port} (${describeTls(tls)})`);
    return srv;
  };

  /** The allow-lists in force: switched with the listener's policy, only when a change was taken. */
  let allowed = allowOf(ctx.settings);
  const listener = newListener(ctx);
  // Given up (time limit, agent stopping) before it binds: opens nothing.
  await listener.start(wantsOf(ctx.settings), ctx.signal);
  releases.add(() => listener.close());
  // Names in allowed hosts answer before the module counts as started (each lookup is bounded).
  await hostsReady;
  releases.add(
    ctx.core.registerSimpleQuery(
      {
        name: 'agent_submissions',
        module: 'AgentServer',
        title: 'Results submitted by other agents',
        description:
          'The latest result submitted over the agent protocol per command and source, as a JSON list in the message.',
      },
      async () => ({ result: 0, message: JSON.stringify(store.list()), perf: [] }),
    ),
  );
  return {
    async apply(next) {
      const staged = allowOf(next);
      const how = await listener.apply(wantsOf(next), () => {
        allowed = staged;
      });
      if (how === 'swapped')
        ctx.log.info(
          `new TLS settings (${describeTls(listener.tlsOptions())}); open connections close after their requests`,
        );
      return true;
    },
    listening: () => listener.address(),
    stop: () => releases.releaseAll(),
  };
}

// ---------------------------------------------------------------- helpers

/** The TLS of these settings (protocols/listener/server-tls.ts): a certificate always (created when missing), client certificates by the ca. */
function tlsSpecOf(view: Settings): ServerTlsSpec | undefined {
  const files = listenerTlsFiles(view, 'AgentServer');
  if (!files?.pair) return undefined;
  const s = view.sections[SECTION];
  return {
    pair: files.pair,
    ...(files.ca !== undefined ? { ca: files.ca } : {}),
    verifyMode: s['verify mode'],
    verify: 'by-ca',
    ciphers: s['allowed ciphers'],
    certificateError: 'AGENT_ERR_AGENT_CERTIFICATE',
  };
}

function describeTls(tls: TlsOptions | undefined): string {
  if (!tls) return 'plain';
  if (!tls.requestCert) return 'TLS, no client certificates';
  return tls.rejectUnauthorized ? 'TLS, client certificates required' : 'TLS, client certificates checked when sent';
}
