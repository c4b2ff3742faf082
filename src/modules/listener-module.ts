/**
 * The one skeleton of the TCP listener modules (RemoteServer: NRPE,
 * NSClientServer: check_nt, AgentServer: the agent protocol), so that a fix
 * to one is a fix to all. A listener module supplies only what differs: its
 * protocol's server (`serve`: the connection handling under a managed
 * listener), its policy and its state from the settings, and its TLS.
 *
 * What the skeleton does for each of them:
 * - start: reads `allowed hosts` (names are looked up now), opens the
 *   managed listener (protocols/listener/managed-listener.ts: TLS loaded and
 *   watched, connection limits; a start given up before it binds opens
 *   nothing), logs `listening on ADDRESS:PORT (TLS|plain)`, waits for the
 *   lookups of allowed hosts (each bounded), then checks its signal: a start
 *   given up meanwhile closes the listener and rejects, registering nothing.
 *   Only then does the protocol register what it adds (`started`).
 * - apply(next): staged, always in place. New policy, limits and state are
 *   switched only once the listener took the change: a new port, address
 *   or `use ssl` rebinds (the new listener up before the old one closes),
 *   new TLS settings on the same port are swapped in (logged), and a failed
 *   move keeps every part of the previous settings (ApplyKeptError).
 * - stop: gives back what the protocol registered, then closes the listener
 *   and its connections.
 */
import type { TlsOptions } from 'node:tls';
import type { AgentModule, ModuleContext, RunningModule } from './module.js';
import type { Logger } from '../log.js';
import { startWithReleases, type Releases } from './releases.js';
import { listenerWants } from './listener-wants.js';
import { LISTENER_SECTIONS, type ListenerModule, type TlsSettings } from '../settings/store/tls-checks.js';
import { fallbackSource, type ModuleSettings } from '../settings/model/module-view.js';
import { valueText } from '../settings/model/value-text.js';
import { allowedHosts } from '../protocols/allowed-host-names.js';
import type { HostFilter } from '../protocols/connection-guard.js';
import type { ListenerWants, OpenArgs, Transport } from '../protocols/listener/listener-contract.js';
import { ManagedListener } from '../protocols/listener/managed-listener.js';
import type { ServerTlsSpec } from '../protocols/listener/server-tls.js';

/** A listener module's settings view: its section, where each value comes from, its TLS files. */
export type ListenerView = TlsSettings & Pick<ModuleSettings, 'origins'>;

/** What a listener module supplies. `S`: its settings view; `P`: its protocol's policy; `Q`: the state its connections read. */
export interface ListenerSpec<S extends ListenerView, P extends HostFilter, Q> {
  name: ListenerModule;
  /** For messages: `the NRPE server`. */
  what: string;
  /** The listener its connections and refusals are counted under (nrpe, nsclient, agent). */
  counter: string;
  /** The protocol's policy in these settings, with the allowed hosts the skeleton read (`hosts`). */
  policyOf(view: S, hosts: HostFilter): P;
  /** What the connections read besides the policy (allow-lists, a password), made for each change and switched with it. */
  stateOf(view: S, log: Logger): Q;
  /** The TLS of these settings; undefined: plain. */
  tlsSpecOf(view: S): ServerTlsSpec | undefined;
  /** The protocol under the listener, for one start: `state()` is the state in force. */
  serve(ctx: ModuleContext<S>, state: () => Q): ListenerProtocol<P>;
  /** Words for a listener's TLS in the `listening on` line (default: TLS or plain). */
  tlsWords?: (tls: TlsOptions | undefined) => string;
  /** The line logged when new TLS settings were swapped in on the same port (default: they are for new connections). */
  swappedMessage?: (tls: TlsOptions | undefined) => string;
}

export interface ListenerProtocol<P> {
  /** Opens the protocol's server (protocols/listener/listener-contract.ts says what a Transport does). */
  open(args: OpenArgs<P>): Promise<Transport<P>>;
  /** Once listening and not given up: register what the protocol adds (queries), to give back at stop. */
  started?(releases: Releases): void;
}

export function listenerModule<S extends ListenerView, P extends HostFilter, Q>(
  spec: ListenerSpec<S, P, Q>,
): AgentModule<S> {
  return {
    name: spec.name,
    start: (ctx) => startWithReleases(ctx, (releases) => startListener(spec, ctx, releases)),
  };
}

async function startListener<S extends ListenerView, P extends HostFilter, Q>(
  spec: ListenerSpec<S, P, Q>,
  ctx: ModuleContext<S>,
  releases: Releases,
): Promise<RunningModule<S>> {
  let hostsReady: Promise<void> = Promise.resolve();
  const wantsOf = (view: S): ListenerWants<P> => {
    const hosts = allowedHostsOf(view, spec.name, ctx.log);
    // Host names are resolved now (start, reload); `hostsReady` lets start wait for them.
    hostsReady = hosts.ready;
    return listenerWants(view, spec.name, spec.tlsSpecOf(view), spec.policyOf(view, hosts.filter));
  };
  let state = spec.stateOf(ctx.settings, ctx.log);
  const protocol = spec.serve(ctx, () => state);
  const tlsWords = spec.tlsWords ?? ((tls) => (tls ? 'TLS' : 'plain'));
  const listener = new ManagedListener<P>({
    what: spec.what,
    counter: spec.counter,
    log: ctx.log,
    describe: (w) => `to ${w.host || '*'}:${w.port} (${w.tls ? 'TLS' : 'plain'})`,
    open: async (a) => {
      const transport = await protocol.open(a);
      const at = transport.address();
      ctx.log.info(`listening on ${at.address}:${at.port} (${tlsWords(a.tls)})`);
      return transport;
    },
  });
  // Given up (time limit, agent stopping) before it binds: opens nothing.
  await listener.start(wantsOf(ctx.settings), ctx.signal);
  releases.add(() => listener.close());
  // Names in allowed hosts answer before the module counts as started (each lookup is bounded).
  await hostsReady;
  // Given up while binding or looking up: the listener closes (startWithReleases); register nothing.
  ctx.signal.throwIfAborted();
  protocol.started?.(releases);
  return {
    async apply(next) {
      const staged = spec.stateOf(next, ctx.log);
      const how = await listener.apply(wantsOf(next), () => {
        state = staged;
      });
      if (how === 'swapped')
        ctx.log.info(spec.swappedMessage?.(listener.tlsOptions()) ?? 'new TLS settings for new connections');
      return true;
    },
    listening: () => listener.address(),
    stop: () => releases.releaseAll(),
  };
}

/** The `allowed hosts` of the module's section (names looked up now: `ready`), and where they come from for the refusal line. */
function allowedHostsOf(
  view: ListenerView,
  module: ListenerModule,
  log: Logger,
): { filter: HostFilter; ready: Promise<void> } {
  const section = LISTENER_SECTIONS[module];
  const from = fallbackSource(view, section, 'allowed hosts');
  const hosts = allowedHosts(valueText(view.sections[section]?.['allowed hosts']), (p) => log.warning(`${from}: ${p}`));
  return { filter: { isAllowed: (address) => hosts.isAllowed(address), allowedHostsFrom: from }, ready: hosts.ready };
}
