import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuSampler } from '../../../../src/checks/system/cpu-sampler.js';
import { cpuCheck } from '../../../../src/checks/system/cpu-checks.js';
import { runCheck } from '../../../../src/checks/engine.js';

// A /proc root of our own: the test moves the counters between readings.
const statFile = (busy: number, idle: number): string =>
  `cpu  ${busy} 0 0 ${idle} 0 0 0 0 0 0\ncpu0 ${busy} 0 0 ${idle} 0 0 0 0 0 0\n`;

void test('a sampler started a moment ago measures a fresh interval, not the burst since its start', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpu-sampler-'));
  try {
    writeFileSync(join(root, 'stat'), statFile(1000, 1000));
    const sampler = new CpuSampler({ root, intervalMs: 60_000, freshMs: 20 });
    await sampler.start();
    // The start-up burst: 500 busy ticks, no idle ones, right after the first sample.
    writeFileSync(join(root, 'stat'), statFile(1500, 1000));
    const fresh = await sampler.utilisation(5);
    // Nothing moved during the fresh interval: that is what the host did now.
    assert.equal(fresh.find((l) => l.core === 'total')?.load, 0);
    sampler.stop();

    // The same sampler with no minimum span reads the burst: the old behaviour.
    writeFileSync(join(root, 'stat'), statFile(1000, 1000));
    const eager = new CpuSampler({ root, intervalMs: 60_000, minSpanMs: 0 });
    await eager.start();
    writeFileSync(join(root, 'stat'), statFile(1500, 1000));
    assert.equal((await eager.utilisation(5)).find((l) => l.core === 'total')?.load, 100);
    eager.stop();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('a sampler with a base old enough compares with it, and one fresh interval serves several windows', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpu-sampler-'));
  try {
    writeFileSync(join(root, 'stat'), statFile(0, 1000));
    const sampler = new CpuSampler({ root, intervalMs: 60_000, minSpanMs: 30, freshMs: 20 });
    await sampler.start();
    await new Promise((r) => setTimeout(r, 40));
    writeFileSync(join(root, 'stat'), statFile(250, 1750));
    assert.equal((await sampler.utilisation(5)).find((l) => l.core === 'core0')?.load, 25);
    sampler.stop();

    // Never started: the first window measures, the next ones reuse that measurement.
    const cold = new CpuSampler({ root, freshMs: 20 });
    const first = await cold.utilisation(5);
    assert.equal(await cold.utilisation(60), first);
    assert.equal(await cold.utilisation(300), first);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('check_cpu labels a fresh interval as what it measured (total 20ms here, 500ms by default), once for all its windows', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpu-sampler-'));
  try {
    writeFileSync(join(root, 'stat'), statFile(1000, 1000));
    // Never started, as in a one-shot `config-agent query check_cpu`: no history for 5s, 1m or 5m.
    const r = await runCheck(cpuCheck(new CpuSampler({ root, freshMs: 20 })), ['show-all']);
    assert.deepEqual(
      r.perf.map((p) => p.alias),
      ['total 20ms'],
    );
    assert.match(r.message, /20ms/);
    assert.doesNotMatch(r.message, /5s|1m|5m/);
    // With history the windows keep their names.
    const started = new CpuSampler({ root, intervalMs: 60_000, minSpanMs: 0 });
    await started.start();
    const w = await runCheck(cpuCheck(started), ['show-all']);
    started.stop();
    assert.deepEqual(
      w.perf.map((p) => p.alias),
      ['total 5s', 'total 1m', 'total 5m'],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

void test('windows past the per-second history use the sparse readings: each window compares with the oldest reading inside it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpu-sampler-'));
  try {
    // Scaled down: a reading every 10 ms, only the last one kept as such, one per 40 ms kept 1 s.
    writeFileSync(join(root, 'stat'), statFile(0, 0));
    const sampler = new CpuSampler({ root, intervalMs: 10, fineMs: 0, coarseEveryMs: 40, keepMs: 1000, minSpanMs: 1 });
    await sampler.start();
    // 1000 idle ticks at once, 200 ms of nothing, then 1000 busy ticks, then 200 ms of nothing.
    writeFileSync(join(root, 'stat'), statFile(0, 1000));
    await new Promise((r) => setTimeout(r, 200));
    const busyAt = Date.now();
    writeFileSync(join(root, 'stat'), statFile(1000, 1000));
    await new Promise((r) => setTimeout(r, 200));
    const total = async (seconds: number): Promise<number | undefined> =>
      (await sampler.utilisation(seconds)).find((l) => l.core === 'total')?.load;
    // The whole history: the first reading is the base, half the ticks were busy.
    assert.equal(await total(10), 50);
    // From 120 ms before the busy ticks: a sparse reading taken after the idle ticks is the base, all busy.
    assert.equal(await total((Date.now() - busyAt + 120) / 1000), 100);
    // Held: the latest reading and one per 40 ms, not all 40 readings.
    assert.ok(sampler.sampleCount < 20, `${sampler.sampleCount} readings held`);
    sampler.stop();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
