/**
 * Query work shares the event loop in slices: once the queries of all
 * requests together have run SLICE_MS since the loop last turned,
 * `sliceSpent()` says so and each caller yields (core-impl.ts queryRaw),
 * so sockets are served between slices however many requests run at once.
 * Measured by test/bench/web-under-flood.bench.ts (10 agent-protocol
 * clients, two frames of 256 check_ok each in flight, from a process of
 * their own; GET /api/v1/info timed meanwhile): the median under flood was
 * 6.2x the idle one with 2 ms slices, 3.8x with 1 ms, 2.3-3.7x with 0.5 ms
 * and 1.8-2.4x with 0.25 ms, the flood's rate about a quarter lower than
 * with 2 ms. A yield every 32 queries per request instead: p95 281 ms.
 * docs/protocols.md "Listener limits".
 */
const SLICE_MS = 0.25;
let sliceStart = 0;
let sliceOpen = false;

export function sliceSpent(): boolean {
  const now = performance.now();
  if (!sliceOpen) {
    sliceOpen = true;
    sliceStart = now;
    setImmediate(() => (sliceOpen = false));
  }
  return now - sliceStart > SLICE_MS;
}
