/**
 * The managed listener: the one component under every listening module
 * (WEBServer, RemoteServer, AgentServer, and whatever listens next). It
 * knows no module and no protocol; a protocol plugs in as a `Transport`.
 *
 * What a new server writes is its `Transport` (listener-contract.ts says
 * how); what it gets:
 * - `start(wants)` loads the TLS material (read and checked once), opens,
 *   and watches the TLS files: a certificate renewed on disk is loaded,
 *   checked and swapped in for new connections without a settings edit; one
 *   that cannot be used is logged (AGENT_WARN_TLS_RELOAD) and the previous
 *   one stays.
 * - `apply(next, commit)` stages the change: the bind key (address, port,
 *   TLS on or off) decides whether a new listener is needed; new TLS
 *   settings are loaded and checked first; the listener moves (rebind.ts:
 *   the new one is up before the old one closes; on the same port the old
 *   one closes first and is reopened if the new one fails). Only when all
 *   of that succeeded are the new policy, the new limits and your own
 *   state (`commit`, called once, synchronously) switched. On any failure
 *   nothing changed: the old listener serves with its whole old policy and
 *   `apply` throws ApplyKeptError ("…; kept previous settings").
 * - `close()` closes the listener gracefully and waits for listeners still
 *   closing after a move.
 */
import type { AddressInfo } from 'node:net';
import type { TlsOptions } from 'node:tls';
import { errorMessage, formatMessage } from '../../errors.js';
import { ConnectionGuard } from '../connection-guard.js';
import type { ListenerWants, ManagedListenerOptions, Transport } from './listener-contract.js';
import { loadServerTls, tlsKey, type ServerTls } from './server-tls.js';
import { rebind, type RebindOutcome } from './rebind.js';
import { watchTlsFiles, type TlsWatch } from './tls-watch.js';

interface Running<P> {
  wants: ListenerWants<P>;
  tls: ServerTls | undefined;
  guard: ConnectionGuard;
}

export type ApplyOutcome = 'unchanged' | RebindOutcome;

export class ManagedListener<P> {
  private transport: Transport<P> | undefined;
  private running: Running<P> | undefined;
  private watch: TlsWatch | undefined;
  private readonly closing = new Set<Promise<void>>();
  /** An apply is under way: a change of the TLS files on disk waits for its end (`diskChanged`). */
  private applying = false;
  private diskChanged = false;

  constructor(private readonly o: ManagedListenerOptions<P>) {}

  /** The bound address (the real port when 0 was asked for); undefined when not listening. */
  address(): AddressInfo | undefined {
    return this.transport?.address();
  }

  /** The TLS options new connections get (undefined: plain, or not listening). */
  tlsOptions(): TlsOptions | undefined {
    return this.running?.tls?.options;
  }

  /** Loads the TLS material, listens, watches the TLS files. `signal`: given up before binding, open nothing. */
  async start(wants: ListenerWants<P>, signal?: AbortSignal): Promise<void> {
    // The server builds the TLS context as it opens: the check builds none of its own beside it.
    const tls = wants.tls
      ? await loadServerTls(wants.tls, wants.tlsFail, true, { serverBuildsContext: true })
      : undefined;
    this.logGenerated(tls, wants);
    signal?.throwIfAborted();
    const running = { wants, tls, guard: this.guard(wants) };
    this.transport = await this.open(running).catch((err: unknown) => {
      const problem = tls?.contextProblem?.(err);
      throw problem ? wants.tlsFail([problem]) : err;
    });
    this.running = running;
    this.watchFiles();
  }

  /** Stages `next`, moves the listener when needed, and only then commits (module docs above). */
  async apply(next: ListenerWants<P>, commit: () => void = () => undefined): Promise<ApplyOutcome> {
    const old = this.running;
    const current = this.transport;
    if (!old || !current) throw new Error(`${this.o.what} is not running`);
    this.applying = true;
    try {
      return await this.stageAndCommit(old, current, next, commit);
    } finally {
      this.applying = false;
      // The files changed on disk while the change was staged: look at them again (a no-op when the same).
      if (this.diskChanged) void this.reloadFromDisk();
    }
  }

  /** Closes the listener (gracefully) and every one still closing after a move. */
  async close(): Promise<void> {
    this.watch?.close();
    this.watch = undefined;
    const t = this.transport;
    this.transport = undefined;
    this.running = undefined;
    if (t) await t.close();
    await Promise.all([...this.closing]);
  }

  // ---------------------------------------------------------------- helpers

