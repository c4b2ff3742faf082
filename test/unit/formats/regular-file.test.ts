/**
 * formats/regular-file.ts: a regular file up to the limit is read whole (sync and async); a FIFO,
 * a device and a folder are refused without reading (a FIFO with no writer does not block); a file
 * over the limit is refused, also one whose size says 0 (/proc) but that holds more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { byteSize, readRegularFile, readRegularFileSync } from '../../../src/formats/regular-file.js';

void test('regular files up to the limit are read whole; special files and larger files are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'regular-file-'));
  try {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'ten'), '0123456789');
    for (const read of [readRegularFileSync, readRegularFile]) {
      assert.equal((await read(join(dir, 'ten'), 10)).toString(), '0123456789');
      await assert.rejects(async () => read(join(dir, 'ten'), 9), /larger than 9 bytes/);
      await assert.rejects(async () => read(join(dir, 'fifo'), 100), /not a regular file: it is a FIFO/);
      await assert.rejects(async () => read('/dev/zero', 100), /not a regular file: it is a character device/);
      await assert.rejects(async () => read(dir, 100), /it is a folder, not a file/);
      await assert.rejects(async () => read(join(dir, 'missing'), 100), { code: 'ENOENT' });
      // /proc files say size 0 and hold more: read on past the size, and no further than the limit.
      assert.match((await read('/proc/self/status', 64 * 1024)).toString(), /^Name:/);
      await assert.rejects(async () => read('/proc/self/status', 20), /larger than 20 bytes/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('byteSize names the limit in the unit it is written in', () => {
  assert.equal(byteSize(64 * 1024), '64 KiB');
  assert.equal(byteSize(16 * 1024 * 1024), '16 MiB');
  assert.equal(byteSize(20), '20 bytes');
});
