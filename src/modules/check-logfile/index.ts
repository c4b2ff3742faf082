/**
 * CheckLogFile: check_logfile (and NSClient++'s legacy name
 * checklogfile). Settings in [/settings/logfile] apply in place; the read
 * positions are process-wide (log-positions.ts), so a reload or restart of
 * the module keeps them, and they are kept in `${state}/logfile-positions.json`
 * ([/paths] state), written after each call, so an agent restart keeps them too.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { registerChecks } from '../../checks/register.js';
import { logfileCheck, type LogfileSettings } from '../../checks/logfile/logfile-check.js';
import { sharedLogPositions } from '../../checks/logfile/log-positions.js';
import { join } from 'node:path';

const SECTION = '/settings/logfile';

type Settings = SettingsOf<'CheckLogFile'>;

function settingsOf(view: Settings): LogfileSettings {
  const s = view.sections[SECTION];
  return {
    allowedPaths: s['allowed paths']
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    maxLines: s['max lines'],
    maxLineBytes: s['max line length'],
    maxReadBytes: s['max read'] * 1024 * 1024,
  };
}

export const agentModule: AgentModule<Settings> = {
  name: 'CheckLogFile',
  async start(ctx: ModuleContext<Settings>) {
    const positions = sharedLogPositions();
    const configure = (view: Settings): LogfileSettings => {
      positions.setMax(view.sections[SECTION]['max files']);
      return settingsOf(view);
    };
    let settings = configure(ctx.settings);
    const failed = positions.attach(join(ctx.settings.variables.state, 'logfile-positions.json'));
    if (failed) ctx.log.warning(failed);
    const check = logfileCheck(() => settings, positions);
    // After each call the positions go to the state folder (only when they moved).
    const def = {
      ...check,
      collect: async (...a: Parameters<typeof check.collect>) => {
        try {
          return await check.collect(...a);
        } finally {
          const why = positions.flush();
          if (why) ctx.log.warning(why);
        }
      },
    };
    const unregister = registerChecks(ctx.core, 'CheckLogFile', [
      def,
      { ...def, name: 'checklogfile', title: 'Log files (legacy name)' },
    ]);
    return {
      async apply(next) {
        settings = configure(next);
        return true;
      },
      async stop() {
        unregister();
        positions.flush();
      },
    };
  },
};
