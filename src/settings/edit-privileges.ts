/**
 * What an edit of the settings can do, and so which privilege it needs
 * beyond `settings.put` / `settings.delete` (docs/api.md "Privileges"). The
 * schema names the keys and sections that decide who may do what or what
 * runs: `"x-privilege": "access"` (roles, users, passwords, allowed hosts,
 * allow-lists, TLS trust) or `"exec"` (scripts, aliases, wrapped scripts,
 * includes, [/paths], the script root), on a section schema or on one
 * key. A value that reads `${file:…}` or `${env:…}` is class `secrets`:
 * it would put any file or variable the agent can read into a value a
 * query shows. Editing such a key or section needs
 * `settings.put.<class>` (`settings.delete.<class>` to remove it).
 */
import { hasPrivilege } from './privileges.js';
import { loadSchemaSet } from './schema-set.js';

export type EditClass = 'access' | 'exec' | 'secrets';

/** The classes of writing `key` (or the whole section when undefined) in `section`, with `value` when one is set. */
export function editClasses(section: string, key: string | undefined, value?: string): EditClass[] {
  const out = new Set<EditClass>();
  const found = loadSchemaSet().find(section);
  const schema = found?.section.schema;
  const own = schema?.['x-privilege'];
  if (isClass(own)) out.add(own);
  if (schema && key !== undefined) {
    const canonical = found.section.keys.get(key.toLowerCase());
    const prop =
      canonical !== undefined
        ? schema.properties?.[canonical]
        : typeof schema.additionalProperties === 'object'
          ? schema.additionalProperties
          : undefined;
    const mark = prop?.['x-privilege'];
    if (isClass(mark)) out.add(mark);
  }
  if (value !== undefined && REFERENCE.test(value)) out.add('secrets');
  return [...out];
}

/** `${file:` or `${env:`, as settings/variables.ts reads them (case-insensitive). */
const REFERENCE = /\$\{\s*(file|env)\s*:/i;

function isClass(v: unknown): v is EditClass {
  return v === 'access' || v === 'exec' || v === 'secrets';
}

/** The privileges an edit of this class needs, for `op`. */
export function editPrivilege(op: 'put' | 'delete', cls: EditClass): string {
  return `settings.${op}.${cls}`;
}

/**
 * Privileges that let their holder become anyone, run anything as the
 * agent's user, or read any file it can read: equivalent to root on the
 * agent. Validation warns about a role of the file that grants one
 * (AGENT_WARN_ROLE_ROOT_EQUIVALENT).
 */
export const ROOT_EQUIVALENT: readonly string[] = [
  'settings.put.access',
  'settings.put.exec',
  'settings.put.secrets',
  'settings.delete.access',
  'settings.delete.exec',
  'scripts.add',
  'scripts.add.CheckExternalScripts',
];

/** The root-equivalent privileges `rules` grant. */
export function rootEquivalentGrants(rules: readonly string[]): string[] {
  return ROOT_EQUIVALENT.filter((p) => hasPrivilege(rules, p));
}
