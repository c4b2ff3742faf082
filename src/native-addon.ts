/**
 * Loading one of the agent's optional Node-API addons (dist/bin/*.node,
 * built by src/tools/build-addons.mjs): the module's exports when the file
 * is there, loads and has the function its caller needs; null otherwise, and
 * the caller uses its fallback. Each file is tried once per process.
 */
const loaded = new Map<string, unknown>();

export function loadAddon<T extends object>(file: string, needs: keyof T & string): T | null {
  if (loaded.has(file)) return loaded.get(file) as T | null;
  let result: T | null = null;
  try {
    const module = { exports: {} as Record<string, unknown> };
    process.dlopen(module, file);
    if (typeof module.exports[needs] === 'function') result = module.exports as T;
  } catch {
    result = null;
  }
  loaded.set(file, result);
  return result;
}
