/**
 * "validates" in the import report means what `config-agent settings validate`
 * says on the written file, for every fixture: nsclient.ini files (with
 * and without includes) and nrpe.cfg files (with and without certificate
 * files that exist here).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/agent-process.js';
import { runAgentCli } from '../../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'import-validates-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const fixtures = [
  ...readdirSync(join(REPO, 'test/fixtures/nsclient'))
    .filter((f) => f.endsWith('.ini'))
    .map((f) => join(REPO, 'test/fixtures/nsclient', f)),
  join(REPO, 'test/fixtures/nsclient-includes/nsclient.ini'),
  ...readdirSync(join(REPO, 'test/fixtures/nrpe')).map((d) => join(REPO, 'test/fixtures/nrpe', d, 'nrpe.cfg')),
];

for (const [i, source] of fixtures.entries()) {
  void test(`${source.slice(REPO.length + 1)}: the report's valid is config-agent settings validate's answer`, async () => {
    const out = join(dir, `${i}.ini`);
    const r = await runAgentCli(['settings', 'import', source, '--output', out, '--format', 'json']);
    const report = JSON.parse(r.stdout) as { valid: boolean; output: string | null };
    assert.equal(r.code, report.valid ? 0 : 1, r.stderr);
    assert.equal(report.output, out, 'written (a result that only lacks certificate files is written too)');
    const v = await runAgentCli(['settings', 'validate', out]);
    assert.equal(v.code === 0, report.valid, `${v.stdout}${v.stderr}`);
  });
}
