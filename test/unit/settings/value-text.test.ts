import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valueText } from '../../../src/settings/model/value-text.js';

void test('valueText: loaded values (string, number, boolean) as their text; absent is the fallback', () => {
  assert.equal(valueText('peer-cert'), 'peer-cert');
  assert.equal(valueText(''), '', 'an empty string stays empty, not the fallback');
  assert.equal(valueText('', 'none'), '');
  assert.equal(valueText(8443), '8443');
  assert.equal(valueText(false), 'false');
  assert.equal(valueText(undefined), '');
  assert.equal(valueText(null, 'none'), 'none');
  assert.equal(valueText(undefined, '8443s'), '8443s');
});

void test('valueText: something that is no settings value shows as JSON, never as [object Object]', () => {
  assert.equal(valueText({ a: 1 }), '{"a":1}');
  assert.equal(valueText(['a', 'b']), '["a","b"]');
});
