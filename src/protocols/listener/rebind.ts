/**
 * How the managed listener (managed-listener.ts) moves to new listener
 * settings without ever being left with nothing:
 *
 * 1. load and check the new TLS material first (certificate and key
 *    readable, the key belonging to the certificate, the CA parsing; a
 *    certificate file holding its key works): a failure changes nothing;
 * 2. when the listener can take the change in place (same address, only
 *    TLS changed), swap it there; open connections are not disturbed;
 * 3. otherwise start the new listener, then close the old one. On the
 *    same port (`samePort`) the new one may find its address held by the
 *    old one (the same address, or one that overlaps it: empty and 0.0.0.0,
 *    :: and an IPv4 address, a name and its address): then the old one
 *    closes first and, if the new one still cannot start, the old settings
 *    are opened again. Any other failure to start leaves the old one as it
 *    was.
 *
 * On any failure the listener keeps serving on its previous settings and the
 * helper throws ApplyKeptError ("…; kept previous settings"), so the
 * reconciler reports the change as not applied and retries it. Only when
 * even the previous listener cannot be opened again does it throw a plain
 * error (the module is then restarted by the reconciler).
 */
import { ApplyKeptError, errorMessage } from '../../errors.js';

export interface RebindPlan<L, M> {
  /** What moves where, for messages: `the web server to https://*:8443`. */
  target: string;
  /** Loads and checks the new TLS material (undefined for plain); throws when it is unusable. */
  load(): Promise<M> | M;
  /** Applies the change to the current listener when it can (same address); true when done. */
  swap?(material: M): boolean;
  /** True when the new listener uses the old one's port (it may need the old one's address too). */
  samePort: boolean;
  /** Starts a listener on the new settings. */
  open(material: M): Promise<L>;
  /** Starts a listener on the previous settings again (after the old one closed for its address). */
  reopen(): Promise<L>;
  /** Closes the previous listener; `freesAddress`: the new one waits for its address. */
  close(old: L, freesAddress: boolean): Promise<void>;
  /** The listener now serving (called whenever it changes, before the helper returns or throws). */
  adopt(listener: L | undefined): void;
}

/** How the change was taken: in place, by a new listener, or not at all (thrown). */
export type RebindOutcome = 'swapped' | 'rebound';

export async function rebind<L, M>(current: L, plan: RebindPlan<L, M>): Promise<RebindOutcome> {
  let material: M;
  try {
    material = await plan.load();
  } catch (err) {
    throw kept(plan.target, err);
  }
  if (plan.swap) {
    let swapped: boolean;
    try {
      swapped = plan.swap(material);
    } catch (err) {
      throw kept(plan.target, err);
    }
    if (swapped) return 'swapped';
  }
  let next: L;
  try {
    next = await plan.open(material);
  } catch (err) {
    if (!plan.samePort || !addressInUse(err)) throw kept(plan.target, err);
    return closeFirst(current, material, plan);
  }
  plan.adopt(next);
  await plan.close(current, false);
  return 'rebound';
}

/** The new listener needs the old one's address: close the old one, open the new one, or the old settings again. */
async function closeFirst<L, M>(current: L, material: M, plan: RebindPlan<L, M>): Promise<RebindOutcome> {
  await plan.close(current, true);
  plan.adopt(undefined);
  try {
    plan.adopt(await plan.open(material));
    return 'rebound';
  } catch (err) {
    // Throws a plain error when even the previous settings cannot listen again: the module is down.
    plan.adopt(await plan.reopen());
    throw kept(plan.target, err);
  }
}

function addressInUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE' || /\bEADDRINUSE\b/.test(errorMessage(err));
}

/** The error of a change not taken; the message ends with "kept previous settings". */
function kept(target: string, err: unknown): ApplyKeptError {
  return new ApplyKeptError(`cannot move ${target}: ${errorMessage(err)}; kept previous settings`);
}
