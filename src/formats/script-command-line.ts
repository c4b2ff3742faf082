/**
 * Command lines of configured scripts. A line is split into words the way
 * a shell would split simple words (no shell runs: pipes, `;` and
 * redirections are plain characters). Single quotes keep everything, double
 * quotes keep everything but `\"` and `\\`, a backslash outside quotes
 * escapes the next character. `$ARG1$` ... `$ARGn$` (or `%ARG1%` ...) take
 * the query's arguments and `$ARGS$` (a word of its own) all of them, when
 * `allow arguments` is on.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { statSync } from 'node:fs';

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/** Characters refused in arguments unless `allow nasty characters` is on. */
export const NASTY_CHARACTERS = '|`&><\'"\\[]{}$;\n\r';

/** Split a command line into words; throws CommandLineError for an unclosed quote. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandLineError(`unclosed ' in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) i++;
        word += line.charAt(i);
        i++;
      }
      if (i >= line.length) throw new CommandLineError(`unclosed " in: ${line}`);
      inWord = true;
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line.charAt(i + 1);
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * `text` written so that splitCommandLine reads it back as the same
 * characters of the word it stands in, at the end of `before` (the line up
 * to it: an open quote there is taken into account). The settings loader
 * expands `${scripts}` and the other variables in command lines this way,
 * so a path with blanks or quotes stays one word.
 */
export function quoteInCommandLine(text: string, before: string): string {
  const open = openQuote(before);
  if (open === "'") return text.replaceAll("'", "'\\''");
  if (open === '"') return text.replace(/["\\]/g, '\\$&');
  return text.replace(/[\s'"\\]/g, '\\$&');
}

/** The quote left open at the end of `line`, by splitCommandLine's rules. */
function openQuote(line: string): "'" | '"' | undefined {
  let open: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (open === "'") {
      if (c === "'") open = undefined;
    } else if (open === '"') {
      if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) i++;
      else if (c === '"') open = undefined;
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') open = c;
  }
  return open;
}

export interface ArgumentPolicy {
  allowArguments: boolean;
  allowNasty: boolean;
}

/**
 * Put the query's arguments into the words. Throws CommandLineError when
 * arguments are given but not allowed, or hold refused characters. A word
 * that was only `$ARGn$` and gets an empty or missing argument is dropped.
 */
export function expandArguments(words: readonly string[], args: readonly string[], policy: ArgumentPolicy): string[] {
  if (args.length > 0 && !policy.allowArguments)
    throw new CommandLineError('Arguments not allowed: set allow arguments = true in [/settings/external scripts]');
  if (!policy.allowNasty) {
    for (const a of args) {
      // eslint-disable-next-line @typescript-eslint/no-misused-spread -- the refused characters are single ASCII code points
      const bad = [...a].find((ch) => NASTY_CHARACTERS.includes(ch));
      if (bad !== undefined)
        throw new CommandLineError(
          `Argument holds the refused character ${JSON.stringify(bad)}: set allow nasty characters = true to allow it`,
        );
    }
  }
  const out: string[] = [];
  for (const w of words) {
    if (w === '$ARGS$' || w === '%ARGS%') {
      out.push(...args);
      continue;
    }
    const only = /^(?:\$ARG\d+\$|%ARG\d+%)$/.exec(w);
    const replaced = w.replace(
      /\$ARG(\d+)\$|%ARG(\d+)%/g,
      (_, a: string | undefined, b: string | undefined) => args[Number(a ?? b) - 1] ?? '',
    );
    if (only && replaced === '') continue;
    out.push(replaced);
  }
  return out;
}

/**
 * Where the program of a command line lives: absolute paths as they are,
 * paths with a `/` below the script root, bare names below the script root
 * when such a file exists there and through PATH otherwise.
 */
export function resolveProgram(program: string, scriptRoot: string): string {
  if (isAbsolute(program)) return program;
  if (program.includes('/')) return resolve(scriptRoot, program);
  const local = join(scriptRoot, program);
  try {
    if (statSync(local).isFile()) return local;
  } catch {
    // Not in the script root: let spawn search PATH.
  }
  return program;
}
