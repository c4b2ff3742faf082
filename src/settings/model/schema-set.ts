/**
 * Loads schema/settings.schema.json and the section schemas it registers.
 * The root's `properties` register fixed section paths and its
 * `patternProperties` register object sections (`.../targets/<name>`).
 * Section paths match case-insensitively, as in NSClient++.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

export type JsonSchema = Record<string, unknown> & {
  title?: string;
  description?: string;
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  enum?: unknown[];
};

export interface SectionSchema {
  /** Canonical path (`/settings/WEB/server`) or pattern (`/settings/web/users/<name>`). */
  readonly pattern: string;
  /** Schema file relative to schema/. */
  readonly ref: string;
  readonly schema: JsonSchema;
  /** Type name for generated code (the schema's title). */
  readonly typeName: string;
  /** For object sections: the container path; the object name is the last segment. */
  readonly container?: string;
  /** Lower-cased key name -> canonical key name. */
  readonly keys: ReadonlyMap<string, string>;
}

export interface SchemaSet {
  readonly root: JsonSchema;
  readonly sections: readonly SectionSchema[];
  /** Every schema file by its $id, for ajv. */
  readonly files: ReadonlyMap<string, JsonSchema>;
  /** schemaSetHash() of this set when known without hashing it: the bundle's embedded schemas, hashed by the build. */
  readonly hash?: string;
  /** Find the schema of a section path (case-insensitive); undefined when unknown. */
  find(path: string): { section: SectionSchema; canonical: string; objectName?: string } | undefined;
}

let cached: { dir: string; set: SchemaSet } | undefined;

/**
 * The files under schema/ by their path there, as `npm run build` wrote them into the bundle
 * (src/tools/bundle.mjs): the bundled agent reads no schema file at its start. Not defined when
 * the code runs file by file (dist/src/, the unit tests): the files are read.
 */
declare const __bundleSchemas: ReadonlyMap<string, string> | undefined;
const EMBEDDED = typeof __bundleSchemas === 'undefined' ? undefined : __bundleSchemas;
/** schemaSetHash() of the embedded schemas, as the build computed it (src/tools/bundle.mjs). */
declare const __bundleSchemaHash: string | undefined;
const EMBEDDED_HASH = typeof __bundleSchemaHash === 'undefined' ? undefined : __bundleSchemaHash;

/** Root of the repository or installed package (the folder holding schema/): package-root.ts. */
export function packageRoot(): string {
  return PACKAGE_ROOT;
}

export function loadSchemaSet(root = packageRoot()): SchemaSet {
  const dir = join(root, 'schema');
  if (cached && cached.dir === dir) return cached.set;
  const embedded = root === packageRoot() ? EMBEDDED : undefined;
  const readJson = (rel: string): JsonSchema =>
    JSON.parse(embedded?.get(rel) ?? readFileSync(join(dir, rel), 'utf8')) as JsonSchema;
  const rootSchema = readJson('settings.schema.json');
  const files = new Map<string, JsonSchema>();
  const sections: SectionSchema[] = [];
  const fixed = new Map<string, SectionSchema>();
  const patterns: SectionSchema[] = [];

  const make = (pattern: string, ref: string, container?: string): SectionSchema => {
    const schema = files.get(ref) ?? readJson(ref);
    files.set(ref, schema);
    const keys = new Map<string, string>();
    for (const k of Object.keys(schema.properties ?? {})) keys.set(k.toLowerCase(), k);
    return { pattern, ref, schema, typeName: schema.title ?? 'Section', keys, ...(container ? { container } : {}) };
  };

  for (const [path, node] of Object.entries((rootSchema.properties ?? {}) as Record<string, { $ref: string }>)) {
    const s = make(path, node.$ref);
    sections.push(s);
    fixed.set(path.toLowerCase(), s);
  }
  for (const [re, node] of Object.entries((rootSchema.patternProperties ?? {}) as Record<string, { $ref: string }>)) {
    // Patterns are written as ^<container>/[^/]+$.
    const m = /^\^(.*)\/\[\^\/\]\+\$$/.exec(re);
    if (!m) throw new Error(`schema/settings.schema.json: unsupported section pattern ${re}`);
    const container = m[1];
    const s = make(`${container}/<name>`, node.$ref, container);
    sections.push(s);
    patterns.push(s);
  }
  const found = new Map<string, ReturnType<SchemaSet['find']>>();
  const set: SchemaSet = {
    root: rootSchema,
    sections,
    files,
    ...(embedded && EMBEDDED_HASH !== undefined ? { hash: EMBEDDED_HASH } : {}),
    find(path) {
      // Memoized: a fleet run looks up the same paths thousands of times.
      if (found.has(path)) return found.get(path);
      const r = findUncached(path);
      if (found.size < 100_000) found.set(path, r);
      return r;
    },
  };
  function findUncached(path: string): ReturnType<SchemaSet['find']> {
    const lower = path.toLowerCase();
    const f = fixed.get(lower);
    if (f) return { section: f, canonical: f.pattern };
    for (const p of patterns) {
      const c = (p.container as string).toLowerCase();
      if (lower.startsWith(`${c}/`)) {
        const name = path.slice(c.length + 1);
        if (name.length > 0 && !name.includes('/'))
          return { section: p, canonical: `${p.container}/${name}`, objectName: name };
      }
    }
    return undefined;
  }
  cached = { dir, set };
  return set;
}

/**
 * The schema file `id` of the package's schema set, the set's own parsed object, or undefined when
 * there is none (or no set loads). The precompiled validators (generated/validators.js) take their
 * schema objects from here, not from a copy of each file in their code: 33 KB less code to load at
 * every start and a dozen object literals less to build (issue 41). They are used only when the
 * schemas are the ones they were generated from (ajv-instance.ts compares the hashes).
 */
export function schemaFile(id: string): JsonSchema | undefined {
  try {
    return loadSchemaSet().files.get(id);
  } catch {
    return undefined;
  }
}

/**
 * The schema's default of every key of a section that has one, as written
 * in the schema (`${…}` path variables unexpanded; the loader expands
 * them): the one place defaults live. Cached per section schema; the
 * object is frozen, copy it to change it.
 */
export function defaultsOfSection(section: SectionSchema): Readonly<Record<string, unknown>> {
  let found = defaultsBySection.get(section);
  if (!found) {
    const values: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(section.schema.properties ?? {}))
      if (prop.default !== undefined) values[key] = prop.default;
    defaultsBySection.set(section, (found = Object.freeze(values)));
  }
  return found;
}

const defaultsBySection = new WeakMap<SectionSchema, Readonly<Record<string, unknown>>>();

/**
 * The schema defaults of the section at `path`: a fixed section
 * (`/settings/WEB/server`) or an object section given by any object path
 * (`/settings/remote/client/targets/default`). Throws on a path the schema
 * does not know: asking for the defaults of an unknown section is a bug.
 */
export function schemaDefaults(path: string, set = loadSchemaSet()): Readonly<Record<string, unknown>> {
  const found = set.find(path);
  if (!found) throw new Error(`schema: no section ${path}`);
  return defaultsOfSection(found.section);
}

/** One entry per schema file (several paths may share one), for type generation. */
export function uniqueSectionSchemas(set: SchemaSet): SectionSchema[] {
  const seen = new Set<string>();
  return set.sections.filter((s) => (seen.has(s.ref) ? false : (seen.add(s.ref), true)));
}
