/**
 * check_logfile against real files in a temporary folder: new lines only,
 * rotation by rename (with the old file's last lines), truncation,
 * copytruncate, the allow-list, bookmarks and the bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../../../../src/checks/engine.js';
import { logfileCheck, type LogfileSettings } from '../../../../src/checks/logfile/logfile-check.js';
import { LogPositions } from '../../../../src/checks/logfile/log-positions.js';

function setup(overrides: Partial<LogfileSettings> = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'logfile-')));
  const logs = join(dir, 'log');
  const outside = join(dir, 'outside');
  mkdirSync(logs);
  mkdirSync(outside);
  const settings: LogfileSettings = {
    allowedPaths: [logs],
    maxLines: 10000,
    maxLineBytes: 8192,
    maxReadBytes: 64 * 1024 * 1024,
    ...overrides,
  };
  const positions = new LogPositions(100);
  const def = logfileCheck(() => settings, positions);
  const run = (...args: string[]) => runCheck(def, args);
  return { dir, logs, outside, run, positions, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

void test('only lines written since the last call; line numbers and columns are one-based', async () => {
  const t = setup();
  try {
    const f = join(t.logs, 'app.log');
    writeFileSync(f, 'INFO\tstarted\nERROR\tdisk full\n');
    const first = await t.run(`file=${f}`, "crit=column1 = 'ERROR'", 'detail-syntax=${line_number}:${column2}');
    assert.equal(first.result, 2, first.message);
    assert.equal(first.message, 'CRITICAL: 1/2 line(s) (2:disk full)');
    assert.deepEqual(first.perf, [{ alias: 'count', value: 2, minimum: 0 }]);
    const again = await t.run(`file=${f}`, "crit=column1 = 'ERROR'");
    assert.deepEqual([again.result, again.message], [0, 'OK: Nothing found (0 new line(s) read)']);
    appendFileSync(f, 'WARN\tslow\nERROR\tdisk full again\n');
    const third = await t.run(
      `file=${f}`,
      "crit=column1 = 'ERROR'",
      "warn=line like 'slow'",
      'detail-syntax=${line_number}:${column2}',
      'show-all',
    );
    assert.equal(third.result, 2);
    assert.equal(third.message, 'CRITICAL: 2/2 line(s) (3:slow, 4:disk full again)');
  } finally {
    t.cleanup();
  }
});

void test('an unterminated last line waits until it is complete', async () => {
  const t = setup();
  try {
    const f = join(t.logs, 'partial.log');
    writeFileSync(f, 'one\ntw');
    assert.match((await t.run(`file=${f}`)).message, /^OK: 1\/1 new line/);
    appendFileSync(f, 'o\n');
    const r = await t.run(`file=${f}`, 'crit=line_number = 2', 'detail-syntax=${line}');
    assert.equal(r.message, 'CRITICAL: 1/1 line(s) (two)');
  } finally {
    t.cleanup();
  }
});

void test("rotation by rename: the old file's last lines, then the new file from its start", async () => {
  const t = setup();
  try {
    const f = join(t.logs, 'syslog');
    writeFileSync(f, 'a\nb\n');
    await t.run(`file=${f}`);
    appendFileSync(f, 'c\n');
    renameSync(f, `${f}.1`);
    writeFileSync(f, 'd\n');
    const r = await t.run(
      `file=${f}`,
      "crit=line != ''",
      'detail-syntax=${file}:${line_number}:${line}',
      'list-separator=|',
    );
    assert.equal(r.message, `CRITICAL: 2/2 line(s) (${f}.1:3:c|${f}:1:d)`);
  } finally {
    t.cleanup();
  }
});

void test('truncation and copytruncate start again at the beginning', async () => {
  const t = setup();
  try {
    const f = join(t.logs, 'app.log');
    writeFileSync(f, '2026-11-23 10:00 first\n2026-11-23 10:01 second\n');
    await t.run(`file=${f}`);
    truncateSync(f, 0);
    appendFileSync(f, 'x\n');
    assert.equal(
      (await t.run(`file=${f}`, 'crit=line_number = 1', 'detail-syntax=${line}')).message,
      'CRITICAL: 1/1 line(s) (x)',
    );
    // copytruncate: copy away, truncate in place, then more is written than we had read before the next call.
    appendFileSync(f, 'y\n');
    await t.run(`file=${f}`);
    copyFileSync(f, `${f}.1`);
    truncateSync(f, 0);
    appendFileSync(f, '2026-11-23 11:00 after copytruncate, longer than before\nmore\n');
    const r = await t.run(`file=${f}`, "crit=line != ''", 'detail-syntax=${line_number}', 'list-separator=,');
    assert.equal(r.message, 'CRITICAL: 2/2 line(s) (1,2)');
  } finally {
    t.cleanup();
  }
});

void test('only files under the allowed paths; symlinks are followed before the test', async () => {
  const t = setup();
  try {
    const secret = join(t.outside, 'secret.log');
    writeFileSync(secret, 'password\n');
    const r = await t.run(`file=${secret}`);
    assert.equal(r.result, 3);
    assert.match(
      r.message,
      /secret\.log is not under an allowed path \(.*\/log\); see \[\/settings\/logfile\] allowed paths/,
    );
    symlinkSync(secret, join(t.logs, 'link.log'));
    const viaLink = await t.run(`file=${join(t.logs, 'link.log')}`);
    assert.equal(viaLink.result, 3);
    const glob = await t.run(`file=${join(t.outside, '*.log')}`);
    assert.equal(glob.result, 3);
    const relative = await t.run('file=log/x.log');
    assert.match(relative.message, /not an absolute path/);
  } finally {
    t.cleanup();
  }
});

void test('globs, missing files, ignore-missing and bookmarks', async () => {
  const t = setup();
  try {
    writeFileSync(join(t.logs, 'a.log'), 'a1\n');
    writeFileSync(join(t.logs, 'b.log'), 'b1\nb2\n');
    writeFileSync(join(t.logs, 'c.txt'), 'c1\n');
    const r = await t.run(`file=${join(t.logs, '*.log')}`);
    assert.match(r.message, /^OK: 3\/3 new line/);
    const missing = await t.run(`file=${join(t.logs, 'nope.log')}`);
    assert.deepEqual([missing.result, missing.message], [3, `no file matches ${join(t.logs, 'nope.log')}`]);
    assert.equal((await t.run(`file=${join(t.logs, 'nope.log')}`, 'ignore-missing')).result, 0);
    // A bookmark has its own positions: it sees every line once more; the shared positions see none.
    appendFileSync(join(t.logs, 'a.log'), 'a2\n');
    assert.match(
      (await t.run(`files=${join(t.logs, 'a.log')},${join(t.logs, 'c.txt')}`, 'bookmark=errors')).message,
      /^OK: 3\/3/,
    );
    assert.match((await t.run(`file=${join(t.logs, 'a.log')}`, 'bookmark=errors')).message, /Nothing found/);
    assert.match((await t.run(`file=${join(t.logs, 'a.log')}`, 'bookmark')).message, /^OK: 1\/1/);
  } finally {
    t.cleanup();
  }
});

void test('bounded: the newest max-lines matches are kept, long lines are cut, total counts every line', async () => {
  const t = setup({ maxLineBytes: 100, maxLines: 50 });
  try {
    const f = join(t.logs, 'big.log');
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}${i === 10 ? 'x'.repeat(1000) : ''}`);
    writeFileSync(f, lines.join('\n') + '\n');
    const r = await t.run(
      `file=${f}`,
      "crit=line like 'line'",
      'max-lines=3',
      'detail-syntax=${line_number}',
      'top-syntax=${crit_count} of ${total}: ${crit_list}',
    );
    assert.equal(r.message, '3 of 5000: 4998, 4999, 5000');
    const cut = await t.run(`file=${f}`);
    assert.match(cut.message, /Nothing found/);
    appendFileSync(f, 'y'.repeat(500) + '\nshort\n');
    const long = await t.run(`file=${f}`, "crit=line like 'y'", 'detail-syntax=${line}');
    assert.equal(long.message, `CRITICAL: 1/2 line(s) (${'y'.repeat(100)})`);
    assert.match((await t.run(`file=${f}`, 'max-lines=x')).message, /max-lines=x is not a number/);
    assert.match((await t.run()).message, /needs file=PATH/);
    assert.match((await t.run('help')).message, /column1 \(string\)/);
  } finally {
    t.cleanup();
  }
});
