/**
 * The script spawner (the long-lived C process that starts every program
 * the agent runs), real processes each time: the outcome of each kind of
 * run (status, output, environment, working folder, PATH lookup, programs
 * that cannot start, signals), the process group killed on timeout, abort
 * and exit, the output cap, many runs at once, and what happens when the
 * spawner dies, cannot start, or is stopped with scripts running.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ScriptSpawner, type SpawnerOptions } from '../../../../src/checks/scripts/spawner.js';
import { C_SPAWNER } from '../../../../src/checks/scripts/spawner-program.js';
import type { RunOptions, RunOutcome } from '../../../../src/checks/scripts/run-types.js';
import { runConfiguredScript, type ScriptSettings } from '../../../../src/checks/scripts/script-query.js';
import { Limiter } from '../../../../src/checks/scripts/limiter.js';
import { waitUntil } from '../../../helpers/wait-until.js';

let dir = '';
let settings: ScriptSettings;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'scripts-spawner-'));
  const sh = (name: string, body: string): void =>
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  sh('status.sh', 'echo "status $1|v=$1;1;2"\necho "on stderr" >&2\nexit $1');
  sh('sleepy.sh', 'sleep 30 &\necho $! > "$1"\nwait');
  sh('orphan.sh', 'sleep 30 &\necho $! > "$1"\necho left a child behind');
  sh('where.sh', 'echo "$(pwd) [$GREETING] [$#] [$1]"');
  writeFileSync(join(dir, 'no-shebang'), 'echo "run by sh: $1"\n', { mode: 0o755 });
  writeFileSync(join(dir, 'not-executable'), 'echo never\n', { mode: 0o644 });
  sh('flood.sh', 'head -c 3000000 /dev/zero | tr "\\0" x\nhead -c 100000 /dev/zero >&2\nexit 1');
  settings = { root: dir, timeoutSeconds: 5, allowArguments: true, allowNasty: false };
});

after(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

async function waitFor(file: string): Promise<number> {
  const text = (): string => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return '';
    }
  };
  await waitUntil(() => text() !== '', 5_000, `${file} written`);
  return Number(text());
}

/** Runs the test with a spawner that is stopped afterwards, and returns its log. */
async function withSpawner(
  options: SpawnerOptions,
  fn: (s: ScriptSpawner, log: string[]) => Promise<void>,
): Promise<void> {
  const log: string[] = [];
  const s = new ScriptSpawner({ ...options, log: (level, message) => log.push(`${level}: ${message}`) });
  try {
    await fn(s, log);
  } finally {
    s.stop();
  }
}

void test('the build made the C spawner and runs start through it, said once', async () => {
  await withSpawner({}, async (s, log) => {
    const o = await s.run({ argv: ['/bin/echo', 'c'], timeoutMs: 5000 });
    assert.deepEqual([o.code, o.stdout], [0, 'c\n']);
    assert.deepEqual(log, [`info: programs are started by the script spawner (${C_SPAWNER}, pid ${s.pid})`]);
  });
});

