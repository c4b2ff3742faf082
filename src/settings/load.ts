/**
 * Load settings: read the INI text, expand variables, validate every
 * section against its schema, resolve objects and roles, collect warnings,
 * and build a frozen Snapshot. Never throws for bad input: every problem of
 * the file comes back at once, each with file, line, column, section, key
 * and a stable code.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseIni } from './read-ini.js';
import { loadSchemaSet, type SchemaSet, type SectionSchema } from './schema-set.js';
import { checkSection, sectionDefaults } from './section-check.js';
import { resolveObjects, type ObjectDefinition } from './objects.js';
import { expandVariables, resolveVariables } from './variables.js';
import { insecureWarnings } from './warnings.js';
import { crossChecks } from './cross-checks.js';
import { scriptChecks } from './script-checks.js';
import { problem, sortProblems, type SettingsProblem } from './problem.js';
import { suggestion } from './did-you-mean.js';
import { parsePrivilegeList, LEGACY_GRANT, LEGACY_ROLE, SEEDED_ROLES } from './privileges.js';
import { fsReason } from '../errors.js';
import type { Origin, ResolvedObject, Snapshot } from './snapshot.js';

export type LoadResult =
  | { ok: true; snapshot: Snapshot; warnings: SettingsProblem[]; problems: []; hash: string }
  | { ok: false; problems: SettingsProblem[]; warnings: SettingsProblem[]; hash: string };

const OBJECT_CONTAINERS = {
  agent: '/settings/agent/client/targets',
  remote: '/settings/remote/client/targets',
  users: '/settings/web/users',
  aliases: '/settings/external scripts/alias',
} as const;

export function hashBytes(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function loadSettingsFile(file: string): Promise<LoadResult> {
  const abs = resolve(file);
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
  } catch (err) {
    const p = problem('AGENT_ERR_SETTINGS_UNREADABLE', [abs, fsReason(err)], { file: abs, line: 0, col: 0 });
    return { ok: false, problems: [p], warnings: [], hash: '' };
  }
  return loadSettingsText(bytes.toString('utf8'), abs, hashBytes(bytes));
}

export function loadSettingsText(text: string, file: string, hash = hashBytes(text)): LoadResult {
  const abs = resolve(file);
  const set = loadSchemaSet();
  const problems: SettingsProblem[] = [];
  const doc = parseIni(text, abs);
  for (const p of doc.problems) {
    problems.push({ code: p.code, severity: 'error', message: p.message, file: abs, line: p.line, col: p.col, ...(p.section ? { section: p.section } : {}), ...(p.key ? { key: p.key } : {}) });
  }

  // Path variables first: every other value may use them.
  const pathsSection = doc.sections.find((s) => s.path.toLowerCase() === '/paths');
  const overrides: Record<string, string> = {};
  for (const e of pathsSection?.entries ?? []) overrides[e.key.toLowerCase()] = e.value;
  const { vars, problems: varProblems } = resolveVariables(abs, overrides);
  for (const { key, problem: vp } of varProblems) {
    const e = pathsSection?.entries.find((x) => x.key.toLowerCase() === key);
    problems.push(problem(vp.code, [vp.name], { file: abs, line: e?.line ?? 0, col: (e?.valueCol ?? 0) + vp.offset, section: '/paths', key }));
  }

  const sections: Record<string, Record<string, unknown>> = {};
  const origins: Record<string, Record<string, Origin>> = {};
  const defs = new Map<string, Map<string, ObjectDefinition>>();
  const defsOf = (container: string): Map<string, ObjectDefinition> => {
    let m = defs.get(container);
    if (!m) defs.set(container, (m = new Map()));
    return m;
  };

  for (const s of doc.sections) {
    const found = set.find(s.path);
    if (!found) {
      problems.push(problem('AGENT_ERR_SECTION_UNKNOWN', [s.path], { file: abs, line: s.line, col: s.col, section: s.path }, suggestion(s.path, sectionCandidates(set))));
      continue;
    }
    const { section, canonical, objectName } = found;
    if (section.container !== undefined && objectName !== undefined) {
      const checked = checkSection(set, section, canonical, s, abs, vars, false, problems);
      defsOf(section.container).set(objectName, { name: objectName, path: canonical, values: checked.values, origins: checked.origins, at: { file: abs, line: s.line, col: s.col }, inFile: true });
      continue;
    }
    const checked = checkSection(set, section, canonical, s, abs, vars, true, problems);
    expandDefaults(checked.values, checked.origins, vars);
    sections[canonical] = checked.values;
    origins[canonical] = checked.origins;
    const oneLiner = (section.schema['x-object-container'] as { 'one-liner'?: string } | undefined)?.['one-liner'];
    if (oneLiner) addOneLiners(defsOf(canonical), canonical, oneLiner, checked.values, checked.origins, s, abs, problems);
  }
  for (const sec of set.sections) {
    if (sec.container === undefined && sections[sec.pattern] === undefined) {
      sections[sec.pattern] = expandDefaults(sectionDefaults(set, sec), {}, vars);
      origins[sec.pattern] = {};
    }
  }

  const modules = { ...(sections['/modules'] as Record<string, boolean>) };
  const resolveContainer = (container: string): Map<string, ResolvedObject> => {
    const objectSchema = set.find(`${container}/x`)?.section as SectionSchema;
    // Every object was validated key by key already; defaults fill the rest.
    const defaults = expandDefaults(sectionDefaults(set, objectSchema), {}, vars);
    return resolveObjects(container, defsOf(container), (v) => Object.assign({}, defaults, v), abs, problems);
  };
  const targets = { agent: resolveContainer(OBJECT_CONTAINERS.agent), remote: resolveContainer(OBJECT_CONTAINERS.remote) };
  const users = resolveContainer(OBJECT_CONTAINERS.users);
  const aliases = resolveContainer(OBJECT_CONTAINERS.aliases);

  const roles = new Map<string, readonly string[]>([[LEGACY_ROLE, ['*']]]);
  for (const [role, value] of Object.entries(sections['/settings/web/roles'] ?? {})) {
    const privileges = parsePrivilegeList(String(value));
    roles.set(role, privileges);
    if (privileges.includes(LEGACY_GRANT)) {
      const o = origins['/settings/web/roles']?.[role];
      problems.push(problem('AGENT_WARN_ROLE_LEGACY', [role], { file: abs, line: o?.line ?? 0, col: o?.col ?? 0, section: '/settings/web/roles', key: role }));
    }
  }
  const defined = new Set([...roles.keys()].map((r) => r.toLowerCase()));
  for (const [role, privileges] of SEEDED_ROLES) if (!defined.has(role)) roles.set(role, privileges);

  const warnings = insecureWarnings({ file: abs, sections, origins, modules, targets, users });
  problems.push(...crossChecks(abs, sections, origins));
  problems.push(...scriptChecks({ file: abs, sections, origins, modules, aliases }));
  for (const u of users.values()) {
    const role = String(u.values.role ?? '');
    if (!u.isTemplate && role !== '' && !roles.has(role)) {
      const o = u.origins.role;
      warnings.push(problem('AGENT_WARN_ROLE_UNKNOWN', [u.name, role], { file: abs, line: o?.line ?? 0, col: o?.col ?? 0, section: u.path, key: 'role' }));
    }
  }
  const errors = problems.filter((p) => p.severity === 'error');
  warnings.push(...problems.filter((p) => p.severity === 'warning'));
  if (errors.length > 0) return { ok: false, problems: sortProblems(errors), warnings: sortProblems(warnings), hash };

  const snapshot: Snapshot = {
    file: abs,
    hash,
    variables: vars,
    modules,
    sections,
    origins,
    targets,
    users,
    aliases,
    roles,
  };
  return { ok: true, snapshot: freezeSnapshot(snapshot), warnings: sortProblems(warnings), problems: [], hash };
}

function addOneLiners(
  defs: Map<string, ObjectDefinition>,
  container: string,
  key: string,
  values: Record<string, unknown>,
  origins: Record<string, Origin>,
  s: { line: number; col: number },
  file: string,
  problems: SettingsProblem[],
): void {
  for (const [name, value] of Object.entries(values)) {
    const o = origins[name] as Origin;
    if (defs.has(name)) {
      problems.push(problem('AGENT_ERR_VALUE_INVALID', [`object "${name}" is defined both as a one-liner and as a section`], { file, line: o.line, col: o.col, section: container, key: name }));
      continue;
    }
    defs.set(name, {
      name,
      path: container,
      values: { [key]: value, parent: 'default' },
      origins: { [key]: { ...o, key } },
      at: { file, line: o.line, col: o.col },
      inFile: true,
    });
  }
  void s;
}

/** Schema defaults may use variables (`${certificate-path}/…`); values from the file were expanded already. */
function expandDefaults(values: Record<string, unknown>, origins: Record<string, Origin>, vars: Readonly<Record<string, string>>): Record<string, unknown> {
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string' && origins[k] === undefined && v.includes('${')) values[k] = expandVariables(v, vars).value;
  }
  return values;
}

function sectionCandidates(set: SchemaSet): string[] {
  return set.sections.map((s) => s.pattern);
}

/**
 * Freeze what modules read: the snapshot, its sections and their values,
 * the maps' objects and their values. Origins of objects are left alone:
 * freezing every origin of 10,000 targets costs more than the rest of the
 * load, and nothing writes to them after resolution.
 */
function freezeSnapshot(s: Snapshot): Snapshot {
  for (const v of Object.values(s.sections)) Object.freeze(v);
  for (const v of Object.values(s.origins)) {
    for (const o of Object.values(v)) Object.freeze(o);
    Object.freeze(v);
  }
  for (const map of [s.targets.agent, s.targets.remote, s.users, s.aliases]) {
    for (const o of map.values()) {
      Object.freeze(o.values);
      Object.freeze(o);
    }
  }
  Object.freeze(s.sections);
  Object.freeze(s.origins);
  Object.freeze(s.variables);
  Object.freeze(s.modules);
  Object.freeze(s.targets);
  return Object.freeze(s);
}
