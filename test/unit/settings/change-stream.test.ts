/**
 * The one change stream: triggers that arrive while a reload is pending
 * join it (one reload, every caller gets its result); triggers that arrive
 * while one reads wait as the next batch; a batch reads the files as its
 * triggers together allow (merge).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeStream, merge, type ChangeBatch } from '../../../src/settings/store/change-stream.js';

void test('what arrives while a reload is pending joins it; what arrives while it reads waits for the next', async () => {
  const batches: string[][] = [];
  let release: () => void = () => undefined;
  const stream = new ChangeStream<number>(async (batch: ChangeBatch) => {
    batches.push(batch.reasons);
    if (batches.length === 1) await new Promise<void>((res) => (release = res));
    return { result: Promise.resolve(batches.length) };
  });
  const first = stream.push({ reason: 'file rename', fileEvent: true, replaced: true });
  // The first batch starts at once (its read is under way): these two wait, together, for the next.
  await new Promise((res) => setImmediate(res));
  const hup = stream.push({ reason: 'SIGHUP' });
  const api = stream.push({ reason: 'requested' });
  const again = stream.push({ reason: 'SIGHUP' });
  release();
  assert.deepEqual(await Promise.all([first, hup, api, again]), [1, 2, 2, 2]);
  assert.deepEqual(batches, [['file rename'], ['SIGHUP', 'requested']]);
  await stream.idle();
});

void test('a consumer that throws rejects the callers of its batch; the next batch runs', async () => {
  let n = 0;
  const stream = new ChangeStream<string>(() => {
    n++;
    if (n === 1) return Promise.reject(new Error('boom'));
    return Promise.resolve({ result: Promise.resolve('ok') });
  });
  await assert.rejects(stream.push({ reason: 'a' }), /boom/);
  assert.equal(await stream.push({ reason: 'b' }), 'ok');
});

void test('a stream made before its consumer: batches wait for it, triggers afterStart for open()', async () => {
  const stream = new ChangeStream<string[]>();
  const early = stream.push({ reason: 'file change', fileEvent: true });
  const hup = stream.push({ reason: 'SIGHUP', afterStart: true });
  assert.equal(stream.held(), 1);
  stream.consumeWith((batch) => Promise.resolve({ result: Promise.resolve(batch.reasons) }));
  // File events are not held: read once there is a consumer, before the stream opens.
  assert.deepEqual(await early, ['file change']);
  assert.equal(stream.open(), 1);
  assert.deepEqual(await hup, ['SIGHUP']);
  assert.equal(stream.held(), 0);
  // Open: afterStart holds nothing any more.
  assert.deepEqual(await stream.push({ reason: 'SIGHUP', afterStart: true }), ['SIGHUP']);
  assert.throws(() => stream.consumeWith(() => Promise.reject(new Error('second'))), /has a consumer already/);
});

void test('merge: the rename fast path only when every trigger is a rename; a SIGHUP always loads', () => {
  const witness = (): Promise<boolean> => Promise.resolve(true);
  const renames = merge([
    { reason: 'file rename', fileEvent: true, replaced: true },
    { reason: 'file rename', fileEvent: true, replaced: true, untouched: witness },
  ]);
  assert.deepEqual(renames.reasons, ['file rename']);
  assert.deepEqual(renames.how, { fileEvent: true, replaced: true, untouched: witness });
  const mixed = merge([
    { reason: 'file rename', fileEvent: true, replaced: true, untouched: witness },
    { reason: 'file change', fileEvent: true },
  ]);
  assert.deepEqual(mixed.how, { fileEvent: true });
  const hup = merge([{ reason: 'file change', fileEvent: true }, { reason: 'SIGHUP' }]);
  assert.deepEqual(hup.how, {});
  assert.deepEqual(hup.reasons, ['file change', 'SIGHUP']);
});