void test(`each kind of run: status, output, environment, working folder, PATH lookup, programs that cannot start, a signal`, async () => {
  await withSpawner({}, async (s) => {
    const cases: RunOptions[] = [
      { argv: [join(dir, 'status.sh'), '2'], timeoutMs: 5000 },
      { argv: [join(dir, 'status.sh'), '0'], timeoutMs: 5000 },
      {
        argv: [join(dir, 'where.sh'), 'one two', ''],
        timeoutMs: 5000,
        cwd: dir,
        env: { GREETING: 'hello', PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
      { argv: ['sh', '-c', 'echo "$0 via PATH"'], timeoutMs: 5000 },
      { argv: [join(dir, 'no-such-script.sh')], timeoutMs: 5000 },
      { argv: ['/bin/sh', '-c', 'kill -TERM $$'], timeoutMs: 5000 },
      { argv: [join(dir, 'status.sh')], timeoutMs: 5000, cwd: join(dir, 'no-such-folder') },
      {
        argv: ['where.sh', 'found in the PATH of its own environment'],
        timeoutMs: 5000,
        env: { PATH: `/nowhere:${dir}` },
      },
      { argv: ['./status.sh', '1'], timeoutMs: 5000, cwd: dir },
      { argv: [join(dir, 'no-shebang'), 'x'], timeoutMs: 5000 },
      { argv: ['no-shebang', 'y'], timeoutMs: 5000, env: { PATH: dir } },
      { argv: ['not-executable'], timeoutMs: 5000, env: { PATH: dir } },
      { argv: [join(dir, 'not-executable')], timeoutMs: 5000 },
      { argv: [dir], timeoutMs: 5000 },
      { argv: ['echo', 'no PATH at all'], timeoutMs: 5000, env: {} },
    ];
    const ok = (code: number | null, stdout: string, stderr = ''): Partial<RunOutcome> => ({
      code,
      signal: null,
      stdout,
      stderr,
    });
    const cannot = (error: string): Partial<RunOutcome> => ({
      code: null,
      signal: null,
      stdout: '',
      stderr: '',
      error,
    });
    const expected: Partial<RunOutcome>[] = [
      ok(2, 'status 2|v=2;1;2\n', 'on stderr\n'),
      ok(0, 'status 0|v=0;1;2\n', 'on stderr\n'),
      ok(0, `${dir} [hello] [2] [one two]\n`),
      ok(0, 'sh via PATH\n'),
      cannot('no such file (ENOENT)'),
      { code: null, signal: 'SIGTERM', stdout: '', stderr: '' },
      cannot('no such file (ENOENT)'),
      ok(0, `${process.cwd()} [] [1] [found in the PATH of its own environment]\n`),
      ok(1, 'status 1|v=1;1;2\n', 'on stderr\n'),
      ok(0, 'run by sh: x\n'),
      ok(0, 'run by sh: y\n'),
      cannot('permission denied (EACCES)'),
      cannot('permission denied (EACCES)'),
      cannot('permission denied (EACCES)'),
      ok(0, 'no PATH at all\n'),
    ];
    for (const [i, c] of cases.entries()) {
      const o = await s.run(c);
      const seen: Partial<RunOutcome> = {
        code: o.code,
        signal: o.signal,
        stdout: o.stdout,
        stderr: o.stderr,
        ...(o.error !== undefined ? { error: o.error } : {}),
      };
      assert.deepEqual(seen, expected[i], c.argv.join(' '));
      assert.deepEqual([o.timedOut, o.aborted, o.truncated], [false, false, false]);
    }
    assert.ok(s.pid !== undefined, 'the spawner ran them');
  });
});

void test(`scripts of a configured query run through the spawner`, async () => {
  await withSpawner({}, async (s) => {
    const run = s.run.bind(s);
    const r = await runConfiguredScript('status', 'status.sh $ARG1$', ['1'], settings, new Limiter(2), undefined, run);
    assert.deepEqual(
      [r.result, r.message, r.perf],
      [1, 'status 1', [{ alias: 'v', value: 1, warning: 1, critical: 2 }]],
    );
    const missing = await runConfiguredScript(
      'missing',
      'no-such-script.sh',
      [],
      settings,
      new Limiter(1),
      undefined,
      run,
    );
    assert.deepEqual(
      [missing.result, missing.message],
      [3, 'Failed to run missing (no-such-script.sh): no such file (ENOENT)'],
    );
  });
});

void test(`a timeout kills the whole process group`, async () => {
  await withSpawner({}, async (s) => {
    const pidFile = join(dir, 'sleepy.pid');
    const run = s.run.bind(s);
    const r = await runConfiguredScript(
      'sleepy',
      `sleepy.sh ${pidFile}`,
      [],
      { ...settings, timeoutSeconds: 0.5 },
      new Limiter(1),
      undefined,
      run,
    );
    assert.deepEqual([r.result, r.message], [3, 'Script sleepy timed out after 0.5 s']);
    assert.equal(
      await waitGone(Number(readFileSync(pidFile, 'utf8'))),
      true,
      'the background sleep died with the script',
    );
  });
});

void test(`what a script leaves behind when it exits is killed; abort kills the script`, async () => {
  await withSpawner({}, async (s) => {
    const pidFile = join(dir, 'orphan.pid');
    const o = await s.run({ argv: [join(dir, 'orphan.sh'), pidFile], timeoutMs: 5000 });
    assert.deepEqual([o.code, o.stdout], [0, 'left a child behind\n']);
    assert.equal(await waitGone(Number(readFileSync(pidFile, 'utf8'))), true);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const a = await s.run({ argv: ['/bin/sleep', '30'], timeoutMs: 10_000, signal: stop.signal });
    assert.deepEqual([a.aborted, a.signal, a.timedOut], [true, 'SIGKILL', false]);
  });
});

void test(`large output is capped per stream and flagged, the rest is read and dropped`, async () => {
  await withSpawner({}, async (s) => {
    const o = await s.run({ argv: [join(dir, 'flood.sh')], timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });
    assert.equal(o.code, 1);
    assert.equal(o.truncated, true);
    assert.equal(o.stdout, 'x'.repeat(64 * 1024));
    assert.equal(o.stderr.length, 64 * 1024);
    const full = await s.run({ argv: [join(dir, 'flood.sh')], timeoutMs: 10_000 });
    assert.deepEqual([full.truncated, full.stdout.length, full.stderr.length], [true, 1024 * 1024, 100_000]);
  });
});

void test(`many runs at once, pipes closed and reused all the time: every one answered`, async () => {
  // 20 at a time, as the benchmark's NRPE clients. The C spawner once read a freed run here (a
  // pipe closed while a child just spawned still held a copy stayed in its epoll set): seen by
  // the benchmark and under AddressSanitizer, rarely by this test without it.
  await withSpawner({}, async (s) => {
    let next = 0;
    const bad: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < 400) {
          const o = await s.run({ argv: ['/bin/echo', 'OK: fine|x=1;2;3'], timeoutMs: 10_000 });
          if (o.code !== 0 || o.stdout !== 'OK: fine|x=1;2;3\n') bad.push(JSON.stringify(o));
        }
      }),
    );
    assert.deepEqual(bad.slice(0, 3), []);
  });
});

