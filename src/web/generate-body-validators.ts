/**
 * Precompile the request-body validators (body-schemas.ts) with ajv's
 * standalone code, for src/web/generated/body-validators.js (called by
 * src/tools/generate.ts). The module exports `byName` (body name -> validate
 * function) and `schemaHash`, which bodies.ts compares with the schemas.
 */
import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import { BODY_AJV_OPTIONS, BODY_SCHEMAS } from './body-schemas.js';
import { bodySchemasHash } from './body-hash.js';

export function generateBodyValidators(): { js: string; dts: string } {
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require('ajv') as { Ajv: new (o: object) => Ajv };
  const ajv = new AjvClass({ ...BODY_AJV_OPTIONS, code: { source: true, esm: true, lines: false } });
  const names = Object.keys(BODY_SCHEMAS);
  for (const name of names) ajv.addSchema(BODY_SCHEMAS[name as keyof typeof BODY_SCHEMAS], name);
  const standalone = (
    require('ajv/dist/standalone/index.js') as { default: (a: unknown, refs: Record<string, string>) => string }
  ).default;
  // As for the settings validators: ajv's ESM output still require()s its runtime helpers.
  const imports: string[] = [];
  const code = standalone(ajv, Object.fromEntries(names.map((n) => [n, n]))).replace(
    /require\("([^"]+)"\)/g,
    (_m, path: string) => {
      const name = `runtime${imports.length}`;
      imports.push(`import ${name} from ${JSON.stringify(path.endsWith('.js') ? path : `${path}.js`)};`);
      return name;
    },
  );
  const js = `${imports.join('\n')}\n${code.replace(/^"use strict";/, '')}\nexport const schemaHash = ${JSON.stringify(bodySchemasHash())};\nexport const byName = {${names.join(', ')}};\n`;
  const dts = `import type { ValidateFunction } from 'ajv';\nexport declare const schemaHash: string;\nexport declare const byName: Record<string, ValidateFunction>;\n`;
  return { js, dts };
}
