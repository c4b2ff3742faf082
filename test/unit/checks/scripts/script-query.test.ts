/**
 * The script contract through the runner that exists (the shared script
 * spawner, spawner.ts): exit codes and status, output, the time limit and
 * abort killing the whole process group, leftovers killed at exit,
 * arguments, a program that cannot start, the limiter.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram } from '../../../../src/checks/scripts/shared-spawner.js';
import { runConfiguredScript, type ScriptSettings } from '../../../../src/checks/scripts/script-query.js';
import { Limiter } from '../../../../src/checks/scripts/limiter.js';

let dir = '';
let settings: ScriptSettings;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'scripts-run-'));
  const sh = (name: string, body: string): void =>
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  for (const code of [0, 1, 2, 3, 4, 255]) sh(`exit${code}.sh`, `echo "status ${code}|'v'=${code};1;2"\nexit ${code}`);
  sh('silent.sh', 'exit 0');
  sh('stderr.sh', 'echo "only on stderr" >&2\nexit 2');
  sh(
    'many.sh',
    'echo "first line|a=1"\ni=2\nwhile [ $i -le 200 ]; do echo "line $i"; i=$((i+1)); done\necho "tail|b=2 c=3"',
  );
  sh('sleepy.sh', 'sleep 30 &\necho $! > "$1"\nwait');
  sh('orphan.sh', 'sleep 30 &\necho $! > "$1"\necho left a child behind');
  sh('args.sh', 'echo "got [$1] [$2] [$#]"');
  settings = { root: dir, timeoutSeconds: 5, allowArguments: true, allowNasty: false };
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Alive unless gone or a zombie (a zombie waits for a reaper, it runs nothing). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

void test('exit codes 0 to 3 are the status, anything else is UNKNOWN', async () => {
  const limiter = new Limiter(4);
  for (const code of [0, 1, 2, 3, 4, 255]) {
    const r = await runConfiguredScript(`exit${code}`, `exit${code}.sh`, [], settings, limiter);
    assert.equal(r.result, code <= 3 ? code : 3, `exit ${code}`);
    assert.match(r.message, new RegExp(`^status ${code}`));
    if (code > 3) assert.match(r.message, new RegExp(`\\(exit code ${code}\\)$`));
    assert.deepEqual(r.perf, [{ alias: 'v', value: code, warning: 1, critical: 2 }]);
  }
});

void test('no output, stderr only, many lines', async () => {
  const limiter = new Limiter(4);
  let r = await runConfiguredScript('silent', 'silent.sh', [], settings, limiter);
  assert.deepEqual([r.result, r.message, r.perf], [0, 'No output available from command (silent).', []]);
  r = await runConfiguredScript('stderr', './stderr.sh', [], settings, limiter);
  assert.deepEqual([r.result, r.message], [2, 'only on stderr']);
  r = await runConfiguredScript('many', 'many.sh', [], settings, limiter);
  const lines = r.message.split('\n');
  assert.equal(lines.length, 201);
  assert.equal(lines[0], 'first line');
  assert.equal(lines[199], 'line 200');
  assert.equal(lines[200], 'tail');
  assert.deepEqual(
    r.perf.map((p) => [p.alias, p.value]),
    [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ],
  );
});

void test('a timeout kills the whole process group and answers UNKNOWN', async () => {
  const pidFile = join(dir, 'sleepy.pid');
  const started = Date.now();
  const r = await runConfiguredScript(
    'sleepy',
    `sleepy.sh ${pidFile}`,
    [],
    { ...settings, timeoutSeconds: 0.5 },
    new Limiter(1),
  );
  assert.deepEqual([r.result, r.message], [3, 'Script sleepy timed out after 0.5 s']);
  assert.ok(Date.now() - started < 5000);
  const child = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(child > 0);
  assert.equal(await waitGone(child), true, 'the background sleep died with the script');
});

void test('children left behind by a script that exits are killed', async () => {
  const pidFile = join(dir, 'orphan.pid');
  const r = await runConfiguredScript('orphan', `orphan.sh ${pidFile}`, [], settings, new Limiter(1));
  assert.deepEqual([r.result, r.message], [0, 'left a child behind']);
  assert.equal(await waitGone(Number(readFileSync(pidFile, 'utf8'))), true);
});

void test('arguments: $ARGn$, allow arguments, nasty characters', async () => {
  const limiter = new Limiter(2);
  let r = await runConfiguredScript('args', 'args.sh $ARG1$ "x $ARG2$ y"', ['one', 'two words'], settings, limiter);
  assert.equal(r.message, 'got [one] [x two words y] [2]');
  r = await runConfiguredScript('args', 'args.sh $ARGS$', ['a', 'b'], settings, limiter);
  assert.equal(r.message, 'got [a] [b] [2]');
  r = await runConfiguredScript('args', 'args.sh $ARG1$ $ARG3$', ['a'], settings, limiter);
  assert.equal(r.message, 'got [a] [] [1]');
  r = await runConfiguredScript('args', 'args.sh $ARG1$', ['a'], { ...settings, allowArguments: false }, limiter);
  assert.deepEqual([r.result, r.message.startsWith('Arguments not allowed')], [3, true]);
  r = await runConfiguredScript('args', 'args.sh $ARG1$', ['a;rm -rf /'], settings, limiter);
  assert.equal(r.result, 3);
  assert.match(r.message, /refused character ";"/);
  r = await runConfiguredScript('args', 'args.sh $ARG1$', ['a;b'], { ...settings, allowNasty: true }, limiter);
  assert.equal(r.message, 'got [a;b] [] [1]');
});

void test('a program that cannot start answers UNKNOWN', async () => {
  const r = await runConfiguredScript('missing', 'no-such-script.sh', [], settings, new Limiter(1));
  assert.equal(r.result, 3);
  assert.match(r.message, /^Failed to run missing .*ENOENT/);
  const bad = await runConfiguredScript('quote', 'args.sh "open', [], settings, new Limiter(1));
  assert.deepEqual([bad.result, bad.message.startsWith('unclosed "')], [3, true]);
});

void test('concurrent runs are bounded by the limiter', async () => {
  const limiter = new Limiter(2);
  let peak = 0;
  const task = async (): Promise<void> => {
    peak = Math.max(peak, limiter.active);
    await runProgram({ argv: ['/bin/sleep', '0.1'], timeoutMs: 5000 });
  };
  await Promise.all(Array.from({ length: 6 }, () => limiter.run(task)));
  assert.equal(peak, 2);
  assert.equal(limiter.active, 0);
  const held = limiter.run(() => new Promise((r) => setTimeout(r, 50)));
  const held2 = limiter.run(() => new Promise((r) => setTimeout(r, 50)));
  const stop = new AbortController();
  const waiting = limiter.run(async () => 'ran', stop.signal);
  assert.equal(limiter.queued, 1);
  stop.abort(new Error('gave up'));
  await assert.rejects(waiting, /gave up/);
  await Promise.all([held, held2]);
  assert.equal(existsSync(dir), true);
});

void test('abort kills the script', async () => {
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 100);
  const o = await runProgram({ argv: ['/bin/sleep', '30'], timeoutMs: 10_000, signal: stop.signal });
  assert.equal(o.aborted, true);
  assert.equal(o.signal, 'SIGKILL');
});

void test('time waiting for a slot counts against the timeout; a full queue refuses at once', async () => {
  const limiter = new Limiter(1, 1);
  let release = (): void => undefined;
  const held = limiter.run(() => new Promise<void>((r) => (release = r)));
  const quick = { ...settings, timeoutSeconds: 0.3 };
  const waiting = runConfiguredScript('args', 'args.sh a b', [], quick, limiter);
  const refused = await runConfiguredScript('args', 'args.sh a b', [], quick, limiter);
  assert.equal(refused.result, 3);
  assert.equal(
    refused.message,
    'Script args refused: 1 already waiting for a free slot ([/settings/external scripts] max queued)',
  );
  assert.equal(limiter.refused, 1);
  const timedOut = await waiting;
  assert.equal(timedOut.message, 'Script args timed out after 0.3 s (waiting for a free slot)');
  release();
  await held;
  assert.equal((await runConfiguredScript('args', 'args.sh a b', [], quick, limiter)).message, 'got [a] [b] [2]');
});
