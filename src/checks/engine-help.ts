/**
 * What every check shares: the common options, the summary names that
 * expressions and top-syntax may use, and the `help` text built from a
 * check's definition (the same words the README shows).
 */
import type { OptionDef } from './arguments.js';
import type { VarDef } from './expression/evaluate.js';
import type { CheckDefinition } from './check-definition.js';

export const COMMON_OPTIONS: Readonly<Record<string, OptionDef>> = {
  filter: {
    description: 'Which items to consider; repeated filters are joined with or; none considers all.',
    repeat: true,
  },
  warning: {
    description:
      'WARNING when an item matches (warn= is the same); repeated ones are joined with or; none disables the default.',
    repeat: true,
  },
  critical: {
    description:
      'CRITICAL when an item matches (crit= is the same); repeated ones are joined with or; none disables the default.',
    repeat: true,
  },
  ok: { description: 'An item that matches is OK whatever warning and critical say.', repeat: true },
  'empty-state': {
    description: 'Status when no item passes the filter: ok, warning, critical, unknown, or ignored (judge as usual).',
  },
  'empty-syntax': { description: 'Message when no item passes the filter.' },
  'top-syntax': {
    description: 'Message of the result, with summary placeholders such as %(status) and %(problem_list).',
  },
  'ok-syntax': { description: 'Message when the result is OK (unless show-all).' },
  'detail-syntax': { description: 'How one item appears in the lists, with item placeholders.' },
  'list-separator': { description: 'Text between items in the lists.', default: ', ' },
  'show-all': { description: 'List every item, not only the problems, and do not use ok-syntax.', flag: true },
  'perf-config': { description: 'Perf data styling: selector(unit:GB; ignored:true; prefix:x; suffix:y) ...' },
  help: { description: 'Answer with this help instead of checking.', flag: true },
};

/** Summary names usable in expressions (`count > 10`) and in top-syntax. */
export const SUMMARY_VARS: Readonly<Record<string, VarDef>> = {
  count: { kind: 'number', description: 'Items that passed the filter.' },
  total: { kind: 'number', description: 'Items collected before filtering.' },
  ok_count: { kind: 'number', description: 'Items that are OK.' },
  warn_count: { kind: 'number', description: 'Items that are WARNING.' },
  crit_count: { kind: 'number', description: 'Items that are CRITICAL.' },
  problem_count: { kind: 'number', description: 'Items that are WARNING or CRITICAL.' },
};

/** Summary names usable in top-syntax, ok-syntax and empty-syntax only. */
export const SUMMARY_TEXTS: readonly string[] = [
  'status',
  'list',
  'detail_list',
  'ok_list',
  'warn_list',
  'crit_list',
  'problem_list',
];

/** Plain-text help for a check: its options, names and defaults. */
export function helpText(def: CheckDefinition): string {
  const lines: string[] = [`${def.name}: ${def.description}`, '', 'Options:'];
  for (const [k, o] of Object.entries({ ...def.options, ...COMMON_OPTIONS }))
    lines.push(
      `  ${k}${o.flag ? '' : '=...'}  ${o.description}${o.default !== undefined ? ` (default: ${o.default})` : ''}`,
    );
  lines.push('', 'Item names:');
  for (const [k, v] of Object.entries(def.vars)) lines.push(`  ${k} (${v.kind})  ${v.description}`);
  lines.push('', `Summary names: ${[...Object.keys(SUMMARY_VARS), ...SUMMARY_TEXTS].join(', ')}`, '', 'Defaults:');
  const d = def.defaults;
  const show: [string, string | undefined][] = [
    ['filter', d.filter],
    ['warning', d.warning],
    ['critical', d.critical],
    ['top-syntax', d.topSyntax],
    ['ok-syntax', d.okSyntax],
    ['detail-syntax', d.detailSyntax],
    ['empty-syntax', d.emptySyntax],
    ['empty-state', d.emptyState],
  ];
  if (d.separator !== undefined) show.push(['list-separator', JSON.stringify(d.separator)]);
  for (const [k, v] of show) lines.push(`  ${k}=${v ?? 'none'}`);
  return lines.join('\n');
}
