/**
 * Path variables in values: `${base-path}` (the settings file's folder),
 * `${certificate-path}` (default `${base-path}/security`), `${scripts}`
 * (default `${base-path}/scripts`) and `${temp}` (the system temp folder).
 * `[/paths]` overrides them. `$$` is not special; an unknown name or an
 * unterminated `${` is a problem at the column where it starts.
 */
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';

export interface VariableProblem {
  code: 'AGENT_ERR_VARIABLE_UNKNOWN' | 'AGENT_ERR_VARIABLE_UNTERMINATED';
  /** 0-based offset in the value where `${` starts. */
  offset: number;
  name: string;
}

export const VARIABLE_NAMES = ['base-path', 'certificate-path', 'scripts', 'temp'] as const;

/** The built-in variable values for a settings file, before [/paths] overrides. */
export function defaultVariables(settingsFile: string): Record<string, string> {
  const base = dirname(resolve(settingsFile));
  return {
    'base-path': base,
    'certificate-path': `${base}/security`,
    scripts: `${base}/scripts`,
    temp: tmpdir(),
  };
}

/**
 * Expand `${name}` references. Returns the expanded text and the problems;
 * unknown references are left as written.
 */
export function expandVariables(value: string, vars: Readonly<Record<string, string>>): { value: string; problems: VariableProblem[] } {
  if (!value.includes('${')) return { value, problems: [] };
  const problems: VariableProblem[] = [];
  let out = '';
  let i = 0;
  while (i < value.length) {
    const start = value.indexOf('${', i);
    if (start < 0) {
      out += value.slice(i);
      break;
    }
    out += value.slice(i, start);
    const end = value.indexOf('}', start + 2);
    if (end < 0) {
      problems.push({ code: 'AGENT_ERR_VARIABLE_UNTERMINATED', offset: start, name: value.slice(start) });
      out += value.slice(start);
      break;
    }
    const name = value.slice(start + 2, end);
    const replacement = vars[name];
    if (replacement === undefined) {
      problems.push({ code: 'AGENT_ERR_VARIABLE_UNKNOWN', offset: start, name });
      out += value.slice(start, end + 1);
    } else {
      out += replacement;
    }
    i = end + 1;
  }
  return { value: out, problems };
}

/**
 * Apply [/paths] overrides in order base-path, certificate-path, scripts,
 * temp, each expanded with the values before it. Relative results are taken
 * relative to the settings file's folder.
 */
export function resolveVariables(settingsFile: string, overrides: Readonly<Record<string, string>>): { vars: Record<string, string>; problems: { key: string; problem: VariableProblem }[] } {
  const defaults = defaultVariables(settingsFile);
  const base = defaults['base-path'] as string;
  const vars: Record<string, string> = {};
  const problems: { key: string; problem: VariableProblem }[] = [];
  const pick = (key: string, fallback: string): void => {
    const raw = overrides[key] ?? fallback;
    const r = expandVariables(raw, vars);
    for (const p of r.problems) problems.push({ key, problem: p });
    vars[key] = resolve(base, r.value);
  };
  pick('base-path', base);
  pick('certificate-path', '${base-path}/security');
  pick('scripts', '${base-path}/scripts');
  pick('temp', defaults.temp as string);
  return { vars, problems };
}
