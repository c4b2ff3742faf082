/**
 * check_logfile across agent restarts: each `config-agent query` below is a
 * process of its own (start, answer, stop), so the second one must find
 * the positions the first left in the [/paths] state folder and answer only
 * the lines written in between. A first read of a long log is capped:
 * at most 100 lines and 8 KiB in the message, then "… N more".
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../helpers/run-cli.js';
import { inRange } from '../../src/in-range.js';

const dir = mkdtempSync(join(tmpdir(), 'logfile-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const settings = join(dir, 'agent.ini');
writeFileSync(
  settings,
  `[/modules]\nCheckLogFile = enabled\n\n[/paths]\nstate = ${dir}/state\n\n[/settings/logfile]\nallowed paths = ${dir}\n`,
);
const log = join(dir, 'app.log');
const query = (...args: string[]) =>
  runAgentCli(['query', 'check_logfile', `file=${log}`, "crit=line like 'error'", ...args, '--settings', settings]);

void test('the read positions outlive the agent: a new process answers only the new lines', async () => {
  writeFileSync(log, 'error one\ninfo two\nerror three\n');
  const first = await query();
  assert.equal(first.code, 2, first.stderr);
  assert.match(first.stdout, /^CRITICAL: 2\/3 line\(s\) \(error one, error three\)/);
  assert.ok(existsSync(join(dir, 'state', 'logfile-positions.json')), 'kept in the state folder');
  const again = await query();
  assert.equal(again.code, 0, again.stdout);
  assert.match(again.stdout, /^OK: Nothing found \(0 new line\(s\) read\)/);
  appendFileSync(log, 'error four\n');
  const next = await query();
  assert.match(next.stdout, /^CRITICAL: 1\/1 line\(s\) \(error four\)/);
  const saved = JSON.parse(readFileSync(join(dir, 'state', 'logfile-positions.json'), 'utf8')) as Record<
    string,
    { offset: number }
  >;
  assert.ok(Object.values(saved).some((p) => p.offset === readFileSync(log).length));
});

void test('a first read of a long log answers at most 100 lines and 8 KiB, then says how many more', async () => {
  const big = join(dir, 'big.log');
  writeFileSync(big, Array.from({ length: 3000 }, (_, i) => `error ${i} ${'x'.repeat(60)}`).join('\n') + '\n');
  const r = await runAgentCli([
    'query',
    'check_logfile',
    `file=${big}`,
    "crit=line like 'error'",
    '--settings',
    settings,
  ]);
  assert.equal(r.code, 2);
  const line = inRange(r.stdout.split('|'), 0);
  assert.ok(Buffer.byteLength(line) < 8192 + 200, `${Buffer.byteLength(line)} bytes`);
  assert.match(line, /^CRITICAL: 3000\/3000 line\(s\) \(error 0 x+, .*, … \d+ more\)$/);
  const shown = line.split(', ').length - 1;
  assert.match(line, new RegExp(`… ${3000 - shown} more\\)$`));
});
