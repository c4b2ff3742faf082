/**
 * Teardown (test/helpers/teardown.ts): clean-ups run in reverse order of registration, every one
 * of them even when one throws, and the first failure is thrown at the end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Teardown } from '../../helpers/teardown.js';

void test('clean-ups run in reverse order of registration, each awaited before the next', async () => {
  const made = new Teardown();
  const order: string[] = [];
  const certs = made.add({ name: 'certs' }, (c) => order.push(`remove ${c.name}`));
  made.add({ name: 'agent' }, async (a) => {
    await new Promise((r) => setTimeout(r, 20));
    order.push(`stop ${a.name}`);
  });
  made.defer(() => order.push('rm folder'));
  assert.equal(certs.name, 'certs', 'add() hands the resource back');
  await made.close();
  assert.deepEqual(order, ['rm folder', 'stop agent', 'remove certs']);
});

void test('a failing clean-up does not stop the others; the first failure is thrown after the last one ran', async () => {
  const made = new Teardown();
  const ran: string[] = [];
  made.defer(() => ran.push('first registered'));
  made.defer(() => {
    throw new Error('second failed');
  });
  made.defer(() => Promise.reject(new Error('third failed')));
  await assert.rejects(made.close(), /third failed/);
  assert.deepEqual(ran, ['first registered']);
});

void test('close() forgets what it closed: a second close() runs only what was registered since', async () => {
  const made = new Teardown();
  let closed = 0;
  made.defer(() => closed++);
  await made.close();
  await made.close();
  assert.equal(closed, 1);
  made.defer(() => closed++);
  await made.close();
  assert.equal(closed, 2);
});
