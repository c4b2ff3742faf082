/**
 * Keeps one of node's tick objects (the object `process.nextTick` queues) alive for the rest of
 * the process, so that no garbage collection can drop the hidden classes ("maps") every
 * `process.nextTick` call builds its object through.
 *
 * Why: node builds each tick object from one object literal with computed keys (its async id
 * symbols), and V8 records, for each such key, the map the object had before the key was added.
 * That record is a weak reference. A memory-reducing collection (heap-settle.ts, and V8's own
 * memory reducer in an idle process) keeps no map that no live object uses, so when no tick is
 * queued at that moment, the maps go and the record is cleared. The next call then finds a map
 * other than the recorded one and marks the site megamorphic, for good: from then on every
 * `process.nextTick` (five to six per HTTP request, inside node's stream and http code) defines
 * its properties through V8's runtime, about 1.5 µs a request (docs/benchmarks.md, "Issue 41: what
 * is left"). A tick object kept alive keeps its map and every map before it.
 *
 * Once per process; the tick is queued now, so the object it makes is already alive through a
 * collection that runs before the tick does.
 */
let asked = false;
let kept: object | undefined;

export function keepTickObjectMaps(): void {
  if (asked) return;
  asked = true;
  const { executionAsyncResource } = process.getBuiltinModule('node:async_hooks');
  // Inside a tick callback, the resource node runs it for is that tick's own object.
  process.nextTick(() => {
    kept = executionAsyncResource();
  });
}

/** The tick object kept, once the tick has run (for tests). */
export function keptTickObject(): object | undefined {
  return kept;
}
