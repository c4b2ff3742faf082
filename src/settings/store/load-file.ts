/**
 * settings/store/: the only code that touches settings files. Read: the
 * tree of a main file with its includes, drop-ins and pulled layers
 * (includes.ts), the stable read and the reload's read of the tree
 * (stable-read.ts, read-settings.ts). Watch: watcher.ts, tree-watcher.ts.
 * Write: the comment-keeping, locked, atomic rewrite (edit-ini.ts,
 * edit-tree.ts, atomic-rewrite.ts and what it builds on). Also the files
 * the settings name that the model does not read (TLS files:
 * tls-checks.ts) and nrpe.cfg files (nrpe-cfg-read.ts, nrpe-include.ts).
 *
 * Load a settings file from disk: read the main file and every file it
 * includes (store/includes.ts), then compile the tree (model/load.ts
 * loadTree, which reads no settings file).
 */
import { resolve } from 'node:path';
import { SettingsReader } from './includes.js';
import { loadTree, type LoadResult } from '../model/load.js';
import { problem } from '../model/problem.js';

export interface LoadOptions {
  /**
   * Reads and parses each file at most once; share one across the loads of a
   * run (the CLI validating many host files that include one base). A new
   * one by default.
   */
  reader?: SettingsReader;
  /**
   * Load the file as if it lived at this path (its includes still read where
   * they are): `${base-path}` and the paths built on it are those of that
   * place. `config-agent settings plan OLD NEW` loads NEW at OLD's path, so a copy
   * from a git checkout compares by what it will mean once it replaces OLD.
   */
  locatedAt?: string;
  /** The main file's bytes when the caller read them already (the reconciler's stable read). */
  bytes?: Buffer;
}

/**
 * Load a settings file and every file it includes (`[/includes]`,
 * settings/store/includes.ts). Never throws: an unreadable main file is one
 * AGENT_ERR_SETTINGS_UNREADABLE problem; everything else is listed with the
 * file and line it comes from.
 */
export async function loadSettingsFile(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  const abs = resolve(file);
  const reader = options.reader ?? new SettingsReader();
  const main = await reader.source(abs, options.bytes);
  if ('error' in main) {
    const p = problem('AGENT_ERR_SETTINGS_UNREADABLE', [abs, main.error], { file: abs, line: 0, col: 0 });
    return { ok: false, problems: [p], warnings: [], hash: '', watched: [abs] };
  }
  const tree = await reader.tree(main);
  return loadTree(tree, reader.checks, options.locatedAt === undefined ? undefined : resolve(options.locatedAt));
}
