/**
 * A signal that aborts when any of its parents does, and lets go of them when its work ends.
 * AbortSignal.any() does the first half, but a long-lived parent (a module's lifetime signal)
 * keeps every signal made from it reachable for as long as the parent lives, each query adding
 * one (node's own registry of dependent signals; nodejs/node#55351 fixed the worst of it in 22.12,
 * yet the parent still holds a weak entry per child until a GC clears it). Here each child
 * registers a plain listener on its parents and `release()` removes them: once the query is over
 * nothing of it stays attached to the module's signal.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Detaches from the parents; call when the work that used `signal` has ended. Idempotent. */
  readonly release: () => void;
}

export function linkSignals(...parents: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const aborted = parents.find((p) => p.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const onAbort = function (this: AbortSignal): void {
    release();
    controller.abort(this.reason);
  };
  let attached = true;
  const release = (): void => {
    if (!attached) return;
    attached = false;
    for (const p of parents) p.removeEventListener('abort', onAbort);
  };
  for (const p of parents) p.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release };
}

/** Runs `work` with a signal linked to `parents`, released when the work settles. */
export async function withLinkedSignal<T>(
  parents: readonly AbortSignal[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const link = linkSignals(...parents);
  try {
    return await work(link.signal);
  } finally {
    link.release();
  }
}
