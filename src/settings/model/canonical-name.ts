/**
 * The canonical form of a settings path or key that comes from outside (a
 * request of the settings API). Every check after the edge (the privilege
 * class, the writer) looks a name up in one form only, so a name that is
 * not already in that form is refused, never repaired: a blank around it
 * (any Unicode white space), a control or format character anywhere (a
 * byte-order mark, a zero-width space), white space other than the plain
 * space inside it, an empty path segment, or a letter case the schema does
 * not use for a section or key it names (`/settings/web/server` for
 * `/settings/WEB/server`). Names the schema leaves free (an object's name,
 * a role, an alias) keep the case they are given. Pure: no I/O.
 */
import { AgentError } from '../../errors.js';
import { loadSchemaSet, type SchemaSet } from './schema-set.js';

/** What is wrong with one character of a name. */
export interface BadCharacter {
  readonly index: number;
  readonly codePoint: number;
  readonly why: string;
}

/** Names of the characters an attacker reaches for, for messages; others are shown by code point alone. */
const NAMES: ReadonlyMap<number, string> = new Map([
  [0x09, 'CHARACTER TABULATION'],
  [0x0a, 'LINE FEED'],
  [0x0d, 'CARRIAGE RETURN'],
  [0x20, 'SPACE'],
  [0xa0, 'NO-BREAK SPACE'],
  [0x200b, 'ZERO WIDTH SPACE'],
  [0x2028, 'LINE SEPARATOR'],
  [0x2029, 'PARAGRAPH SEPARATOR'],
  [0x3000, 'IDEOGRAPHIC SPACE'],
  [0xfeff, 'BYTE ORDER MARK'],
]);

// Made at the first character outside printable ASCII: parsing these Unicode property classes took
// about 1 ms of every start, which checks no name from outside (issue 41).
let invisible: RegExp | undefined;
let space: RegExp | undefined;

/** The first character that keeps `text` from being canonical, or undefined. */
export function badCharacter(text: string): BadCharacter | undefined {
  for (let index = 0; index < text.length;) {
    const codePoint = text.codePointAt(index) ?? 0;
    // Printable ASCII other than the space: neither invisible nor white space.
    if (codePoint > 0x20 && codePoint < 0x7f) {
      index += 1;
      continue;
    }
    const ch = String.fromCodePoint(codePoint);
    const edge = index === 0 || index + ch.length === text.length;
    invisible ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;
    space ??= /\p{White_Space}/u;
    if (invisible.test(ch)) return { index, codePoint, why: 'a control or invisible character' };
    if (space.test(ch) && codePoint !== 0x20) return { index, codePoint, why: 'white space other than a plain space' };
    if (codePoint === 0x20 && edge) return { index, codePoint, why: 'a blank at the start or end' };
    index += ch.length;
  }
  return undefined;
}

/** `U+00A0 NO-BREAK SPACE`. */
export function describeCodePoint(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES.get(codePoint);
  return name === undefined ? hex : `${hex} ${name}`;
}

function refuse(what: 'path' | 'key', name: string, problem: string): AgentError {
  return new AgentError('AGENT_ERR_SETTINGS_NOT_CANONICAL', [what, JSON.stringify(name), problem], {
    details: [{ field: what, message: problem }],
  });
}

/** `offset`: where `text` starts in `name`, so the position named is the name's (1-based). */
function checkCharacters(what: 'path' | 'key', name: string, text: string, offset = 0): void {
  const bad = badCharacter(text);
  if (bad) throw refuse(what, name, `${describeCodePoint(bad.codePoint)} at ${offset + bad.index + 1}: ${bad.why}`);
}

/** Lower-cased path prefix -> the spellings the schema uses for it (`/settings/web` is both `WEB` and `web`). */
function prefixSpellings(set: SchemaSet): ReadonlyMap<string, ReadonlySet<string>> {
  const cached = spellingsBySet.get(set);
  if (cached) return cached;
  const out = new Map<string, Set<string>>();
  for (const s of set.sections) {
    const full = s.container ?? s.pattern;
    const parts = full.split('/');
    for (let n = 2; n <= parts.length; n++) {
      const prefix = parts.slice(0, n).join('/');
      const lower = prefix.toLowerCase();
      const spellings = out.get(lower) ?? new Set<string>();
      spellings.add(prefix);
      out.set(lower, spellings);
    }
  }
  spellingsBySet.set(set, out);
  return out;
}
const spellingsBySet = new WeakMap<SchemaSet, ReadonlyMap<string, ReadonlySet<string>>>();

/**
 * Throws AGENT_ERR_SETTINGS_NOT_CANONICAL (422) unless `path` is a settings
 * path in canonical form: `/` then segments, none empty, no bad character
 * in any, and each part the schema names spelled as the schema spells it.
 */
export function requireCanonicalPath(path: string, set = loadSchemaSet()): string {
  if (!path.startsWith('/')) throw refuse('path', path, 'a settings path starts with /');
  const segments = path.slice(1).split('/');
  let offset = 1;
  for (const segment of segments) {
    if (segment === '') throw refuse('path', path, 'an empty segment (// or a / at the end)');
    checkCharacters('path', path, segment, offset);
    offset += segment.length + 1;
  }
  const found = set.find(path);
  if (found && found.objectName === undefined && found.canonical !== path)
    throw refuse('path', path, `the schema spells it ${found.canonical}`);
  const spellings = prefixSpellings(set);
  for (let n = 1; n <= segments.length; n++) {
    const prefix = `/${segments.slice(0, n).join('/')}`;
    const known = spellings.get(prefix.toLowerCase());
    if (known && !known.has(prefix))
      throw refuse('path', path, `the schema spells ${prefix} as ${[...known].join(' or ')}`);
  }
  return path;
}

/**
 * Throws AGENT_ERR_SETTINGS_NOT_CANONICAL (422) unless `key` is canonical
 * for the section at `path` (already canonical): no bad character, and a
 * key the schema names spelled as the schema spells it.
 */
export function requireCanonicalKey(path: string, key: string, set = loadSchemaSet()): string {
  if (key === '') throw refuse('key', key, 'an empty key');
  checkCharacters('key', key, key);
  const canonical = set.find(path)?.section.keys.get(key.toLowerCase());
  if (canonical !== undefined && canonical !== key) throw refuse('key', key, `the schema spells it "${canonical}"`);
  return key;
}
