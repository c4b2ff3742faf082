import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LogSink } from '../../src/log.js';
import { WarningThrottle } from '../../src/log-throttle.js';

void test('a flood of one subject: the first line at once, then the last with the count when the window ends', async () => {
  const sink = new LogSink(100, 'silent');
  const log = sink.logger('test');
  const throttle = new WarningThrottle(200);
  for (let i = 1; i <= 534; i++) throttle.warn(log, 'password', '10.0.0.1', `wrong password from 10.0.0.1 (#${i})`);
  throttle.warn(log, 'password', '10.0.0.2', 'wrong password from 10.0.0.2');
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    ['wrong password from 10.0.0.1 (#1)', 'wrong password from 10.0.0.2'],
  );
  await sleep(300);
  assert.deepEqual(
    sink.entries().map((r) => r.message),
    [
      'wrong password from 10.0.0.1 (#1)',
      'wrong password from 10.0.0.2',
      'wrong password from 10.0.0.1 (#534) (and 532 more in the last 0.2 s)',
    ],
  );
  await sleep(300);
  assert.equal(throttle.size, 0, 'quiet windows close without a line');
  assert.equal(sink.size, 3);
});

void test('beyond maxSubjects, further subjects share one window per kind', () => {
  const sink = new LogSink(100, 'silent');
  const log = sink.logger('test');
  const throttle = new WarningThrottle(60_000, 3);
  for (let i = 0; i < 50; i++) throttle.warn(log, 'password', `10.0.1.${i}`, `wrong password from 10.0.1.${i}`);
  assert.equal(sink.size, 4, 'three subjects and the shared window');
  assert.equal(throttle.size, 4);
});
