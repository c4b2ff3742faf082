/**
 * Ceiling of the remote-server benchmark, in its own process: a bare Node
 * TLS server with the RemoteServer's default TLS options (serverTlsOptions:
 * anonymous suites, anonymous ECDH preferred, TLS 1.2) that reads one NRPE
 * v3/v4 request packet and answers a fixed, precomputed v4 response
 * (the bytes our server answers to `check_ok`: `OK: check_ok`), then closes,
 * as NRPE does per connection. The socket work is the RemoteServer's: the
 * same options object (so the same suite, AECDH-AES256-SHA with X25519 for
 * the bench's clients, no certificate, TLS 1.2, the same session tickets:
 * Node's default, a ticket issued on each full handshake, and no resumption
 * since the clients offer no session), no delay (setNoDelay), one write and
 * an end. No parsing beyond the length, no CRC check, no query, no timer:
 * what is left is the handshake and the socket. Prints `listening <port>`
 * on 127.0.0.1.
 */
import { createServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { encodePacket, RESPONSE_PACKET } from '../../../src/protocols/nrpe/packet.js';
import { serverTlsOptions } from '../../../src/protocols/listener/server-tls.js';

const answer = encodePacket({ version: 4, type: RESPONSE_PACKET, result: 0, text: 'OK: check_ok' });
// The RemoteServer's defaults: [/settings/remote/server] allowed ciphers ALL:!MD5:@STRENGTH:@SECLEVEL=0, no certificate, dh empty.
const server = createServer(
  serverTlsOptions({ verifyMode: '', verify: 'by-mode', ciphers: 'ALL:!MD5:@STRENGTH:@SECLEVEL=0' }),
  (socket) => {
    socket.setNoDelay(true);
    let got = 0;
    let need = 16;
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      got += d.length;
      if (need === 16 && got >= 16) need = 16 + Buffer.concat(chunks).readInt32BE(12);
      if (got >= need) socket.end(answer);
    });
    socket.on('error', () => socket.destroy());
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
