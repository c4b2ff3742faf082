/**
 * Nothing a reload does is swallowed or fatal: an observer of reloads that
 * throws is logged and the reload stands; an unexpected throw inside a
 * reload is a rejected reload (an error line, the last good settings), and
 * the promise resolves (the watcher and SIGHUP call it with `void`); a run
 * of the keyed queue that throws past its caller is logged.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import { KeyedQueue } from '../../../src/reconciler/keyed-queue.js';
import { Reconciler } from '../../../src/reconciler/reconciler.js';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';

sink.consoleLevel = 'silent';
const dir = mkdtempSync(join(tmpdir(), 'agent-reload-guard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const errorsSince = (index: number): string[] =>
  sink
    .entries(new Set(['error']))
    .filter((e) => e.index > index)
    .map((e) => e.message);
const lastIndex = (): number => sink.entries().at(-1)?.index ?? 0;

async function reconciler(): Promise<{ r: Reconciler; file: string }> {
  const file = join(dir, `agent-${Math.random().toString(36).slice(2)}.ini`);
  writeFileSync(file, '[/modules]\nCheckHelpers = disabled\n');
  const loaded = await loadSettingsFile(file);
  assert.ok(loaded.ok);
  let r: Reconciler | undefined = undefined;
  const core = createCore({ settings: () => (r as Reconciler).settings() });
  r = new Reconciler({ initial: loaded.snapshot, warnings: loaded.warnings, core, modules: [] });
  return { r, file };
}

void test('an observer of reloads that throws is logged; the reload stands', async () => {
  const { r } = await reconciler();
  r.onReload = () => {
    throw new Error('observer broke');
  };
  const from = lastIndex();
  const status = await r.reload('test');
  assert.equal(status.lastResult, 'ok');
  assert.ok(
    errorsSince(from).some((m) => m === 'after the reload: observer broke'),
    errorsSince(from).join('\n'),
  );
});

void test('an unexpected throw inside a reload is a rejected reload with an error line; the last good settings stay', async () => {
  const { r, file } = await reconciler();
  const good = r.settings().hash;
  // The one way to make the reload's own code throw: taking the store's load fails as a bug would.
  Object.assign(r, {
    take: () => {
      throw new Error('a bug in the reload');
    },
  });
  const from = lastIndex();
  const status = await r.reload('test');
  assert.equal(status.lastResult, 'invalid');
  assert.equal(status.problems[0]?.code, 'AGENT_ERR_SETTINGS_RELOAD');
  assert.match(status.problems[0].message, new RegExp(`reading settings file ${file} failed: a bug in the reload`));
  assert.equal(r.settings().hash, good);
  assert.ok(
    errorsSince(from).some((m) => m.startsWith('settings rejected: 1 problem(s); keeping the last good settings')),
    errorsSince(from).join('\n'),
  );
});

void test('a keyed-queue run that throws is logged, and the queue goes on', async () => {
  const q = new KeyedQueue();
  const from = lastIndex();
  await q.run('CheckHelpers', () => Promise.reject(new Error('escaped')));
  assert.ok(errorsSince(from).includes('CheckHelpers: a queued run failed: escaped'), errorsSince(from).join('\n'));
  let ran = false;
  await q.run('CheckHelpers', async () => {
    ran = true;
  });
  assert.equal(ran, true);
});
