/**
 * Why a TLS handshake with an NRPE server found no suite in common, and who
 * the server is. A server without a certificate (a stock nrpe, or another
 * agent's RemoteServer) can agree only anonymous suites; when our allowed
 * ciphers exclude them, the handshake fails. The probe offers anonymous
 * suites only (TLS 1.2, where they exist); when that handshake completes it
 * asks `_NRPE_CHECK` over it, whose answer tells a stock nrpe (`NRPE
 * v4.1.0`) from an agent (`I (agent 1.2.3) seem to be doing fine...`), so
 * the advice names the right file: nrpe.cfg, or [/settings/remote/server].
 */
import * as tls from 'node:tls';
import { PacketReader } from './packet-reader.js';
import { encodePacket, NRPE_CHECK, QUERY_PACKET } from './packet.js';

/** What the probe found: no anonymous handshake, or one, with the server's `_NRPE_CHECK` answer when it gave one. */
export type AnonymousProbe = { anonymous: false } | { anonymous: true; answer?: string };

export interface ProbeTarget {
  host: string;
  port: number;
}

/** Probes `o` within `deadline` (performance.now() ms, at most 2 s from now); closes at once after the answer. */
export function probeAnonymous(o: ProbeTarget, deadline: number): Promise<AnonymousProbe> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: o.host,
      port: o.port,
      ciphers: 'aNULL:@SECLEVEL=0',
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      rejectUnauthorized: false,
    });
    const reader = new PacketReader({ payloadLength: 1024, maxBufferLength: 65536 });
    let secured = false;
    const done = (answer?: string): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(secured ? { anonymous: true, ...(answer !== undefined ? { answer } : {}) } : { anonymous: false });
    };
    const timer = setTimeout(() => done(), Math.max(0, Math.min(2000, deadline - performance.now() - 50)));
    socket.once('secureConnect', () => {
      secured = true;
      socket.write(encodePacket({ version: 2, type: QUERY_PACKET, text: NRPE_CHECK }));
    });
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      try {
        const packet = reader.next();
        if (packet) done(packet.text.toString('utf8').trim());
      } catch {
        done();
      }
    });
    socket.on('error', () => done());
    socket.once('close', () => done());
  });
}

const ACCEPT_ANONYMOUS =
  "or accept TLS that does not authenticate the server with allowed ciphers = ALL:!MD5:@STRENGTH:@SECLEVEL=0 in the target's section of [/settings/remote/client/targets] (--allowed-ciphers on the command line)";

/** The advice for a server that completes only an anonymous handshake, by what it answered to `_NRPE_CHECK`. */
export function anonymousOnlyAdvice(answer: string | undefined): string {
  const head =
    'the server offers only anonymous DH (ADH/AECDH) ciphers, which our allowed ciphers exclude: it has no certificate';
  if (answer !== undefined && /^I \(agent /.test(answer)) {
    return `${head} (another agent: "${answer.slice(0, 60)}"). Give its RemoteServer one (certificate and certificate key in its [/settings/remote/server]), ${ACCEPT_ANONYMOUS}`;
  }
  if (answer !== undefined && /^NRPE v/.test(answer)) {
    return `${head} (a stock nrpe: "${answer.slice(0, 60)}"). Give it one (nrpe.cfg ssl_cert_file, ssl_privatekey_file), ${ACCEPT_ANONYMOUS}`;
  }
  return `${head}. Give it one (a stock nrpe: nrpe.cfg ssl_cert_file and ssl_privatekey_file; an agent: certificate and certificate key in its [/settings/remote/server]), ${ACCEPT_ANONYMOUS}`;
}
