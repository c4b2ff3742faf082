/**
 * 1,000 remote_query calls (options, target merge, NRPE exchange) from one agent process against Debian's NRPE
 * daemon, against 1,000 check_nrpe processes doing the same, both with at
 * most 10 in flight, over plain TCP (-n) and over TLS (anonymous DH).
 * Prints the time of each and the ratio.
 */
import { execFile } from 'node:child_process';
import { startNrpeDaemon, CHECK_NRPE } from '../helpers/nrpe-daemon.js';
import { runRemoteQuery } from '../../src/modules/remote-client/remote-query.js';
import { loadSettingsText } from '../../src/settings/load.js';

const loaded = loadSettingsText('', 'bench-agent.ini');
if (!loaded.ok) throw new Error('built-in settings do not load');
const snapshot = loaded.snapshot;

const CALLS = 1000;
const CONCURRENCY = 10;

async function pool(n: number, width: number, task: () => Promise<boolean>): Promise<{ ms: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        next++;
        if (!(await task())) failed++;
      }
    }),
  );
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, failed };
}

const checkNrpe = (port: number, plain: boolean): Promise<boolean> =>
  new Promise((resolve) => {
    execFile(CHECK_NRPE, ['-H', '127.0.0.1', '-p', String(port), ...(plain ? ['-n'] : []), '-c', 'check_ok'], { timeout: 15_000 }, (err, out) =>
      resolve(!err && out.startsWith('OK: fine')),
    );
  });

for (const plain of [true, false]) {
  const daemon = await startNrpeDaemon({ plain });
  try {
    const args = ['--host', '127.0.0.1', '--port', String(daemon.port), '--command', 'check_ok', ...(plain ? ['--no-ssl'] : [])];
    const ours = await pool(CALLS, CONCURRENCY, async () => {
      const r = await runRemoteQuery('remote_query', 'query', args, snapshot);
      return r.result === 0 && r.message === 'OK: fine';
    });
    const theirs = await pool(CALLS, CONCURRENCY, () => checkNrpe(daemon.port, plain));
    const mode = plain ? 'plain (-n)' : 'TLS (ADH)';
    console.log(`remote-client ${mode}: ${CALLS} remote_query in ${ours.ms.toFixed(0)} ms (${ours.failed} failed); ${CALLS} check_nrpe processes in ${theirs.ms.toFixed(0)} ms (${theirs.failed} failed); concurrency ${CONCURRENCY}; ratio check_nrpe/ours = ${(theirs.ms / ours.ms).toFixed(2)}x`);
  } finally {
    await daemon.stop();
  }
}
