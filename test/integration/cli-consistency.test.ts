/**
 * One CLI: a settings file that does not exist exits 2 from every command
 * that reads or edits settings, with one line that names it; NSClient++'s
 * help forms (help, help-short, help-csv) answer wherever --help does, from
 * the same text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../helpers/agent-process.js';
import { inRange } from '../../src/in-range.js';

function agent(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 30_000 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, out: stdout, err: stderr });
    });
  });
}

void test('a missing settings file exits 2 from validate, show, plan, run and web, naming the file once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-missing-'));
  const missing = join(dir, 'nope.ini');
  try {
    for (const args of [
      ['settings', 'validate', missing],
      ['settings', 'show', '--settings', missing],
      ['settings', 'plan', missing, missing],
      ['run', '--settings', missing],
      ['web', 'add-role', '--settings', missing, '--role', 'r', '--grant', 'info.get'],
      ['web', 'password', '--settings', missing, '--display'],
    ]) {
      const r = await agent(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      const text = r.out + r.err;
      assert.match(text, new RegExp(missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), args.join(' '));
      assert.doesNotMatch(text, /ENOENT|open '/, `${args.join(' ')}: a message for people, not the system call`);
    }
    // Query answers like the plugin it stands in for: UNKNOWN, exit 3, naming the file.
    const q = await agent(['query', '--settings', missing, 'check_ok']);
    assert.equal(q.code, 3);
    assert.match(q.err, /cannot read settings file .*nope\.ini: no such file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('help, help-short and help-csv answer wherever --help does, from the same text', async () => {
  for (const command of [
    ['run'],
    ['settings', 'validate'],
    ['settings', 'show'],
    ['settings', 'plan'],
    ['web', 'add-user'],
    ['web', 'add-role'],
  ]) {
    const full = await agent([...command, '--help']);
    assert.equal(full.code, 0, command.join(' '));
    const bare = await agent([...command, 'help']);
    assert.equal(bare.out, full.out, `${command.join(' ')} help`);
    const short = await agent([...command, 'help-short']);
    assert.equal(short.out.trim(), full.out.split('\n')[0], `${command.join(' ')} help-short`);
    const csv = await agent([...command, '--help-csv']);
    const rows = csv.out.trim().split('\n');
    assert.equal(rows[0], 'option,argument,description');
    // Every option the usage line names has its row.
    for (const option of inRange(full.out.split('\n'), 0).match(/--[\w-]+/g) ?? []) {
      assert.ok(
        rows.some((r) => r.startsWith(`${option},`)),
        `${command.join(' ')}: ${option} in help-csv`,
      );
    }
  }
  // Every config-agent web subcommand lists the options all of them take.
  for (const sub of ['install', 'password', 'add-user', 'add-role']) {
    const csv = (await agent(['web', sub, 'help-csv'])).out;
    assert.match(csv, /^--settings,FILE,"?the settings file/m, sub);
    assert.match(csv, /^--create,,"?make FILE when it does not exist/m, sub);
  }
  const show = await agent(['settings', 'show', 'help-csv']);
  assert.match(show.out, /^--describe,,print each key's description/m);
  assert.match(show.out, /^--settings,FILE,/m);
});
