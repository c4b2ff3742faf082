/** Run a promise-returning step with a time limit; the limit is an AgentError naming the module and step. */
import { AgentError } from '../errors.js';

export async function withTimeout<T>(module: string, step: string, ms: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AgentError('AGENT_ERR_MODULE_TIMEOUT', [module, step, ms])), ms);
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(run), limit]);
  } finally {
    clearTimeout(timer);
  }
}
