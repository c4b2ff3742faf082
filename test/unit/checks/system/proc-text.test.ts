import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcText } from '../../../../src/checks/system/proc-text.js';

void test('readProcText: a /proc file, a small file and one larger than its kept buffer, whole', () => {
  assert.match(readProcText('/proc/self/stat'), /^\d+ \(/);
  const dir = mkdtempSync(join(tmpdir(), 'proc-text-'));
  try {
    const small = join(dir, 'small');
    writeFileSync(small, 'cpu  1 2 3\n');
    assert.equal(readProcText(small), 'cpu  1 2 3\n');
    // A command line of 200 KiB (NUL-separated, as /proc/<pid>/cmdline), with a multi-byte character across the 64 KiB mark.
    const big = join(dir, 'big');
    const text = `${'a'.repeat(64 * 1024 - 1)}é${'\0b'.repeat(68 * 1024)}`;
    writeFileSync(big, text);
    assert.equal(readProcText(big), text);
    // The kept buffer serves the next small read again.
    assert.equal(readProcText(small), 'cpu  1 2 3\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(() => readProcText('/proc/no-such-file'), /ENOENT/);
});
