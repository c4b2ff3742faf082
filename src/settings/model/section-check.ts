/**
 * Check one INI section against its schema: expand variables, map keys to
 * their canonical spelling, report unknown keys with a suggestion, coerce
 * values to the schema's types and run the section's compiled ajv
 * validator. Returns the values, where each came from, and every problem.
 */
import type { ErrorObject } from 'ajv';
import type { IniSection } from '../ini/read-ini.js';
import type { SchemaSet, SectionSchema, JsonSchema } from './schema-set.js';
import { defaultsOfSection } from './schema-set.js';
import type { Origin } from './snapshot.js';
import type { SettingsProblem } from './problem.js';
import { problem } from './problem.js';
import { coerceValue } from './coerce.js';
import { hostPlaceholders } from './host-placeholders.js';
import { expandVariables } from './variables.js';
import { quoteInCommandLine } from '../../formats/script-command-line.js';
import { quoteInAliasCommand } from '../../formats/alias-command.js';
import { suggestion } from './did-you-mean.js';
import { validatorFor } from './ajv-instance.js';
import { SECRET_MASK } from './secrets.js';
import { dirname } from 'node:path';
import { valueText } from './value-text.js';

export interface CheckedSection {
  values: Record<string, unknown>;
  origins: Record<string, Origin>;
  /** Some value came from ${env:} or ${file:}. */
  secret?: true;
}

// long function: one pass over a section's keys: coerce, check, collect problems
export function checkSection(
  set: SchemaSet,
  schema: SectionSchema,
  canonicalPath: string,
  ini: IniSection,
  file: string,
  vars: Readonly<Record<string, string>>,
  useDefaults: boolean,
  problems: SettingsProblem[],
): CheckedSection {
  const values: Record<string, unknown> = {};
  const origins: Record<string, Origin> = {};
  const props = schema.schema.properties;
  const extra = schema.schema.additionalProperties;
  const isModules = canonicalPath === '/modules';
  const dirOf = new Map<string, string>();
  const dirOfFile = (f: string): string => {
    let dir = dirOf.get(f);
    if (dir === undefined) dirOf.set(f, (dir = dirname(f)));
    return dir;
  };
  for (const e of ini.entries) {
    const efile = e.file ?? file;
    let key = schema.keys.get(e.key.toLowerCase());
    let keySchema: JsonSchema | undefined;
    if (key !== undefined) {
      keySchema = props?.[key];
    } else if (typeof extra === 'object') {
      key = e.key;
      keySchema = extra;
    } else {
      const candidates = Object.keys(props ?? {});
      if (isModules)
        problems.push(
          problem('AGENT_ERR_MODULE_UNKNOWN', [e.key], atOf(e, efile, canonicalPath), suggestion(e.key, candidates)),
        );
      else
        problems.push(
          problem('AGENT_ERR_KEY_UNKNOWN', [], atOf(e, efile, canonicalPath), suggestion(e.key, candidates)),
        );
      continue;
    }
    // Problems about a secret key show its position, never its value (nor a part of it).
    const secretKey = keySchema?.['x-secret'] === true;
    // A key marked x-host-placeholders (the source's url) also knows ${hostname}, ${host}, ${domain}, as include paths do.
    const keyVars = keySchema?.['x-host-placeholders'] === true ? { ...hostPlaceholders(), ...vars } : vars;
    // An NRPE command line is the shell's: ${HOME} there is a shell variable, not one of ours.
    const expanded =
      e.value.includes('${') && keySchema?.['x-command-line'] !== 'nrpe'
        ? expandVariables(e.value, keyVars, { dir: dirOfFile(efile), ...quoteOf(keySchema) })
        : plain(e.value);
    for (const p of expanded.problems) {
      // In a secret value even a bad reference's text may be part of the secret: show neither.
      const args =
        secretKey && p.code === 'AGENT_ERR_VARIABLE_UNTERMINATED'
          ? ['(value not shown)']
          : secretKey && p.code === 'AGENT_ERR_VARIABLE_UNKNOWN'
            ? ['…']
            : p.args;
      problems.push(problem(p.code, args, { ...atOf(e, efile, canonicalPath), col: e.valueCol + p.offset }));
    }
    // A reference that could not be expanded is reported there; its literal text is no value to check.
    if (expanded.problems.length > 0) continue;
    const coerced = coerceValue(expanded.value, keySchema);
    if (!coerced.ok) {
      // The value as written: for a value from ${env:}/${file:} that is the reference, not the secret.
      problems.push(
        problem(
          'AGENT_ERR_VALUE_TYPE',
          [`expected ${coerced.expected}, got ${secretKey ? 'a value not shown' : `"${e.value}"`}`],
          { ...atOf(e, efile, canonicalPath), col: e.valueCol },
        ),
      );
      continue;
    }
    values[key] = coerced.value;
    origins[key] = {
      file: efile,
      line: e.line,
      col: e.valueCol,
      section: canonicalPath,
      key,
      ...(expanded.secret ? { secret: true as const } : {}),
    };
  }
  const validate = validatorFor(set, schema.ref);
  if (!validate(values)) {
    for (const err of validate.errors ?? []) {
      const key = keyOf(err);
      const o = key !== undefined ? origins[key] : undefined;
      const where = o
        ? { file: o.file, line: o.line, col: o.col, section: canonicalPath, key }
        : { file, line: ini.line, col: ini.col, section: canonicalPath, key };
      const hidden = key !== undefined && (o?.secret === true || props?.[key]?.['x-secret'] === true);
      problems.push(
        problem(
          'AGENT_ERR_VALUE_INVALID',
          [describe(err, key, values, key !== undefined ? schema.schema.properties?.[key] : undefined, hidden)],
          where,
        ),
      );
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- values is the record built above for this section; an invalid key leaves it
      if (key !== undefined) delete values[key];
    }
  }
  const anySecret = Object.values(origins).some((o) => o.secret === true);
  return {
    values: useDefaults ? { ...sectionDefaults(set, schema), ...values } : values,
    origins,
    ...(anySecret ? { secret: true as const } : {}),
  };
}

