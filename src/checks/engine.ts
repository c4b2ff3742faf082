/**
 * The one engine behind every check, after NSClient++'s modern checks:
 * collect items → keep those the filter accepts → judge each with ok /
 * critical / warning → render top, ok, detail and empty syntaxes → perf data
 * with thresholds taken from the expressions and styled by perf-config.
 *
 * `runCheck` never throws: bad arguments, bad expressions (with the column
 * of the problem) and failing collectors all answer UNKNOWN with a message.
 */
import { ArgumentError, parseArguments, type CheckArguments } from './arguments.js';
import type { CheckDefaults, CheckDefinition, EmptyState } from './check-definition.js';
import { ExpressionError } from './expression/lexer.js';
import { compileExpression, type Compiled, type Scope, type Values } from './expression/evaluate.js';
import { formatValue, renderTemplate, templateNames } from './format.js';
import { applyPerfConfig, parsePerfConfig, type RawMetric } from './perf-config.js';
import { pushMetric } from './perf-thresholds.js';
import { STATUS_NAMES, UNKNOWN, type QueryResult, type Status } from '../core/result.js';
import { errorMessage } from '../errors.js';
import { COMMON_OPTIONS, SUMMARY_VARS, SUMMARY_TEXTS, helpText } from './engine-help.js';
import { capped } from './list-cap.js';
import { inRange } from '../in-range.js';
import { PatternCostError } from '../formats/linear-pattern.js';

export type { CheckDefaults, CheckDefinition, CollectCall, EmptyState, PerfSpec } from './check-definition.js';

/**
 * A collector's failure whose message is the whole answer (UNKNOWN), such
 * as a subsystem the host lacks: `systemd is not running on this host`.
 * Other throws answer `<check> failed: <message>`.
 */
export class CheckError extends Error {
  override readonly name = 'CheckError';
}

/** Run a check with its arguments. Never throws. */
export async function runCheck(
  def: CheckDefinition,
  tokens: readonly string[],
  signal: AbortSignal = new AbortController().signal,
): Promise<QueryResult> {
  const command = def.name;
  try {
    const args = parseArguments(tokens, { ...COMMON_OPTIONS, ...def.options });
    if (args.has('help')) return { command, result: 0, message: helpText(def), perf: [] };
    const plan = prepare(def, args);
    const now = Date.now() / 1000;
    const filter = plan.filter;
    const accepts = filter
      ? (item: Values): boolean => filter.test({ item, summary: { count: 0, total: 0 }, now })
      : (): boolean => true;
    let seen: number | undefined;
    const items = await def.collect(args, { signal, now, accepts, seen: (n) => (seen = n) });
    return judge(def, plan, items, now, seen ?? items.length);
  } catch (err) {
    // A pattern whose matching would cost more than its budget (formats/pattern-cost.ts) says so in words.
    if (
      err instanceof ArgumentError ||
      err instanceof PlanError ||
      err instanceof CheckError ||
      err instanceof PatternCostError
    )
      return { command, result: UNKNOWN, message: err.message, perf: [] };
    return { command, result: UNKNOWN, message: `${command} failed: ${errorMessage(err)}`, perf: [] };
  }
}

class PlanError extends Error {}

interface Plan {
  filter?: Compiled;
  warning?: Compiled;
  critical?: Compiled;
  ok?: Compiled;
  topSyntax: string;
  okSyntax?: string;
  detailSyntax: string;
  emptySyntax: string;
  emptyState: EmptyState;
  showAll: boolean;
  separator: string;
  perfRules: ReturnType<typeof parsePerfConfig>;
}

/** Compile expressions and check templates before collecting anything. */
function prepare(def: CheckDefinition, args: CheckArguments): Plan {
  const defaults: CheckDefaults = { ...def.defaults, ...def.defaultsFor?.(args) };
  const compile = (
    key: 'filter' | 'warning' | 'critical' | 'ok',
    fallback: string | undefined,
  ): Compiled | undefined => {
    const given = args.all(key);
    const source =
      given.length > 0
        ? given
            .map((g) => g.trim())
            .filter((g) => g !== '' && g.toLowerCase() !== 'none')
            .map((g) => `(${g})`)
            .join(' or ')
        : fallback;
    if (source === undefined || source === '') return undefined;
    try {
      return compileExpression(source, def.vars, SUMMARY_VARS);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      // Report the column within what the user wrote when there is one expression.
      const pos = given.length === 1 ? err.pos - 1 : err.pos;
      const [only] = given;
      const shown = given.length === 1 && only !== undefined ? only.trim() : source;
      throw new PlanError(`invalid ${key} expression "${shown}" at column ${Math.max(pos, 1)}: ${err.message}`);
    }
  };
  const emptyState = (args.get('empty-state') ?? defaults.emptyState).toLowerCase();
  if (!['ok', 'warning', 'critical', 'unknown', 'ignored'].includes(emptyState))
    throw new ArgumentError(`empty-state=${emptyState} is not one of ok, warning, critical, unknown, ignored`);
  const plan: Plan = {
    topSyntax: args.get('top-syntax') ?? defaults.topSyntax,
    detailSyntax: args.get('detail-syntax') ?? defaults.detailSyntax,
    emptySyntax: args.get('empty-syntax') ?? defaults.emptySyntax,
    emptyState: emptyState as EmptyState,
    showAll: args.flag('show-all'),
    separator: args.get('list-separator') ?? def.defaults.separator ?? ', ',
    perfRules: parsePerfConfig(args.get('perf-config') ?? ''),
  };
  const okSyntax = args.get('ok-syntax') ?? defaults.okSyntax;
  if (okSyntax !== undefined) plan.okSyntax = okSyntax;
  const filter = compile('filter', defaults.filter);
  const warning = compile('warning', defaults.warning);
  const critical = compile('critical', defaults.critical);
  const ok = compile('ok', undefined);
  if (filter) plan.filter = filter;
  if (warning) plan.warning = warning;
  if (critical) plan.critical = critical;
  if (ok) plan.ok = ok;
  const summaryNames = new Set([...Object.keys(SUMMARY_VARS), ...SUMMARY_TEXTS]);
  checkNames('detail-syntax', plan.detailSyntax, new Set(Object.keys(def.vars)));
  for (const [k, t] of [
    ['top-syntax', plan.topSyntax],
    ['ok-syntax', plan.okSyntax],
    ['empty-syntax', plan.emptySyntax],
  ] as const) {
    if (t !== undefined) checkNames(k, t, summaryNames);
  }
  return plan;
}

