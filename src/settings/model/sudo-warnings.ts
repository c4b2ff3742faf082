/**
 * AGENT_WARN_SUDO_NO_NEW_PRIVILEGES: a script or NRPE command of an enabled
 * CheckExternalScripts that runs sudo where sudo cannot run for the service
 * (formats/sudo-command.ts says when). One warning per command line, at its
 * line, naming the program, why, and what lets sudo run.
 */
import { sudoBlockedBecause, sudoFix, sudoUses } from '../../formats/sudo-command.js';
import type { Origin } from './snapshot.js';
import { problem, type SettingsProblem } from './problem.js';

interface Input {
  file: string;
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  modules: Partial<Record<string, boolean>>;
}

/** The sections whose values are command lines that may run sudo. */
export const SUDO_SECTIONS = ['/settings/external scripts/scripts', '/settings/external scripts/nrpe commands'];

export function sudoWarnings(input: Input): SettingsProblem[] {
  if (input.modules.CheckExternalScripts !== true) return [];
  const lines = SUDO_SECTIONS.flatMap((path) =>
    Object.entries(input.sections[path] ?? {}).flatMap(([name, line]) => {
      const uses = typeof line === 'string' ? sudoUses(line) : [];
      return uses.length > 0 ? [{ path, name, programs: uses.map((u) => u.program).join(', ') }] : [];
    }),
  );
  if (lines.length === 0) return [];
  const because = sudoBlockedBecause();
  if (because === undefined) return [];
  return lines.map(({ path, name, programs }) => {
    const o = input.origins[path]?.[name];
    const at = { file: o?.file ?? input.file, line: o?.line ?? 0, col: o?.col ?? 0, section: path, key: name };
    return problem('AGENT_WARN_SUDO_NO_NEW_PRIVILEGES', [name, programs, because, sudoFix()], at);
  });
}
