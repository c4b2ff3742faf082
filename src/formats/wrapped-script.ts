/**
 * Wrapped scripts (NSClient++'s `[/settings/external scripts/wrapped
 * scripts]`): `check_foo = check_foo.py arg1` runs the script through the
 * template of its extension in `[/settings/external scripts/wrappings]`
 * (`py = python3 %SCRIPT% %ARGS%`). The template is split into words first,
 * then the word `%SCRIPT%` becomes the script's path (relative paths start
 * at the script root) and the word `%ARGS%` the words written after the
 * script, so paths with blanks stay one word. `$ARG1$` ... in those words
 * take the query's arguments later, as for plain scripts.
 */
import { extname, isAbsolute, resolve } from 'node:path';
import { CommandLineError, splitCommandLine } from './script-command-line.js';

export type WrappedResult = { ok: true; words: string[] } | { ok: false; problem: string };

/** The extension a wrapped entry needs a template for (lower case, no dot), or '' when the script has none. */
export function wrappedExtension(entry: string): string {
  const [script] = safeSplit(entry);
  return script === undefined ? '' : extname(script).slice(1).toLowerCase();
}

/** Find the template of an extension, case-insensitively. */
export function findWrapping(wrappings: Readonly<Record<string, unknown>>, ext: string): string | undefined {
  for (const [k, v] of Object.entries(wrappings))
    if (k.toLowerCase() === ext && typeof v === 'string' && v.trim() !== '') return v;
  return undefined;
}

/** The command words of a wrapped entry; a problem when it is empty, badly quoted or has no template. */
export function wrappedWords(entry: string, wrappings: Readonly<Record<string, unknown>>, root: string): WrappedResult {
  let script: string | undefined;
  let rest: string[];
  let template: string[];
  try {
    [script, ...rest] = splitCommandLine(entry);
    if (script === undefined) return { ok: false, problem: 'names no script' };
    const ext = extname(script).slice(1).toLowerCase();
    if (ext === '') return { ok: false, problem: `script ${script} has no extension, so no wrapping applies` };
    const tpl = findWrapping(wrappings, ext);
    if (tpl === undefined)
      return {
        ok: false,
        problem: `no wrapping found for extension: ${ext} (add ${ext} = ... %SCRIPT% %ARGS% to [/settings/external scripts/wrappings])`,
      };
    template = splitCommandLine(tpl);
  } catch (err) {
    if (err instanceof CommandLineError) return { ok: false, problem: err.message };
    throw err;
  }
  const path = isAbsolute(script) ? script : resolve(root, script);
  const words: string[] = [];
  for (const w of template) {
    if (w === '%SCRIPT%') words.push(path);
    else if (w === '%ARGS%') words.push(...rest);
    else words.push(w.split('%SCRIPT%').join(path));
  }
  return { ok: true, words };
}

function safeSplit(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch {
    return [];
  }
}
