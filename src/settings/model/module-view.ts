/**
 * A module's view of the settings: only the sections its catalogue entry
 * names (typed with the generated section types), the resolved objects of
 * those sections (client targets, web users and roles, query aliases), and
 * the path variables. Nothing else of the snapshot is reachable from it: a
 * module cannot read another module's section, and only the module that
 * names `/settings/web/users` sees the users' password hashes.
 *
 * Every value is complete: the loader applied the schema's defaults, and a
 * key the schema marks `x-fallback: <section>` that the file leaves out
 * takes that section's value here (`[/settings/WEB/server] password` falls
 * back to `[/settings/default] password`). The planner compares these
 * views, so a change of a fallback value reaches the modules that use it.
 */
import type { SettingsSections } from '../generated/settings.js';
import { loadSchemaSet } from './schema-set.js';
import type { Origin, ResolvedObject, Snapshot } from './snapshot.js';
import type { VARIABLE_NAMES } from './variables.js';

/** Fixed section paths (object sections such as `…/targets/<name>` come through `targets`, `users`, `aliases`). */
export type SectionPath = Exclude<keyof SettingsSections, `${string}<name>`>;

export const CONTAINERS = {
  agentTargets: '/settings/agent/client/targets',
  remoteTargets: '/settings/remote/client/targets',
  users: '/settings/web/users',
  roles: '/settings/web/roles',
  aliases: '/settings/external scripts/alias',
  nscaTargets: '/settings/NSCA/client/targets',
  icingaTargets: '/settings/icinga/client/targets',
  schedules: '/settings/scheduler/schedules',
} as const satisfies Record<string, SectionPath>;

/** The path variables, always all four (settings/model/variables.ts). */
export type PathVariables = Readonly<Record<(typeof VARIABLE_NAMES)[number], string>>;

const NO_OBJECTS: ReadonlyMap<string, ResolvedObject> = new Map();
const NO_ROLES: ReadonlyMap<string, readonly string[]> = new Map();

export interface ModuleSettings<P extends SectionPath = SectionPath> {
  /** Absolute path of the main settings file. */
  readonly file: string;
  /** Hash of the settings in force (changes with every edit of the tree). */
  readonly hash: string;
  /** Path variables after [/paths] overrides: base-path, state, certificate-path, scripts, temp. */
  readonly variables: PathVariables;
  /**
   * Where the values of the module's own sections are written (file, line),
   * and the module's own line in [/modules]: for messages that point at a
   * setting. A key left at its default has no origin.
   */
  readonly origins: Readonly<Record<string, Readonly<Record<string, Origin>>>>;
  /** The module's own sections, complete (defaults and fallbacks applied). */
  readonly sections: { readonly [K in P]: Readonly<SettingsSections[K]> };
  /** Resolved targets of the client targets section the module names (agent or remote); empty otherwise. */
  readonly targets: ReadonlyMap<string, ResolvedObject>;
  /** Resolved web users (password hashes included): only for the module that names /settings/web/users. */
  readonly users: ReadonlyMap<string, ResolvedObject>;
  /** Role -> privileges: only for the module that names /settings/web/roles. */
  readonly roles: ReadonlyMap<string, readonly string[]>;
  /** Resolved query aliases: only for the module that names /settings/external scripts/alias. */
  readonly aliases: ReadonlyMap<string, ResolvedObject>;
  /** Resolved schedules: only for the module that names /settings/scheduler/schedules. */
  readonly schedules: ReadonlyMap<string, ResolvedObject>;
}

/** The section a key falls back to when the file leaves it out (`x-fallback` in its schema), if any. */
export function fallbackOf(path: string, key: string): string | undefined {
  const prop = loadSchemaSet().find(path)?.section.schema.properties?.[key] as { 'x-fallback'?: unknown } | undefined;
  return typeof prop?.['x-fallback'] === 'string' ? prop['x-fallback'] : undefined;
}

/** The sections a section's x-fallback keys fall back to. */
export function fallbackTargets(path: string): string[] {
  return [...new Set(fallbacks(path).map(([, to]) => to))];
}

