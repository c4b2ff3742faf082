/**
 * The remote client against check_nrpe, both talking to Debian's NRPE
 * daemon, over plain TCP (-n) and over TLS (anonymous DH), at most 10 in
 * flight, 1,000 queries each:
 * - processes: 1,000 `config-agent client remote_query` processes against 1,000
 *   `check_nrpe` processes (the same work: start a program, one query, exit);
 * - in process (labelled so, not comparable with a process per query):
 *   1,000 remote_query calls in this one process (options, target merge,
 *   NRPE exchange; the TLS context built once per target and settings
 *   version).
 * Prints the time of each and the ratios.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNrpeDaemon, CHECK_NRPE } from '../helpers/nrpe-daemon.js';
import { MAIN } from '../helpers/agent-process.js';
import { runRemoteQuery } from '../../src/modules/remote-client/remote-query.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { moduleView } from '../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../src/settings/model/module-table.js';

const loaded = loadSettingsText('', 'bench-agent.ini');
if (!loaded.ok) throw new Error('built-in settings do not load');
const snapshot = loaded.snapshot;

const CALLS = 1000;
/** Processes per side: each one is a program start, so fewer. */
const PROCESS_CALLS = Number(process.env.BENCH_PROCESS_CALLS ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'bench-remote-client-'));
const settingsFile = join(dir, 'agent.ini');
writeFileSync(settingsFile, '[/modules]\nRemoteClient = enabled\n');
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
    execFile(
      CHECK_NRPE,
      ['-H', '127.0.0.1', '-p', String(port), ...(plain ? ['-n'] : []), '-c', 'check_ok'],
      { timeout: 15_000 },
      (err, out) => resolve(!err && out.startsWith('OK: fine')),
    );
  });

const agentClient = (args: string[]): Promise<boolean> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'client', 'remote_query', '--settings', settingsFile, ...args],
      { timeout: 30_000 },
      (err, out) => resolve(!err && out.startsWith('OK: fine')),
    );
  });

for (const plain of [true, false]) {
  const daemon = await startNrpeDaemon({ plain });
  try {
    const args = [
      '--host',
      '127.0.0.1',
      '--port',
      String(daemon.port),
      '--command',
      'check_ok',
      ...(plain ? ['--no-ssl'] : []),
    ];
    const ours = await pool(CALLS, CONCURRENCY, async () => {
      const r = await runRemoteQuery('remote_query', 'query', args, moduleView(MODULE_SECTIONS.RemoteClient, snapshot));
      return r.result === 0 && r.message === 'OK: fine';
    });
    const theirs = await pool(CALLS, CONCURRENCY, () => checkNrpe(daemon.port, plain));
    const oursProcesses = await pool(PROCESS_CALLS, CONCURRENCY, () => agentClient(args));
    const theirsProcesses = await pool(PROCESS_CALLS, CONCURRENCY, () => checkNrpe(daemon.port, plain));
    const mode = plain ? 'plain (-n)' : 'TLS (ADH)';
    console.log(
      `remote-client ${mode}, processes: ${PROCESS_CALLS} \`config-agent client remote_query\` in ${oursProcesses.ms.toFixed(0)} ms (${oursProcesses.failed} failed); ${PROCESS_CALLS} check_nrpe in ${theirsProcesses.ms.toFixed(0)} ms (${theirsProcesses.failed} failed); concurrency ${CONCURRENCY}; ratio check_nrpe/ours = ${(theirsProcesses.ms / oursProcesses.ms).toFixed(2)}x`,
    );
    console.log(
      `remote-client ${mode}, in process: ${CALLS} remote_query calls in one process in ${ours.ms.toFixed(0)} ms (${ours.failed} failed); against ${CALLS} check_nrpe processes in ${theirs.ms.toFixed(0)} ms: ${(theirs.ms / ours.ms).toFixed(2)}x (not the same work: no program start on our side)`,
    );
  } finally {
    await daemon.stop();
  }
}
rmSync(dir, { recursive: true, force: true });
