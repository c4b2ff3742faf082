/**
 * The settings commands a fleet's CI runs, as real processes on files in a
 * temp folder: `validate --format github` over host files sharing a broken
 * base (its problem annotated once, at the base's line), `fmt --check`
 * (exit 1 and the lines with --diff) and `fmt`, `plan` showing a log level
 * and a path change, and `show` masking a secret from the environment.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../src/main.js', import.meta.url));

function agent(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { timeout: 60_000, env: { ...process.env, AGENT_LOG_LEVEL: 'error', ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}

void describe('settings commands for a fleet', () => {
  let dir = '';
  const base = (): string => join(dir, 'shared', 'base.ini');
  const host = (i: number): string => join(dir, 'hosts', `h${i}.ini`);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-cli-'));
    mkdirSync(join(dir, 'shared'));
    mkdirSync(join(dir, 'hosts'));
    writeFileSync(
      base(),
      '[/modules]\nCheckHelpers = enabled\n\n[/settings/default]\npassword = ${env:FLEET_CLI_PW}\ntimeout = soon\n',
    );
    for (let i = 0; i < 3; i++)
      writeFileSync(
        host(i),
        `[/includes]\nbase = ../shared/base.ini\n\n[/settings/log]\nlevel = ${i === 2 ? 'loud' : 'debug'}\n`,
      );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('validate --format github annotates a shared problem once, at its own file and line', async () => {
    const r = await agent(['settings', 'validate', '--format', 'github', host(0), host(1), host(2)], {
      FLEET_CLI_PW: 'pw-from-env-123',
    });
    assert.equal(r.code, 1);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.filter((l) => l.includes(`file=${base()},line=6,col=11`)).length, 1, r.stdout);
    assert.equal(lines.filter((l) => l.includes(`file=${host(2)},line=5`)).length, 1, r.stdout);
    assert.equal(lines.length, 2, r.stdout);
    const json = JSON.parse(
      (await agent(['settings', 'validate', '--format', 'json', host(0), host(1)], { FLEET_CLI_PW: 'x' })).stdout,
    ) as { files: { errors: unknown[] }[] };
    assert.deepEqual(
      json.files.map((f) => f.errors.length),
      [1, 1],
      'JSON lists the base problem for each file',
    );
  });

  void it('fmt --check exits 1 and lists the lines with --diff; fmt fixes them; then --check passes', async () => {
    const messy = join(dir, 'messy.ini');
    writeFileSync(messy, '[/modules]\nCheckHelpers=enabled  \n[/settings/log]\nlevel = info');
    const check = await agent(['settings', 'fmt', '--check', '--diff', messy]);
    assert.equal(check.code, 1);
    assert.match(check.stdout, /messy\.ini: not in the canonical layout/);
    assert.match(check.stdout, /messy\.ini:2: - CheckHelpers=enabled {2}\n.*messy\.ini:2: \+ CheckHelpers = enabled/);
    assert.equal(
      readFileSync(messy, 'utf8'),
      '[/modules]\nCheckHelpers=enabled  \n[/settings/log]\nlevel = info',
      '--check writes nothing',
    );
    assert.equal((await agent(['settings', 'fmt', messy])).code, 0);
    assert.equal(readFileSync(messy, 'utf8'), '[/modules]\nCheckHelpers = enabled\n\n[/settings/log]\nlevel = info\n');
    assert.equal((await agent(['settings', 'fmt', '--check', messy])).code, 0);
    const added = await agent([
      'web',
      'add-user',
      '--settings',
      messy,
      '--user',
      'ann',
      '--password',
      'pw',
      '--role',
      'viewer',
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(
      (await agent(['settings', 'fmt', '--check', messy])).code,
      0,
      'the writer keeps a canonical file canonical',
    );
    assert.equal((await agent(['settings', 'fmt', join(dir, 'none.ini')])).code, 2);
  });

  void it('plan shows a log level and a path change with the file and line, and follows includes', async () => {
    const a = join(dir, 'plan-a.ini');
    const b = join(dir, 'plan-b.ini');
    writeFileSync(join(dir, 'shared', 'plan-base.ini'), '[/settings/log]\nlevel = info\n');
    writeFileSync(a, '[/includes]\nbase = shared/plan-base.ini\n');
    writeFileSync(
      b,
      '[/includes]\nbase = shared/plan-base.ini\n\n[/settings/log]\nlevel = debug\n\n[/paths]\nscripts = /opt/scripts\n',
    );
    const r = await agent(['settings', 'plan', a, b]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^agent +apply +changed: \[\/settings\/log\] level \(plan-b\.ini:5\), \[\/paths\] scripts \(plan-b\.ini:8\)$/m,
    );
    const same = await agent(['settings', 'plan', a, a, '--json']);
    assert.deepEqual(
      (JSON.parse(same.stdout) as { module: string; action: string }[]).find((s) => s.module === 'agent')?.action,
      'unchanged',
    );
  });

  void it('show masks a value from ${env:} and names the included file it comes from', async () => {
    const good = join(dir, 'good.ini');
    writeFileSync(
      join(dir, 'shared', 'good-base.ini'),
      '[/settings/default]\npassword = ${env:FLEET_CLI_PW}\nallowed hosts = ${env:FLEET_CLI_HOSTS}\n',
    );
    writeFileSync(good, '[/includes]\nbase = shared/good-base.ini\n');
    const r = await agent(['settings', 'show', good, '--section', '/settings/default'], {
      FLEET_CLI_PW: 'pw-from-env-123',
      FLEET_CLI_HOSTS: '10.1.2.3',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /password = \*{6} +; shared\/good-base\.ini:2/);
    assert.match(r.stdout, /allowed hosts = \*{6} +; shared\/good-base\.ini:3/);
    assert.doesNotMatch(r.stdout, /pw-from-env-123|10\.1\.2\.3/);
  });
});
