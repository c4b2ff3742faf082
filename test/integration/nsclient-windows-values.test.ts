/**
 * Windows-only values inside commands that are carried over
 * (test/fixtures/nsclient/windows-drives.ini, a Windows fleet's file copied
 * to Linux hosts): `Drive=c:` / `Drive=d:` given to CheckDriveSize and
 * check_drivesize, and the process attribute is_hung. `config-agent
 * settings import` keeps them as written and lists each at its line, apart
 * from what it left out; `config-agent settings validate` warns about each
 * (AGENT_WARN_WINDOWS_VALUE) at its line of the written file; the mount
 * point beside them is not named.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';
import { runAgentCli } from '../helpers/run-cli.js';

const SOURCE = join(REPO, 'test/fixtures/nsclient/windows-drives.ini');
const dir = mkdtempSync(join(tmpdir(), 'nsclient-windows-values-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The 1-based line of the first line of `text` that contains `what`. */
const lineOf = (text: string, what: string): number => text.split('\n').findIndex((l) => l.includes(what)) + 1;

void test('import lists each Windows-only value at its line; validate warns about each at its line', async () => {
  const out = join(dir, 'agent.ini');
  const imported = await runAgentCli(['settings', 'import', SOURCE, '--output', out]);
  assert.equal(imported.code, 0, imported.stderr);
  const report = imported.stdout + imported.stderr;
  const source = readFileSync(SOURCE, 'utf8');
  const expected: [string, string][] = [
    ['alias_disk', 'Drive=c:'],
    ['alias_disk_data', 'Drive=d:'],
    ['alias_explorer', 'is_hung'],
    ['command', 'drive=c:\\'],
  ];
  for (const [key, value] of expected) {
    const line = lineOf(source, value === 'is_hung' ? 'is_hung' : `${key} =`);
    assert.ok(
      report.includes(`${SOURCE}:${line}: `) &&
        new RegExp(`:${line}: \\[[^\\]]+\\] ${key}: note: ${value.replace(/\\/g, '\\\\')} is Windows-only`).test(
          report,
        ),
      `${key} ${value} at line ${line}:\n${report}`,
    );
  }
  assert.match(
    report,
    new RegExp(
      `Windows-only values, kept as written and answering UNKNOWN here until changed \\(4\\): Drive=c: \\(line ${lineOf(source, 'Drive=c:')}\\), Drive=d: \\(line ${lineOf(source, 'Drive=d:')}\\), is_hung \\(line ${lineOf(source, 'is_hung')}\\), drive=c:\\\\ \\(line ${lineOf(source, 'command =')}\\)`,
    ),
  );
  assert.doesNotMatch(report, /Windows-only, not carried over/);
  // Kept as written.
  const written = readFileSync(out, 'utf8');
  assert.match(written, /^alias_disk = CheckDriveSize MinWarnFree=10% MinCritFree=5% Drive=c:$/m);

  const validated = await runAgentCli(['settings', 'validate', out]);
  assert.equal(validated.code, 0, validated.stdout + validated.stderr);
  const warnings = (validated.stdout + validated.stderr)
    .split('\n')
    .filter((l) => l.includes('AGENT_WARN_WINDOWS_VALUE'));
  const at = (what: string): string => `${out}:${lineOf(written, what)}:`;
  assert.deepEqual(
    warnings.map((l) => /^(\S+:\d+:)\d+: warning AGENT_WARN_WINDOWS_VALUE .*? uses (\S+), which/.exec(l)?.slice(1)),
    [
      [at('alias_disk ='), 'Drive=c:'],
      [at('alias_disk_data ='), 'Drive=d:'],
      [at('alias_explorer ='), 'is_hung'],
      [at('command = check_drivesize drive=c:'), 'drive=c:\\'],
    ],
    warnings.join('\n'),
  );
  assert.doesNotMatch(warnings.join('\n'), /alias_disk_root/);
});
