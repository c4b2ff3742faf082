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
import { watchSettings, type ChangeKind, type RenameWitness } from '../../../src/settings/store/watcher.js';
import { inRange } from '../../../src/in-range.js';

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
      const timer = setTimeout(
        () => rej(new Error(`no report within 5 s; seen ${reports.map((r) => r.kind).join(',')}`)),
        5000,
      );
      const check = (): void => {
        if (reports.length <= taken) return;
        clearTimeout(timer);
        wake = undefined;
        res(inRange(reports, taken++));
      };
      wake = check;
      check();
    });
  return { reports, next, close: () => watcher.close() };
}

/** A folder with agent.ini in it (made by `setup`, a plain file by default), watched while `body` runs; removed after. */
async function withWatched(
  body: (w: ReturnType<typeof watching>, dir: string, file: string) => Promise<void>,
  setup?: (dir: string, file: string) => void,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'watcher-'));
  const file = join(dir, 'agent.ini');
  if (setup) setup(dir, file);
  else writeFileSync(file, '[/modules]\n');
  const w = watching(file);
  try {
    await body(w, dir, file);
  } finally {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Write `text` beside `file` and rename it over `file`. */
function renameOver(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

void test('a rename is reported once, as replaced, with a witness that saw no write; an in-place write is modified, a deletion removed', () =>
  withWatched(async (w, _dir, file) => {
    renameOver(file, '[/modules]\nCheckHelpers = enabled\n');
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.ok(renamed.untouched, 'a rename carries a witness');
    assert.equal(await renamed.untouched(), true);
    // The old inode's last link going, and its watch closing, are nothing new: the next report is the
    // next write's (events reach the watcher in order, so a report of theirs would come before it).
    writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n');
    assert.equal((await w.next()).kind, 'modified');
    assert.equal(
      w.reports.length,
      2,
      `the rename, then the write: ${w.reports.map((r) => `${r.kind} (${r.event})`).join(', ')}`,
    );
    rmSync(file);
    assert.equal((await w.next()).kind, 'removed');
  }));

void test('the witness of a rename says touched once the file was written in place after it; that write is reported as well', () =>
  withWatched(async (w, _dir, file) => {
    renameOver(file, '[/modules]\nCheckHelpers = enabled\n');
    writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n'); // before the watcher saw the rename
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.ok(renamed.untouched);
    assert.equal(await renamed.untouched(), false);
    // The witness only reads the watcher's count: the write it counted is reported in its own right.
    assert.equal((await w.next()).kind, 'modified');
    writeFileSync(file, '[/modules]\n; later\n');
    assert.equal((await w.next()).kind, 'modified');
    assert.equal(
      w.reports.length,
      3,
      `the rename, the write it counted, the later write: ${w.reports.map((r) => `${r.kind} (${r.event})`).join(', ')}`,
    );
  }));

void test('a file renamed into place with another hard link gets no witness', () =>
  withWatched(async (w, dir, file) => {
    writeFileSync(`${file}.tmp`, '[/modules]\nCheckHelpers = enabled\n');
    linkSync(`${file}.tmp`, join(dir, 'other.ini'));
    renameSync(`${file}.tmp`, file);
    const renamed = await w.next();
    assert.equal(renamed.kind, 'replaced');
    assert.equal(renamed.untouched, undefined, 'writes through the other name would not be seen in this folder');
  }));

void test('a symlinked settings path: in-place writes to the target are seen, a target replaced by rename gets no witness', () => {
  let target = '';
  return withWatched(
    async (w) => {
      writeFileSync(target, '[/modules]\nCheckHelpers = enabled\n');
      assert.equal((await w.next()).kind, 'modified');
      await sleep(100);
      renameOver(target, '[/modules]\nCheckHelpers = disabled\n');
      const renamed = await w.next();
      assert.equal(renamed.kind, 'replaced');
      assert.equal(renamed.untouched, undefined);
      // The watch follows the new target: its in-place writes are seen too.
      await sleep(100);
      writeFileSync(target, '[/modules]\n; again\n');
      assert.equal((await w.next()).kind, 'modified');
    },
    (dir, file) => {
      mkdirSync(join(dir, 'real'));
      target = join(dir, 'real', 'target.ini');
      writeFileSync(target, '[/modules]\n');
      symlinkSync(target, file);
    },
  );
});