/** Defaults of a section schema (schema-set.ts), as a fresh object each call. */
export function sectionDefaults(_set: SchemaSet, schema: SectionSchema): Record<string, unknown> {
  const base = defaultsOfSection(schema);
  // Only non-primitive defaults need their own copy.
  const values: Record<string, unknown> = {};
  for (const key in base) {
    const v = base[key];
    values[key] = typeof v === 'object' && v !== null ? structuredClone(v) : v;
  }
  return values;
}

function keyOf(err: ErrorObject): string | undefined {
  const path = err.instancePath;
  if (path.startsWith('/')) {
    const seg = path.slice(1).split('/', 1).join('');
    return seg.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  const missing = (err.params as { missingProperty?: string }).missingProperty;
  return missing;
}

function describe(
  err: ErrorObject,
  key: string | undefined,
  values: Record<string, unknown>,
  prop: object | undefined,
  hidden: boolean,
): string {
  const shown =
    key !== undefined && values[key] !== undefined ? `"${hidden ? SECRET_MASK : valueText(values[key])}" ` : '';
  const params = err.params as { allowedValues?: unknown[]; pattern?: string; limit?: number };
  let what: string;
  switch (err.keyword) {
    case 'enum':
      what = `must be one of: ${(params.allowedValues ?? []).join(', ')}`;
      break;
    case 'pattern': {
      // A regular expression is no message: the schema says in words what fits.
      const hint = (prop as { 'x-pattern-hint'?: unknown } | undefined)?.['x-pattern-hint'];
      what =
        typeof hint === 'string'
          ? hint
          : 'does not have the form this key takes (see config-agent settings show --describe)';
      break;
    }
    case 'minimum':
      what = `must be at least ${params.limit}`;
      break;
    case 'maximum':
      what = `must be at most ${params.limit}`;
      break;
    default:
      what = err.message ?? err.keyword;
  }
  // The key is the problem's own field (printed before the message): not repeated here.
  return key === undefined ? `section: ${what}` : `${shown}${what}`;
}

/** How a key's variables are quoted: by the grammar its schema names in `x-command-line` (none for other keys). */
/** Where a problem about entry `e` is: its key. */
function atOf(e: IniSection['entries'][number], file: string, section: string): Parameters<typeof problem>[2] {
  return { file, line: e.line, col: e.keyCol, section, key: e.key };
}

const NO_PROBLEMS: readonly never[] = [];
/** A value without a variable reference: itself (no context to build, nothing to scan). */
function plain(value: string): { value: string; problems: readonly never[]; secret: false } {
  return { value, problems: NO_PROBLEMS, secret: false };
}

function quoteOf(keySchema: JsonSchema | undefined): { quote?: (text: string, before: string) => string } {
  const grammar = keySchema?.['x-command-line'];
  if (grammar === 'script') return { quote: quoteInCommandLine };
  if (grammar === 'alias') return { quote: quoteInAliasCommand };
  return {};
}
