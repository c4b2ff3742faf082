/**
 * AGENT_WARN_WINDOWS_VALUE: an alias (a one-liner or an object) or a
 * schedule whose command carries a value that means something only on
 * Windows (formats/windows-values.ts: a check_drivesize drive letter, the
 * process attribute is_hung). It answers UNKNOWN here; one warning per
 * value, at the line that sets the command (a command inherited from a
 * parent is warned about once, where it is written).
 */
import { windowsOnlyValues } from '../../formats/windows-values.js';
import type { ResolvedObject } from './snapshot.js';
import { problem, type SettingsProblem } from './problem.js';

interface Input {
  file: string;
  aliases: ReadonlyMap<string, ResolvedObject>;
  schedules: ReadonlyMap<string, ResolvedObject>;
}

export function windowsValueWarnings(input: Input): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const seen = new Set<string>();
  const objects: [string, ResolvedObject][] = [
    ...[...input.aliases.values()].map((o): [string, ResolvedObject] => ['alias', o]),
    ...[...input.schedules.values()].map((o): [string, ResolvedObject] => ['schedule', o]),
  ];
  for (const [kind, obj] of objects) {
    const command = obj.values.command;
    const o = obj.origins.command;
    if (typeof command !== 'string' || o === undefined || seen.has(`${o.file}:${o.line}`)) continue;
    seen.add(`${o.file}:${o.line}`);
    // A one-liner (`name = command` in the container) is named by its key.
    const oneLiner = !obj.path.toLowerCase().endsWith(`/${obj.name.toLowerCase()}`);
    const at = { file: o.file, line: o.line, col: o.col, section: o.section, key: oneLiner ? obj.name : o.key };
    for (const v of windowsOnlyValues(command))
      out.push(problem('AGENT_WARN_WINDOWS_VALUE', [`${kind} ${o.object ?? obj.name}`, v], at));
  }
  return out;
}
