/**
 * What the `config-agent web` subcommands share: the sections they write, the
 * edit of the settings tree with the line that says where it went, the
 * usage-error answer, generated passwords and `--password-stdin`.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { relativeInside } from '../path-inside.js';
import { changedFiles, editSettings, type FileEditResult, type TreeEdits } from '../settings/store/edit-tree.js';
import { err } from './args.js';

export const WEB = '/settings/WEB/server';
export const ROLES = '/settings/web/roles';
export const USERS = '/settings/web/users';

/** The file a subcommand edits, and whether it may create it (`--create`). */
export interface WebTarget {
  file: string;
  create: boolean;
}

export function notFound(sub: string, file: string): string {
  return `config-agent web ${sub}: settings file ${file} does not exist (check the path, or pass --create to make a new file)`;
}

export function usage(text: string): number {
  err(text);
  return 2;
}

/**
 * The password piped to standard input (`--password-stdin`): everything up
 * to the first line break (at most 64 KiB), so `printf %s "$PW" |` and
 * `echo "$PW" |` both work; the value never appears in argv.
 */
export async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > 65_536 || chunk.includes(10)) break;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const end = text.search(/\r?\n/);
  return end < 0 ? text : text.slice(0, end);
}

/** 24 characters from 18 random bytes (base64url): about 144 bits. */
export function strongPassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Apply the edits to the tree of `target.file` (each key in the file that holds it,
 * a new key in `file`; see settings/store/edit-tree.ts) and say where they went:
 * " in FILE" or " in FILE and FILE2" (paths relative to the working folder
 * when below it), " (nothing to change in FILE)" when no file changed.
 */
export async function edit(target: WebTarget, edits: TreeEdits): Promise<string> {
  const results = await editSettings(target.file, edits, { create: target.create });
  return whereWritten(results, target.file);
}

function whereWritten(results: readonly FileEditResult[], file: string): string {
  const changed = changedFiles(results).map(shown);
  if (changed.length === 0) return ` (nothing to change in ${shown(resolve(file))})`;
  return ` in ${changed.join(' and ')}`;
}

/** A path as the user reads it: relative to the working folder when it is below it. */
function shown(abs: string): string {
  const rel = relativeInside(process.cwd(), abs);
  return rel !== undefined && rel !== '' ? rel : abs;
}
