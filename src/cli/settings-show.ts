/**
 * `config-agent settings show [FILE] [--resolved] [--section PATH] [--json]`: the
 * effective settings (defaults applied, variables expanded) with each
 * value's origin; `--resolved` adds client targets and web users after
 * inheritance, naming the object each value came from. Secrets (keys marked
 * x-secret in the schema, such as password) are redacted.
 */
import { isSecretValue, maskSecrets, SECRET_MASK } from '../settings/model/secrets.js';
import { parseArgs, settingsPath, out, err } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { loadSchemaSet, type JsonSchema } from '../settings/model/schema-set.js';
import {
  objectMaps,
  objectSectionPath,
  type Origin,
  type ResolvedObject,
  type Snapshot,
} from '../settings/model/snapshot.js';
import { formatProblem } from './format-problem.js';
import { keySchema, originFile, originText } from '../settings/model/effective.js';
import { suggestion } from '../settings/model/did-you-mean.js';
import { cacheFileOf, sourceConfig } from '../settings/source/source-config.js';
import { readCachedPull } from '../settings/source/source-cache.js';

export const SHOW_OPTIONS: readonly CliOption[] = [
  { name: 'resolved', help: 'also print client targets and web users after inheritance' },
  { name: 'section', arg: 'PATH', help: 'only sections whose path starts with PATH (case-insensitive)' },
  { name: 'describe', help: "print each key's description from the schema above it" },
  { name: 'json', help: 'machine-readable output (descriptions always included)' },
  SETTINGS_OPTION,
  HELP_OPTION,
];

const SHOW_TEXT = `Usage: config-agent settings show [FILE] [--resolved] [--section PATH] [--describe] [--json] [--settings FILE]

Prints the effective settings: every section with defaults applied and
variables expanded, each value with its origin (file:line, or "default").
Keys a server reads from [/settings/default] when its own section does not
set them (password, allowed hosts) are shown in that section with the value
in force and its origin: "agent.ini:27 [/settings/default]", or "default
[/settings/default]" for the built-in default.
Secrets are shown as ******: passwords and every value read with
\${env:NAME} or \${file:PATH}. Values from included files name their file.
With [/settings/source], the revision of the pull in the settings (the
cache in the state folder) and when it was pulled.`;

export const SHOW_HELP = helpText(SHOW_TEXT, SHOW_OPTIONS);

/** `[/settings/source]`: the pull in the settings (the cache's revision and time), as `source` for --json. */
function sourceOf(s: Snapshot): { source?: { url: string; revision: string | null; pulledAt: string | null } } {
  const url = sourceConfig(s).url;
  if (url === '') return {};
  const cached = readCachedPull(cacheFileOf(s.file));
  // Shown masked: userinfo and what ${env:} / ${file:} put into it.
  const shown = maskSecrets(url, s.secretValues);
  return { source: { url: shown, revision: cached?.revision ?? null, pulledAt: cached?.pulledAt ?? null } };
}

interface ShownValue {
  value: unknown;
  origin: string;
  /** The section the value comes from when the key falls back to another section (x-fallback). */
  from?: string;
  description?: string;
}

