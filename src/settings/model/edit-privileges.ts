/**
 * What an edit of the settings can do, and so which privilege it needs
 * beyond `settings.put` / `settings.delete` (docs/api.md "Privileges"). The
 * schema gives every key its class with `"x-privilege"`, on the key or on
 * its whole section (a unit test fails on a key without one):
 *
 * - `plain`: nothing beyond the route's privilege;
 * - `access`: who may do what, and every limit that protects the agent
 *   (roles, users, passwords, allowed hosts, allow-lists, TLS trust,
 *   listeners, the login limit, timeouts, queue and buffer sizes);
 * - `exec`: what runs (scripts, aliases, wrapped scripts, includes,
 *   [/paths], the script root, the settings source);
 * - `secrets`: where a secret or a result is sent and how it is protected
 *   (targets' addresses, server names, encryption, TLS of clients, URLs of
 *   sources and includes, channels, `submit channel`).
 *
 * A value that reads `${file:…}` or `${env:…}` is class `secrets` too: it
 * would put any file or variable the agent can read into a value a query
 * shows. Deny by default: a section or key the schema does not know needs
 * every class. Editing needs `settings.put.<class>` (`settings.delete.<class>`
 * to remove) for each class. Names reach here in canonical form
 * (canonical-name.ts): the lookups below are exact.
 */
import { hasPrivilege } from './privileges.js';
import { loadSchemaSet } from './schema-set.js';

export type EditClass = 'access' | 'exec' | 'secrets';

/** Every class: what an edit of a name the schema does not know needs. */
const ALL: readonly EditClass[] = ['access', 'exec', 'secrets'];

/** The classes of writing `key` (or the whole section when undefined) in `section`, with `value` when one is set. */
export function editClasses(section: string, key: string | undefined, value?: string): EditClass[] {
  const found = loadSchemaSet().find(section);
  if (!found) return [...ALL];
  const schema = found.section.schema;
  const out = new Set<EditClass>();
  const own = schema['x-privilege'];
  if (isClass(own)) out.add(own);
  if (key !== undefined) {
    const canonical = found.section.keys.get(key.toLowerCase());
    const prop =
      canonical !== undefined
        ? schema.properties?.[canonical]
        : typeof schema.additionalProperties === 'object'
          ? schema.additionalProperties
          : undefined;
    if (prop === undefined) return [...ALL];
    const mark = prop['x-privilege'];
    if (isClass(mark)) out.add(mark);
  }
  if (value !== undefined && refersToSecret(value)) out.add('secrets');
  return [...out];
}

/** The value reads a file or an environment variable: `${file:` or `${env:`, as settings/model/variables.ts reads them (case-insensitive). */
export function refersToSecret(value: string): boolean {
  return REFERENCE.test(value);
}

const REFERENCE = /\$\{\s*(file|env)\s*:/i;

/** The marks a schema may put on a key or section (`plain` needs nothing beyond the route's privilege). */
export const PRIVILEGE_MARKS: readonly string[] = ['plain', ...ALL];

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
