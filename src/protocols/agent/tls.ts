/**
 * TLS settings of the agent protocol's client. (The server's are the
 * listeners' one builder, protocols/listener/server-tls.ts, with client
 * certificates decided by the ca: `verify: 'by-ca'`.)
 *
 * Client: the remote protocol's rules (protocols/nrpe/tls.ts): the chain is
 * checked against ca when the verify mode is not none, host names are not
 * checked (as in NSClient++), a client certificate is sent when configured.
 * Unreadable files, and a ca file without a usable PEM certificate, throw
 * AGENT_ERR_TLS_FILE naming the file.
 */
import type { ConnectionOptions } from 'node:tls';
import { buildClientTls, type NrpeTlsSettings } from '../nrpe/tls.js';

/** A client's TLS settings: the NRPE client's, each one given (a target carries them all) and no DH file (server only). */
export type AgentTlsSettings = Required<Omit<NrpeTlsSettings, 'dh'>>;

/** Client TLS options plus the pool key that identifies them. */
export function agentClientTls(s: AgentTlsSettings): { build: () => ConnectionOptions; key: string } {
  return {
    build: () => buildClientTls(s),
    key: JSON.stringify([s.allowedCiphers, s.certificate, s.certificateKey, s.certificateFormat, s.ca, s.verifyMode]),
  };
}
