/** The help of a client query in its three forms (full, csv, short), generated from the option table. */
import { optionsFor, type ClientProtocol, type OptionSpec, type QueryKind } from './client-option-table.js';

/** Help text for a query in one of the three forms, generated from the option table. */
export function clientHelp(
  query: string,
  kind: QueryKind,
  protocol: ClientProtocol,
  form: 'full' | 'csv' | 'short',
): string {
  const specs = optionsFor(kind, protocol);
  if (form === 'short') return `${query} options: ${specs.map((s) => `--${s.name}`).join(' ')}`;
  if (form === 'csv') {
    return [
      'option,aliases,takes,description',
      ...specs.map((s) => [s.name, (s.aliases ?? []).join(' '), takes(s), csv(s.help)].join(',')),
    ].join('\n');
  }
  const left = (s: OptionSpec): string =>
    [`--${s.name}`, ...(s.aliases ?? []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))].join(', ') +
    (takes(s) ? ` <${takes(s)}>` : '');
  const width = Math.max(...specs.map((s) => left(s).length)) + 2;
  return [
    `Usage: ${query} [options]${kind === 'forward' ? ' <command> [<argument>...]' : ''}`,
    'Options take the forms --name=value, --name value or name=value.',
    ...specs.map((s) => `  ${left(s).padEnd(width)}${s.help}`),
  ].join('\n');
}

function takes(s: OptionSpec): string {
  return s.kind === 'flag' || s.kind === 'help'
    ? ''
    : s.kind === 'int'
      ? 'number'
      : s.kind === 'status'
        ? 'status'
        : 'value';
}

function csv(text: string): string {
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
