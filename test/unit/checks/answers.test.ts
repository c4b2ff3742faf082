/**
 * Answers that mean what they say: memory on a host without swap, and
 * perf thresholds of "low is bad" figures written as Nagios ranges. The
 * /proc files are real files written for the test (a recorded host
 * without swap, and uptimes of 100 s and 10 days); the CPU and disks are
 * this machine's.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../../../src/checks/engine.js';
import { memoryCheck, uptimeCheck } from '../../../src/checks/system/host-checks.js';
import { toNagios } from '../../../src/core/result.js';
import { createCore } from '../../../src/core/core-impl.js';
import { registerChecks } from '../../../src/checks/register.js';
import { processCheck } from '../../../src/checks/system/process-check.js';

const root = mkdtempSync(join(tmpdir(), 'answers-'));
after(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(
  join(root, 'meminfo'),
  'MemTotal:        8000000 kB\nMemFree:         1000000 kB\nMemAvailable:    6000000 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n',
);

void test('check_memory on a host without swap: no swap is neither used nor short of free space', async () => {
  const r = await runCheck(memoryCheck(root), ['crit=free < 5%', 'warn=none']);
  assert.equal(r.result, 0, r.message);
  const d = await runCheck(memoryCheck(root), []);
  assert.equal(d.result, 0, d.message);
  assert.match(d.message, /swap = 0B of 0B \(0%\)/);
});

void test('perf thresholds of a low-is-bad figure are Nagios ranges (180: alerts below 180); high-is-bad ones stay plain', async () => {
  writeFileSync(join(root, 'uptime'), '100.5 200.0\n');
  const r = await runCheck(uptimeCheck(root), []);
  assert.equal(r.result, 1, r.message);
  assert.match(toNagios(r), /\|'uptime'=100\.5s;180:;60:$/);
  writeFileSync(join(root, 'uptime'), '864000.00 1.0\n');
  assert.equal((await runCheck(uptimeCheck(root), [])).result, 0);
  const mem = await runCheck(memoryCheck(root), ['type=physical', 'perf-config=*(unit:B)']);
  assert.match(toNagios(mem), /'physical'=2048000000B;6553600000;7372800000;0;8192000000/);
});

void test('the ranges survive the plugin boundary (protobuf) as they do over NRPE', async () => {
  writeFileSync(join(root, 'uptime'), '100.5 200.0\n');
  const core = createCore({
    settings: () => {
      throw new Error('no settings in this test');
    },
  });
  const undo = registerChecks(core, 'CheckSystem', [uptimeCheck(root)]);
  try {
    const r = await core.query('check_uptime', []);
    assert.match(toNagios(r), /\|'uptime'=100\.5s;180:;60:$/);
  } finally {
    undo();
  }
});

void test('check_process "warn=count > 0" names what it counted', async () => {
  const r = await runCheck(processCheck(), ['process=node', 'warn=count > 0', 'crit=none']);
  assert.equal(r.result, 1);
  assert.match(r.message, /^WARNING: node=started$/);
});
