/**
 * The soak, short (10 s; the 60 s run with its figures is the benchmark
 * test/bench/soak.bench.ts): the agent as a process with NRPE, the agent
 * protocol and the web server, mixed abuse on all three ports from a
 * generator in its own process (random and truncated input, idle
 * connections, 1-byte TLS records, oversized frames, parallel API and CLI
 * edits). Every valid query sampled during the abuse is answered (no
 * timing is asserted here: that is the benchmark's goal), the agent keeps
 * running without an error line, and afterwards its open file descriptors
 * are back to their count before the abuse. Loopback only, bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeSoak, runSoak } from '../helpers/soak.js';

void test('10 s of mixed abuse on all three ports: every valid query answered, no error, descriptors back', async (t) => {
  const r = await runSoak({ durationMs: 10_000, sampleEveryMs: 2500, warmupMs: 2000 });
  for (const line of describeSoak(r)) t.diagnostic(line);
  assert.equal(r.alive, true, 'the agent is still running');
  assert.deepEqual(r.errors, [], 'no error line in the agent log');
  const failed = r.samples.filter((s) => !s.ok);
  assert.deepEqual(failed, [], 'every valid query was answered');
  for (const port of ['nrpe', 'agent', 'web'] as const)
    assert.ok(r.samples.filter((s) => s.port === port).length >= 2, `${port} was sampled during the abuse`);
  assert.ok(
    (r.abuse.random ?? 0) > 0 &&
      (r.abuse.idle ?? 0) > 0 &&
      (r.abuse.truncated ?? 0) > 0 &&
      (r.abuse.oversized ?? 0) > 0 &&
      (r.abuse.trickled ?? 0) > 0,
    JSON.stringify(r.abuse),
  );
  assert.ok(
    Object.keys(r.abuse).some((k) => k === 'api-edit-200'),
    `an API edit went through: ${JSON.stringify(r.abuse)}`,
  );
  assert.ok(
    Object.keys(r.abuse).some((k) => k === 'cli-edit-exit-0'),
    `a CLI edit went through: ${JSON.stringify(r.abuse)}`,
  );
  assert.ok(r.fds.end <= r.fds.start, `open descriptors: ${r.fds.start} before, ${r.fds.end} after`);
});
