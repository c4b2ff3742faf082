/**
 * NSClient++'s default aliases in a real agent process. A file whose alias
 * section defines nothing gets them, as NSClient++ does. GET
 * /api/v1/aliases and check_index list them, and check_nrpe runs them with
 * the target's answer. One alias in the file and the defaults go, applied
 * without a restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { listenerPort, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { webRequest } from '../helpers/web-client.js';
import { DEFAULT_ALIASES, OMITTED_DEFAULT_ALIASES } from '../../src/checks/scripts/default-aliases.js';
import { inRange } from '../../src/in-range.js';

let agent: AgentProcess;
let nrpePort: number;
let base: string;
const made = new Teardown();

const ini = (aliases = ''): string => `[/modules]
CheckHelpers = enabled
CheckSystem = enabled
CheckDisk = enabled
CheckExternalScripts = enabled
RemoteServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1

[/settings/external scripts]
allow arguments = true

[/settings/external scripts/alias]
${aliases}`;

before(async () => {
  agent = made.add(await startAgent({ ini: ini() }), (a) => a.stop());
  base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  nrpePort = await listenerPort(agent, 'RemoteServer');
  await agent.waitForLog(/CheckExternalScripts: .*\d+ alias\(es\)/);
});

after(() => made.close());

void test("an empty alias section gets NSClient++'s defaults: listed by /api/v1/aliases and check_index", async () => {
  const list = await webRequest(`${base}/api/v1/aliases`, { user: 'root', password: 'root-pw' });
  assert.equal(list.status, 200, list.body);
  const items = list.json<{ name: string; alias_of: string; description: string }[]>();
  assert.deepEqual(items.map((i) => i.name).sort(), Object.keys(DEFAULT_ALIASES).sort());
  const cpu = items.find((i) => i.name === 'alias_cpu_ex');
  assert.equal(cpu?.alias_of, 'check_cpu');
  assert.equal(cpu.description, 'Default alias (NSClient++) for: check_cpu');
  for (const omitted of Object.keys(OMITTED_DEFAULT_ALIASES))
    assert.ok(!items.some((i) => i.name === omitted), omitted);
  const index = await checkNrpe(nrpePort, ['-c', 'check_index']);
  assert.equal(index.code, 0, index.out);
  for (const name of [
    'alias_cpu',
    'alias_mem',
    'alias_up',
    'alias_disk',
    'alias_volumes',
    'alias_service',
    'alias_process',
    'alias_file_age',
  ])
    assert.match(index.out, new RegExp(`\\b${name} \\(CheckExternalScripts, enabled\\)`));
});

void test("check_nrpe runs the defaults with the target's answer", async () => {
  const up = await checkNrpe(nrpePort, ['-c', 'alias_up']);
  const modern = await checkNrpe(nrpePort, ['-c', 'check_uptime']);
  assert.equal(up.code, modern.code, `${up.out} | ${modern.out}`);
  assert.match(up.out, /^\w+: uptime: /);
  const disk = await checkNrpe(nrpePort, ['-c', 'alias_disk_loose']);
  assert.match(disk.out, /^(OK|WARNING|CRITICAL): /);
  const ex = await checkNrpe(nrpePort, ['-c', 'alias_cpu_ex', '-a', '101', '102']);
  assert.equal(ex.code, 0, ex.out);
  // The CPU sampler of an agent just started may hold one fresh sample only: it says so (total 500ms).
  assert.match(ex.out, /'total (30s|500ms)'=[\d.]+%;101;102/);
  const missing = await checkNrpe(nrpePort, ['-c', 'alias_process', '-a', 'no-such-process-x']);
  assert.equal(missing.code, 2, missing.out);
  assert.match(missing.out, /no-such-process-x=stopped/);
  const gone = await checkNrpe(nrpePort, ['-c', 'alias_event_log']);
  assert.equal(gone.code, 3);
});

void test('one alias in the file and the defaults go (hot-applied)', async () => {
  const mark = agent.mark();
  replaceFile(agent.settingsFile, ini('mine = check_ok "mine"\n'));
  await agent.waitForLog(/CheckExternalScripts: apply/, 10_000, mark);
  let names: string[] = [];
  for (let i = 0; i < 50; i++) {
    const r = await webRequest(`${base}/api/v1/aliases`, { user: 'root', password: 'root-pw' });
    names = r.json<{ name: string }[]>().map((x) => x.name);
    if (names.length === 1) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.deepEqual(names, ['mine']);
  const r = await checkNrpe(nrpePort, ['-c', 'alias_cpu']);
  assert.equal(r.code, 3);
  assert.match(r.out, /Unknown command\(s\): alias_cpu/);
});
