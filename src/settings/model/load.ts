/**
 * settings/model/: the settings model, a pure compile of the files of a tree
 * (settings-tree.ts, as the store read them) into a frozen Snapshot or its
 * problems: schemas and validators, sections, objects, variables, merge,
 * warnings, the module table, and plan.ts (old and new snapshot to what a
 * reconcile does). No file access but the schemas and what `${file:}`
 * names, no subprocess, no clock.
 *
 * Load settings: read the INI text, expand variables, validate every
 * section against its schema, resolve objects and roles, collect warnings,
 * and build a frozen Snapshot. Never throws for bad input: every problem of
 * the file comes back at once, each with file, line, column, section, key
 * and a stable code.
 */
import { dirname, resolve } from 'node:path';
import { parseIni } from '../ini/read-ini.js';
import { INCLUDES_SECTION, treeHash, type SettingsTree } from './settings-tree.js';
import { mergeLayers } from './merge-sections.js';
import { absorbSections } from './section-layer.js';
import { expandDefaults } from './absorb-section.js';
import { CheckCache } from './check-cache.js';
import { collectSecrets, maskSecrets, schemaSecrets, secretKeyTest } from './secrets.js';
import { loadSchemaSet, type SectionSchema } from './schema-set.js';
import { sectionDefaults } from './section-check.js';
import { resolveObjects, type ObjectDefinition } from './objects.js';
import { resolveVariables } from './variables.js';
import { insecureWarnings } from './warnings.js';
import { reachWarnings } from './reach-warnings.js';
import { crossChecks } from './cross-checks.js';
import { scriptChecks } from './script-checks.js';
import { problem, sortProblems, type SettingsProblem } from './problem.js';
import { resolveRoles, unknownRoleWarnings } from './roles.js';
import { freezeSnapshot, type Origin, type ResolvedObject, type Snapshot } from './snapshot.js';
import { hashBytes } from './file-hash.js';
import { pulledOverrides, sourceWarnings } from './source-layer.js';

/**
 * `hash`: the main file's sha256 when it includes nothing, else one hash over
 * every file of the tree. `watched`: every file (and pattern folder) whose
 * change could change the result, for the watcher.
 */
export type LoadResult =
  | { ok: true; snapshot: Snapshot; warnings: SettingsProblem[]; problems: []; hash: string; watched: string[] }
  | { ok: false; problems: SettingsProblem[]; warnings: SettingsProblem[]; hash: string; watched: string[] };

const OBJECT_CONTAINERS = {
  agent: '/settings/agent/client/targets',
  remote: '/settings/remote/client/targets',
  users: '/settings/web/users',
  aliases: '/settings/external scripts/alias',
  nsca: '/settings/NSCA/client/targets',
  icinga: '/settings/icinga/client/targets',
  schedules: '/settings/scheduler/schedules',
} as const;

/**
 * Load settings from text (one file, for tests and callers without a file).
 * `[/includes]` is not followed here: an include in the text is an
 * AGENT_ERR_INCLUDE_MISSING problem; use loadSettingsFile (store/load-file.ts).
 */
export function loadSettingsText(text: string, file: string, hash = hashBytes(text)): LoadResult {
  const abs = resolve(file);
  const doc = parseIni(text, abs);
  const tree: SettingsTree = { main: abs, sources: [{ file: abs, hash, doc }], problems: [], watched: [abs] };
  for (const s of doc.sections) {
    if (s.path.toLowerCase() !== INCLUDES_SECTION) continue;
    for (const e of s.entries)
      tree.problems.push(
        problem('AGENT_ERR_INCLUDE_MISSING', [e.value, 'includes are followed only when loading from a file'], {
          file: abs,
          line: e.line,
          col: e.valueCol,
          section: s.path,
          key: e.key,
        }),
      );
  }
  return loadTree(tree, new CheckCache());
}

// long function: the steps of a load share the merged view, the variables and the problem list; each step is a function of its own file
/**
 * Validate and resolve a settings tree (the main file and what it includes). Pure apart from
 * ${file:} reads (and the schema files): no subprocess, no clock, no settings file read here.
 */
