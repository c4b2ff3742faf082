/**
 * CheckLogFile: check_logfile (and NSClient++'s legacy name
 * checklogfile). Settings in [/settings/logfile] apply in place; the read
 * positions are process-wide (log-positions.ts), so a reload or restart of
 * the module keeps them.
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { Snapshot } from '../../settings/snapshot.js';
import type { LogfileSection } from '../../settings/generated/settings.js';
import { registerChecks } from '../../checks/register.js';
import { logfileCheck, type LogfileSettings } from '../../checks/logfile/logfile-check.js';
import { sharedLogPositions } from '../../checks/logfile/log-positions.js';

const SECTION = '/settings/logfile';

export function createModule(): AgentModule {
  let settings: LogfileSettings = { allowedPaths: ['/var/log'], maxLines: 10000, maxLineBytes: 8192, maxReadBytes: 64 * 1024 * 1024 };
  let unregister: (() => void) | undefined;
  const positions = sharedLogPositions();
  const configure = (snap: Snapshot): void => {
    const s = (snap.sections[SECTION] ?? {}) as Partial<LogfileSection>;
    settings = {
      allowedPaths: (s['allowed paths'] ?? '/var/log').split(',').map((p) => p.trim()).filter(Boolean),
      maxLines: s['max lines'] ?? 10000,
      maxLineBytes: s['max line length'] ?? 8192,
      maxReadBytes: (s['max read'] ?? 64) * 1024 * 1024,
    };
    positions.setMax(s['max files'] ?? 1000);
  };
  return {
    name: 'CheckLogFile',
    async start(ctx: ModuleContext) {
      configure(ctx.settings);
      const def = logfileCheck(() => settings, positions);
      unregister = registerChecks(ctx.core, 'CheckLogFile', [def, { ...def, name: 'checklogfile', title: 'Log files (legacy name)' }]);
    },
    async apply(next: Snapshot) {
      configure(next);
      return true;
    },
    async stop() {
      unregister?.();
      unregister = undefined;
    },
  };
}
