/**
 * CheckHelpers: queries that answer a fixed state, so that there is
 * something to query and to test the pipes with. Each takes an optional
 * message (all arguments joined by spaces).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { Status } from '../../core/result.js';
import { VERSION } from '../../version.js';

const FIXED: readonly { name: string; status: Status; word: string }[] = [
  { name: 'check_ok', status: 0, word: 'OK' },
  { name: 'check_warning', status: 1, word: 'WARNING' },
  { name: 'check_critical', status: 2, word: 'CRITICAL' },
];

export function createModule(): AgentModule {
  const unregister: (() => void)[] = [];
  return {
    name: 'CheckHelpers',
    async start(ctx: ModuleContext) {
      for (const f of FIXED) {
        unregister.push(
          ctx.core.registerSimpleQuery(
            { name: f.name, module: 'CheckHelpers', title: `Always ${f.word}`, description: `Answers ${f.word} with the given message (default "${f.word}: check_${f.word.toLowerCase()}").` },
            async (args) => ({ result: f.status, message: args.length > 0 ? args.join(' ') : `${f.word}: ${f.name}`, perf: [] }),
          ),
        );
      }
      unregister.push(
        ctx.core.registerSimpleQuery(
          { name: 'check_version', module: 'CheckHelpers', title: 'Agent version', description: 'Answers OK with the agent version (or the given message).' },
          async (args) => ({ result: 0, message: args.length > 0 ? args.join(' ') : `agent ${VERSION}`, perf: [] }),
        ),
      );
    },
    async apply() {
      return true;
    },
    async stop() {
      for (const u of unregister.splice(0)) u();
    },
  };
}
