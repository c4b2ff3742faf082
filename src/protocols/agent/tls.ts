/**
 * TLS settings of the agent protocol.
 *
 * Server: always has a certificate (configured, or generated self-signed by
 * the AgentServer module). Client authentication follows `ca`:
 * - `ca` empty: no client certificate is asked for; a verify mode other
 *   than none is a configuration error (without a ca the system store would
 *   decide who may query);
 * - `ca` set: verify modes none, peer-cert, fail-if-no-peer-cert and
 *   remote-peer require a client certificate signed by ca (a ca that is not
 *   enforced would only give a false sense of security, so none counts as
 *   peer-cert here); peer and client-once ask for one and refuse an invalid
 *   one, but let a client without a certificate in.
 *
 * Client: the remote protocol's rules (protocols/nrpe/tls.ts): the chain is
 * checked against ca when the verify mode is not none, host names are not
 * checked (as in NSClient++), a client certificate is sent when configured.
 * Unreadable files, and a ca file without a usable PEM certificate, throw
 * AGENT_ERR_TLS_FILE naming the file.
 */
import type { ConnectionOptions, TlsOptions } from 'node:tls';
import { AgentError } from '../../errors.js';
import { buildClientTls, type NrpeTlsSettings } from '../nrpe/tls.js';
import { serverTlsOptions } from '../listener/server-tls.js';
import { caProblem } from '../../formats/pem-check.js';
import { readRegularFileSync, TLS_FILE_LIMIT } from '../../formats/regular-file.js';

/** A client's TLS settings: the NRPE client's, each one given (a target carries them all) and no DH file (server only). */
export type AgentTlsSettings = Required<Omit<NrpeTlsSettings, 'dh'>>;

/** Client TLS options plus the pool key that identifies them. */
export function agentClientTls(s: AgentTlsSettings): { build: () => ConnectionOptions; key: string } {
  return {
    build: () => buildClientTls(s),
    key: JSON.stringify([s.allowedCiphers, s.certificate, s.certificateKey, s.certificateFormat, s.ca, s.verifyMode]),
  };
}

/** Server TLS options from PEM text of certificate and key and the ca file name (the one builder, listener/server-tls.ts, client certificates decided by the ca). */
export function agentServerTls(s: { cert: string; key: string; ca: string; verifyMode: string; allowedCiphers: string }): TlsOptions {
  return serverTlsOptions({ cert: s.cert, key: s.key, ca: s.ca ? readCa(s.ca) : undefined, verifyMode: s.verifyMode, verify: 'by-ca', ciphers: s.allowedCiphers });
}

/** The ca file's content; AGENT_ERR_TLS_FILE when it cannot be read or holds no usable PEM certificate. */
function readCa(file: string): Buffer {
  let content: Buffer;
  try {
    content = readRegularFileSync(file, TLS_FILE_LIMIT);
  } catch (err) {
    throw new AgentError('AGENT_ERR_TLS_FILE', ['ca', file, (err as NodeJS.ErrnoException).code ?? (err as Error).message]);
  }
  const problem = caProblem(content);
  if (problem) throw new AgentError('AGENT_ERR_TLS_FILE', ['ca', file, problem]);
  return content;
}
