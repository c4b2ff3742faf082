/**
 * `config-agent settings plan OLD NEW`: what a reconcile from OLD to NEW would do,
 * module by module (load, unload, apply in place, restart, unchanged),
 * assuming the modules enabled in OLD are running. Applies nothing.
 */
import { parseArgs, out, err, settingsExitCode, settingsPath } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { type LoadResult } from '../settings/model/load.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { sourcePlanInput } from './settings-plan-source.js';
import { agentStep, computePlan } from '../settings/model/plan.js';
import { formatProblem } from './format-problem.js';

export const PLAN_OPTIONS: readonly CliOption[] = [
  { name: 'json', help: 'the steps as a JSON array of {module, action, reason}' },
  { name: 'source', help: 'compare the settings now with what the next pull of [/settings/source] would make them' },
  SETTINGS_OPTION,
  HELP_OPTION,
];

export const PLAN_HELP = helpText(
  `Usage: config-agent settings plan OLD NEW [--json]
       config-agent settings plan --source [--settings FILE] [--json]

Prints what a reconcile from settings file OLD to NEW would do, module by
module: load, unload, apply (in place), restart, or unchanged. NEW is read
as the file that replaces OLD (a checkout of the repository against the
deployed file): at OLD's place, so \${base-path} and the paths built on it
are OLD's; its includes are read where NEW is. With --source, OLD is the
settings file as the agent has it (with the cached pull) and NEW the same
with the source fetched now. Nothing is applied nor cached.
Exit: 0, 1 when either file is invalid, 2 usage.`,
  PLAN_OPTIONS,
);

export async function planCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, PLAN_OPTIONS);
  if (options.help) {
    out(PLAN_HELP);
    return 0;
  }
  if (positionals.length !== (options.source ? 0 : 2)) {
    err(PLAN_HELP);
    return 2;
  }
  let a: LoadResult;
  let b: LoadResult;
  if (options.source) {
    const input = await sourcePlanInput(settingsPath(options));
    if (!input.ok) {
      err(`agent: ${input.message}`);
      return input.code;
    }
    [a, b] = [input.now, input.next];
    if (input.line !== '' && !options.json) out(input.line);
  } else {
    // NEW is read as the file that replaces OLD: at OLD's place, so paths built on ${base-path} compare by meaning.
    const [oldFile = '', newFile = ''] = positionals;
    [a, b] = await Promise.all([loadSettingsFile(oldFile), loadSettingsFile(newFile, { locatedAt: oldFile })]);
  }
  const problems = [a, b].flatMap((r) => (r.ok ? [] : r.problems));
  for (const p of problems) err(formatProblem(p));
  if (!a.ok || !b.ok) return settingsExitCode(problems);
  const loaded = new Set(
    Object.entries(a.snapshot.modules)
      .filter(([, on]) => on)
      .map(([m]) => m),
  );
  // The modules, then what the agent applies itself ([/settings/log], [/paths], includes).
  const plan = [
    ...computePlan({ applied: a.snapshot, desired: b.snapshot, loaded }),
    agentStep(a.snapshot, b.snapshot),
  ];
  if (options.json) {
    out(JSON.stringify(plan));
    return 0;
  }
  const width = Math.max(...plan.map((p) => p.module.length));
  for (const p of plan) out(`${p.module.padEnd(width)}  ${p.action.padEnd(9)}  ${p.reason}`);
  return 0;
}
