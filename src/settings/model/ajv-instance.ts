/**
 * Validators of the section schemas. `npm run gen` precompiles one per
 * schema file with ajv's standalone code (generated/validators.js), so the
 * agent does not load ajv's compiler or compile anything at start. The
 * generated module records a hash of the schema files; when the schemas on
 * disk differ (an edit without `npm run gen`), the validators are compiled
 * at run time instead, once per process. Defaults are not applied by ajv:
 * the loader overlays them (objects need them only after inheritance).
 */
import type { ValidateFunction } from 'ajv';
import type { SchemaSet } from './schema-set.js';
import { makeAjv, schemaSetHash } from './ajv-setup.js';
import { byRef, schemaHash } from '../generated/validators.js';

interface Compiled {
  precompiled: boolean;
  cache: Map<string, ValidateFunction>;
  compile?: (ref: string) => ValidateFunction;
}

const bySet = new WeakMap<SchemaSet, Compiled>();

/** The validators of a schema set: precompiled when they match the schemas, else compiled at run time. */
function prepare(set: SchemaSet): Compiled {
  const known = bySet.get(set);
  if (known) return known;
  if (schemaHash === (set.hash ?? schemaSetHash(set))) {
    const c = { precompiled: true, cache: new Map(Object.entries(byRef)) };
    bySet.set(set, c);
    return c;
  }
  const ajv = makeAjv(set);
  const c: Compiled = {
    precompiled: false,
    cache: new Map(),
    compile: (ref) => {
      const fn = ajv.getSchema(ref);
      if (!fn) throw new Error(`schema ${ref} is not registered`);
      return fn;
    },
  };
  bySet.set(set, c);
  return c;
}

/** Whether the precompiled validators are in use (false after a schema edit without `npm run gen`). */
export function usesPrecompiled(set: SchemaSet): boolean {
  return prepare(set).precompiled;
}

/** The validator of one schema file. */
export function validatorFor(set: SchemaSet, ref: string): ValidateFunction {
  const c = prepare(set);
  let fn = c.cache.get(ref);
  if (!fn) {
    if (!c.compile) throw new Error(`no precompiled validator for ${ref}`);
    fn = c.compile(ref);
    c.cache.set(ref, fn);
  }
  return fn;
}
