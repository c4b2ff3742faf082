/**
 * The one stream of settings changes: every trigger of a reload (the tree
 * watcher's file events, SIGHUP, the API's reload, the settings source's
 * pull, an edit's "written" reload: edit-flow.ts) is pushed
 * here, and the consumer (the reconciler's reload) takes them one batch at
 * a time. A batch is every trigger that arrived before its reload started:
 * what arrives while a reload is pending joins it, what arrives while one
 * runs waits as the next batch, so a burst costs at most one reload beyond
 * the one running. Every caller of a batch gets its result. A stream made
 * before its consumer (cli/run.ts, so that SIGHUP has a way in from the
 * process's start) keeps batches until consumeWith(), and triggers
 * `afterStart` (a SIGHUP while the agent starts) until open().
 *
 * A batch reads the files as its triggers together allow (merge()): a
 * rename read at once only when every trigger was one (the fast path: a
 * batch starts in the same turn when nothing runs, with no debounce here;
 * in-place saves were debounced by the watcher, watcher.ts), and no load
 * of files byte-identical to the applied or written tree when any trigger
 * asks for a fresh load (SIGHUP, the API, a pull).
 *
 * The store reads each batch (loadingConsumer(), readBatch: which files,
 * the stable read or the rename's, files as applied, an edit's written
 * load) and hands the reconciler the load: a snapshot, or the problems of
 * a refused load, with the files' hash and the files it watched; the
 * reconciler reads no file. The consumer's first promise ends the serial
 * part (the read, then queueing the module steps); the next batch starts
 * then, while the steps run on (`result`, what the callers get).
 */
import type { LoadResult } from '../model/load.js';
import { reloadFailure, type SettingsProblem } from '../model/problem.js';
import type { Snapshot } from '../model/snapshot.js';
import { readSettingsTree } from './read-settings.js';
import type { RenameWitness } from './watcher.js';

/** A load of the settings tree that validated. */
export type ValidLoad = Extract<LoadResult, { ok: true }>;

/** How a reload reads the files; a trigger says it, a batch merges them (merge()). */
export interface ReloadHow {
  /** The watcher reported a change: files byte-identical to the applied tree are not loaded (files-as-applied.ts). */
  fileEvent?: boolean;
  /** The file was replaced by rename: complete, read at once (stable-read.ts readReplaced). */
  replaced?: boolean;
  /** The watcher's rename witness: whether anyone wrote the file since it took the name. */
  untouched?: RenameWitness;
  /**
   * The load an edit checked before writing it (edit-flow.ts): files byte-identical to it are not loaded
   * again, it is applied as it is.
   */
  written?: ValidLoad;
}

/** One reason to reload, as pushed. */
export interface ChangeTrigger extends ReloadHow {
  /** For the log and the reload record: `file rename`, `SIGHUP`, `requested`, an edit's why. */
  reason: string;
  /** Held until the stream opens (open()): a SIGHUP while the agent starts (cli/run.ts). */
  afterStart?: boolean;
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
  /** The serial part of the batch running or last queued; before a consumer, a wait for it. */
  private turn: Promise<unknown>;
  private consume: ChangeConsumer<R> | undefined;
  private attached: () => void = () => undefined;
  /** Triggers `afterStart` waiting for open(); undefined once open. */
  private waiting: { trigger: ChangeTrigger; pushed: (result: Promise<R>) => void }[] | undefined;

  /**
   * With `consume`: open, each batch consumed as it comes. Without: made before its consumer (cli/run.ts,
   * where SIGHUP is handled from the process's start); batches wait for consumeWith(), triggers
   * `afterStart` for open().
   */
  constructor(consume?: ChangeConsumer<R>) {
    this.consume = consume;
    this.waiting = consume ? undefined : [];
    this.turn = consume ? Promise.resolve() : new Promise<void>((res) => (this.attached = res));
  }

  /** Give a stream made without one its consumer (the reconciler); batches pushed so far start now. */
  consumeWith(consume: ChangeConsumer<R>): void {
    if (this.consume) throw new Error('the change stream has a consumer already');
    this.consume = consume;
    this.attached();
  }

  /** Let the held triggers in, in order, and hold none from now on; how many were held. */
  open(): number {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    for (const w of waiting) w.pushed(this.push(w.trigger));
    return waiting.length;
  }

  /** How many triggers wait for open(). */
  held(): number {
    return this.waiting?.length ?? 0;
  }

  /** Queue a trigger; resolves with the result of the reload that covers it (rejects when the consumer does). */
  push(trigger: ChangeTrigger): Promise<R> {
    const waiting = this.waiting;
    if (trigger.afterStart && waiting) return new Promise((pushed) => waiting.push({ trigger, pushed }));
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
      const out = await (this.consume as ChangeConsumer<R>)(merge(mine.triggers));
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

/** What the consumer of a tree's loads runs on: what the read of the next batch compares the files with. */
export interface AppliedTree {
  snapshot: Snapshot;
  /** Every file and pattern folder the last read touched. */
  watched: readonly string[];
  /** The last read was refused: a file event loads again, to clear or renew its problems. */
  refused: boolean;
  /** The warnings in force: a read that fails for a reason other than the files keeps them. */
  warnings: SettingsProblem[];
}

/** A batch's read: a load (valid, or refused with its problems), or `unchanged`: the files hold the applied tree. */
export type BatchLoad = LoadResult | 'unchanged';

/** A consumer of loads: each batch with its read (undefined: nothing was read, the consumer takes no more). */
export type LoadConsumer<R> = (batch: ChangeBatch, load: BatchLoad | undefined) => Promise<{ result: Promise<R> }>;

/**
 * The consumer of a settings tree's reloads: each batch is read here (readBatch) and `consume` is handed the
 * load. `applied` is what it runs on; undefined when it takes no more loads (stopping): nothing is read.
 */
export function loadingConsumer<R>(
  applied: () => AppliedTree | undefined,
  consume: LoadConsumer<R>,
): ChangeConsumer<R> {
  return async (batch) => {
    const tree = applied();
    return consume(batch, tree && (await readBatch(batch.how, tree)));
  };
}

/**
 * Read the files of the applied tree as a batch allows (read-settings.ts): after a file event, files
 * byte-identical to the applied tree are `unchanged`; after an edit's write, files byte-identical to what
 * it checked are its load (ReloadHow.written), with no second load. Never rejects: a failure of the read
 * itself is a refused load (AGENT_ERR_SETTINGS_RELOAD) with no hash.
 */
export async function readBatch(how: ReloadHow, tree: AppliedTree): Promise<BatchLoad> {
  const { file } = tree.snapshot;
  const asApplied = how.written
    ? { snapshot: how.written.snapshot, watched: how.written.watched }
    : how.fileEvent && !tree.refused
      ? { snapshot: tree.snapshot, watched: tree.watched }
      : undefined;
  try {
    const result = await readSettingsTree(file, how.replaced === true, how.untouched, asApplied);
    return result === 'unchanged' && how.written ? how.written : result;
  } catch (err) {
    return { ok: false, problems: [reloadFailure(file, err)], warnings: tree.warnings, hash: '', watched: [] };
  }
}
