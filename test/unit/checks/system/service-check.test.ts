/**
 * check_service against recorded systemctl output (test/fixtures/host/
 * systemd-debian12, see its README) and against this machine, a container
 * without systemd as PID 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runCheck } from '../../../../src/checks/engine.js';
import { serviceCheck } from '../../../../src/checks/system/service-check.js';
import { realHost } from '../../../../src/checks/host/host-sources.js';
import { recordedHost } from '../../../helpers/recorded-host.js';

void test('all services: failed units with an enabled preset are critical, inactive ones are filtered out', async () => {
  const host = recordedHost('systemd-debian12');
  const r = await runCheck(serviceCheck(host), []);
  assert.equal(r.result, 2, r.message);
  // legacy-app failed too, but its preset is disabled; bluetooth and apt-daily are inactive.
  assert.equal(r.message, 'CRITICAL: nginx=stopped');
  assert.deepEqual(r.perf, [
    { alias: 'count', value: 6, minimum: 0 },
    { alias: 'failed', value: 1, minimum: 0 },
  ]);
  const all = await runCheck(serviceCheck(host), [
    'filter=none',
    'crit=none',
    'detail-syntax=${name}:${state}:${enabled}',
    'show-all',
  ]);
  assert.equal(
    all.message,
    'OK: apt-daily:static:static, cron:running:enabled, networking:oneshot:enabled, nginx:stopped:enabled, ssh:running:enabled, systemd-journald:static:static, bluetooth:stopped:disabled, legacy-app:stopped:disabled',
  );
});

void test('named services: no default filter, no preset clause, per-unit perf data with units', async () => {
  const host = recordedHost('systemd-debian12');
  const r = await runCheck(serviceCheck(host), [
    'service=cron,nginx.service',
    'detail-syntax=${name} ${sub_state} restarts=${restarts}',
  ]);
  assert.equal(r.result, 2);
  assert.equal(r.message, 'CRITICAL: nginx failed restarts=5');
  const cron = Object.fromEntries(r.perf.filter((p) => p.alias.startsWith('cron ')).map((p) => [p.alias, p]));
  assert.deepEqual(cron['cron memory'], { alias: 'cron memory', value: 2199552, unit: 'B', minimum: 0 });
  assert.equal(cron['cron tasks']?.value, 1);
  assert.equal(cron['cron cpu']?.unit, '%');
  const warnRestarts = await runCheck(serviceCheck(host), [
    'service=cron',
    'service=nginx',
    'crit=none',
    'warn=restarts > 3',
  ]);
  assert.equal(warnRestarts.result, 1);
  const age = await runCheck(serviceCheck(host), [
    'service=cron,nginx',
    'crit=age < 10m',
    'detail-syntax=${name} since ${started}',
  ]);
  assert.deepEqual([age.result, age.message], [0, 'OK: All 2 service(s) are ok.']);
  const started = await runCheck(serviceCheck(host), [
    'service=cron,nginx',
    'crit=age > 1h',
    'detail-syntax=${name} since ${started}',
  ]);
  assert.deepEqual([started.result, started.message], [2, 'CRITICAL: cron since 2025-11-21 06:00:00']);
});

void test('an unknown unit and a missing systemctl answer UNKNOWN saying so', async () => {
  const host = recordedHost('systemd-debian12');
  const r = await runCheck(serviceCheck(host), ['service=nosuch']);
  assert.deepEqual([r.result, r.message], [3, 'could not find service: nosuch']);
  const bad = await runCheck(serviceCheck(host), ['service=other']);
  assert.equal(bad.result, 3);
  assert.match(bad.message, /^systemctl failed: systemctl exited with 127: not recorded/);
});

void test('this machine: without systemd as PID 1 UNKNOWN with the reason, never an empty OK', async () => {
  const r = await runCheck(serviceCheck(realHost()), []);
  if (existsSync('/run/systemd/system')) {
    assert.match(r.message, /service\(s\) are ok|=stopped|=starting/, 'a machine with systemd lists its services');
  } else {
    assert.equal(r.result, 3);
    assert.match(r.message, /^systemd is not running on this host \(no \/run\/systemd\/system/);
  }
});
