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
 * Start, staged apply and stop are the listener modules' one skeleton
 * (modules/listener-module.ts): `apply(next)` takes allowed hosts, the
 * allow-lists, timeout and max frame size in place (open connections from
 * addresses no longer allowed are closed). New TLS settings (certificate,
 * key, ca, verify mode, ciphers) apply to new connections on the same port;
 * open ones finish their requests and close, so clients reconnect under the
 * new rules. A new port, bind address or `use ssl` starts the new listener
 * before the old one closes. Every part of the change is switched only
 * after the listener took it: a failed move keeps the whole previous
 * policy. A renewed certificate file is served without a settings edit.
 * `port = 0` lets the system pick a port (logged).
 */
import type { TlsOptions } from 'node:tls';
import type { ModuleContext } from '../module.js';
import { listenerModule } from '../listener-module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { startAgentListener, type AgentHandlers, type AgentPolicy } from '../../protocols/agent/server.js';
import { listenerTlsFiles } from '../../settings/store/tls-checks.js';
import { describeSubmission, SubmissionStore } from '../../core/submission-store.js';
import { decode, responseToResult } from '../../core/plugin/codec.js';
import { ALLOWED_EXECS, ALLOWED_QUERIES, parseAllowList } from '../../formats/command-allow-list.js';
import { commandGuard, type GuardOptions } from '../../protocols/command-guard.js';
import { withLinkedSignal } from '../../abort-link.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';

const SECTION = '/settings/agent/server';

type Settings = SettingsOf<'AgentServer'>;

export const agentModule = listenerModule<Settings, AgentPolicy, GuardOptions>({
  name: 'AgentServer',
  what: 'the agent-protocol server',
  counter: 'agent',
  policyOf: (view, hosts) => {
    const s = view.sections[SECTION];
    return {
      ...hosts,
      maxFrame: s['max frame size'],
      maxPerFrame: s['max queries per frame'],
      idleTimeoutMs: s.timeout * 1000,
    };
  },
  // The allow-lists (compiled once per change).
  stateOf: (view, log) => {
    const s = view.sections[SECTION];
    return {
      server: 'AgentServer',
      section: SECTION,
      queries: parseAllowList(s[ALLOWED_QUERIES]),
      execs: parseAllowList(s[ALLOWED_EXECS]),
      log,
    };
  },
  tlsSpecOf,
  serve: (ctx, allowed) => {
    const store = new SubmissionStore();
    const handlers = agentHandlers(ctx, allowed, store);
    return {
      open: (a) =>
        startAgentListener({
          ...a.policy,
          host: a.host,
          port: a.port,
          ...(a.tls ? { tls: a.tls } : {}),
          guard: a.guard,
          log: ctx.log,
          handlers,
        }),
      started: (releases) =>
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
        ),
    };
  },
  tlsWords: describeTls,
  // The agent protocol's connections drain on new TLS settings (protocols/agent/server.ts setTls).
  swappedMessage: (tls) => `new TLS settings (${describeTls(tls)}); open connections close after their requests`,
});

/** Queries, exec commands and submissions of peers, under the allow-lists in force (`allowed()`). */
function agentHandlers(
  ctx: ModuleContext<Settings>,
  allowed: () => GuardOptions,
  store: SubmissionStore,
): AgentHandlers {
  return {
    // A query runs until its peer goes (signal) or the module stops (ctx.signal).
    query: (bytes, peer, signal) => {
      const allow = commandGuard(allowed(), peer.address);
      return withLinkedSignal([signal, ctx.signal], (both) =>
        ctx.core.queryRaw(
          bytes,
          allow ? { allow, signal: both, channel: 'agent' } : { signal: both, channel: 'agent' },
        ),
      );
    },
    exec: (bytes, peer) => {
      const allow = commandGuard(allowed(), peer.address);
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