  private async stageAndCommit(
    old: Running<P>,
    current: Transport<P>,
    next: ListenerWants<P>,
    commit: () => void,
  ): Promise<ApplyOutcome> {
    // Port 0 took a port: asking for that port now is no move.
    const bound = { ...old.wants, port: current.address().port };
    const sameBind = bindKey(next) === bindKey(old.wants) || bindKey(next) === bindKey(bound);
    const sameTls = tlsKey(next.tls) === tlsKey(old.wants.tls);
    if (sameBind && sameTls) {
      this.commit({ ...old, wants: next }, current, commit);
      return 'unchanged';
    }
    let staged: Running<P> | undefined;
    let loaded: ServerTls | undefined;
    const how = await rebind<Transport<P>, ServerTls | undefined>(current, {
      target: `${this.o.what} ${this.o.describe(next)}`,
      load: async () => {
        loaded = sameTls ? old.tls : next.tls ? await loadServerTls(next.tls, next.tlsFail, true) : undefined;
        this.logGenerated(loaded, next);
        return loaded;
      },
      swap: (tls) => sameBind && current.setTls(tls?.options),
      samePort: next.port !== 0 && (next.port === old.wants.port || next.port === bound.port),
      open: async (tls) => {
        staged = { wants: next, tls, guard: this.guard(next) };
        return this.open(staged);
      },
      reopen: async () => {
        // The old listener closed for the address (its guard with it): the old settings again, with a guard of their own.
        const again = { ...old, guard: this.guard(old.wants) };
        // On the port it had (port 0 would take another one).
        const t = await this.open({ ...again, wants: bound });
        this.running = again;
        return t;
      },
      // Not awaited unless the new listener waits for the address: the request that caused this change may be running on the old one.
      close: async (previous, freesAddress) => {
        if (freesAddress) await previous.close();
        else this.closeLater(previous);
      },
      adopt: (t) => {
        this.transport = t;
      },
    }).catch((err: unknown) => {
      this.o.log.error(errorMessage(err));
      throw err;
    });
    const transport = this.transport as Transport<P>;
    if (how === 'swapped') {
      this.commit({ wants: next, tls: loaded, guard: old.guard }, transport, commit);
    } else {
      this.commit(staged as Running<P>, transport, commit);
    }
    return how;
  }

  private async open(r: Running<P>): Promise<Transport<P>> {
    try {
      return await this.o.open({
        host: r.wants.host,
        port: r.wants.port,
        tls: r.tls?.options,
        policy: r.wants.policy,
        guard: r.guard,
      });
    } catch (err) {
      // The bind error names the system's reason; the module's advice names the setting to change.
      const cause = err instanceof Error ? ((err.cause as NodeJS.ErrnoException | undefined) ?? err) : undefined;
      const advice = cause ? r.wants.bindAdvice?.(cause) : undefined;
      if (advice !== undefined && err instanceof Error) err.message = `${err.message}; ${advice}`;
      throw err;
    }
  }

  private guard(w: ListenerWants<P>): ConnectionGuard {
    return new ConnectionGuard(w.limits, this.o.log, this.o.counter);
  }

  private commit(r: Running<P>, transport: Transport<P>, commit: () => void): void {
    r.guard.setLimits(r.wants.limits);
    transport.setPolicy(r.wants.policy);
    const filesChanged = JSON.stringify(r.tls?.files) !== JSON.stringify(this.running?.tls?.files);
    this.running = r;
    commit();
    if (filesChanged || !this.watch) this.watchFiles();
  }

  private closeLater(t: Transport<P>): void {
    const p = t
      .close()
      .catch((err: unknown) =>
        this.o.log.error(`closing the previous listener of ${this.o.what}: ${errorMessage(err)}`),
      );
    this.closing.add(p);
    void p.finally(() => this.closing.delete(p));
  }

  private watchFiles(): void {
    this.watch?.close();
    this.watch = undefined;
    const files = this.running?.tls?.files ?? [];
    if (files.length > 0) this.watch = watchTlsFiles(files, this.o.log, () => void this.reloadFromDisk());
  }

  /** The TLS files changed on disk: load them again (never creating one) and swap them in when they differ and are good. */
  private async reloadFromDisk(): Promise<void> {
    this.diskChanged = this.applying;
    const r = this.running;
    const spec = r?.wants.tls;
    if (this.applying || !r || !spec) return;
    let tls: ServerTls;
    try {
      tls = await loadServerTls(spec, r.wants.tlsFail, false);
    } catch (err) {
      if (this.running === r)
        this.o.log.warning(
          `AGENT_WARN_TLS_RELOAD: ${formatMessage('AGENT_WARN_TLS_RELOAD', [this.o.what, errorMessage(err)])}`,
        );
      return;
    }
    // Closed, or another change began meanwhile (it looks again when it ends).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- applying may have turned true during the await above; TypeScript keeps the narrowing of the check before it
    if (this.running !== r || !this.transport || this.applying) {
      this.diskChanged ||= this.applying;
      return;
    }
    if (tls.digest === r.tls?.digest) return;
    if (this.transport.setTls(tls.options)) {
      this.running = { ...r, tls };
      this.o.log.info(`${this.o.what}: new certificate from ${tls.files.join(', ')} for new connections`);
    }
  }

  private logGenerated(tls: ServerTls | undefined, w: ListenerWants<P>): void {
    if (tls?.generated && w.tls?.pair) {
      const { cert, key } = w.tls.pair;
      this.o.log.info(`created a self-signed certificate ${cert}${key && key !== cert ? ` (key ${key})` : ''}`);
    }
  }
}

/** What forces a new listener: the address, the port, and whether it speaks TLS. */
function bindKey(w: ListenerWants<unknown>): string {
  return JSON.stringify([w.host, w.port, w.tls !== undefined]);
}
