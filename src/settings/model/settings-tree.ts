/**
 * The input of the model's compile (load.ts loadTree): the files of one
 * settings tree as the store read them (store/includes.ts, drop-ins.ts),
 * each with its path, its bytes' hash and the parsed document, in
 * precedence order. Nothing here reads a file.
 */
import { createHash } from 'node:crypto';
import type { IniDocument } from '../ini/read-ini.js';
import type { SettingsProblem } from './problem.js';

export const INCLUDES_SECTION = '/includes';

/** One settings file as read: its path, its bytes' hash and the parsed document. */
export interface SourceFile {
  file: string;
  hash: string;
  doc: IniDocument;
}

/** The files of one settings tree, in precedence order (lowest first; the main file is last). */
export interface SettingsTree {
  main: string;
  /** Every file of the tree, lowest precedence first, the main file last. */
  sources: SourceFile[];
  /** Include problems (missing file, cycle, bad placeholder) and read problems of included files. */
  problems: SettingsProblem[];
  /** Files and folders that could change the tree (for the watcher): every file read plus the folders of patterns. */
  watched: string[];
  /** The remote includes the local files name, each with the file its last good pull is kept in. */
  remote?: RemoteInclude[];
  /** The files of the tree that hold pulled text (the source's cache, remote includes' caches): never edited. */
  pulled?: string[];
  /** The source's own pulled file, when one is in the tree (the layer a local key may override, with a warning). */
  sourcePull?: string;
  /** The files that pulled file includes (pulled-includes.ts): the same layer. */
  sourceIncludes?: string[];
}

export interface RemoteInclude {
  /** Part of it read with `${env:}` / `${file:}`: a secret, masked wherever it is shown (settings/model/secrets.ts). */
  secret?: true;
  url: string;
  cache: string;
}

/** One hash for a tree: the main file's own hash when it includes nothing, else a hash over every file's path and hash. */
export function treeHash(sources: readonly SourceFile[]): string {
  const [only] = sources;
  if (sources.length === 1 && only) return only.hash;
  const h = createHash('sha256');
  for (const s of sources) h.update(`${s.file}\0${s.hash}\n`);
  return h.digest('hex');
}
