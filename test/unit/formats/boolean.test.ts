/** formats/boolean.ts: one truth set, any case, blanks ignored; the empty text is left to the caller. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBoolean } from '../../../src/formats/boolean.js';
import { coerceValue } from '../../../src/settings/model/coerce.js';

void test('the words of true and false, any case; anything else is undecided', () => {
  for (const t of ['1', 'true', 'YES', ' on ', 'Enabled', 'enable']) assert.equal(parseBoolean(t), true, t);
  for (const f of ['0', 'False', 'no', 'OFF', 'disabled', 'disable']) assert.equal(parseBoolean(f), false, f);
  for (const x of ['', ' ', 'maybe', '2', 'y']) assert.equal(parseBoolean(x), undefined, x);
});

void test('a setting: the same words, and an empty value is false', () => {
  assert.deepEqual(coerceValue('Yes', { type: 'boolean' }), { ok: true, value: true });
  assert.deepEqual(coerceValue('', { type: 'boolean' }), { ok: true, value: false });
  assert.equal(coerceValue('maybe', { type: 'boolean' }).ok, false);
});
