/**
 * Precompile a validator per section schema file with ajv's standalone code,
 * for src/settings/generated/validators.js (called by src/tools/generate.ts).
 * The module exports `byRef` (schema file -> validate function) and
 * `schemaHash`, which the loader compares with the schemas on disk.
 */
import { createRequire } from 'node:module';
import { loadSchemaSet, uniqueSectionSchemas } from './schema-set.js';
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
  const js = `${imports.join('\n')}\n${code.replace(/^"use strict";/, '')}\nexport const schemaHash = ${JSON.stringify(schemaSetHash(set))};\nexport const byRef = {${refs.map((r, i) => `${JSON.stringify(r)}: v${i}`).join(', ')}};\n`;
  const dts = `import type { ValidateFunction } from 'ajv';\nexport declare const schemaHash: string;\nexport declare const byRef: Record<string, ValidateFunction>;\n`;
  return { js, dts };
}
