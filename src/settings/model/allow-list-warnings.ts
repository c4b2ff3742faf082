/**
 * Warnings about what the protocol servers' allow-lists let a peer run
 * without authentication (src/formats/command-allow-list.ts):
 * - AGENT_WARN_UNAUTHENTICATED_EXEC: AgentServer enabled, `allowed exec
 *   commands` not empty, and its peers not authenticated (no TLS, no `ca`,
 *   or a verify mode that makes the client certificate optional);
 * - AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS: CheckExternalScripts with
 *   `allow arguments` on, and a server whose peers are not authenticated
 *   whose `allowed queries` lets through a configured script (RemoteServer
 *   only when its own `allow arguments` is on too, since it refuses
 *   arguments otherwise).
 * - AGENT_WARN_NET_RELAY: CheckNet enabled and a server's `allowed queries`
 *   lets a peer run a network check (any peer, authenticated or not: the
 *   agent would probe its own network for it);
 * - AGENT_WARN_CLIENT_RELAY: RemoteClient or AgentClient enabled and a
 *   server's `allowed queries` lets a peer run their client queries
 *   (remote_*, agent_*: the agent would connect elsewhere for the peer);
 * - AGENT_WARN_ALLOW_LIST_PATTERN: a pattern the linear-time matcher cannot run.
 * An NRPE peer counts as authenticated only when TLS is on with a `ca` and
 * a verify mode that requires a client certificate.
 */
import { parseAllowList, ALLOWED_EXECS, ALLOWED_QUERIES } from '../../formats/command-allow-list.js';
import type { Origin } from './snapshot.js';
import { moduleInfo } from './module-table.js';
import { problem, type SettingsProblem } from './problem.js';
import { keyText, valueText } from './value-text.js';

interface Input {
  file: string;
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  modules: Partial<Record<string, boolean>>;
}

const SERVERS = [
  { module: 'AgentServer', section: '/settings/agent/server', execs: true },
  { module: 'RemoteServer', section: '/settings/remote/server', execs: false },
] as const;

const SCRIPTS = '/settings/external scripts';
/** The network checks (CheckNet): a peer that may run them probes any address the agent reaches. */
const NET_QUERIES = ['check_tcp', 'check_http', 'check_dns', 'check_ping', 'check_ntp_offset'];
/** The modules whose queries connect to other agents for the caller. */
const CLIENTS = ['RemoteClient', 'AgentClient'];

export function allowListWarnings(input: Input): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const scripts = input.sections[SCRIPTS] ?? {};
  const scriptArguments = input.modules.CheckExternalScripts === true && scripts['allow arguments'] === true;
  const scriptNames = Object.keys(input.sections[`${SCRIPTS}/scripts`] ?? {});
  for (const server of SERVERS) {
    if (!input.modules[server.module]) continue;
    const s = input.sections[server.section] ?? {};
    const o = input.origins[server.section] ?? {};
    const at = (key: string, origin: Origin | undefined = o[key]) => ({
      file: origin?.file ?? input.file,
      line: origin?.line ?? 0,
      col: origin?.col ?? 0,
      section: server.section,
      key,
    });
    for (const key of server.execs ? [ALLOWED_QUERIES, ALLOWED_EXECS] : [ALLOWED_QUERIES]) {
      for (const reason of parseAllowList(keyText(s, server.section, key)).refused)
        out.push(problem('AGENT_WARN_ALLOW_LIST_PATTERN', [`[${server.section}]`, key, reason], at(key)));
    }
    const queries = parseAllowList(keyText(s, server.section, ALLOWED_QUERIES));
    if (input.modules.CheckNet === true) {
      const open = NET_QUERIES.filter((q) => queries.allows(q));
      if (open.length > 0) out.push(problem('AGENT_WARN_NET_RELAY', [open.join(', ')], at(ALLOWED_QUERIES)));
    }
    const relay = CLIENTS.filter((m) => input.modules[m] === true)
      .flatMap((m) => moduleInfo(m)?.queries ?? [])
      .filter((q) => queries.allows(q));
    if (relay.length > 0) out.push(problem('AGENT_WARN_CLIENT_RELAY', [relay.join(', ')], at(ALLOWED_QUERIES)));
    const why = unauthenticated(s, server.section);
    if (why === undefined) continue;
    const execs = server.execs ? valueText(s[ALLOWED_EXECS]) : '';
    if (server.execs && !parseAllowList(execs).nothing) {
      out.push(
        problem(
          'AGENT_WARN_UNAUTHENTICATED_EXEC',
          [`[${server.section}]`, why, `${ALLOWED_EXECS} = ${execs}`],
          at(ALLOWED_EXECS, o[ALLOWED_EXECS]),
        ),
      );
    }
    const serverTakesArguments = server.module !== 'RemoteServer' || s['allow arguments'] === true;
    if (scriptArguments && serverTakesArguments) {
      const reachable = scriptNames.filter((n) => queries.allows(n));
      if (reachable.length > 0) {
        const shown = reachable.slice(0, 5).join(', ') + (reachable.length > 5 ? ', …' : '');
        // At the line that causes it: the server's own allow arguments (RemoteServer), else the scripts' one.
        const own = server.module === 'RemoteServer' ? o['allow arguments'] : undefined;
        const cause = own ?? input.origins[SCRIPTS]?.['allow arguments'];
        const where = cause
          ? { ...at('allow arguments', cause), section: own ? server.section : SCRIPTS }
          : at(ALLOWED_QUERIES);
        out.push(problem('AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS', [`[${server.section}]`, why, shown], where));
      }
    }
  }
  return out;
}

/** Why the server's peers are not authenticated, or undefined when they are. */
function unauthenticated(s: Record<string, unknown>, section: string): string | undefined {
  if (s['use ssl'] === false) return 'use ssl is off';
  if (!s.ca) return 'no ca';
  const mode = keyText(s, section, 'verify mode');
  if (!['peer-cert', 'fail-if-no-peer-cert', 'remote-peer'].includes(mode))
    return `verify mode ${mode} does not require a client certificate`;
  return undefined;
}
