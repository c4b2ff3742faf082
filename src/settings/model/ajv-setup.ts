/**
 * The ajv set-up shared by the validator generator (npm run gen) and the
 * run-time fallback, so both produce the same validators.
 */
import { createHash } from 'node:crypto';
import type { Ajv } from 'ajv';
import type { SchemaSet } from './schema-set.js';
import { requirePackage } from '../../package-require.js';

/** Our annotations on schema nodes; ajv must know them in strict mode. */
export const ANNOTATIONS = [
  'x-advanced',
  'x-restart',
  'x-secret',
  'x-fallback',
  'x-object',
  'x-object-container',
  'x-value-words',
  'x-pattern-hint',
  'x-command-line',
  'x-privilege',
  'x-duration',
  'x-host-placeholders',
];

/** Options shared by the generator and the run-time compiler, so both give the same validators. */
export const AJV_OPTIONS = { allErrors: true, strict: true, coerceTypes: false } as const;

/** sha256 over the schema files in a stable order. */
export function schemaSetHash(set: SchemaSet): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(set.root));
  for (const id of [...set.files.keys()].sort()) h.update(id).update(JSON.stringify(set.files.get(id)));
  return h.digest('hex');
}

/**
 * An ajv instance with every schema file added (used by the generator and
 * the fallback). ajv is CommonJS, so it is required synchronously, and only
 * when this is called.
 */
export function makeAjv(set: SchemaSet, extra: Record<string, unknown> = {}): Ajv {
  const { Ajv: AjvClass } = requirePackage('ajv') as typeof import('ajv');
  const ajv = new AjvClass({ ...AJV_OPTIONS, ...extra });
  for (const k of ANNOTATIONS) ajv.addKeyword({ keyword: k, schemaType: ['boolean', 'string', 'object'] });
  for (const [id, schema] of set.files) {
    if (!ajv.getSchema(id)) ajv.addSchema(schema, id);
  }
  return ajv;
}
