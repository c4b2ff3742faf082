/** The content types a pulled settings file may come with (settings/source/fetch-settings.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acceptableType } from '../../../src/settings/source/fetch-settings.js';

void describe('acceptableType', () => {
  void it('takes text (not HTML) and bytes, refuses the rest', () => {
    for (const t of [
      undefined,
      '',
      'text/plain',
      'text/plain; charset=utf-8',
      'text/x-ini',
      'application/octet-stream',
      'TEXT/PLAIN',
    ])
      assert.equal(acceptableType(t), true, String(t));
    for (const t of ['text/html', 'text/html; charset=utf-8', 'application/xhtml+xml', 'application/json', 'image/png'])
      assert.equal(acceptableType(t), false, t);
  });
});