function judge(def: CheckDefinition, plan: Plan, all: readonly Values[], now: number, seen: number): QueryResult {
  const preSummary = { count: 0, total: seen };
  const kept = all.filter((item) => !plan.filter || plan.filter.test({ item, summary: preSummary, now }));
  preSummary.count = kept.length;
  const itemLevel = (c: Compiled | undefined): Compiled | undefined => (c?.usesItem ? c : undefined);
  const statuses: Status[] = kept.map((item) => {
    const scope: Scope = { item, summary: preSummary, now };
    if (itemLevel(plan.ok)?.test(scope)) return 0;
    if (itemLevel(plan.critical)?.test(scope)) return 2;
    if (itemLevel(plan.warning)?.test(scope)) return 1;
    return 0;
  });
  const counts: [number, number, number, number] = [0, 0, 0, 0];
  for (const s of statuses) counts[s] += 1;
  const [okCount, warnCount, critCount] = counts;
  const summary: Record<string, number | string> = {
    count: kept.length,
    total: seen,
    ok_count: okCount,
    warn_count: warnCount,
    crit_count: critCount,
    problem_count: warnCount + critCount,
  };
  const itemStatus = statuses.reduce<Status>((a, b) => (b > a ? b : a), 0);
  let status: Status = itemStatus;
  // Expressions over summary names only (count > 10) judge the whole once.
  const summaryScope: Scope = { summary, now };
  if (plan.ok && !plan.ok.usesItem && plan.ok.test(summaryScope)) status = 0;
  else if (plan.critical && !plan.critical.usesItem && plan.critical.test(summaryScope)) status = 2;
  else if (plan.warning && !plan.warning.usesItem && plan.warning.test(summaryScope) && status < 1) status = 1;

  const details = kept.map((item) =>
    renderTemplate(plan.detailSyntax, (n) => {
      const v = def.vars[n];
      return v ? formatValue(item[n], v.kind) : undefined;
    }),
  );
  const join = (parts: string[]): string => capped(parts, plan.separator, def.defaults.listCap);
  const pick = (want: (s: Status) => boolean): string => join(details.filter((_, i) => want(inRange(statuses, i))));
  const list = join(details);
  summary.list = list;
  summary.detail_list = list;
  summary.ok_list = pick((s) => s === 0);
  summary.warn_list = pick((s) => s === 1);
  summary.crit_list = pick((s) => s === 2);
  // A problem of the whole (warn=count > 0) names the items it counted, so the message is never empty.
  summary.problem_list = plan.showAll || (status > itemStatus && status !== 3) ? list : pick((s) => s === 1 || s === 2);

  let template: string;
  if (kept.length === 0 && plan.emptyState !== 'ignored') {
    status = STATE_OF[plan.emptyState];
    template = plan.emptySyntax;
  } else {
    template = status === 0 && plan.okSyntax !== undefined && !plan.showAll ? plan.okSyntax : plan.topSyntax;
  }
  summary.status = STATUS_NAMES[status];
  const message = renderTemplate(template, (n) => {
    const v = summary[n];
    return v === undefined ? undefined : String(v);
  });
  const metrics: RawMetric[] = [];
  for (const item of kept) for (const spec of def.perf?.(item) ?? []) pushMetric(metrics, spec, item, def.vars, plan);
  for (const spec of def.summaryPerf ?? []) pushMetric(metrics, spec, summary, SUMMARY_VARS, plan);
  return { command: def.name, result: status, message, perf: applyPerfConfig(metrics, plan.perfRules) };
}

const STATE_OF: Readonly<Record<Exclude<EmptyState, 'ignored'>, Status>> = {
  ok: 0,
  warning: 1,
  critical: 2,
  unknown: 3,
};

function checkNames(what: string, template: string, known: ReadonlySet<string>): void {
  for (const n of templateNames(template)) {
    if (!known.has(n)) throw new PlanError(`unknown name '${n}' in ${what} (known: ${[...known].join(', ')})`);
  }
}
