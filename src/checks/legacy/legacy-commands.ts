/**
 * NSClient++'s legacy command names as queries: each translates its legacy
 * arguments (legacy-system.ts, legacy-disk.ts) and runs the modern check,
 * so its state, message and performance data are the modern check's for
 * the same arguments. Names are case-insensitive as all query names are
 * (checkcpu, CHECKCPU). The names are also in the module table
 * (settings/model/module-table.ts) so that aliases naming them validate.
 */
import type { Core } from '../../core/core.js';
import { ArgumentError } from '../arguments.js';
import { runCheck, type CheckDefinition } from '../engine.js';
import { UNKNOWN, type QueryResult } from '../../core/result.js';
import {
  translateCheckCpu,
  translateCheckMem,
  translateCheckProcState,
  translateCheckServiceState,
  translateCheckUpTime,
} from './legacy-system.js';
import { translateCheckDriveSize, translateCheckFile2, translateCheckFiles } from './legacy-disk.js';

export interface LegacyCommand {
  name: string;
  /** The modern check it runs. */
  target: string;
  translate(tokens: readonly string[]): string[];
}

export const SYSTEM_LEGACY: readonly LegacyCommand[] = [
  { name: 'checkCPU', target: 'check_cpu', translate: translateCheckCpu },
  { name: 'checkMem', target: 'check_memory', translate: translateCheckMem },
  { name: 'checkUpTime', target: 'check_uptime', translate: translateCheckUpTime },
  { name: 'checkServiceState', target: 'check_service', translate: translateCheckServiceState },
  { name: 'checkProcState', target: 'check_process', translate: translateCheckProcState },
];

export const DISK_LEGACY: readonly LegacyCommand[] = [
  { name: 'CheckDriveSize', target: 'check_drivesize', translate: translateCheckDriveSize },
  { name: 'CheckFiles', target: 'check_files', translate: translateCheckFiles },
  { name: 'checkFile2', target: 'check_files', translate: translateCheckFile2 },
];

/** Answer a legacy command: translate, then run the modern check. `help` answers the modern check's help. */
export async function runLegacy(
  legacy: LegacyCommand,
  def: CheckDefinition,
  tokens: readonly string[],
  signal?: AbortSignal,
): Promise<QueryResult> {
  if (tokens.some((t) => t.trim().toLowerCase() === 'help')) return runCheck(def, ['help'], signal);
  let modern: string[];
  try {
    modern = legacy.translate(tokens);
  } catch (err) {
    if (err instanceof ArgumentError) return { command: legacy.name, result: UNKNOWN, message: err.message, perf: [] };
    throw err;
  }
  return runCheck(def, modern, signal);
}

/** Register the legacy commands whose modern check is among `defs`; returns one function that unregisters them. */
export function registerLegacy(
  core: Core,
  module: string,
  legacy: readonly LegacyCommand[],
  defs: readonly CheckDefinition[],
): () => void {
  const undo: (() => void)[] = [];
  for (const l of legacy) {
    const def = defs.find((d) => d.name === l.target);
    if (!def) continue;
    const info = {
      name: l.name,
      module,
      title: `${l.name} (NSClient++ legacy)`,
      description: `NSClient++'s legacy ${l.name} with its old arguments, translated to ${l.target} as NSClient++ does.`,
      // The allow-lists see the check it runs: `!check_process` refuses checkProcState too.
      runs: l.target,
    };
    undo.push(core.registerSimpleQuery(info, (args, call) => runLegacy(l, def, args, call.signal)));
  }
  return () => {
    for (const u of undo) u();
  };
}
