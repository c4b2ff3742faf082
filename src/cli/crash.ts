/**
 * A crash is a crash: an `uncaughtException` or `unhandledRejection`
 * anywhere in the process is logged as critical with its stack, the
 * registered clean-up runs (for `config-agent run`: the modules stop in reverse
 * start order, each within its own time limit), and the process exits 70
 * (EX_SOFTWARE), as the README promises. The clean-up gets at most
 * CRASH_STOP_MS; a second crash while it runs is logged and does not start
 * another one. Installed once, by main.ts, before any command runs.
 */
import { sink } from '../log.js';

/** Exit code of a crash (sysexits EX_SOFTWARE). */
export const CRASH_EXIT_CODE = 70;
/** Longest time the clean-up may take before the process exits anyway. */
const CRASH_STOP_MS = Number(process.env.AGENT_CRASH_STOP_MS ?? 30_000);

let cleanup: (() => Promise<void>) | undefined;
let installed = false;

/** What to run after a crash before exiting (replaces an earlier one); pass undefined to clear. */
export function onCrash(fn: (() => Promise<void>) | undefined): void {
  cleanup = fn;
}

/** Installs the process-wide handlers (idempotent). */
export function installCrashHandlers(): void {
  if (installed) return;
  installed = true;
  const log = sink.logger('agent:crash');
  let crashing = false;
  const crash = (kind: string, reason: unknown): void => {
    log.critical(`${kind}: ${describe(reason)}`);
    if (crashing) return;
    crashing = true;
    process.exitCode = CRASH_EXIT_CODE;
    const exit = (): never => process.exit(CRASH_EXIT_CODE);
    const stop = cleanup;
    if (!stop) exit();
    log.critical(`stopping the modules, then exiting with ${CRASH_EXIT_CODE}`);
    setTimeout(() => {
      log.critical(`the modules did not stop within ${CRASH_STOP_MS} ms; exiting`);
      exit();
    }, CRASH_STOP_MS);
    (stop as () => Promise<void>)().then(exit, (err: unknown) => {
      log.critical(`stopping after the crash failed: ${describe(err)}`);
      exit();
    });
  };
  process.on('uncaughtException', (err) => crash('uncaughtException', err));
  process.on('unhandledRejection', (reason) => crash('unhandledRejection', reason));
}

// ---------------------------------------------------------------- helpers

/** The stack of an Error (its message and cause included), else the value as text. */
function describe(reason: unknown): string {
  if (reason instanceof Error) {
    const stack = reason.stack ?? `${reason.name}: ${reason.message}`;
    return reason.cause !== undefined ? `${stack}\ncaused by: ${describe(reason.cause)}` : stack;
  }
  try {
    return `non-Error value ${typeof reason === 'string' ? JSON.stringify(reason) : String(reason)}`;
  } catch {
    return 'a value that cannot be shown';
  }
}
