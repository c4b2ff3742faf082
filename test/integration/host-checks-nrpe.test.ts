/**
 * The host checks through a real agent process and Debian's check_nrpe:
 * check_logfile on a log the test writes, check_network, check_mount,
 * check_service and check_temperature on this machine; read positions and
 * rate history survive a settings reload and a module restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, listenerPort, replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

let agent: AgentProcess;
let port: number;
let log: string;
const made = new Teardown();

const ini = (systemEnabled: boolean, maxLines: number): string => `[/modules]
CheckSystem = ${systemEnabled ? 'enabled' : 'disabled'}
CheckDisk = enabled
CheckLogFile = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1

[/settings/logfile]
allowed paths = \${base-path}/logs
max lines = ${maxLines}
`;

before(async () => {
  agent = made.add(await startAgent({ ini: ini(true, 100) }), (a) => a.stop());
  port = await listenerPort(agent, 'RemoteServer');
  mkdirSync(join(agent.dir, 'logs'), { recursive: true });
  log = join(agent.dir, 'logs', 'app.log');
});

after(() => made.close());

void test('check_logfile over check_nrpe: new lines only, across a settings reload and a module restart', async () => {
  writeFileSync(log, 'INFO\tup\nERROR\tdisk full\n');
  const crit = ['crit=column1 = str(ERROR)', 'detail-syntax=%(line_number) %(column2)'];
  const first = await checkNrpe(port, ['-c', 'check_logfile', '-a', `file=${log}`, ...crit]);
  assert.deepEqual(first, { code: 2, out: "CRITICAL: 1/2 line(s) (2 disk full)|'count'=2;;;0" });
  // A reload of [/settings/logfile] keeps the positions.
  const m = agent.mark();
  replaceFile(agent.settingsFile, ini(true, 50));
  await agent.waitForLog(/CheckLogFile: apply/, 10_000, m);
  const none = await checkNrpe(port, ['-c', 'check_logfile', '-a', `file=${log}`, ...crit]);
  assert.deepEqual(none, { code: 0, out: "OK: Nothing found (0 new line(s) read)|'count'=0;;;0" });
  appendFileSync(log, 'ERROR\tagain\n');
  const again = await checkNrpe(port, ['-c', 'check_logfile', '-a', `file=${log}`, ...crit]);
  assert.deepEqual(again, { code: 2, out: "CRITICAL: 1/1 line(s) (3 again)|'count'=1;;;0" });
  const outside = await checkNrpe(port, ['-c', 'check_logfile', '-a', 'file=/etc/passwd']);
  assert.equal(outside.code, 3);
  assert.match(
    outside.out,
    /^\/etc\/passwd is not under an allowed path \(.*\/logs\); see \[\/settings\/logfile\] allowed paths/,
  );
});

void test('check_network over check_nrpe; the rate history outlives a restart of CheckSystem', async () => {
  const first = await checkNrpe(port, ['-c', 'check_network', '-a', 'device=lo', 'detail-syntax=%(name) %(lookback)']);
  assert.equal(first.code, 0, first.out);
  assert.match(
    first.out,
    /^OK: lo \d+s\|'lo received'=[\d.]+[KMG]?B;;;0 'lo sent'=[\d.]+[KMG]?B;;;0 'lo errors'=\d+;;;0 'lo drops'=\d+;;;0$/,
  );
  let m = agent.mark();
  replaceFile(agent.settingsFile, ini(false, 50));
  await agent.waitForLog(/CheckSystem: unload/, 10_000, m);
  await new Promise((r) => setTimeout(r, 1500));
  m = agent.mark();
  replaceFile(agent.settingsFile, ini(true, 50));
  await agent.waitForLog(/module CheckSystem started/, 10_000, m);
  // The baseline is a reading from before the restart: over 2 s old, not a fresh 1 s sample.
  const second = await checkNrpe(port, [
    '-c',
    'check_network',
    '-a',
    'device=lo',
    'detail-syntax=%(name) %(lookback)',
    'warn=none',
    'crit=none',
  ]);
  const seconds = /^OK: lo (\d+)s\|/.exec(second.out);
  assert.ok(seconds && Number(seconds[1]) >= 2, second.out);
});

void test('check_mount, check_service and check_temperature over check_nrpe', async () => {
  const mount = await checkNrpe(port, ['-c', 'check_mount', '-a', 'mount=/', 'mount=/no/such']);
  assert.deepEqual(mount, { code: 2, out: 'CRITICAL: /no/such not mounted' });
  const service = await checkNrpe(port, ['-c', 'check_service']);
  const temperature = await checkNrpe(port, ['-c', 'check_temperature']);
  // In a container (CI): no systemd as PID 1, no sensors; each says so instead of an empty OK.
  if (!existsSync('/run/systemd/system'))
    assert.deepEqual([service.code, /^systemd is not running on this host/.test(service.out)], [3, true], service.out);
  else assert.match(service.out, /service\(s\) are ok|=stopped|=starting/);
  if (!existsSync('/sys/class/hwmon') && !existsSync('/sys/class/thermal/thermal_zone0'))
    assert.deepEqual(
      [temperature.code, /^no temperature sensors on this host/.test(temperature.out)],
      [3, true],
      temperature.out,
    );
  else assert.match(temperature.out, / °C/);
  const help = await checkNrpe(port, ['-c', 'check_drive_io', '-a', 'help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /lookback=\.\.\./);
});
