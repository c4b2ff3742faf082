/**
 * Register engine checks as core queries. The query description is the
 * check's description; `help` as an argument answers the full help text.
 */
import type { Core } from '../core/core.js';
import { runCheck, type CheckDefinition } from './engine.js';

/** Register every definition; returns one function that unregisters them all. */
export function registerChecks(core: Core, module: string, defs: readonly CheckDefinition[]): () => void {
  const undo = defs.map((def) =>
    core.registerSimpleQuery(
      {
        name: def.name,
        module,
        title: def.title,
        description: `${def.description} Arguments: help lists every option, name and default.`,
      },
      (args, call) => runCheck(def, args, call.signal),
    ),
  );
  return () => {
    for (const u of undo) u();
  };
}
