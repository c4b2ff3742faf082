/**
 * The one module table, made from the modules' own descriptors: each
 * `src/modules/<folder>/descriptor.ts` (static data beside the module's
 * code) is read from its compiled form, checked against the `[/modules]`
 * schema (the same names, each once), ordered by start rank, and written as
 *
 * - src/settings/generated/module-rows.ts: the rows the settings layer
 *   reads (settings/model/module-table.ts), with no import of module code;
 * - src/modules/generated/loaders.ts: the lazy import of each module's
 *   code (modules/catalogue.ts).
 *
 * So a new module is its folder (descriptor.ts, index.ts) and its key in
 * the `[/modules]` schema, then `npm run gen`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModuleRow } from '../settings/model/module-row.js';

interface Found {
  folder: string;
  row: ModuleRow;
}

/** Every descriptor under `dist/src/modules/` (compiled by the build that runs the generator). */
async function descriptors(root: string): Promise<Found[]> {
  const modules = join(root, 'dist/src/modules');
  const out: Found[] = [];
  for (const folder of readdirSync(modules, { withFileTypes: true })) {
    const file = join(modules, folder.name, 'descriptor.js');
    if (!folder.isDirectory() || !existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { descriptor?: ModuleRow };
    if (!mod.descriptor) throw new Error(`src/modules/${folder.name}/descriptor.ts exports no descriptor`);
    out.push({ folder: folder.name, row: mod.descriptor });
  }
  return out;
}

function schemaModules(root: string): string[] {
  const schema = JSON.parse(readFileSync(join(root, 'schema/modules/modules.schema.json'), 'utf8')) as {
    properties?: Record<string, unknown>;
  };
  return Object.keys(schema.properties ?? {});
}

/** Both generated files, by path relative to the repository. */
export async function generateModuleRows(root: string): Promise<Record<string, string>> {
  const found = await descriptors(root);
  const names = found.map((f) => f.row.name);
  const schema = schemaModules(root);
  const missing = schema.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !schema.includes(n));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (missing.length > 0 || extra.length > 0 || twice.length > 0) {
    throw new Error(
      [
        ...missing.map((n) => `[/modules] ${n} has no src/modules/<folder>/descriptor.ts naming it`),
        ...extra.map((n) => `a descriptor names ${n}, which schema/modules/modules.schema.json does not have`),
        ...twice.map((n) => `two descriptors name ${n}`),
      ].join('\n'),
    );
  }
  found.sort((a, b) => a.row.startRank - b.row.startRank || a.row.name.localeCompare(b.row.name));
  const rows = found
    .map(({ folder, row }) => `  // src/modules/${folder}/descriptor.ts\n  ${row.name}: ${JSON.stringify(row)},`)
    .join('\n');
  const loaders = found.map(({ folder, row }) => `  ${row.name}: () => import('../${folder}/index.js'),`).join('\n');
  return {
    'src/settings/generated/module-rows.ts': `import type { ModulesSection } from './settings.js';
import type { ModuleRow } from '../model/module-row.js';

/** Every module's descriptor, in start order. */
export const ROWS = {
${rows}
} as const satisfies { readonly [M in keyof ModulesSection]: ModuleRow };
`,
    'src/modules/generated/loaders.ts': `import type { ModuleFile } from '../module.js';
import type { ModuleName } from '../../settings/model/module-table.js';

/** The lazy import of each module's code: a module's code loads only when the module is enabled. */
export const LOADERS: { readonly [M in ModuleName]: () => Promise<ModuleFile> } = {
${loaders}
};
`,
  };
}
