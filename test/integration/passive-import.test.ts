/**
 * An nsclient.ini that pushes passive checks over NSCA
 * (test/fixtures/nsclient/passive-nsca.ini: one-liner schedules under a
 * default, host_check, an nsca:// address, aes256, ${host_lc}) goes
 * through `config-agent settings import`; the agent runs on the result, with the
 * address pointed at Debian's nsca daemon configured as NSClient++'s
 * documentation says for aes256 (decryption_method 14), and the daemon
 * receives the host check and the service results under this machine's
 * lower-case name.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startNscaDaemon, type NscaDaemon } from '../helpers/nsca-daemon.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { waitUntil } from '../helpers/wait-until.js';

const dir = mkdtempSync(join(tmpdir(), 'passive-import-'));
let daemon: NscaDaemon | undefined;
let agent: AgentProcess | undefined;

after(async () => {
  await agent?.stop();
  await daemon?.close();
  rmSync(dir, { recursive: true, force: true });
});

void test('imported NSCA and Scheduler settings deliver to nsca with decryption_method 14', async () => {
  const out = join(dir, 'agent.ini');
  const imported = await runAgentCli([
    'settings',
    'import',
    join(REPO, 'test/fixtures/nsclient/passive-nsca.ini'),
    '--output',
    out,
  ]);
  assert.equal(imported.code, 0, imported.stderr);
  daemon = await startNscaDaemon({ method: 14, password: 'Password_Which_Must_Be_Identical_On_NSCA_Server' });
  const ini = readFileSync(out, 'utf8').replace(
    /^address = nagios\.example\.com:5667$/m,
    `address = 127.0.0.1:${daemon.port}`,
  );
  assert.ok(ini.includes(`127.0.0.1:${daemon.port}`));
  agent = await startAgent({ ini });
  const me = hostname().toLowerCase();
  const d = daemon;
  // interval 30s with NSClient++'s default randomness (10%): every first run within 3 s.
  await waitUntil(
    () =>
      d.lines().some((l) => l.includes(`PROCESS_HOST_CHECK_RESULT;${me};0;`)) &&
      d.lines().some((l) => l.includes(`PROCESS_SERVICE_CHECK_RESULT;${me};cpu;`)) &&
      d.lines().some((l) => l.includes(`PROCESS_SERVICE_CHECK_RESULT;${me};mem;`)),
    20_000,
    'host_check, cpu and mem at the daemon',
  );
  const cpu = d.lines().find((l) => l.includes(';cpu;'))!;
  assert.match(
    cpu,
    new RegExp(`^\\[\\d+\\] PROCESS_SERVICE_CHECK_RESULT;${me.replace(/[.]/g, '\\.')};cpu;[0-3];.+\\|.+`),
    'status, message and perf data',
  );
});