export async function showCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, SHOW_OPTIONS);
  if (options.help) {
    out(SHOW_HELP);
    return 0;
  }
  const file = positionals[0] ?? settingsPath(options);
  const r = await loadSettingsFile(file);
  if (!r.ok) {
    for (const p of r.problems) err(formatProblem(p));
    return r.problems.some((p) => p.code === 'AGENT_ERR_SETTINGS_UNREADABLE') ? 2 : 1;
  }
  const filter = typeof options.section === 'string' ? options.section.toLowerCase() : undefined;
  const keep = (path: string): boolean => filter === undefined || path.toLowerCase().startsWith(filter);
  const s = r.snapshot;
  const sections: Record<string, Record<string, ShownValue>> = {};
  const set = loadSchemaSet();
  for (const [path, values] of Object.entries(s.sections)) {
    if (!keep(path)) continue;
    const schema = set.find(path)?.section.schema;
    sections[path] = shownSection(values, s.origins[path] ?? {}, schema, s.file, s.secretValues);
    Object.assign(sections[path], fallbackValues(s, values, schema));
  }
  const objects: Record<string, Record<string, ShownValue>> = {};
  if (options.resolved) {
    const schemaOf = (o: ResolvedObject) => set.find(objectSectionPath(o))?.section.schema;
    for (const map of objectMaps(s)) {
      for (const o of map.values()) {
        const path = objectSectionPath(o);
        if (!keep(path)) continue;
        objects[path] = shownSection(o.values, o.origins, schemaOf(o), s.file, s.secretValues);
      }
    }
  }
  if (filter !== undefined && Object.keys(sections).length === 0 && Object.keys(objects).length === 0) {
    const known = [...Object.keys(s.sections), ...objectMaps(s).flatMap((m) => [...m.values()].map(objectSectionPath))];
    err(
      `config-agent settings show: no section matches "${String(options.section)}"${suggestion(String(options.section), known)}${options.resolved ? '' : ' (objects need --resolved)'}`,
    );
    return 2;
  }
  if (options.json) {
    const variables = Object.fromEntries(
      Object.entries(s.variables).map(([k, v]) => [k, s.secretValues.includes(v) ? SECRET_MASK : v]),
    );
    out(
      JSON.stringify({
        file: s.file,
        hash: s.hash,
        files: s.sources.map((f) => f.file),
        variables,
        sections,
        ...(options.resolved ? { objects } : {}),
        ...sourceOf(s),
      }),
    );
    return 0;
  }
  out(`; ${s.file} (sha256 ${s.hash.slice(0, 16)}…)`);
  for (const f of s.sources) if (f.file !== s.file) out(`; includes ${originFile(f.file, s.file)}`);
  const pulled = sourceOf(s).source;
  if (pulled)
    out(
      `; source ${pulled.url}: ${pulled.revision === null ? 'nothing pulled yet (the local files alone)' : `revision ${pulled.revision}, pulled ${pulled.pulledAt}`}`,
    );
  const describe = options.describe === true;
  printSections(sections, describe);
  if (options.resolved) {
    out('\n; resolved objects (targets and users), with inherited values');
    printSections(objects, describe);
  }
  return 0;
}

function shownSection(
  values: Readonly<Record<string, unknown>>,
  origins: Readonly<Record<string, Origin>>,
  schema: JsonSchema | undefined,
  file: string,
  secrets: readonly string[],
): Record<string, ShownValue> {
  const out: Record<string, ShownValue> = {};
  for (const [key, value] of Object.entries(values)) {
    const prop = keySchema(schema, key);
    const o = origins[key];
    const secret = isSecretValue(prop, o);
    out[key] = {
      // A secret inside another value (a [/paths] folder built from ${env:}) is masked where it appears.
      value: secret && value !== '' ? SECRET_MASK : typeof value === 'string' ? maskSecrets(value, secrets) : value,
      origin: originText(o, file),
      ...(prop?.description ? { description: prop.description } : {}),
    };
  }
  return out;
}

/**
 * The keys a section does not set but reads from the section its schema
 * names in x-fallback (password and allowed hosts from [/settings/default]):
 * the effective value, with the origin of the fallback's entry, or
 * "default" when the fallback section's schema default applies.
 */
function fallbackValues(
  s: Snapshot,
  values: Readonly<Record<string, unknown>>,
  schema: JsonSchema | undefined,
): Record<string, ShownValue> {
  const out: Record<string, ShownValue> = {};
  for (const [key, prop] of Object.entries<JsonSchema>(schema?.properties ?? {})) {
    const from = prop['x-fallback'];
    if (typeof from !== 'string' || values[key] !== undefined) continue;
    const value = s.sections[from]?.[key];
    if (value === undefined) continue;
    const o = s.origins[from]?.[key];
    out[key] = {
      value: isSecretValue(prop, o) && value !== '' ? SECRET_MASK : value,
      origin: `${o ? `${originFile(o.file, s.file)}:${o.line}` : 'default'} [${from}]`,
      from,
      ...(prop.description ? { description: prop.description } : {}),
    };
  }
  return out;
}

function printSections(sections: Record<string, Record<string, ShownValue>>, describe: boolean): void {
  for (const [path, keys] of Object.entries(sections)) {
    out(`\n[${path}]`);
    const width = Math.min(
      40,
      Math.max(0, ...Object.entries(keys).map(([k, v]) => `${k} = ${render(v.value)}`.length)),
    );
    for (const [k, v] of Object.entries(keys)) {
      if (describe && v.description) out(`; ${v.description}`);
      const line = `${k} = ${render(v.value)}`;
      out(`${line.padEnd(width)}  ; ${v.origin}`);
    }
  }
}

function render(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

export type { Snapshot };
