/**
 * check_service against output captured from a real systemd 252 (Debian 12),
 * booted in its own namespaces on the CI machine (test/fixtures/host/
 * systemd-captured, see the fixtures README): Debian's own units as they
 * came up there (prometheus and icinga2 running, nagios-nrpe-server failed,
 * units referenced but not installed listed as not-found) and four small
 * units written for the capture (a daemon, a one-shot, a missing binary and
 * one restarted every second, caught between two restarts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCheck } from '../../../../src/checks/engine.js';
import { serviceCheck } from '../../../../src/checks/system/service-check.js';
import { parseShow } from '../../../../src/checks/system/systemd-units.js';
import { FIXTURES, recordedHost } from '../../../helpers/recorded-host.js';

const NAMED = 'service=flappy,web-sleeper,broken,setup-once,nagios-nrpe-server.service,prometheus';

void test('real systemctl show output: property order as systemd prints it, [not set] and empty values', () => {
  const units = parseShow(readFileSync(join(FIXTURES, 'systemd-captured', 'show-all.txt'), 'utf8'));
  const listed = readFileSync(join(FIXTURES, 'systemd-captured', 'list-units.txt'), 'utf8')
    .trim()
    .split('\n');
  assert.equal(units.length, listed.length, 'one block per listed unit');
  const prometheus = units.find((u) => u.Id === 'prometheus.service');
  assert.equal(prometheus?.ActiveState, 'active');
  assert.match(prometheus.MemoryCurrent ?? '', /^\d+$/);
  assert.equal(prometheus.CPUUsageNSec, '[not set]', 'Debian 12 has CPU accounting off by default');
  const auditd = units.find((u) => u.Id === 'auditd.service');
  assert.deepEqual([auditd?.LoadState, auditd?.ExecMainStartTimestamp], ['not-found', '']);
});

void test('all services: the failed units and the one between two restarts are critical, inactive ones filtered out', async () => {
  const host = recordedHost('systemd-captured');
  const r = await runCheck(serviceCheck(host), []);
  assert.equal(r.result, 2, r.message);
  assert.equal(r.message, 'CRITICAL: broken=stopped, flappy=starting, nagios-nrpe-server=stopped');
  // 14 units are not inactive: 3 critical above, the rest running, one-shots or static.
  assert.deepEqual(r.perf, [
    { alias: 'count', value: 14, minimum: 0 },
    { alias: 'failed', value: 3, minimum: 0 },
  ]);
  const statics = await runCheck(serviceCheck(host), [
    "filter=state = 'static'",
    'crit=none',
    'show-all',
    'detail-syntax=${name}',
  ]);
  assert.equal(statics.result, 0);
  const names = statics.message.replace(/^OK: /, '').split(', ');
  for (const name of ['systemd-journald', 'systemd-sysctl', 'dbus'])
    assert.ok(names.includes(name), `${name} is static: ${statics.message}`);
  assert.equal(names.includes('prometheus'), false);
});

void test('named services: restarts, memory in bytes, no CPU perf when systemd does not account it', async () => {
  const host = recordedHost('systemd-captured');
  const r = await runCheck(serviceCheck(host), [NAMED, 'detail-syntax=${name} ${state}/${sub_state}']);
  assert.equal(r.result, 2);
  assert.equal(r.message, 'CRITICAL: broken stopped/failed, nagios-nrpe-server stopped/failed');
  const perf = Object.fromEntries(r.perf.map((p) => [p.alias, p]));
  assert.deepEqual(perf['flappy restarts'], { alias: 'flappy restarts', value: 12, minimum: 0 });
  assert.deepEqual(perf['web-sleeper memory'], { alias: 'web-sleeper memory', value: 180224, unit: 'B', minimum: 0 });
  assert.equal(perf['prometheus memory']?.unit, 'B', 'one unit per label: bytes when there is no maximum to scale by');
  assert.equal(perf['prometheus tasks']?.value, 8);
  assert.equal(
    Object.keys(perf).some((k) => k.endsWith(' cpu')),
    false,
    'CPUUsageNSec was [not set]',
  );
  assert.equal(perf['broken memory'], undefined, 'a stopped unit has no memory figure');

  const restarts = await runCheck(serviceCheck(host), [NAMED, 'crit=none', 'warn=restarts > 3']);
  assert.deepEqual([restarts.result, restarts.message], [1, 'WARNING: flappy=running']);
  const enabled = await runCheck(serviceCheck(host), [
    NAMED,
    'crit=none',
    "warn=enabled != 'enabled'",
    'detail-syntax=${name}:${enabled}',
  ]);
  assert.equal(
    enabled.message,
    'WARNING: flappy:enabled-runtime, web-sleeper:enabled-runtime, broken:enabled-runtime, setup-once:enabled-runtime',
  );
});

void test('a unit systemd does not know is UNKNOWN by name', async () => {
  const r = await runCheck(serviceCheck(recordedHost('systemd-captured')), ['service=nosuch']);
  assert.deepEqual([r.result, r.message], [3, 'could not find service: nosuch']);
});
