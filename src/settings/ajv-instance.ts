/**
 * The ajv instances, created once per process with every schema file added,
 * and the compiled validator of each section schema, compiled once on first
 * use. Two flavours: with defaults (fixed sections) and without (object
 * sections, whose defaults apply only after inheritance).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { SchemaSet } from './schema-set.js';

/** Our annotations on schema nodes; ajv must know them in strict mode. */
const ANNOTATIONS = ['x-advanced', 'x-restart', 'x-secret', 'x-fallback', 'x-object', 'x-object-container', 'x-value-words'];

interface Compiled {
  withDefaults: Map<string, ValidateFunction>;
  withoutDefaults: Map<string, ValidateFunction>;
  ajvDefaults: Ajv;
  ajvPlain: Ajv;
}

const bySet = new WeakMap<SchemaSet, Compiled>();

function makeAjv(set: SchemaSet, useDefaults: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults, strict: true, coerceTypes: false });
  for (const k of ANNOTATIONS) ajv.addKeyword({ keyword: k, schemaType: ['boolean', 'string', 'object'] });
  for (const [id, schema] of set.files) {
    if (!ajv.getSchema(id)) ajv.addSchema(schema, id);
  }
  return ajv;
}

export function validatorFor(set: SchemaSet, ref: string, useDefaults: boolean): ValidateFunction {
  let c = bySet.get(set);
  if (!c) {
    c = { withDefaults: new Map(), withoutDefaults: new Map(), ajvDefaults: makeAjv(set, true), ajvPlain: makeAjv(set, false) };
    bySet.set(set, c);
  }
  const cache = useDefaults ? c.withDefaults : c.withoutDefaults;
  let fn = cache.get(ref);
  if (!fn) {
    const ajv = useDefaults ? c.ajvDefaults : c.ajvPlain;
    fn = ajv.getSchema(ref);
    if (!fn) throw new Error(`schema ${ref} is not registered`);
    cache.set(ref, fn);
  }
  return fn;
}

/** Validate a whole settings object (section path -> keys) against the root schema, for tools. */
export function rootValidator(set: SchemaSet): ValidateFunction {
  const ajv = makeAjv(set, false);
  ajv.addSchema(set.root, 'settings.schema.json');
  return ajv.getSchema('settings.schema.json') as ValidateFunction;
}
