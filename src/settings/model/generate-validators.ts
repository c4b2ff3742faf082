/**
 * Precompile a validator per section schema file with ajv's standalone code,
 * for src/settings/generated/validators.js (called by src/tools/generate.ts).
 * The module exports `byRef` (schema file -> validate function) and
 * `schemaHash`, which the loader compares with the schemas on disk.
 */
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { loadSchemaSet, uniqueSectionSchemas, type SchemaSet } from './schema-set.js';
import { makeAjv, schemaSetHash } from './ajv-setup.js';

export function generateValidators(root: string): { js: string; dts: string } {
  const set = loadSchemaSet(root);
  const ajv = makeAjv(set, { code: { source: true, esm: true, lines: false } });
  const refs = uniqueSectionSchemas(set).map((s) => s.ref);
  const exportNames: Record<string, string> = {};
  refs.forEach((ref, i) => {
    exportNames[`v${i}`] = ref;
  });
  const standalone = (
    createRequire(import.meta.url)('ajv/dist/standalone/index.js') as {
      default: (a: unknown, refs: Record<string, string>) => string;
    }
  ).default;
  // ajv's ESM output still calls require() for its runtime helpers (such as
  // ucs2length for minLength); turn each into an import of the CJS module.
  const imports: string[] = [];
  const code = standalone(ajv, exportNames).replace(/require\("([^"]+)"\)/g, (_m, path: string) => {
    const name = `runtime${imports.length}`;
    imports.push(`import ${name} from ${JSON.stringify(path.endsWith('.js') ? path : `${path}.js`)};`);
    return name;
  });
  imports.push('import { schemaFile } from "../model/schema-set.js";');
  const js = `${imports.join('\n')}\n${shareSchemaFiles(code, set).replace(/^"use strict";/, '')}\nexport const schemaHash = ${JSON.stringify(schemaSetHash(set))};\nexport const byRef = {${refs.map((r, i) => `${JSON.stringify(r)}: v${i}`).join(', ')}};\n`;
  const dts = `import type { ValidateFunction } from 'ajv';\nexport declare const schemaHash: string;\nexport declare const byRef: Record<string, ValidateFunction>;\n`;
  return { js, dts };
}

/**
 * ajv's standalone code with each copy of a whole schema file (`const schema11 = {"$id":…}`, which
 * the validators read for `additionalProperties` and the allowed values of an enum) replaced by
 * that file's object from the schema set, `schemaFile(id)`: only a copy equal to the file is
 * replaced; parts of files and anything else stay as ajv wrote them.
 */
function shareSchemaFiles(code: string, set: SchemaSet): string {
  const start = /const (schema\d+) = \{/g;
  let out = '';
  let from = 0;
  for (let m = start.exec(code); m !== null; m = start.exec(code)) {
    const open = m.index + m[0].length - 1;
    const end = jsonEnd(code, open);
    if (end === undefined) continue;
    let copy: unknown;
    try {
      copy = JSON.parse(code.slice(open, end));
    } catch {
      continue;
    }
    const id = (copy as { $id?: unknown }).$id;
    if (typeof id !== 'string' || !isDeepStrictEqual(copy, set.files.get(id))) continue;
    out += `${code.slice(from, m.index)}const ${m[1]} = schemaFile(${JSON.stringify(id)})`;
    from = end;
    start.lastIndex = end;
  }
  return out + code.slice(from);
}

/** Where the JSON object opening at `open` ends (one past its `}`), strings skipped; undefined when it does not. */
function jsonEnd(code: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '"') {
      for (i++; i < code.length && code[i] !== '"'; i++) if (code[i] === '\\') i++;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}
