/**
 * Reading the settings file only when complete: a writer that pauses between
 * two writes holds the file open, and readStable waits for it; open-writers
 * finds a descriptor opened for writing (not one opened for reading); the
 * watcher reports a rename as `replaced` and an in-place write as `modified`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sink } from '../../../src/log.js';
import { openWriters } from '../../../src/reconciler/open-writers.js';
import { readReplaced, readStable } from '../../../src/reconciler/stable-read.js';
import { watchSettings, type ChangeKind } from '../../../src/reconciler/watcher.js';

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

test('open-writers: a descriptor open for writing is found, one open for reading is not', () => {
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

test('readStable waits for a writer that pauses 200 ms between two in-place writes', async () => {
  const { dir, file } = tempFile('[/modules]\nCheckHelpers = enabled\n');
  const first = '[/modules]\nCheckExternalScripts = disabled\n';
  const second = 'CheckHelpers = enabled\n; edited\n';
  try {
    const fd = openSync(file, 'w'); // truncates, as an in-place save does
    writeSync(fd, first);
    const reading = readStable(file);
    let settled = false;
    void reading.then(() => (settled = true));
    await sleep(200);
    assert.equal(settled, false, 'the half-written file was not taken during the pause');
    writeSync(fd, second);
    closeSync(fd);
    const bytes = await reading;
    assert.equal(bytes.toString('utf8'), first + second);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readStable reads a closed file after one stable interval', async () => {
  const { dir, file } = tempFile('[/modules]\n');
  try {
    assert.equal((await readStable(file)).toString('utf8'), '[/modules]\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the watcher reports a rename as replaced and an in-place write as modified', async () => {
  const { dir, file } = tempFile('[/modules]\n');
  const seen: ChangeKind[] = [];
  let wake: (() => void) | undefined;
  const watcher = watchSettings(file, (_event, kind) => {
    seen.push(kind);
    wake?.();
  });
  const next = (ms: number): Promise<void> =>
    new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no event within ${ms} ms; seen ${seen.join(',')}`)), ms);
      wake = () => {
        clearTimeout(timer);
        res();
      };
    });
  try {
    await watcher.ready;
    let waiting = next(5000);
    writeFileSync(join(dir, 'agent.ini.tmp'), '[/modules]\nCheckHelpers = enabled\n');
    renameSync(join(dir, 'agent.ini.tmp'), file);
    await waiting;
    assert.equal(seen.at(-1), 'replaced');
    await sleep(150); // past chokidar's 50 ms throttle of the same path
    waiting = next(5000);
    writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n');
    await waiting;
    assert.equal(seen.at(-1), 'modified');
    await sleep(150);
    waiting = next(5000);
    rmSync(file);
    await waiting;
    assert.equal(seen.at(-1), 'removed');
  } finally {
    await watcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readReplaced: a file "replaced" that is being written in place (truncated, half written) is read once the writer closes', async () => {
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