export function loadTree(tree: SettingsTree, cache: CheckCache, locatedAt?: string): LoadResult {
  const abs = tree.main;
  // Read as if the main file lived at `locatedAt` (LoadOptions): the path variables, and relative [/paths] of the main file, start there.
  const home = locatedAt ?? abs;
  const hash = treeHash(tree.sources);
  const watched = tree.watched;
  const set = loadSchemaSet();
  const problems: SettingsProblem[] = [...tree.problems];
  for (const src of tree.sources) {
    for (const p of src.doc.problems) {
      problems.push({
        code: p.code,
        severity: 'error',
        message: p.message,
        file: src.file,
        line: p.line,
        col: p.col,
        ...(p.section ? { section: p.section } : {}),
        ...(p.key ? { key: p.key } : {}),
      });
    }
  }
  const merged = mergeLayers(tree.sources);

  // Path variables first: every other value may use them.
  const paths = merged.find('/paths');
  const overrides: Record<string, string> = {};
  const dirs: Record<string, string> = {};
  for (const e of paths?.section.entries ?? []) {
    overrides[e.key.toLowerCase()] = e.value;
    const from = e.file ?? paths!.file;
    dirs[e.key.toLowerCase()] = dirname(from === abs ? home : from);
  }
  const { vars, problems: varProblems, secrets: secretPaths } = resolveVariables(home, overrides, dirs);
  for (const { key, problem: vp } of varProblems) {
    const e = paths?.section.entries.find((x) => x.key.toLowerCase() === key);
    problems.push(
      problem(vp.code, vp.args, {
        file: e?.file ?? paths?.file ?? abs,
        line: e?.line ?? 0,
        col: (e?.valueCol ?? 0) + vp.offset,
        section: '/paths',
        key,
      }),
    );
  }
  const varsKey = Object.values(vars).join('\0');
  let anySecret = secretPaths.size > 0;

  const absorbed = absorbSections(merged.list, merged.below, { set, cache, vars, varsKey }, problems);
  const { sections, origins, defs } = absorbed;
  if (absorbed.secret) anySecret = true;
  const defsOf = (container: string): Map<string, ObjectDefinition> =>
    defs.get(container) ?? new Map<string, ObjectDefinition>();

  const defaults = cache.defaultsFor(varsKey);
  const defaultsOf = (sec: SectionSchema): Record<string, unknown> =>
    defaults(sec, () => expandDefaults(sectionDefaults(set, sec), {}, vars));
  for (const sec of set.sections) {
    if (sec.container === undefined && sections[sec.pattern] === undefined) {
      sections[sec.pattern] = defaultsOf(sec);
      origins[sec.pattern] = NO_ORIGINS;
    }
  }

  const modules = { ...(sections['/modules'] as Record<string, boolean>) };
  const resolveContainer = (container: string): Map<string, ResolvedObject> => {
    const objectSchema = set.find(`${container}/x`)?.section as SectionSchema;
    // Every object was validated key by key already; defaults fill the rest.
    const defaults = defaultsOf(objectSchema);
    const apply = (v: Readonly<Record<string, unknown>>): Record<string, unknown> => Object.assign({}, defaults, v);
    const memo = { objects: cache.objects, key: varsKey };
    const own = defsOf(container);
    // Over a shared base: the base's objects are resolved once per reader; a host resolves only the objects it adds.
    const below = absorbed.below?.(container);
    const layerResolved = below?.resolved((layerDefs) => {
      const found: SettingsProblem[] = [];
      return { map: resolveObjects(container, layerDefs, apply, abs, found, memo), clean: found.length === 0 };
    });
    if (!below || !layerResolved) return resolveObjects(container, own, apply, abs, problems, memo);
    const mine =
      below.added.length === 0
        ? undefined
        : resolveObjects(container, own, apply, abs, problems, memo, new Set(below.added));
    if (!mine) return new Map(layerResolved);
    // In the order a full resolution gives: the definitions' order, then the implicit default and sample.
    const out = new Map<string, ResolvedObject>();
    for (const name of own.keys()) {
      const r = mine.get(name) ?? layerResolved.get(name);
      if (r) out.set(name, r);
    }
    return out;
  };
  const targets = {
    agent: resolveContainer(OBJECT_CONTAINERS.agent),
    remote: resolveContainer(OBJECT_CONTAINERS.remote),
    nsca: resolveContainer(OBJECT_CONTAINERS.nsca),
    icinga: resolveContainer(OBJECT_CONTAINERS.icinga),
  };
  const schedules = resolveContainer(OBJECT_CONTAINERS.schedules);
  const users = resolveContainer(OBJECT_CONTAINERS.users);
  const aliases = resolveContainer(OBJECT_CONTAINERS.aliases);

  const roles = resolveRoles(sections, origins, abs, problems);

  const warnings = [
    ...insecureWarnings({ file: abs, sections, origins, modules, targets, users, aliases, schedules }),
    ...reachWarnings({ file: abs, sections, origins, modules, users }),
  ];
  warnings.push(...sourceWarnings(abs, sections, origins), ...pulledOverrides(tree, merged.list));
  problems.push(...crossChecks(abs, sections, origins));
  problems.push(...scriptChecks({ file: abs, sections, origins, modules, aliases }));
  warnings.push(...unknownRoleWarnings(users, roles, abs));
  // Values from ${env:} and ${file:} are secrets: no message may show them.
  // So are the values of keys the schema marks x-secret (passwords, hashes): masked in problems and log lines too.
  const fromOutside = !anySecret
    ? []
    : collectSecrets(
        origins,
        sections,
        [targets.agent, targets.remote, targets.nsca, targets.icinga, users],
        vars,
        secretPaths,
      );
  const marked = schemaSecrets(sections, [users, targets.nsca, targets.icinga], (path) =>
    secretKeyTest(set.find(path)?.section.schema),
  );
  // A remote include's URL read in part with ${env:} / ${file:} is one of them (settings/store/includes.ts).
  const urls = (tree.remote ?? []).filter((r) => r.secret).map((r) => r.url);
  const secretValues =
    marked.length + urls.length === 0
      ? fromOutside
      : [...new Set([...fromOutside, ...marked, ...urls])].sort((x, y) => y.length - x.length);
  for (const p of [...problems, ...warnings]) p.message = maskSecrets(p.message, secretValues);
  const errors = problems.filter((p) => p.severity === 'error');
  warnings.push(...problems.filter((p) => p.severity === 'warning'));
  if (errors.length > 0)
    return { ok: false, problems: sortProblems(errors), warnings: sortProblems(warnings), hash, watched };

  const snapshot: Snapshot = {
    file: abs,
    hash,
    sources: tree.sources.map((src) => ({ file: src.file, hash: src.hash })),
    ...(tree.remote?.length ? { remoteIncludes: tree.remote } : {}),
    secretValues,
    variables: vars,
    modules,
    sections,
    origins,
    targets,
    users,
    aliases,
    schedules,
    roles,
  };
  return {
    ok: true,
    snapshot: freezeSnapshot(snapshot),
    warnings: sortProblems(warnings),
    problems: [],
    hash,
    watched,
  };
}

/** The origins of a section the files do not write. */
const NO_ORIGINS: Record<string, Origin> = Object.freeze({});
