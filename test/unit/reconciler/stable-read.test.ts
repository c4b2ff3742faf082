/**
 * Reading the settings file only when complete: a writer that pauses between
 * two writes holds the file open, and readStable waits for it; open-writers
 * finds a descriptor opened for writing (not one opened for reading); a
 * replaced file is taken at once when the rename witness says untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sink } from '../../../src/log.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { openWriters } from '../../../src/settings/store/open-writers.js';
import { readReplaced, readStable } from '../../../src/settings/store/stable-read.js';

sink.consoleLevel = 'silent';

function tempFile(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'stable-read-'));
  const file = join(dir, 'agent.ini');
  writeFileSync(file, text);
  return { dir, file };
}

const idOf = (file: string): { dev: number; ino: number } => {
  const st = statSync(file);
  return { dev: st.dev, ino: st.ino };
};

void test('open-writers: a descriptor open for writing is found, one open for reading is not', () => {
  const { dir, file } = tempFile('x\n');
  try {
    const r = openSync(file, 'r');
    assert.deepEqual(openWriters(idOf(file)), [], 'a reader is not a writer');
    const w = openSync(file, 'r+');
    assert.deepEqual(openWriters(idOf(file)), [process.pid]);
    closeSync(w);
    assert.deepEqual(openWriters(idOf(file)), []);
    closeSync(r);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('readStable waits for a writer that pauses 200 ms between two in-place writes', async () => {
  const { dir, file } = tempFile('[/modules]\nCheckHelpers = enabled\n');
  const first = '[/modules]\nCheckExternalScripts = disabled\n';
  const second = 'CheckHelpers = enabled\n; edited\n';
  try {
    const fd = openSync(file, 'w'); // truncates, as an in-place save does
    writeSync(fd, first);
    const reading = readStable(file);
    let settled = false;
    void reading.then(() => (settled = true));
    // The reader saw the writer (its debug line), and took nothing meanwhile.
    const from = sink.entries().at(-1)?.index ?? 0;
    const sawWriter = (): boolean =>
      sink
        .entries()
        .some(
          (e) =>
            e.index > from &&
            e.message ===
              `settings file ${file} is open for writing by process ${process.pid}; waiting for it to close`,
        );
    await waitUntil(sawWriter, 10_000, 'readStable saw the writer');
    assert.equal(settled, false, 'the half-written file was not taken during the pause');
    writeSync(fd, second);
    closeSync(fd);
    const bytes = await reading;
    assert.equal(bytes.toString('utf8'), first + second);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('readStable reads a closed file after one stable interval', async () => {
  const { dir, file } = tempFile('[/modules]\n');
  try {
    assert.equal((await readStable(file)).toString('utf8'), '[/modules]\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('readReplaced: a file "replaced" that is being written in place (truncated, half written) is read once the writer closes', async () => {
  const { dir, file } = tempFile('[/modules]\nWEBServer = enabled\n');
  try {
    // The writer truncates the file and writes its first half, then pauses with the file open.
    const fd = openSync(file, 'w');
    const reading = readReplaced(file);
    await sleep(100);
    writeSync(fd, '[/modules]\n');
    await sleep(100);
    writeSync(fd, 'CheckHelpers = enabled\n');
    closeSync(fd);
    assert.equal((await reading).toString(), '[/modules]\nCheckHelpers = enabled\n');
    // A complete file nobody writes is taken as it is.
    writeFileSync(`${file}.new`, 'renamed\n');
    renameSync(`${file}.new`, file);
    assert.equal((await readReplaced(file)).toString(), 'renamed\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('readReplaced: with a witness that saw no write, the file is taken as read; one that saw a write sends it to the checks', async () => {
  const { dir, file } = tempFile('[/modules]\nCheckHelpers = enabled\n');
  try {
    let asked = 0;
    const untouched = (answer: boolean) => () => {
      asked++;
      return Promise.resolve(answer);
    };
    assert.equal((await readReplaced(file, untouched(true))).toString(), '[/modules]\nCheckHelpers = enabled\n');
    assert.equal(asked, 1);
    // The witness saw a write: the writer still holding the file is waited for.
    const fd = openSync(file, 'w');
    writeSync(fd, '[/modules]\n');
    const reading = readReplaced(file, untouched(false));
    await sleep(100);
    writeSync(fd, 'CheckHelpers = disabled\n');
    closeSync(fd);
    assert.equal((await reading).toString(), '[/modules]\nCheckHelpers = disabled\n');
    assert.equal(asked, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
