/**
 * `config-agent settings validate --format github hosts/*.ini` as CI runs it (a
 * process, in the checkout): 200 host files including one shared base. A
 * problem of the base is annotated once, at the base's line; each host's own
 * problem once, naming that host file; paths are relative to the working
 * folder, as GitHub matches them against the repository. --format json
 * lists the base's problem under every file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../../helpers/agent-process.js';

const HOSTS = 200;
const name = (i: number): string => `hosts/h${String(i).padStart(3, '0')}.ini`;
/** Every 10th host has a problem of its own, at line 5. */
const broken = (i: number): boolean => i % 10 === 3;

function validate(dir: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'settings', 'validate', ...args],
      { cwd: dir, timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, AGENT_LOG_LEVEL: 'error' } },
      (err, stdout) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout });
      },
    );
  });
}

void describe('validate --format github over a fleet', () => {
  let dir = '';
  const hosts = Array.from({ length: HOSTS }, (_, i) => name(i));
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-github-'));
    mkdirSync(join(dir, 'shared'));
    mkdirSync(join(dir, 'hosts'));
    writeFileSync(
      join(dir, 'shared', 'base.ini'),
      '[/modules]\nCheckHelpers = enabled\n\n[/settings/default]\ntimeout = soon\n',
    );
    hosts.forEach((h, i) =>
      writeFileSync(
        join(dir, h),
        `[/includes]\nbase = ../shared/base.ini\n\n[/settings/log]\nlevel = ${broken(i) ? 'loud' : 'info'}\n`,
      ),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('annotates the base problem once at the base, each host problem once at its host', async () => {
    const r = await validate(dir, ['--format', 'github', ...hosts]);
    assert.equal(r.code, 1);
    const lines = r.stdout.trim().split('\n');
    assert.ok(
      lines.every((l) => l.startsWith('::error file=')),
      r.stdout.slice(0, 500),
    );
    const files = lines.map((l) => /^::error file=([^,]+),line=(\d+),/.exec(l)?.slice(1, 3).join(':'));
    const own = hosts.filter((_, i) => broken(i)).map((h) => `${h}:5`);
    assert.deepEqual(files.sort(), ['shared/base.ini:5', ...own].sort());
    assert.equal(
      lines.filter((l) => l.includes('file=shared/base.ini,line=5,col=11,title=AGENT_ERR_VALUE_TYPE::')).length,
      1,
    );
  });

  void it('--format json lists the base problem under every host file', async () => {
    const r = await validate(dir, ['--format', 'json', ...hosts]);
    const report = JSON.parse(r.stdout) as {
      valid: boolean;
      files: { file: string; errors: { file: string; line: number }[] }[];
    };
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.files.map((f) => f.file),
      hosts,
    );
    report.files.forEach((f, i) => {
      assert.equal(
        f.errors.filter((e) => e.file === join(dir, 'shared', 'base.ini') && e.line === 5).length,
        1,
        f.file,
      );
      assert.equal(f.errors.length, broken(i) ? 2 : 1, f.file);
    });
  });
});
