/**
 * settings/examples/passive-checks.ini works as shipped: the agent runs on
 * it with only the targets' addresses moved to Debian's nsca daemon and a
 * private Icinga 2 instance on loopback (the example's aes is nsca's
 * decryption_method 14), the intervals shortened so the first runs come at
 * once, the passwords in the environment as the example asks and the
 * Icinga CA where the example names it. The schedules arrive at both under
 * this machine's lower-case name.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { REPO, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startNscaDaemon, type NscaDaemon } from '../helpers/nsca-daemon.js';
import { API_PASSWORD, startIcingaDaemon, type IcingaDaemon } from '../helpers/icinga-daemon.js';
import { waitUntil } from '../helpers/wait-until.js';

const me = hostname().toLowerCase();
let nsca: NscaDaemon | undefined;
let icinga: IcingaDaemon | undefined;
let agent: AgentProcess | undefined;

before(async () => {
  nsca = await startNscaDaemon({ method: 14, password: 'example-nsca-password' });
  icinga = await startIcingaDaemon({ hosts: [me], services: [[me, 'cpu']] });
  const ini = readFileSync(join(REPO, 'settings/examples/passive-checks.ini'), 'utf8')
    .replace(/^address = nagios\.example\.com:5667$/m, `address = 127.0.0.1:${nsca.port}`)
    .replace(/^address = icinga\.example\.com:5665$/m, `address = 127.0.0.1:${icinga.port}`)
    .replace(/^interval = 5m$/m, 'interval = 10s')
    .replace(/^interval = 15m$/m, 'interval = 10s');
  assert.ok(ini.includes(`127.0.0.1:${nsca.port}`) && ini.includes(`127.0.0.1:${icinga.port}`), 'both addresses moved');
  agent = await startAgent({
    ini,
    env: { NSCA_PASSWORD: 'example-nsca-password', ICINGA_API_PASSWORD: API_PASSWORD },
    files: { 'security/icinga-ca.crt': readFileSync(icinga.ca, 'utf8') },
  });
});

after(async () => {
  await agent?.stop();
  await nsca?.close();
  await icinga?.stop();
});

void test('the example delivers its schedules to nsca and to Icinga 2', async () => {
  const d = nsca as NscaDaemon;
  await waitUntil(
    () =>
      ['cpu', 'memory'].every((s) => d.lines().some((l) => l.includes(`PROCESS_SERVICE_CHECK_RESULT;${me};${s};`))) &&
      d.lines().some((l) => l.includes(`PROCESS_HOST_CHECK_RESULT;${me};0;`)),
    30_000,
    'cpu, memory and the host check at nsca',
  );
  const i = icinga as IcingaDaemon;
  await waitUntil(
    async () => ((await i.object(`services/${me}!cpu`))?.last_check_result ?? null) !== null,
    30_000,
    `a result for ${me}!cpu at Icinga 2`,
  );
  const r = (await i.object(`services/${me}!cpu`))?.last_check_result as Record<string, unknown>;
  // check_cpu's text: `OK: CPU load is ok.`, or on a busy machine the windows over the threshold (`5m: 96%`).
  assert.match(String(r.output), /CPU|\d+%/i);
  assert.ok(Array.isArray(r.performance_data) && r.performance_data.length > 0, JSON.stringify(r));
});
