/**
 * Query work shares the event loop in slices: once the queries of all
 * requests together have run SLICE_MS since the loop last turned,
 * `sliceSpent()` says so and each caller yields (core-impl.ts queryRaw),
 * so sockets are served between slices however many requests run at once.
 * Measured (10 agent-protocol clients sending frames of 256 check_ok,
 * GET /api/v1/info meanwhile; idle: median 0.7 ms, p95 3.5 ms): p95 281 ms
 * with a yield every 32 queries per request, 25-34 ms (median 8-10 ms)
 * with 2-4 ms slices; README "Listener limits".
 */
const SLICE_MS = 2;
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
