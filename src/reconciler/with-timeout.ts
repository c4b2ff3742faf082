/**
 * Run a promise-returning step with a time limit; the limit is an AgentError
 * naming the module and step. `cancel`: aborting it gives up at once (the
 * agent is stopping), with the signal's reason.
 */
import { abortReason, AgentError } from '../errors.js';

export async function withTimeout<T>(
  module: string,
  step: string,
  ms: number,
  run: () => Promise<T>,
  cancel?: AbortSignal,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    // Not unref'd: while a step is pending, this timer must keep the process
    // alive so the limit fires even when nothing else holds the event loop
    // (a hung start at boot would otherwise end the process silently). It is
    // always cleared below once the step settles.
    timer = setTimeout(() => reject(new AgentError('AGENT_ERR_MODULE_TIMEOUT', [module, step, ms])), ms);
    if (cancel) {
      onAbort = () => reject(abortReason(cancel));
      if (cancel.aborted) onAbort();
      else cancel.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([Promise.resolve().then(run), limit]);
  } finally {
    clearTimeout(timer);
    if (onAbort) cancel?.removeEventListener('abort', onAbort);
  }
}
