/**
 * `[/settings/source]`: settings pulled from a URL join the tree as its
 * lowest layer. The last good pull is kept in the state folder
 * (`${state}/settings-source/pulled.ini`); the settings tree puts that
 * file under everything else (includes.ts), as an included file would be,
 * so the local file and the files it includes override any pulled key.
 * The pulled text goes through the same load and validation as a local
 * file; `${env:}` and `${file:}` in it resolve on this host.
 *
 * `[/includes]` may name remote files (`https://…`, `http://…`): a local
 * file's include of a URL reads that URL's last good pull, kept beside the
 * source's (`${state}/settings-source/includes/<hash of the URL>.ini`), at
 * the include's place in the precedence; the puller
 * (settings/source/remote-includes.ts) fetches and validates it. Not
 * pulled yet, it includes nothing (AGENT_WARN_INCLUDE_NOT_PULLED).
 *
 * Only the local file decides where settings come from: a pulled text that
 * holds `[/settings/source]` is refused (AGENT_ERR_SOURCE_SECTION), so a
 * server cannot move the agent to another server. The source's file may
 * hold `[/includes]` of files of its own repository or origin, never of
 * this host's disk (pulled-includes.ts); a remote include may not.
 */
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import type { IniDocument, IniSection } from '../ini/read-ini.js';
import { problem, type SettingsProblem } from './problem.js';
import { resolveVariables, expandVariables } from './variables.js';
import type { Origin } from './snapshot.js';
import { inRange } from '../../in-range.js';

export const SOURCE_SECTION = '/settings/source';
/** The sections a pulled text may not hold. */
const LOCAL_ONLY = ['/includes', SOURCE_SECTION];

/** The raw `url` of the main file's [/settings/source] (host placeholders expanded), or undefined when none is set. */
export function sourceUrl(doc: IniDocument, hostVars: Readonly<Record<string, string>>): string | undefined {
  const section = doc.sections.find((s) => s.path.toLowerCase() === SOURCE_SECTION);
  const raw = section?.entries.find((e) => e.key.toLowerCase() === 'url')?.value.trim();
  if (!raw) return undefined;
  return expandVariables(raw, hostVars).value;
}

/** The state folder of a settings file as its own [/paths] set it (else systemd's, else `${base-path}/state`). */
export function stateFolderOf(mainFile: string, doc: IniDocument): string {
  const overrides: Record<string, string> = {};
  for (const s of doc.sections) {
    if (s.path.toLowerCase() !== '/paths') continue;
    for (const e of s.entries) overrides[e.key.toLowerCase()] = e.value;
  }
  return resolveVariables(resolve(mainFile), overrides).vars.state;
}

/** Where the last good pull of a settings file is kept. */
export function sourceCacheFile(mainFile: string, doc: IniDocument): string {
  return join(stateFolderOf(mainFile, doc), 'settings-source', 'pulled.ini');
}

/** An include value that names a remote file (http:// or https://) rather than a path. */
export function isRemoteInclude(value: string): boolean {
  return /^https?:\/\//i.test(value.trim());
}

/** Where the last good pull of a remote include of a settings file is kept. */
export function remoteIncludeCache(mainFile: string, doc: IniDocument, url: string): string {
  const name = createHash('sha256').update(url).digest('hex').slice(0, 24);
  return join(stateFolderOf(mainFile, doc), 'settings-source', 'includes', `${name}.ini`);
}

/**
 * AGENT_ERR_SOURCE_SECTION for each section a pulled text may not hold; `ownIncludes`: the
 * source's pulled file, whose `[/includes]` name files of its repository (pulled-includes.ts).
 */
export function pulledProblems(doc: IniDocument, file: string, ownIncludes = false): SettingsProblem[] {
  const refused = ownIncludes ? [SOURCE_SECTION] : LOCAL_ONLY;
  return doc.sections
    .filter((s) => refused.includes(s.path.toLowerCase()))
    .map((s) => problem('AGENT_ERR_SOURCE_SECTION', [s.path], { file, line: s.line, col: 1, section: s.path }));
}

/** AGENT_WARN_SOURCE_INSECURE when the source's server is not verified: `insecure` on, or a plain http:// or git:// URL. */
export function sourceWarnings(
  file: string,
  sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  origins: Readonly<Record<string, Readonly<Record<string, Origin>>>>,
): SettingsProblem[] {
  const s = sections[SOURCE_SECTION];
  const url = typeof s?.url === 'string' ? s.url : '';
  if (!s || url === '') return [];
  const out: SettingsProblem[] = [];
  const at = (key: string): { file: string; line: number; col: number; section: string; key: string } => {
    const o = origins[SOURCE_SECTION]?.[key];
    return { file: o?.file ?? file, line: o?.line ?? 0, col: o?.col ?? 0, section: SOURCE_SECTION, key };
  };
  if (s.insecure === true) out.push(problem('AGENT_WARN_SOURCE_INSECURE', ['insecure = true'], at('insecure')));
  const plain = /^(http|git):\/\//i.exec(url);
  if (plain)
    out.push(
      problem('AGENT_WARN_SOURCE_INSECURE', [`url ${url} is plain ${inRange(plain, 1).toLowerCase()}`], at('url')),
    );
  return out;
}

/**
 * AGENT_WARN_PULLED_OVERRIDDEN for each key the pulled settings (the file and
 * what it includes) set that a local file (the main file, an include, a drop-in) sets to another value:
 * the local value wins, so the pull seems to do nothing. Named at the
 * local line, with the pull's line; values are not shown (they may be
 * secrets). `list` is the merged view (merge-sections.ts).
 */
export function pulledOverrides(
  tree: { sources: readonly { file: string; doc: IniDocument }[]; sourcePull?: string; sourceIncludes?: string[] },
  list: readonly { section: IniSection; file: string }[],
): SettingsProblem[] {
  // The pulled file and what it includes (pulled-includes.ts), the highest first: one warning per key.
  const own = new Set([tree.sourcePull, ...(tree.sourceIncludes ?? [])]);
  const seen = new Set<string>();
  const out: SettingsProblem[] = [];
  for (const pulled of tree.sources.filter((s) => own.has(s.file)).reverse()) {
    for (const section of pulled.doc.sections) {
      const lower = section.path.toLowerCase();
      const merged = list.find((m) => m.section.path.toLowerCase() === lower);
      if (merged) out.push(...overridden(section, merged, own, seen));
    }
  }
  return out;
}

function overridden(
  section: IniSection,
  merged: { section: IniSection; file: string },
  own: ReadonlySet<string | undefined>,
  seen: Set<string>,
): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  for (const e of section.entries) {
    const key = e.key.toLowerCase();
    const id = `${section.path.toLowerCase()}\0${key}`;
    // What the highest pulled file that sets a key says is what the pull says.
    if (seen.has(id)) continue;
    seen.add(id);
    const wins = merged.section.entries.find((x) => x.key.toLowerCase() === key);
    const file = wins?.file ?? merged.file;
    if (!wins || own.has(file) || wins.value === e.value) continue;
    out.push(
      problem('AGENT_WARN_PULLED_OVERRIDDEN', [section.path, e.key, e.line], {
        file,
        line: wins.line,
        col: wins.keyCol,
        section: section.path,
        key: e.key,
      }),
    );
  }
  return out;
}
