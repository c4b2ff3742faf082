/**
 * NSClientServer: answers Debian's check_nt (the NSClient protocol of
 * NSClient++'s module of the same name) from [/settings/NSClient/server],
 * with the agent's own checks: CPU load, uptime, disk space, memory,
 * systemd services, processes and file ages (respond.ts, and
 * protocols/nsclient/ for the wire and the answers).
 *
 * A request must carry `password` (own key, else [/settings/default]); with
 * none set every request is refused (the settings warn:
 * AGENT_WARN_NSCLIENT_NO_PASSWORD), as NSClient++ does, since check_nt
 * sends it in clear text.
 * `allow` limits the commands. The listener is a managed listener
 * (protocols/listener/managed-listener.ts), like RemoteServer's: allowed
 * hosts, the connection limits, timeout, password, allow and drive letters
 * apply in place; a new port, bind address or `use ssl` moves the listener,
 * the new one up before the old one closes; a failed move keeps every part
 * of the previous settings. `port = 0` lets the system pick a port (logged).
 */
import type { AgentModule, ModuleContext, RunningModule } from '../module.js';
import { startWithReleases, type Releases } from '../releases.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { fallbackSource } from '../../settings/module-view.js';
import { listenerTlsFiles } from '../../settings/tls-checks.js';
import { allowedHosts } from '../../protocols/allowed-host-names.js';
import { parseAllow } from '../../protocols/nsclient/request.js';
import { startNsClientServer, type NsClientServerPolicy } from '../../protocols/nsclient/server.js';
import type { ListenerWants } from '../../protocols/listener/listener-contract.js';
import { ManagedListener } from '../../protocols/listener/managed-listener.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';
import { listenerWants } from '../listener-wants.js';
import { respond, type RequestState } from './respond.js';
import { CPU_HISTORY_SECONDS } from '../../checks/system/cpu-sampler.js';
import { inRange } from '../../in-range.js';

const SECTION = '/settings/NSClient/server';
/** The longest window of check_cpu (CheckSystem's sampler keeps an hour). */
const MAX_CPU_MINUTES = CPU_HISTORY_SECONDS / 60;

type Settings = SettingsOf<'NSClientServer'>;

export const agentModule: AgentModule<Settings> = {
  name: 'NSClientServer',
  start: (ctx) => startWithReleases(ctx, (releases) => startNsClient(ctx, releases)),
};

async function startNsClient(ctx: ModuleContext<Settings>, releases: Releases): Promise<RunningModule<Settings>> {
  let hostsReady: Promise<void> = Promise.resolve();

  const stateOf = (view: Settings): RequestState => {
    const s = view.sections[SECTION];
    const { allowed, unknown } = parseAllow(s.allow);
    if (unknown.length > 0)
      ctx.log.warning(
        `[${SECTION}] allow: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} no check_nt command or group; ignored`,
      );
    if (allowed.size === 0) ctx.log.warning(`[${SECTION}] allow enables no command: every request is refused`);
    return {
      password: s.password,
      allowed,
      driveLetters: parseDriveLetters(s['drive letters']),
      maxCpuMinutes: MAX_CPU_MINUTES,
      now: () => Date.now() / 1000,
    };
  };

  const policyOf = (view: Settings): NsClientServerPolicy => {
    const s = view.sections[SECTION];
    const from = fallbackSource(view, SECTION, 'allowed hosts');
    // Host names are resolved now (start, reload); `hostsReady` lets start wait for them.
    const hosts = allowedHosts(s['allowed hosts'], (p) => ctx.log.warning(`${from}: ${p}`));
    hostsReady = hosts.ready;
    return { isAllowed: (address) => hosts.isAllowed(address), allowedHostsFrom: from, timeoutMs: s.timeout * 1000 };
  };

  const wantsOf = (view: Settings): ListenerWants<NsClientServerPolicy> =>
    listenerWants(view, 'NSClientServer', tlsSpecOf(view), policyOf(view));

  const newListener = (context: ModuleContext<Settings>): ManagedListener<NsClientServerPolicy> =>
    new ManagedListener<NsClientServerPolicy>({
      what: 'the check_nt server',
      counter: 'nsclient',
      log: context.log,
      describe: (w) => `to ${w.host || '*'}:${w.port} (${w.tls ? 'TLS' : 'plain'})`,
      open: async (a) => {
        const answer = (text: string, peer: string, gone: AbortSignal): Promise<string> =>
          respond(text, peer, gone, state, { core: context.core, log: context.log, signal: context.signal });
        const srv = await startNsClientServer({
          host: a.host,
          port: a.port,
          tls: a.tls,
          policy: a.policy,
          guard: a.guard,
          answer,
          log: context.log,
        });
        const at = srv.address();
        context.log.info(`listening on ${at.address}:${at.port} (${a.tls ? 'TLS' : 'plain'})`);
        return srv;
      },
    });

  let state = stateOf(ctx.settings);
  const listener = newListener(ctx);
  // Given up (time limit, agent stopping) before it binds: opens nothing.
  await listener.start(wantsOf(ctx.settings), ctx.signal);
  releases.add(() => listener.close());
  // Names in allowed hosts answer before the module counts as started (each lookup is bounded).
  await hostsReady;
  return {
    async apply(next) {
      const staged = stateOf(next);
      await listener.apply(wantsOf(next), () => {
        state = staged;
      });
      return true;
    },
    listening: () => listener.address(),
    stop: () => releases.releaseAll(),
  };
}

/** `C=/, D=/var`: upper-case letters to mount points (pairs that do not parse are left out; the schema describes the form). */
function parseDriveLetters(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split(',')) {
    const m = /^\s*([A-Za-z]):?\s*=\s*(\/\S*)\s*$/.exec(pair);
    if (m) out.set(inRange(m, 1).toUpperCase(), inRange(m, 2));
  }
  return out;
}

/** The TLS of these settings (a self-signed certificate is created when none is named); undefined without `use ssl`. */
function tlsSpecOf(view: Settings): ServerTlsSpec | undefined {
  const files = listenerTlsFiles(view, 'NSClientServer');
  if (!files?.pair) return undefined;
  return { pair: files.pair, verifyMode: 'none', verify: 'by-ca', certificateError: 'AGENT_ERR_NSCLIENT_CERTIFICATE' };
}
