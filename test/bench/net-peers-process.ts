/**
 * The peers that the network-check benchmark probes, in their own process
 * (so that serving does not share the event loop with the checks being
 * measured): TCP banner, HTTP, DNS over UDP and SNTP, all on 127.0.0.1,
 * port 0. Prints one JSON line with the ports, then runs until its stdin
 * closes or it gets SIGTERM.
 */
import { dnsPeer, httpPeer, ntpPeer, tcpPeer } from '../helpers/net-peers.js';

const [tcp, http, dns, ntp] = await Promise.all([
  tcpPeer(),
  httpPeer(),
  dnsPeer({ 'bench.test.example': { A: ['192.0.2.1'] } }),
  ntpPeer(0),
]);
process.stdout.write(`${JSON.stringify({ tcp: tcp.port, http: http.port, dns: dns.port, ntp: ntp.port })}\n`);

const stop = async (): Promise<void> => {
  await Promise.all([tcp.close(), http.close(), dns.close(), ntp.close()]);
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