void test(`a word with a NUL character is refused with a clear error`, async () => {
  await withSpawner({}, async (s) => {
    const o = await s.run({ argv: ['/bin/echo', 'a\0b'], timeoutMs: 5000 });
    assert.equal(o.error, 'a word of the command line holds a NUL character');
    const e = await s.run({ argv: ['/bin/echo'], timeoutMs: 5000, env: { BAD: 'x\0y' } });
    assert.equal(e.error, 'the environment variable BAD holds a NUL character');
  });
});

void test(`the spawner dies: its running script is answered with an error and its group killed, the next run starts a new spawner`, async () => {
  await withSpawner({}, async (s, log) => {
    const pidFile = join(dir, 'dies.pid');
    rmSync(pidFile, { force: true });
    const running = s.run({ argv: [join(dir, 'sleepy.sh'), pidFile], timeoutMs: 30_000 });
    const sleeper = await waitFor(pidFile);
    const first = s.pid as number;
    process.kill(first, 'SIGKILL');
    const o = await running;
    assert.equal(o.error, 'the script spawner exited (killed by SIGKILL) while it ran; its process group was killed');
    assert.equal(await waitGone(sleeper), true, 'the script and its child died with the spawner');
    assert.ok(
      log.some((l) =>
        l.startsWith(
          `warning: script spawner (pid ${first}) exited (killed by SIGKILL); 1 running script(s) answered with an error`,
        ),
      ),
      log.join('\n'),
    );
    const next = await s.run({ argv: ['/bin/echo', 'again'], timeoutMs: 5000 });
    assert.deepEqual([next.code, next.stdout], [0, 'again\n']);
    assert.notEqual(s.pid, first);
    assert.equal(s.missingReason, undefined);
  });
});

