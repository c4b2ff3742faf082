/**
 * linkSignals (src/abort-link.ts): the child aborts with its parent's reason, and release() takes
 * its listener off every parent, so a long-lived parent holds nothing of work that has ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { linkSignals, withLinkedSignal } from '../../src/abort-link.js';

void test('a linked signal aborts with the reason of the first parent that aborts', () => {
  const module = new AbortController();
  const query = new AbortController();
  const link = linkSignals(module.signal, query.signal);
  assert.equal(link.signal.aborted, false);
  query.abort(new Error('peer went away'));
  assert.equal(link.signal.aborted, true);
  assert.equal((link.signal.reason as Error).message, 'peer went away');
  assert.equal(getEventListeners(module.signal, 'abort').length, 0, 'the abort released the other parent too');
});

void test('an already aborted parent gives an aborted signal and attaches nothing', () => {
  const module = new AbortController();
  const gone = AbortSignal.abort(new Error('stopped'));
  const link = linkSignals(module.signal, gone);
  assert.equal(link.signal.aborted, true);
  assert.equal(getEventListeners(module.signal, 'abort').length, 0);
});

void test('release detaches from the parents; a released link does not follow them any more', () => {
  const module = new AbortController();
  const links = Array.from({ length: 1000 }, () => linkSignals(module.signal));
  assert.equal(getEventListeners(module.signal, 'abort').length, 1000, 'one listener per live link');
  for (const l of links) l.release();
  links[0]?.release();
  assert.equal(getEventListeners(module.signal, 'abort').length, 0);
  module.abort();
  assert.ok(links.every((l) => !l.signal.aborted));
});

void test('withLinkedSignal releases when the work settles, fulfilled or rejected', async () => {
  const module = new AbortController();
  assert.equal(
    await withLinkedSignal([module.signal], async (signal) =>
      getEventListeners(module.signal, 'abort').length === 1 && !signal.aborted ? 'linked' : 'not linked',
    ),
    'linked',
  );
  await assert.rejects(
    withLinkedSignal([module.signal], () => Promise.reject(new Error('failed'))),
    /failed/,
  );
  assert.equal(getEventListeners(module.signal, 'abort').length, 0);
});
