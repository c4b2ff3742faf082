/**
 * What a module holds (a registered query, a subscription, a listener) and
 * how each is given back, so that one list serves both ends of its life: a
 * start that fails gives back what it took before it throws, and `stop()`
 * gives back everything (module.ts: a start that throws leaves nothing
 * behind, since there is no running module to stop).
 */
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';

type Release = () => void | Promise<void>;

export class Releases {
  private readonly held: Release[] = [];
  /** Once giving back has begun, what is added later is given back at once (a start given up that still took something). */
  private releasing = false;
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly log: Logger) {}

  /** Hold `release` until releaseAll(). */
  add(release: Release): void {
    this.held.push(release);
    if (this.releasing) this.releaseInBackground();
  }

  /**
   * Gives back everything held, last added first, one at a time; each
   * release runs once, even when one before it throws. Resolves when all
   * (and any still under way from an earlier call) are done; rejects with
   * the first failure.
   */
  releaseAll(): Promise<void> {
    this.releasing = true;
    const run = this.last.then(
      () => this.drain(),
      () => this.drain(),
    );
    this.last = run.catch(() => undefined);
    return run;
  }

  /** releaseAll() with nobody to wait for it: a failure is logged. */
  releaseInBackground(): void {
    this.releaseAll().catch((err: unknown) => this.log.error(`giving back what the module held: ${errorMessage(err)}`));
  }

  private async drain(): Promise<void> {
    let failure: { err: unknown } | undefined;
    for (let r = this.held.pop(); r; r = this.held.pop()) {
      try {
        await r();
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}

/**
 * A module's start (`AgentModule.start`): `body` takes what the module
 * needs, adding how to give each back to `releases`, and returns the
 * running module (whose stop() calls `releases.releaseAll()`). When the
 * body throws, what it took is given back before the error is passed on;
 * when the start's signal aborts first (its time limit, the agent
 * stopping), it is given back at once, and whatever the body still takes
 * after that as it is added.
 */
export async function startWithReleases<R>(
  ctx: { readonly signal: AbortSignal; readonly log: Logger },
  body: (releases: Releases) => Promise<R>,
): Promise<R> {
  const releases = new Releases(ctx.log);
  const onAbort = (): void => releases.releaseInBackground();
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await body(releases);
  } catch (err) {
    const failed = await releases.releaseAll().then(
      () => undefined,
      (e: unknown) => ({ e }),
    );
    if (!failed) throw err;
    throw new Error(`${errorMessage(err)}; giving back what it held failed too: ${errorMessage(failed.e)}`, {
      cause: err,
    });
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
