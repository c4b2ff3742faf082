import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HEAP_SETTLE_ADDON } from '../../../src/cli/heap-settle.js';
import { loadAddon } from '../../../src/native-addon.js';

const MODULE = fileURLToPath(new URL('../../../src/cli/heap-settle.js', import.meta.url));
const KEEP_MODULE = fileURLToPath(new URL('../../../src/cli/keep-tick-maps.js', import.meta.url));

interface Addon {
  fixMmapThreshold: (bytes: unknown) => number;
  trim: () => number;
}

void test('settleHeap: a full collection gives back the young generation a burst grew and flushes code that ran once; --expose-gc is off again', () => {
  // A fresh process: the test runner's own heap would blur the figures.
  const script = `
    const { settleHeap } = await import(process.argv[1]);
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    let burst = [];
    for (let i = 0; i < 400000; i++) burst.push({ i, s: 'x' + i });
    burst = null;
    // Code run once, as a start runs its settings load: 300 functions, each compiled and called.
    for (let i = 0; i < 300; i++) new Function('a', 'b', \`let s = a + \${i}; for (const c of b) s += c.length * \${i}; return s;\`)(i, ['x', 'yy']);
    const before = v8.getHeapStatistics().total_heap_size;
    const bytecodeBefore = v8.getHeapCodeStatistics().bytecode_and_metadata_size;
    const settled = settleHeap();
    const after = v8.getHeapStatistics().total_heap_size;
    const bytecodeAfter = v8.getHeapCodeStatistics().bytecode_and_metadata_size;
    // Flushed code compiles again when called.
    const again = new Function('return 6 * 7')();
    process.stdout.write(JSON.stringify({ settled, before, after, bytecodeBefore, bytecodeAfter, again, gcLater: vm.runInNewContext('typeof gc') }));
  `;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, MODULE], { encoding: 'utf8' }),
  ) as {
    settled: { ms: number; trimmed: boolean; rssBeforeMb: number; rssAfterMb: number };
    before: number;
    after: number;
    bytecodeBefore: number;
    bytecodeAfter: number;
    again: number;
    gcLater: string;
  };
  assert.ok(out.after < out.before * 0.8, `heap ${out.before} → ${out.after} bytes`);
  assert.ok(
    out.bytecodeAfter < out.bytecodeBefore * 0.8,
    `bytecode ${out.bytecodeBefore} → ${out.bytecodeAfter} bytes: the code that ran once is flushed`,
  );
  assert.equal(out.again, 42);
  assert.ok(out.settled.ms > 0 && out.settled.ms < 5000, `took ${out.settled.ms} ms`);
  assert.ok(out.settled.rssAfterMb < out.settled.rssBeforeMb, JSON.stringify(out.settled));
  assert.equal(out.settled.trimmed, true, 'the heap-settle addon trimmed malloc');
  // The flag was set only to make the one context: contexts made later have no gc.
  assert.equal(out.gcLater, 'undefined');
});

void test('settleHeap: node flags given on the command line stay as given', () => {
  const script = `
    const { settleHeap } = await import(process.argv[1]);
    const vm = await import('node:vm');
    settleHeap();
    // --expose-gc from the command line: later contexts still have gc.
    process.stdout.write(vm.runInNewContext('typeof gc'));
  `;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, MODULE], {
    encoding: 'utf8',
  });
  assert.equal(out, 'function');
});

void test('heap-settle addon: fixes the mmap threshold for a positive size only, and trims', () => {
  const addon = loadAddon<Addon>(HEAP_SETTLE_ADDON, 'fixMmapThreshold');
  assert.ok(addon, `${HEAP_SETTLE_ADDON} loads (npm run build makes it)`);
  assert.equal(addon.fixMmapThreshold(128 * 1024), 1);
  assert.equal(addon.fixMmapThreshold(0), 0);
  assert.equal(addon.fixMmapThreshold(-5), 0);
  assert.equal(addon.fixMmapThreshold('128k'), 0);
  assert.ok([0, 1].includes(addon.trim()));
});

void test('settleHeap: process.nextTick keeps its fast object literal through the collection (src/cli/keep-tick-maps.ts)', () => {
  // V8's own record of each computed key of node's tick object literal, read with %DebugPrint
  // (a V8 native, hence --allow-natives-syntax): MONOMORPHIC while the maps it names are alive,
  // MEGAMORPHIC for good once a collection dropped them. The same run without the kept tick object
  // (a plain memory-reducing collection) shows that the test sees the difference.
  const script = (settle: boolean): string => `
    const { settleHeap } = await import(process.argv[1]);
    const { keptTickObject } = await import(process.argv[2]);
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    v8.setFlagsFromString('--no-expose-gc');
    const ticks = (n) => new Promise((done) => {
      const step = () => (--n === 0 ? done() : process.nextTick(step));
      process.nextTick(step);
    });
    await ticks(50000);
    // From a timer, as the agent settles: no tick is queued at that moment.
    await new Promise((done) => setTimeout(() => {
      ${settle ? 'settleHeap()' : "gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })"};
      done();
    }, 10));
    await ticks(50000);
    process.stderr.write(JSON.stringify(Object.getOwnPropertySymbols(keptTickObject() ?? {}).map(String)));
    %DebugPrint(process.nextTick);
  `;
  const run = (settle: boolean): { states: string[]; kept: string } => {
    const out = spawnSync(
      process.execPath,
      ['--allow-natives-syntax', '--input-type=module', '-e', script(settle), MODULE, KEEP_MODULE],
      { encoding: 'utf8' },
    );
    assert.equal(out.status, 0, out.stderr);
    const states = [...out.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1] ?? '');
    return { states, kept: out.stderr };
  };
  const settled = run(true);
  assert.ok(settled.states.length >= 2, `no computed key of the tick literal found in %DebugPrint's output`);
  assert.deepEqual(
    settled.states.filter((s) => s !== 'MONOMORPHIC'),
    [],
    `after settleHeap: ${settled.states.join(' ')}`,
  );
  assert.match(settled.kept, /async_id_symbol/);
  const plain = run(false);
  assert.ok(plain.states.includes('MEGAMORPHIC'), `after a plain collection: ${plain.states.join(' ')}`);
});
