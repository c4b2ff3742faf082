/**
 * check_temperature, check_os_updates and check_mailq against recorded
 * machines (test/fixtures/host/, see its README) and against this one,
 * which has no sensors, no mail queue and a real apt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../../../../src/checks/engine.js';
import { temperatureCheck } from '../../../../src/checks/system/temperature-check.js';
import { osUpdatesCheck } from '../../../../src/checks/system/os-updates-check.js';
import { mailqCheck } from '../../../../src/checks/system/mailq-check.js';
import { realHost } from '../../../../src/checks/host/host-sources.js';
import { recordedHost } from '../../../helpers/recorded-host.js';
import { inRange } from '../../../../src/in-range.js';

void test('check_temperature: hwmon sensors with their own limits, NSClient++ default thresholds', async () => {
  const host = recordedHost('hwmon-desktop');
  const r = await runCheck(temperatureCheck(host), []);
  assert.equal(r.result, 2, r.message);
  assert.equal(
    r.message,
    'CRITICAL: acpitz_temp1: 27.8 °C, coretemp_package_id_0: 74 °C, coretemp_core_0: 71 °C, coretemp_core_1: 92 °C, nvme_composite: 38.85 °C',
  );
  assert.deepEqual(
    r.perf.find((p) => p.alias === 'coretemp_core_1'),
    { alias: 'coretemp_core_1', value: 92, warning: 70, critical: 90, maximum: 100 },
  );
  // The NVMe min of -273.15 °C is the kernel's "unset": no minimum in perf data.
  assert.equal(r.perf.find((p) => p.alias === 'nvme_composite')?.minimum, undefined);
  const own = await runCheck(temperatureCheck(host), [
    'warn=temperature > max',
    'crit=temperature > crit',
    'sensor=coretemp',
    'top-syntax=${status}: ${problem_list}',
  ]);
  assert.deepEqual([own.result, own.message], [1, 'WARNING: coretemp_core_1: 92 °C']);
  const one = await runCheck(temperatureCheck(host), ['sensor=core 0', 'show-all']);
  assert.equal(one.message, 'WARNING: coretemp_core_0: 71 °C');
  const none = await runCheck(temperatureCheck(host), ['sensor=gpu']);
  assert.deepEqual([none.result, none.message], [3, 'UNKNOWN: No sensor matches']);
});

void test('check_temperature: an AMD desktop as its owner reported it (k10temp and amdgpu, labels and inputs only, no limits)', async () => {
  const host = recordedHost('hwmon-amd-reported');
  const r = await runCheck(temperatureCheck(host), ['show-all']);
  assert.equal(r.result, 0, r.message);
  assert.equal(
    r.message,
    'OK: k10temp_tctl: 43.88 °C, k10temp_tdie: 43.88 °C, k10temp_tccd1: 32.25 °C, k10temp_tccd2: 32.25 °C, amdgpu_edge: 40 °C, amdgpu_junction: 40 °C, amdgpu_mem: 42 °C',
  );
  // No _max or _crit file: no maximum in the perf data, the thresholds are the defaults.
  assert.deepEqual(
    r.perf.find((p) => p.alias === 'amdgpu_mem'),
    { alias: 'amdgpu_mem', value: 42, warning: 70, critical: 90 },
  );
  const own = await runCheck(temperatureCheck(host), ['warn=temperature > max', 'crit=temperature > crit']);
  assert.equal(own.result, 0, 'limits the chip does not report never fire');
  const gpu = await runCheck(temperatureCheck(host), [
    'sensor=amdgpu',
    'warn=temperature > 41',
    'crit=none',
    'top-syntax=${status}: ${problem_list}',
  ]);
  assert.deepEqual([gpu.result, gpu.message], [1, 'WARNING: amdgpu_mem: 42 °C']);
});

void test('check_temperature: thermal zones when there is no hwmon, trip points as crit and max', async () => {
  const r = await runCheck(temperatureCheck(recordedHost('thermal-only')), [
    'warn=temperature > max',
    'crit=temperature > crit',
    'show-all',
    'detail-syntax=${sensor} ${temperature}/${max}/${crit}',
  ]);
  assert.equal(r.message, 'OK: acpitz_thermal_zone0 41//105, x86_pkg_temp_thermal_zone1 55/85/');
});

void test('check_temperature on this machine: no sensors is UNKNOWN saying so, never an empty OK', async () => {
  const r = await runCheck(temperatureCheck(realHost()), []);
  if (existsSync('/sys/class/hwmon') || existsSync('/sys/class/thermal/thermal_zone0')) {
    assert.notEqual(r.message, '', 'a machine with sensors lists them');
  } else {
    assert.equal(r.result, 3);
    assert.match(r.message, /^no temperature sensors on this host/);
  }
});

void test('check_os_updates: apt with pending security updates (captured), and with none', async () => {
  const host = recordedHost('apt-debian12');
  const r = await runCheck(osUpdatesCheck(host), ['list-separator=\n']);
  assert.equal(r.result, 2);
  const lines = r.message.split('\n');
  assert.match(inRange(lines, 0), /^CRITICAL: 136 update\(s\) available, \d+ security: \[SECURITY\] /);
  const security = Number(/, (\d+) security/.exec(inRange(lines, 0))![1]);
  assert.ok(security > 0 && security < 136);
  assert.deepEqual(r.perf, [
    { alias: 'updates', value: 136, warning: 0, minimum: 0 },
    { alias: 'security', value: security, minimum: 0 },
  ]);
  const bash = await runCheck(osUpdatesCheck(host), [
    "filter=package = 'bash'",
    'show-all',
    'detail-syntax=${package} ${old_version} -> ${version} (${manager}, ${arch}, security ${security})',
  ]);
  assert.equal(
    bash.message,
    'WARNING: 1 update(s) available, 0 security: bash 5.2.15-2+b8 -> 5.2.15-2+b13 (apt, amd64, security 0)',
  );
  const none = await runCheck(osUpdatesCheck(recordedHost('apt-none')), []);
  assert.deepEqual([none.result, none.message], [0, 'OK: no updates available']);
  const age = await runCheck(osUpdatesCheck(recordedHost('apt-none')), ['max-metadata-age=1s']);
  assert.equal(age.result, 3);
  assert.match(age.message, /^repository metadata in \/var\/lib\/apt\/lists is \d+ h old, more than max-metadata-age/);
});

void test('check_os_updates: dnf with security updates; yum is not asked when dnf is there', async () => {
  const host = recordedHost('dnf-rocky9');
  const r = await runCheck(osUpdatesCheck(host), ['detail-syntax=${prefix}${package}']);
  assert.equal(
    r.message,
    'CRITICAL: 5 update(s) available, 3 security: [SECURITY] kernel, [SECURITY] openssl, [SECURITY] openssl-libs',
  );
  assert.ok(
    host.commands.every((c) => c.startsWith('dnf ')),
    host.commands.join('; '),
  );
  const missing = await runCheck(osUpdatesCheck(host), ['system=apt']);
  assert.deepEqual([missing.result, missing.message], [3, 'apt is not installed on this host']);
  const nothing = await runCheck(osUpdatesCheck(recordedHost('postfix')), []);
  assert.deepEqual(
    [nothing.result, nothing.message],
    [3, 'no supported package manager on this host (looked for apt-get, dnf, yum)'],
  );
});

void test('check_mailq: counts the postfix queues of a spool, bytes included', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mailq-'));
  try {
    const spool = join(root, 'var/spool/postfix');
    for (const [q, files] of [
      ['active', ['A1', 'A2']],
      ['deferred/4', ['4F1', '4F2']],
      ['deferred/B', ['B77']],
      ['hold', []],
    ] as const) {
      mkdirSync(join(spool, q), { recursive: true });
      for (const f of files) writeFileSync(join(spool, q, f), 'x'.repeat(1000));
    }
    const host = recordedHost('postfix', { root });
    const r = await runCheck(mailqCheck(host), []);
    assert.deepEqual([r.result, r.message], [1, 'WARNING: postfix: active 2 / deferred 3 / hold 0']);
    assert.deepEqual(
      r.perf.find((p) => p.alias === 'deferred_size'),
      { alias: 'deferred_size', value: 3000, unit: 'B', warning: 10485760, critical: 20971520, minimum: 0 },
    );
    const crit = await runCheck(mailqCheck(host), ['crit=total >= 5']);
    assert.equal(crit.result, 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('check_mailq on this machine: no postfix is UNKNOWN saying so', async () => {
  const r = await runCheck(mailqCheck(realHost()), []);
  if (existsSync('/usr/sbin/postconf')) assert.match(r.message, /postfix: active \d+|cannot read the mail queue/);
  else
    assert.deepEqual([r.result, r.message], [3, 'no mail queue on this host: postfix is not installed (no postconf)']);
});
