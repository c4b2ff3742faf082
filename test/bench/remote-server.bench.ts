/**
 * Our RemoteServer (in a real agent process) and Debian's NRPE daemon
 * answering check_ok to 20 concurrent clients for 3 s each, over TLS
 * (clients offer check_nrpe's cipher list ALL:!MD5:@STRENGTH; our server
 * picks anonymous ECDH, the daemon anonymous DH) and over plain TCP.
 * Prints queries per second and the ratio ours/daemon (goal: 2x or better).
 */
import { startNrpeDaemon } from '../helpers/nrpe-daemon.js';
import { freePort, startAgent } from '../helpers/agent-process.js';
import { nrpeRequest } from '../../src/protocols/nrpe/client.js';
import { buildClientTls } from '../../src/protocols/nrpe/tls.js';

const CLIENTS = 20;
const SECONDS = 3;

async function load(port: number, plain: boolean): Promise<{ qps: number; failed: number }> {
  const options = {
    host: '127.0.0.1',
    port,
    timeoutMs: 10_000,
    retry: 0,
    tls: plain ? undefined : buildClientTls({ allowedCiphers: 'ALL:!MD5:@STRENGTH' }),
    version: 4 as const,
    payloadLength: 1024,
  };
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  let failed = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = 0; i < 1_000_000 && Date.now() < until; i++) {
        try {
          const a = await nrpeRequest(options, 'check_ok');
          if (a.result === 0) done++;
          else failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { qps: (done * 1000) / (Date.now() - started), failed };
}

for (const plain of [false, true]) {
  const port = await freePort();
  const agent = await startAgent({
    ini: `[/modules]\nCheckHelpers = enabled\nRemoteServer = enabled\n\n[/settings/default]\nallowed hosts = 127.0.0.1\n\n[/settings/remote/server]\nport = ${port}\nbind to = 127.0.0.1\nuse ssl = ${plain ? 0 : 1}\n`,
    env: { AGENT_LOG_LEVEL: 'info' },
  });
  const daemon = await startNrpeDaemon({ plain });
  try {
    await agent.waitForLog(/agent ready/);
    const ours = await load(port, plain);
    const theirs = await load(daemon.port, plain);
    const mode = plain ? 'plain' : 'TLS';
    console.log(
      `remote-server ${mode}: ours ${ours.qps.toFixed(0)} q/s (${ours.failed} failed), Debian nrpe ${theirs.qps.toFixed(0)} q/s (${theirs.failed} failed), ${CLIENTS} clients x ${SECONDS} s; ratio ours/daemon = ${(ours.qps / theirs.qps).toFixed(2)}x`,
    );
  } finally {
    await daemon.stop();
    await agent.stop();
  }
}
