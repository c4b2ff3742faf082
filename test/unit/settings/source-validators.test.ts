/** Validators kept for the next conditional request: none that RFC 9110 calls weak. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strongValidators } from '../../../src/settings/source/fetch-settings.js';

const date = 'Sat, 28 Nov 2026 18:00:10 GMT';

void test('a Last-Modified a second or more before Date keeps both validators', () => {
  assert.deepEqual(strongValidators({ etag: '"abc"', 'last-modified': 'Sat, 28 Nov 2026 18:00:09 GMT', date }), {
    etag: '"abc"',
    lastModified: 'Sat, 28 Nov 2026 18:00:09 GMT',
  });
});

void test('a Last-Modified within the second of Date drops both (an ETag made of time and size is no better)', () => {
  assert.deepEqual(strongValidators({ etag: '"abc"', 'last-modified': date, date }), {
    etag: undefined,
    lastModified: undefined,
  });
  assert.deepEqual(strongValidators({ etag: '"abc"', 'last-modified': date }), {
    etag: undefined,
    lastModified: undefined,
  });
});

void test('a weak entity tag is not sent back; an entity tag alone is', () => {
  assert.deepEqual(strongValidators({ etag: 'W/"abc"', date }), { etag: undefined, lastModified: undefined });
  assert.deepEqual(strongValidators({ etag: '"abc"', date }), { etag: '"abc"', lastModified: undefined });
});
