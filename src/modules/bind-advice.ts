/**
 * What to change when a listener cannot bind, in words that point at the
 * setting: the key, the file and line that set it (or "default"), and the
 * command that changes it. Used by the listening modules (through
 * modules/listener-wants.ts) to complete the bind error the listener
 * throws: `listen EADDRINUSE …; port 5666 is in use by another program
 * (ss -ltnp 'sport = :5666' names it): set [/settings/remote/server] port
 * (agent.ini:12) to a free port: config-agent settings set --path
 * /settings/remote/server --key port --value N`. A busy port names its
 * holder where /proc tells it (port-holder.ts); when that is Debian's nrpe
 * daemon, the advice is to take over from it (docs/migration.md).
 */
import type { Origin } from '../settings/model/snapshot.js';
import { originText } from '../settings/model/effective.js';
import { holderText, isNrpe, portHolder, type PortHolder } from './port-holder.js';

export interface BindSetting {
  section: string;
  /** The main settings file: an origin in it is named by its name only. */
  file: string;
  port: number;
  host: string;
  portOrigin: Origin | undefined;
  hostOrigin: Origin | undefined;
  /** WEBServer's port is written with a trailing s for TLS (`8443s`). */
  tlsSuffix: boolean;
}

/** The advice for a failed bind, from the system's error code; undefined for a failure that no setting explains. */
export function bindAdvice(
  err: NodeJS.ErrnoException,
  s: BindSetting,
  holder: (port: number) => PortHolder | undefined = portHolder,
): string | undefined {
  const code = err.code ?? /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL|EPERM)\b/.exec(err.message)?.[1];
  const key = (name: string, o: Origin | undefined): string => `[${s.section}] ${name} (${originText(o, s.file)})`;
  const set = (name: string, value: string): string =>
    `config-agent settings set --path ${s.section} --key '${name}' --value ${value}`;
  const port = `N${s.tlsSuffix ? 's' : ''}`;
  switch (code) {
    case 'EADDRINUSE': {
      const h = holder(s.port);
      const free = `set ${key('port', s.portOrigin)} to a free port: ${set('port', port)}`;
      if (h === undefined)
        return `port ${s.port} is in use by another program (ss -ltnp 'sport = :${s.port}' names it): ${free}`;
      if (isNrpe(h))
        return `port ${s.port} is held by ${holderText(h)}: to take over from nagios-nrpe-server, stop it (systemctl disable --now nagios-nrpe-server) and the agent takes the port at its next retry; see docs/migration.md, "Taking over from nagios-nrpe-server". Or ${free}`;
      return `port ${s.port} is in use by ${holderText(h)}: ${free}`;
    }
    case 'EACCES':
    case 'EPERM':
      return s.port < 1024
        ? `ports below 1024 need the capability CAP_NET_BIND_SERVICE (the packaged service does not grant it): set ${key('port', s.portOrigin)} to 1024 or above: ${set('port', port)}`
        : `the system refuses this address or port to the agent's user: set ${key('port', s.portOrigin)} or ${key('bind to', s.hostOrigin)}`;
    case 'EADDRNOTAVAIL':
      return `${s.host} is not an address of this host (ip -brief address lists them): set ${key('bind to', s.hostOrigin)} to one of its addresses, or empty for all: ${set('bind to', 'ADDRESS')}`;
    default:
      return undefined;
  }
}
