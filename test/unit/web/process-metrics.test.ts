/**
 * The event-loop lag gauges report the last measured figures: two renders
 * with no event-loop turn between them (so no sample between them) show the
 * same figures, not 0 (issue 29, item 4).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderProcessMetrics } from '../../../src/web/process-metrics.js';
import { waitUntil } from '../../helpers/wait-until.js';

function lag(lines: string[], name: string): number {
  const line = lines.find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} is rendered`);
  return Number(line.slice(name.length + 1));
}

void test('lag gauges keep the last measured figures when no sample fell between two scrapes', async () => {
  // The first render starts the monitor and has no lag figures yet; it samples every 20 ms.
  renderProcessMetrics([]);
  let measured: string[] = [];
  await waitUntil(
    () => {
      measured = [];
      renderProcessMetrics(measured);
      return measured.some((l) => l.startsWith('nodejs_eventloop_lag_max_seconds '));
    },
    10_000,
    'a render with lag figures',
  );
  assert.ok(lag(measured, 'nodejs_eventloop_lag_max_seconds') >= 0, 'a render with samples has figures');
  // No turn of the event loop: the monitor cannot have sampled in between.
  const next: string[] = [];
  renderProcessMetrics(next);
  for (const name of ['min', 'max', 'mean', 'p50', 'p99'].map((s) => `nodejs_eventloop_lag_${s}_seconds`)) {
    assert.equal(lag(next, name), lag(measured, name), name);
  }
});
