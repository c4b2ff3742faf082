/**
 * The settings watcher: a rename is reported once, as `replaced`, with a
 * rename witness that says whether anyone wrote the file since; an in-place
 * write is `modified`, a deletion `removed`; a hard-linked file or a
 * symlinked path gets no witness; writes through a symlinked path are seen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sink } from '../../../src/log.js';
import { watchSettings, type ChangeKind, type RenameWitness } from '../../../src/reconciler/watcher.js';

sink.consoleLevel = 'silent';

interface Report {
  event: string;
  kind: ChangeKind;
  untouched: RenameWitness | undefined;
}

/** A watcher of `file` and the reports it made; `next()` resolves with the next one (5 s at most). */
function watching(file: string): { reports: Report[]; next(): Promise<Report>; close(): Promise<void> } {
  const reports: Report[] = [];
  let wake: (() => void) | undefined;
  const watcher = watchSettings(file, (event, kind, untouched) => {
    reports.push({ event, kind, untouched });
    wake?.();
  });
  let taken = 0;
  const next = (): Promise<Report> =>
    new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no report within 5 s; seen ${reports.map((r) => r.kind).join(',')}`)), 5000);
      const check = (): void => {
        if (reports.length <= taken) return;
        clearTimeout(timer);
        wake = undefined;
        res(reports[taken++]);
      };
      wake = check;
      check();
    });
  return { reports, next, close: () => watcher.close() };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'watcher-'));
}

test('a rename is reported once, as replaced, with a witness that saw no write; an in-place write is modified, a deletion removed', async () => {
  const dir = tempDir();
  const file = join(dir, 'agent.ini');
  writeFileSync(file, '[/modules]\n');
  const w = watching(file);
  try {
    writeFileSync(join(dir, 'agent.ini.tmp'), '[/modules]\nCheckHelpers = enabled\n');
    renameSync(join(dir, 'agent.ini.tmp'), file);
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.ok(renamed.untouched, 'a rename carries a witness');
    assert.equal(await renamed.untouched(), true);
    await sleep(200); // the old inode's last link going, and its watch closing, are nothing new
    assert.equal(w.reports.length, 1, `one report: ${w.reports.map((r) => `${r.kind} (${r.event})`).join(', ')}`);

    writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n');
    assert.equal((await w.next()).kind, 'modified');
    rmSync(file);
    assert.equal((await w.next()).kind, 'removed');
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the witness of a rename says touched once the file was written in place after it', async () => {
  const dir = tempDir();
  const file = join(dir, 'agent.ini');
  writeFileSync(file, '[/modules]\n');
  const w = watching(file);
  try {
    writeFileSync(join(dir, 'agent.ini.tmp'), '[/modules]\nCheckHelpers = enabled\n');
    renameSync(join(dir, 'agent.ini.tmp'), file);
    writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n'); // before the watcher saw the rename
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.ok(renamed.untouched);
    assert.equal(await renamed.untouched(), false);
    assert.equal((await w.next()).kind, 'modified', 'the write is reported as an in-place save too');
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file renamed into place with another hard link gets no witness', async () => {
  const dir = tempDir();
  const file = join(dir, 'agent.ini');
  writeFileSync(file, '[/modules]\n');
  const w = watching(file);
  try {
    writeFileSync(join(dir, 'agent.ini.tmp'), '[/modules]\nCheckHelpers = enabled\n');
    linkSync(join(dir, 'agent.ini.tmp'), join(dir, 'other.ini'));
    renameSync(join(dir, 'agent.ini.tmp'), file);
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.equal(renamed.untouched, undefined, 'writes through the other name would not be seen in this folder');
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a symlinked settings path: in-place writes to the target are seen, a target replaced by rename gets no witness', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'real'));
  const target = join(dir, 'real', 'target.ini');
  const file = join(dir, 'agent.ini');
  writeFileSync(target, '[/modules]\n');
  symlinkSync(target, file);
  const w = watching(file);
  try {
    writeFileSync(target, '[/modules]\nCheckHelpers = enabled\n');
    assert.equal((await w.next()).kind, 'modified');
    await sleep(100);
    writeFileSync(`${target}.tmp`, '[/modules]\nCheckHelpers = disabled\n');
    renameSync(`${target}.tmp`, target);
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.equal(renamed.untouched, undefined);
    // The watch follows the new target: its in-place writes are seen too.
    await sleep(100);
    writeFileSync(target, '[/modules]\n; again\n');
    assert.equal((await w.next()).kind, 'modified');
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
