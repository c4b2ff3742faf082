/**
 * The one stream of settings changes: every trigger of a reload (the tree
 * watcher's file events, SIGHUP, the API's reload, the settings source's
 * pull, an edit's "written" reload: reconciler/edit-flow.ts) is pushed
 * here, and the consumer (the reconciler's reload) takes them one batch at
 * a time. A batch is every trigger that arrived before its reload started:
 * what arrives while a reload is pending joins it, what arrives while one
 * runs waits as the next batch, so a burst costs at most one reload beyond
 * the one running. Every caller of a batch gets its result.
 *
 * A batch reads the files as its triggers together allow (merge()): a
 * rename read at once only when every trigger was one (the fast path: a
 * batch starts in the same turn when nothing runs, with no debounce here;
 * in-place saves were debounced by the watcher, watcher.ts), and no load
 * of files byte-identical to the applied or written tree when any trigger
 * asks for a fresh load (SIGHUP, the API, a pull).
 *
 * The consumer's first promise ends its serial part (read the files, queue
 * the module steps); the next batch starts then, while the steps run on
 * (`result`, what the callers get).
 */
import type { LoadResult } from '../model/load.js';
import type { RenameWitness } from './watcher.js';

type ValidLoad = Extract<LoadResult, { ok: true }>;

/** How a reload reads the files; a trigger says it, a batch merges them (merge()). */
export interface ReloadHow {
  /** The watcher reported a change: files byte-identical to the applied tree are not loaded (files-as-applied.ts). */
  fileEvent?: boolean;
  /** The file was replaced by rename: complete, read at once (stable-read.ts readReplaced). */
  replaced?: boolean;
  /** The watcher's rename witness: whether anyone wrote the file since it took the name. */
  untouched?: RenameWitness;
  /**
   * The load an edit checked before writing it (reconciler/edit-flow.ts): files byte-identical to it are not loaded
   * again, it is applied as it is.
   */
  written?: ValidLoad;
}

/** One reason to reload, as pushed. */
export interface ChangeTrigger extends ReloadHow {
  /** For the log and the reload record: `file rename`, `SIGHUP`, `requested`, an edit's why. */
  reason: string;
}

/** What one reload covers: the reasons of its triggers (in order, each once) and how to read the files. */
export interface ChangeBatch {
  reasons: string[];
  how: ReloadHow;
}

/** The consumer: resolves when its serial part is done, with the promise of the reload's result. */
export type ChangeConsumer<R> = (batch: ChangeBatch) => Promise<{ result: Promise<R> }>;

interface Pending<R> {
  triggers: ChangeTrigger[];
  result: Promise<R>;
}

export class ChangeStream<R> {
  private pending: Pending<R> | undefined;
  /** The serial part of the batch running or last queued. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly consume: ChangeConsumer<R>) {}

  /** Queue a trigger; resolves with the result of the reload that covers it (rejects when the consumer does). */
  push(trigger: ChangeTrigger): Promise<R> {
    if (this.pending) {
      this.pending.triggers.push(trigger);
      return this.pending.result;
    }
    let resolve: (r: Promise<R>) => void = () => undefined;
    let reject: (e: unknown) => void = () => undefined;
    const result = new Promise<R>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const mine: Pending<R> = { triggers: [trigger], result };
    this.pending = mine;
    const start = async (): Promise<void> => {
      // From here on, triggers wait for the next batch: this one's read may have started.
      if (this.pending === mine) this.pending = undefined;
      const out = await this.consume(merge(mine.triggers));
      resolve(out.result);
    };
    this.turn = this.turn.then(start, start).catch(reject);
    return result;
  }

  /** Resolves once no batch is pending and the serial part of the last one is done. */
  async idle(): Promise<void> {
    for (let t = this.turn; ; t = this.turn) {
      await t;
      if (t === this.turn) return;
    }
  }
}

/**
 * How a batch reads: a fresh load when any trigger asks for one (neither a file event nor an edit's write);
 * otherwise files byte-identical to the last edit's written load (or to the applied tree) load nothing. The
 * rename fast path only when every trigger is a rename, with the witness of the last one.
 */
export function merge(triggers: readonly ChangeTrigger[]): ChangeBatch {
  const reasons = [...new Set(triggers.map((t) => t.reason))];
  const loads = triggers.some((t) => !t.fileEvent && !t.written);
  const written = loads ? undefined : triggers.findLast((t) => t.written)?.written;
  const replaced = triggers.every((t) => t.fileEvent === true && t.replaced === true);
  const untouched = replaced ? triggers.at(-1)?.untouched : undefined;
  return {
    reasons,
    how: {
      ...(loads ? {} : { fileEvent: true }),
      ...(replaced ? { replaced } : {}),
      ...(untouched ? { untouched } : {}),
      ...(written ? { written } : {}),
    },
  };
}
