/**
 * require() of one of the agent's own dependencies that loads only when first needed (ajv for
 * validators that were not precompiled, re2js at the first pattern). node:module, which makes the
 * require, is asked for here (process.getBuiltinModule), not imported: a start that needs none of
 * them does not load it (issue 41). Relative to this file, which finds the package's node_modules
 * from dist/src/ and from the bundle alike.
 */
export function requirePackage(id: string): unknown {
  return process.getBuiltinModule('node:module').createRequire(import.meta.filename)(id);
}