/** Keys of a section's schema marked x-fallback, with the section each falls back to. */
function fallbacks(path: string): [string, string][] {
  const props = loadSchemaSet().find(path)?.section.schema.properties ?? {};
  const out: [string, string][] = [];
  for (const [key, prop] of Object.entries(props)) {
    const to = (prop as { 'x-fallback'?: unknown })['x-fallback'];
    if (typeof to === 'string') out.push([key, to]);
  }
  return out;
}

/** A section's values with its x-fallback keys filled from their fallback sections. */
export function sectionWithFallbacks(
  snapshot: Pick<Snapshot, 'sections'>,
  path: string,
): Readonly<Record<string, unknown>> {
  const own = snapshot.sections[path] ?? {};
  const missing = fallbacks(path).filter(([key]) => own[key] === undefined);
  if (missing.length === 0) return own;
  const filled: Record<string, unknown> = { ...own };
  for (const [key, to] of missing) {
    const value = snapshot.sections[to]?.[key];
    if (value !== undefined) filled[key] = value;
  }
  return Object.freeze(filled);
}

/**
 * Where a module's value of a key comes from, for log lines about it:
 * `[/settings/default] allowed hosts (agent.ini:29)` when the module's
 * section leaves it to its fallback, `[/settings/default] allowed hosts
 * (default)` when neither sets it, `[/settings/remote/server] allowed hosts
 * (agent.ini:12)` when the section sets it.
 */
export function fallbackSource(view: Pick<ModuleSettings, 'origins'>, section: string, key: string): string {
  const o = view.origins[section]?.[key];
  const from = o?.section ?? fallbackOf(section, key) ?? section;
  return `[${from}] ${key} (${o ? `${o.file.slice(o.file.lastIndexOf('/') + 1)}:${o.line}` : 'default'})`;
}

/** Where a value of a module view comes from: its own origin, else the fallback section's. */
export function viewOrigin(
  snapshot: Pick<Snapshot, 'origins' | 'sections'>,
  path: string,
  key: string,
): Origin | undefined {
  const own = snapshot.origins[path]?.[key];
  if (own !== undefined || snapshot.sections[path]?.[key] !== undefined) return own;
  const to = fallbackOf(path, key);
  return to === undefined ? undefined : snapshot.origins[to]?.[key];
}

/**
 * The view of `snapshot` for a module that names `paths`. Unknown paths are
 * an error (a catalogue entry naming a section the schema does not register).
 */
export function moduleView<P extends SectionPath>(
  paths: readonly P[],
  snapshot: Snapshot,
  module?: string,
): ModuleSettings<P> {
  const sections: Record<string, Readonly<Record<string, unknown>>> = {};
  const origins: Record<string, Readonly<Record<string, Origin>>> = {};
  for (const path of paths) {
    if (snapshot.sections[path] === undefined)
      throw new Error(`section ${path} is not registered in schema/settings.schema.json`);
    sections[path] = sectionWithFallbacks(snapshot, path);
    const own: Record<string, Origin> = {};
    for (const key of Object.keys(sections[path])) {
      const o = viewOrigin(snapshot, path, key);
      if (o !== undefined) own[key] = o;
    }
    origins[path] = Object.freeze(own);
  }
  const line = module === undefined ? undefined : snapshot.origins['/modules']?.[module];
  if (line !== undefined && module !== undefined) origins['/modules'] = Object.freeze({ [module]: line });
  const has = (p: SectionPath): boolean => (paths as readonly SectionPath[]).includes(p);
  const targets = has(CONTAINERS.agentTargets)
    ? snapshot.targets.agent
    : has(CONTAINERS.remoteTargets)
      ? snapshot.targets.remote
      : has(CONTAINERS.nscaTargets)
        ? snapshot.targets.nsca
        : has(CONTAINERS.icingaTargets)
          ? snapshot.targets.icinga
          : NO_OBJECTS;
  return Object.freeze({
    file: snapshot.file,
    hash: snapshot.hash,
    origins: Object.freeze(origins),
    variables: snapshot.variables,
    sections: Object.freeze(sections) as ModuleSettings<P>['sections'],
    targets,
    users: has(CONTAINERS.users) ? snapshot.users : NO_OBJECTS,
    roles: has(CONTAINERS.roles) ? snapshot.roles : NO_ROLES,
    aliases: has(CONTAINERS.aliases) ? snapshot.aliases : NO_OBJECTS,
    schedules: has(CONTAINERS.schedules) ? snapshot.schedules : NO_OBJECTS,
  });
}
