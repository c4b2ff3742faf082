/**
 * What the settings layer knows about each module, without loading its
 * code: the one table of modules, made by `npm run gen` from each module's
 * descriptor (`src/modules/<folder>/descriptor.ts`, static data beside its
 * code; src/tools/generate-module-rows.ts) into generated/module-rows.ts:
 * its name (a key of `[/modules]` in schema/modules/modules.schema.json),
 * start rank, title and description, the sections it reads, the queries it
 * registers, and the columns listener, control and background. Settings
 * validation (aliases, script checks), the planner and the import of
 * NSClient++ files read this table; the loaders (lazy imports of module
 * code, generated beside it into src/modules/generated/loaders.ts) are
 * added to each row by src/modules/catalogue.ts.
 *
 * `sections`: a module's settings view holds exactly these sections (and
 * their resolved objects; settings/model/module-view.ts), a change in them is
 * handed to the module's apply() or restarts it, and `SettingsOf<'Name'>`
 * types the view. Keys marked `x-fallback` in a section's schema arrive
 * filled from their fallback section.
 *
 * `queries`: what the module registers when it runs, so that settings
 * validation can check what an alias names. A unit test
 * (test/unit/modules/catalogue.test.ts) keeps each list equal to what the
 * module really registers.
 */
import { ROWS } from '../generated/module-rows.js';
import type { ModuleRow } from './module-row.js';
import type { ModuleSettings, SectionPath } from './module-view.js';

/** A module as the rest of the agent reads it: its descriptor, with its sections as `settings`. */
export interface ModuleInfo extends Omit<ModuleRow, 'sections' | 'startRank'> {
  /** The sections the module reads. */
  readonly settings: readonly SectionPath[];
}

/** A module of `[/modules]`; the schema and this table name the same ones (the compiler checks it). */
export type ModuleName = keyof typeof ROWS;

/** The sections each module reads (a column of the table). */
export const MODULE_SECTIONS = Object.fromEntries(Object.entries(ROWS).map(([name, row]) => [name, row.sections])) as {
  readonly [M in ModuleName]: (typeof ROWS)[M]['sections'];
};

/** The typed settings view of a module. */
export type SettingsOf<M extends ModuleName> = ModuleSettings<(typeof ROWS)[M]['sections'][number]>;

/** The modules with a listener of their own. */
export type ListenerModule = {
  [M in ModuleName]: (typeof ROWS)[M] extends { readonly listener: string } ? M : never;
}[ModuleName];

/** The section of each listening module's listener (a column of the table). */
export const LISTENER_SECTIONS = Object.fromEntries(
  Object.entries(ROWS).flatMap(([name, row]) => ('listener' in row ? [[name, row.listener]] : [])),
) as Readonly<Record<ListenerModule, SectionPath>>;

const MODULES: readonly ModuleInfo[] = (Object.keys(ROWS) as ModuleName[]).map((name) => {
  const row: ModuleRow = ROWS[name];
  return {
    name,
    settings: row.sections,
    title: row.title,
    description: row.description,
    queries: row.queries,
    ...(row.listener !== undefined ? { listener: row.listener } : {}),
    ...(row.control === true ? { control: true as const } : {}),
    ...(row.background === true ? { background: true as const } : {}),
  };
});
const byLower = new Map(MODULES.map((m) => [m.name.toLowerCase(), m]));

/** Every module, in start order. */
export function moduleTable(): readonly ModuleInfo[] {
  return MODULES;
}

/** A module by name, case-insensitively. */
export function moduleInfo(name: string): ModuleInfo | undefined {
  return byLower.get(name.toLowerCase());
}

/** The module whose row lists the query (case-insensitive), if any. */
export function moduleOfQuery(query: string): ModuleInfo | undefined {
  const lower = query.toLowerCase();
  return MODULES.find((m) => m.queries.some((q) => q.toLowerCase() === lower));
}
