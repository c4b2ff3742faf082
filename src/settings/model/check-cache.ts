/**
 * Per-section check results, cached by the parsed section's identity and
 * the path variables: a section that only a shared base writes is checked
 * once per run, however many host files include the base. A section that a
 * host overrides is a new merged object and is checked afresh. The cache
 * lives as long as its SettingsReader (one CLI run, or one reload).
 */
import type { IniSection } from '../ini/read-ini.js';
import type { SchemaSet, SectionSchema } from './schema-set.js';
import type { SettingsProblem } from './problem.js';
import { checkSection, type CheckedSection } from './section-check.js';
import type { ObjectMemo } from './objects.js';

interface Entry {
  file: string;
  canonical: string;
  varsKey: string;
  useDefaults: boolean;
  result: CheckedSection;
  problems: SettingsProblem[];
}

export class CheckCache {
  private readonly entries = new WeakMap<IniSection, Entry[]>();
  /** Resolved objects (targets, users) by their definition's values (objects.ts). */
  readonly objects: ObjectMemo = new WeakMap();
  private readonly defaultValues = new Map<string, WeakMap<SectionSchema, Record<string, unknown>>>();

  /**
   * Schema defaults of sections for one set of variables (`varsKey`): each
   * made once per cache by `make`, then shared (frozen) by every load.
   */
  defaultsFor(
    varsKey: string,
  ): (section: SectionSchema, make: () => Record<string, unknown>) => Record<string, unknown> {
    let known = this.defaultValues.get(varsKey);
    if (!known) this.defaultValues.set(varsKey, (known = new WeakMap()));
    const map = known;
    return (section, make) => {
      let d = map.get(section);
      if (!d) map.set(section, (d = Object.freeze(make()) as Record<string, unknown>));
      return d;
    };
  }

  /**
   * checkSection, or its earlier result for the same section object, file,
   * variables and defaults mode. The problems it found are appended to
   * `problems` each time (as copies), so every load reports them.
   */
  check(
    set: SchemaSet,
    schema: SectionSchema,
    canonical: string,
    section: IniSection,
    file: string,
    vars: Readonly<Record<string, string>>,
    varsKey: string,
    useDefaults: boolean,
    problems: SettingsProblem[],
  ): CheckedSection {
    let list = this.entries.get(section);
    const hit = list?.find(
      (e) => e.useDefaults === useDefaults && e.varsKey === varsKey && e.file === file && e.canonical === canonical,
    );
    if (hit) {
      for (const p of hit.problems) problems.push({ ...p });
      return hit.result;
    }
    const own: SettingsProblem[] = [];
    const result = checkSection(set, schema, canonical, section, file, vars, useDefaults, own);
    for (const p of own) problems.push({ ...p });
    if (!list) this.entries.set(section, (list = []));
    list.push({ file, canonical, varsKey, useDefaults, result, problems: own });
    return result;
  }
}
