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
 * `allow` limits the commands. Start, staged apply and stop are the
 * listener modules' one skeleton (modules/listener-module.ts): allowed
 * hosts, the connection limits, timeout, password, allow and drive letters
 * apply in place; a new port, bind address or `use ssl` moves the listener,
 * the new one up before the old one closes; a failed move keeps every part
 * of the previous settings. `port = 0` lets the system pick a port (logged).
 */
import { listenerModule } from '../listener-module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { listenerTlsFiles } from '../../settings/store/tls-checks.js';
import { parseAllow } from '../../protocols/nsclient/request.js';
import { startNsClientServer, type NsClientServerPolicy } from '../../protocols/nsclient/server.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';
import { respond, type RequestState } from './respond.js';
import { CPU_HISTORY_SECONDS } from '../../checks/system/cpu-sampler.js';
import { inRange } from '../../in-range.js';

const SECTION = '/settings/NSClient/server';
/** The longest window of check_cpu (CheckSystem's sampler keeps an hour). */
const MAX_CPU_MINUTES = CPU_HISTORY_SECONDS / 60;

type Settings = SettingsOf<'NSClientServer'>;

export const agentModule = listenerModule<Settings, NsClientServerPolicy, RequestState>({
  name: 'NSClientServer',
  what: 'the check_nt server',
  counter: 'nsclient',
  policyOf: (view, hosts) => ({ ...hosts, timeoutMs: view.sections[SECTION].timeout * 1000 }),
  stateOf: (view, log) => {
    const s = view.sections[SECTION];
    const { allowed, unknown } = parseAllow(s.allow);
    if (unknown.length > 0)
      log.warning(
        `[${SECTION}] allow: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} no check_nt command or group; ignored`,
      );
    if (allowed.size === 0) log.warning(`[${SECTION}] allow enables no command: every request is refused`);
    return {
      password: s.password,
      allowed,
      driveLetters: parseDriveLetters(s['drive letters']),
      maxCpuMinutes: MAX_CPU_MINUTES,
      now: () => Date.now() / 1000,
    };
  },
  tlsSpecOf,
  serve: (ctx, state) => ({
    open: (a) =>
      startNsClientServer({
        host: a.host,
        port: a.port,
        tls: a.tls,
        policy: a.policy,
        guard: a.guard,
        answer: (text, peer, gone) =>
          respond(text, peer, gone, state(), { core: ctx.core, log: ctx.log, signal: ctx.signal }),
        log: ctx.log,
      }),
  }),
});

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
