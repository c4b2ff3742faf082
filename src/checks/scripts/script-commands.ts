/**
 * The `CheckExternalScripts` exec command behind /api/v1/scripts/ext:
 *
 *   list --json [--all]                   JSON array of configured names, or (--all) of every
 *                                         file under the script root, relative to it
 *   show --script NAME                    the configured command line, or a file's content
 *   add --script NAME --content-base64 B  write the file (0755) under the root and the entry
 *                                         `<stem> = <relative path>`; answers `Added <stem> as <path>`
 *   delete --script NAME                  remove the entry, or the file (and entries running it)
 *
 * Result codes: 0 success, 1 not found, 2 invalid request (the message
 * starts with the reason), 3 failure. Never throws.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Status } from '../../core/result.js';
import { errorMessage } from '../../errors.js';
import { OutsideRootError, pathUnderRoot, relativeToRoot } from './script-root.js';
import { splitCommandLine, resolveProgram } from '../../formats/script-command-line.js';
import { inRange } from '../../in-range.js';

export const SCRIPTS_SECTION = '/settings/external scripts/scripts';

export interface ScriptStore {
  /** Absolute script root. */
  root(): string;
  /** Configured scripts: name → command line. */
  scripts(): ReadonlyMap<string, string>;
  /** Write the entry to the settings file and take it in at once. */
  setEntry(name: string, commandLine: string): Promise<void>;
  /** Remove the entry from the settings file and forget it at once. */
  removeEntry(name: string): Promise<void>;
}

export interface ExecAnswer {
  result: Status;
  message: string;
}

const MAX_LIST = 10_000;

export async function scriptCommand(args: readonly string[], store: ScriptStore): Promise<ExecAnswer> {
  try {
    const [verb, ...rest] = args;
    const opts = parseOptions(rest);
    switch (verb) {
      case 'list':
        return {
          result: 0,
          message: JSON.stringify(
            opts.flags.has('all') ? await listFiles(store.root()) : [...store.scripts().keys()].sort(),
          ),
        };
      case 'show':
        return await show(need(opts, 'script'), store);
      case 'add':
        return await add(need(opts, 'script'), need(opts, 'content-base64'), store);
      case 'delete':
        return await remove(need(opts, 'script'), store);
      default:
        return { result: 2, message: `Unknown command: ${verb ?? '(none)'} (use list, show, add or delete)` };
    }
  } catch (err) {
    if (err instanceof RequestError || err instanceof OutsideRootError) return { result: 2, message: err.message };
    return { result: 3, message: `Script command failed: ${errorMessage(err)}` };
  }
}

class RequestError extends Error {}

async function show(name: string, store: ScriptStore): Promise<ExecAnswer> {
  const configured = findConfigured(store, name);
  if (configured) return { result: 0, message: configured[1] };
  const path = await pathUnderRoot(store.root(), name);
  const st = await stat(path).catch(() => undefined);
  if (!st?.isFile()) return { result: 1, message: `Script not found: ${name}` };
  return { result: 0, message: await readFile(path, 'utf8') };
}

async function add(name: string, b64: string, store: ScriptStore): Promise<ExecAnswer> {
  const clean = b64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1)
    throw new RequestError('Invalid content: not base64');
  const path = await pathUnderRoot(store.root(), name);
  const stem = basename(path, extname(path));
  if (stem === '' || stem.startsWith('.'))
    throw new RequestError(`Invalid script name: '${basename(path)}' has no name before its extension`);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new RequestError(`Invalid script name: ${name} is a folder`);
  await mkdir(dirname(path), { recursive: true });
  await writeNoFollow(path, Buffer.from(clean, 'base64'), name);
  const rel = relativeToRoot(store.root(), path);
  await store.setEntry(stem, rel);
  return { result: 0, message: `Added ${stem} as ${rel}` };
}

async function remove(name: string, store: ScriptStore): Promise<ExecAnswer> {
  const configured = findConfigured(store, name);
  if (configured) {
    await store.removeEntry(configured[0]);
    return {
      result: 0,
      message: `Script definition has been removed don't forget to delete any artifact for: ${configured[0]}`,
    };
  }
  const path = await pathUnderRoot(store.root(), name);
  const st = await stat(path).catch(() => undefined);
  if (!st?.isFile()) return { result: 1, message: `Script not found: ${name}` };
  // Entries whose program is this file would only fail from now on (found before the file goes).
  const running = [...store.scripts()].filter(([, line]) => {
    const program = safeSplit(line)[0];
    return program !== undefined && resolve(resolveProgram(program, store.root())) === path;
  });
  await unlink(path);
  for (const [key] of running) await store.removeEntry(key);
  return { result: 0, message: 'Script file was removed' };
}

function findConfigured(store: ScriptStore, name: string): [string, string] | undefined {
  const lower = name.toLowerCase();
  for (const entry of store.scripts()) if (entry[0].toLowerCase() === lower) return entry;
  return undefined;
}

/**
 * Every file under the root, relative to it, sorted. As NSClient++ does,
 * folders whose path contains `lib` are skipped (helper code lives there).
 */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= MAX_LIST) return;
      const full = join(dir, e.name);
      const rel = relativeToRoot(root, full);
      if (e.isDirectory()) {
        if (!rel.toLowerCase().includes('lib') && depth < 16) await walk(full, depth + 1);
      } else if (e.isFile()) out.push(rel);
    }
  };
  await walk(resolve(root), 0);
  return out.sort();
}

/**
 * Write (create or truncate) the file 0755 without following a symlink at
 * its final segment: a symlink there is refused as an invalid request.
 */
async function writeNoFollow(path: string, data: Buffer, name: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  let fh;
  try {
    fh = await open(path, flags, 0o755);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new RequestError(`Invalid script name: ${name} is a symbolic link`);
    throw err;
  }
  try {
    await fh.writeFile(data);
    await fh.chmod(0o755);
  } finally {
    await fh.close();
  }
}

function safeSplit(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch {
    return [];
  }
}

interface Options {
  values: Map<string, string>;
  flags: Set<string>;
}

function parseOptions(tokens: readonly string[]): Options {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = inRange(tokens, i);
    if (!t.startsWith('--')) throw new RequestError(`Unexpected argument: ${t}`);
    const eq = t.indexOf('=');
    if (eq > 0) {
      values.set(t.slice(2, eq), t.slice(eq + 1));
      continue;
    }
    const key = t.slice(2);
    if (key === 'script' || key === 'content-base64') {
      const v = tokens[i + 1];
      if (v === undefined) throw new RequestError(`--${key} needs a value`);
      values.set(key, v);
      i++;
    } else flags.add(key);
  }
  return { values, flags };
}

function need(opts: Options, key: string): string {
  const v = opts.values.get(key);
  if (v === undefined) throw new RequestError(`--${key} is required`);
  return v;
}
