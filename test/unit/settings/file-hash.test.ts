import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hashBytes } from '../../../src/settings/model/file-hash.js';

void test('hashBytes is the sha256 in hex of the bytes, a string counting as its UTF-8 bytes', () => {
  // FIPS 180-2's example: sha256("abc").
  assert.equal(hashBytes('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(hashBytes(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const text = '[/settings/default]\npassword = pässwörd ✓\n';
  const bytes = new TextEncoder().encode(text);
  const expected = createHash('sha256').update(bytes).digest('hex');
  assert.equal(hashBytes(text), expected);
  assert.equal(hashBytes(bytes), expected);
  assert.equal(hashBytes(Buffer.from(bytes)), expected);
});
