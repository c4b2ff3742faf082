/**
 * CheckHelpers: queries that answer a fixed state (check_ok, check_warning,
 * check_critical, check_version), and queries that run other queries
 * through the core and reshape their results (check_negate, check_multi,
 * check_timeout; see src/checks/helpers/wrappers.ts), check_index (every
 * query with its module) and check_dummy.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import type { Status } from '../../core/result.js';
import type { QueryCall } from '../../core/core.js';
import { VERSION } from '../../version.js';
import { checkMulti, checkNegate, checkTimeout, type QueryFn } from '../../checks/helpers/wrappers.js';
import { indexCheck } from '../../checks/helpers/index-check.js';
import { settingsCheck, settingsCheckOptions } from '../../checks/helpers/settings-check.js';
import { checkDummy } from '../../checks/helpers/dummy-check.js';
import { registerChecks } from '../../checks/register.js';

const FIXED: readonly { name: string; status: Status; word: string }[] = [
  { name: 'check_ok', status: 0, word: 'OK' },
  { name: 'check_warning', status: 1, word: 'WARNING' },
  { name: 'check_critical', status: 2, word: 'CRITICAL' },
];

const WRAPPERS = [
  {
    name: 'check_negate',
    title: 'Change the status of a query',
    description:
      'Runs command=Q (arguments=A ..., or after --) and maps its status: ok=, warning=, critical=, unknown= name the status to answer instead (OK, WARNING, CRITICAL, UNKNOWN).',
    run: checkNegate,
  },
  {
    name: 'check_multi',
    title: 'Run several queries as one',
    description:
      'Runs each command="Q args" in turn; answers the worst status (CRITICAL > WARNING > UNKNOWN > OK), the messages joined by separator= (default ", ") between prefix= and suffix=, and all perf data.',
    run: checkMulti,
  },
  {
    name: 'check_timeout',
    title: 'Run a query with a time limit',
    description:
      'Runs command=Q (arguments=A ...) and answers return= (default UNKNOWN) when it takes longer than timeout= seconds (default 30).',
    run: checkTimeout,
  },
] as const;

export const agentModule: AgentModule<SettingsOf<'CheckHelpers'>> = {
  name: 'CheckHelpers',
  async start(ctx: ModuleContext<SettingsOf<'CheckHelpers'>>) {
    const unregister: (() => void)[] = [];
    for (const f of FIXED) {
      unregister.push(
        ctx.core.registerSimpleQuery(
          {
            name: f.name,
            module: 'CheckHelpers',
            title: `Always ${f.word}`,
            description: `Answers ${f.word} with the given message (default "${f.word}: check_${f.word.toLowerCase()}").`,
          },
          async (args) => ({
            result: f.status,
            message: args.length > 0 ? args.join(' ') : `${f.word}: ${f.name}`,
            perf: [],
          }),
        ),
      );
    }
    unregister.push(
      ctx.core.registerSimpleQuery(
        {
          name: 'check_version',
          module: 'CheckHelpers',
          title: 'Agent version',
          description: 'Answers OK with the agent version (or the given message).',
        },
        async (args) => ({ result: 0, message: args.length > 0 ? args.join(' ') : `agent ${VERSION}`, perf: [] }),
      ),
    );
    unregister.push(registerChecks(ctx.core, 'CheckHelpers', [indexCheck(() => ctx.core.listQueries())]));
    unregister.push(
      ctx.core.registerSimpleQuery(
        {
          name: 'check_settings',
          module: 'CheckHelpers',
          title: 'Settings in force',
          description:
            'CRITICAL while the settings last read or pulled are refused, WARNING when the source failed max-failures=N polls in a row (3) or the revision is older than max-age=DURATION, else OK with the revision; perf data since_good_pull and since_change.',
        },
        async (args) => settingsCheck(ctx.core.settingsHealth(), settingsCheckOptions(args)),
      ),
    );
    unregister.push(
      ctx.core.registerSimpleQuery(
        {
          name: 'check_dummy',
          module: 'CheckHelpers',
          title: 'Fixed state and text',
          description:
            'check_dummy STATE [TEXT ...]: answers STATE (0-3 or OK/WARNING/CRITICAL/UNKNOWN) with TEXT (default "Dummy Check"); help lists the arguments.',
        },
        async (args) => checkDummy(args),
      ),
    );
    for (const w of WRAPPERS) {
      // The inner queries run under the caller's allow-list (a protocol peer cannot wrap a refused query).
      const run = (args: string[], call: QueryCall) => {
        const query: QueryFn = (command, inner, options) =>
          ctx.core.query(command, inner, call.allow ? { ...options, allow: call.allow } : options);
        return w.run(args, query, call.signal);
      };
      unregister.push(
        ctx.core.registerSimpleQuery(
          { name: w.name, module: 'CheckHelpers', title: w.title, description: w.description },
          run,
        ),
      );
    }
    return {
      async apply() {
        return true;
      },
      async stop() {
        for (const u of unregister.splice(0)) u();
      },
    };
  },
};