void test(`a spawner that keeps dying: each next run starts a new one, nothing runs in the agent`, async () => {
  await withSpawner({}, async (s, log) => {
    const pids = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const running = s.run({ argv: ['/bin/sleep', '30'], timeoutMs: 30_000 });
      await waitUntil(() => s.pid !== undefined, 5_000, 'the spawner runs');
      pids.add(s.pid as number);
      process.kill(s.pid as number, 'SIGKILL');
      assert.match((await running).error ?? '', /^the script spawner exited/);
    }
    const o = await s.run({ argv: ['/bin/echo', 'again'], timeoutMs: 5000 });
    assert.deepEqual([o.code, o.stdout], [0, 'again\n']);
    assert.ok(s.pid !== undefined && !pids.has(s.pid), 'a fourth spawner runs it');
    assert.equal(log.filter((l) => l.includes('exited (killed by SIGKILL)')).length, 3, log.join('\n'));
  });
});

void test(`no spawner here (a checkout not built): every run is answered with why and how to get it, said once`, async () => {
  const missing = join(dir, 'no-spawner-here');
  await withSpawner({ program: missing }, async (s, log) => {
    const o = await Promise.all([1, 2, 3].map((n) => s.run({ argv: ['/bin/echo', String(n)], timeoutMs: 5000 })));
    for (const x of o)
      assert.deepEqual(
        [x.code, x.stdout, x.error],
        [null, '', `the script spawner ${missing} could not start: no such file (ENOENT)`],
      );
    assert.equal(s.missingReason, `the script spawner ${missing} could not start: no such file (ENOENT)`);
    assert.equal(log.filter((l) => l.startsWith('warning: programs cannot be started')).length, 1, log.join('\n'));
  });
});

void test(`stop() with a script running: its group is killed and the run answered`, async () => {
  const s = new ScriptSpawner({});
  const pidFile = join(dir, 'stopped.pid');
  rmSync(pidFile, { force: true });
  const running = s.run({ argv: [join(dir, 'sleepy.sh'), pidFile], timeoutMs: 30_000 });
  const sleeper = await waitFor(pidFile);
  const spawnerPid = s.pid as number;
  s.stop();
  const o = await running;
  assert.equal(o.error, 'the script spawner was stopped; its process group was killed');
  assert.equal(await waitGone(sleeper), true);
  assert.equal(await waitGone(spawnerPid), true);
});

void test(`the agent dies: the spawner kills the scripts it runs and exits`, async () => {
  const pidFile = join(dir, 'orphaned.pid');
  rmSync(pidFile, { force: true });
  const spawnerModule = new URL('../../../../src/checks/scripts/spawner.js', import.meta.url).href;
  const program = `const { ScriptSpawner } = await import(${JSON.stringify(spawnerModule)});
const s = new ScriptSpawner({});
void s.run({ argv: [${JSON.stringify(join(dir, 'sleepy.sh'))}, ${JSON.stringify(pidFile)}], timeoutMs: 60000 });
setInterval(() => console.log(String(s.pid)), 50);`;
  const agent = spawn(process.execPath, ['--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Killed whatever happens: a test that fails here must not leave the program running.
  const pids = (async () => {
    const spawner = await new Promise<number>((resolve) =>
      agent.stdout.on('data', (b: Buffer) => {
        const pid = Number(b.toString().trim().split('\n')[0]);
        if (pid > 0) resolve(pid);
      }),
    );
    return { spawner, sleeper: await waitFor(pidFile) };
  })();
  const { spawner: spawnerPid, sleeper } = await pids.finally(() => agent.kill('SIGKILL'));
  assert.equal(await waitGone(sleeper), true, 'the script died');
  assert.equal(await waitGone(spawnerPid), true, 'the spawner exited');
});
