/**
 * Baseline server of the web-api benchmark, in its own process: a bare
 * node:https server with the agent's certificate and the WEBServer's server
 * options (TLS 1.2 or newer, noDelay), answering every request with the
 * JSON of /api/v1/info (the same fields, serialized per request, links
 * from the Host header, the host name read once) and the same head as the agent's (its security
 * headers, type, length, no-store), in one writeHead and one end. It
 * prints `listening <port>` once it listens on 127.0.0.1.
 *
 * With `--settled`, it first goes through the heap settling the agent does after its start
 * (src/cli/heap-settle.ts: the same function, SETTLE_DELAY_MS after listening, before the
 * `listening` line). V8's memory-reducing collection used to leave a process answering HTTPS
 * about 10% slower for as long as it ran, until the settling kept process.nextTick's maps alive
 * (src/cli/keep-tick-maps.ts; docs/benchmarks.md, "Issue 41: what is left"); the web-api
 * benchmark measures a settled bare server beside the fresh one to show the agent's request
 * path alone, in the same heap state.
 *
 *   node bare-https.js CERT_FILE KEY_FILE [--settled]
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SECURITY_HEADERS } from '../../../src/web/security-headers.js';
import { SETTLE_DELAY_MS, settleHeap } from '../../../src/cli/heap-settle.js';

const [certFile, keyFile, option] = process.argv.slice(2);
if (!certFile || !keyFile || (option !== undefined && option !== '--settled'))
  throw new Error('usage: bare-https.js CERT_FILE KEY_FILE [--settled]');
const started = new Date().toISOString();
const host = hostname();
const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2', noDelay: true },
  (req, res) => {
    const v1 = `https://${req.headers.host ?? '127.0.0.1'}/api/v1`;
    const body = Buffer.from(
      JSON.stringify({
        name: 'config-agent',
        version: '0.1.0',
        started,
        pid: process.pid,
        hostname: host,
        settings: certFile,
        version_url: `${v1}/info/version`,
        status_url: `${v1}/settings/status`,
      }),
    );
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(body.length),
      'Cache-Control': 'no-store',
    });
    res.end(body);
  },
);
server.listen(0, '127.0.0.1', () => void announce());

/** The `listening` line, after the agent's heap settling when asked for. */
async function announce(): Promise<void> {
  if (option === '--settled') {
    await sleep(SETTLE_DELAY_MS);
    settleHeap();
  }
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
}
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
