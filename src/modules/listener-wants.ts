/**
 * The listener a listening module's settings want (protocols/listener/managed-listener.ts),
 * from the keys the three listener sections share: `bind to`, `port` (WEBServer's with a
 * trailing s for TLS), `max connections`, `max connections per address` and `timeout` (the
 * first-request deadline). The module adds its TLS spec and its protocol's policy.
 */
import type { ListenerWants } from '../protocols/listener/managed-listener.js';
import type { ServerTlsSpec } from '../protocols/listener/server-tls.js';
import { LISTENER_SECTIONS, tlsFilesError, type ListenerModule, type TlsSettings } from '../settings/tls-checks.js';

/** The keys every listener section has (schema/modules/*-server.schema.json). */
interface ListenerSection {
  'bind to': string;
  port: number | string;
  'max connections': number;
  'max connections per address': number;
  timeout: number;
}

export function listenerWants<P>(view: TlsSettings, module: ListenerModule, tls: ServerTlsSpec | undefined, policy: P): ListenerWants<P> {
  const s = view.sections[LISTENER_SECTIONS[module]] as unknown as ListenerSection;
  return {
    host: s['bind to'],
    port: Number(String(s.port).replace(/s$/, '')),
    tls,
    limits: { maxConnections: s['max connections'], maxPerAddress: s['max connections per address'], firstRequestMs: s.timeout * 1000 },
    policy,
    tlsFail: (problems) => tlsFilesError(view, module, problems),
  };
}
