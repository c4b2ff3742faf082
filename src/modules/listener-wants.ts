/**
 * The listener a listening module's settings want (protocols/listener/managed-listener.ts),
 * from the keys the three listener sections share: `bind to`, `port` (WEBServer's with a
 * trailing s for TLS), `max connections`, `max connections per address` and `timeout` (the
 * first-request deadline). The module adds its TLS spec and its protocol's policy.
 */
import type { ListenerWants } from '../protocols/listener/listener-contract.js';
import type { ServerTlsSpec } from '../protocols/listener/server-tls.js';
import {
  LISTENER_SECTIONS,
  tlsFilesError,
  type ListenerModule,
  type TlsSettings,
} from '../settings/store/tls-checks.js';
import { bindAdvice } from './bind-advice.js';

/** The keys every listener section has (schema/modules/*-server.schema.json). */
interface ListenerSection {
  'bind to': string;
  port: number | string;
  'max connections': number;
  'max connections per address': number;
  timeout: number;
}

export function listenerWants<P>(
  view: TlsSettings,
  module: ListenerModule,
  tls: ServerTlsSpec | undefined,
  policy: P,
): ListenerWants<P> {
  const section = LISTENER_SECTIONS[module];
  const s = view.sections[section] as unknown as ListenerSection;
  const port = Number(String(s.port).replace(/s$/, ''));
  const origins = view.origins[section];
  const where = {
    section,
    file: view.file,
    port,
    host: s['bind to'],
    portOrigin: origins?.port,
    hostOrigin: origins?.['bind to'],
    tlsSuffix: module === 'WEBServer',
  };
  return {
    host: s['bind to'],
    port,
    tls,
    limits: {
      maxConnections: s['max connections'],
      maxPerAddress: s['max connections per address'],
      firstRequestMs: s.timeout * 1000,
    },
    policy,
    tlsFail: (problems) => tlsFilesError(view, module, problems),
    bindAdvice: (err) => bindAdvice(err, where),
  };
}
