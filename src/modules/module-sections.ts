/**
 * The sections each module reads, by catalogue name: the one list that both
 * builds a module's settings view at run time (settings/module-view.ts) and
 * types it (`SettingsOf<'WEBServer'>`). A module sees these sections (and
 * their resolved objects) and nothing else; keys marked `x-fallback` in a
 * section's schema arrive filled from their fallback section.
 */
import type { ModuleSettings, SectionPath } from '../settings/module-view.js';

export const MODULE_SECTIONS = {
  CheckHelpers: [],
  CheckSystem: [],
  CheckDisk: [],
  CheckLogFile: ['/settings/logfile'],
  CheckNet: ['/settings/net'],
  CheckExternalScripts: [
    '/settings/external scripts',
    '/settings/external scripts/scripts',
    '/settings/external scripts/alias',
    '/settings/external scripts/wrappings',
    '/settings/external scripts/wrapped scripts',
    '/paths',
  ],
  WEBServer: ['/settings/WEB/server', '/settings/web/users', '/settings/web/roles', '/paths'],
  RemoteClient: ['/settings/remote/client', '/settings/remote/client/handlers', '/settings/remote/client/targets', '/paths'],
  RemoteServer: ['/settings/remote/server', '/paths'],
  AgentClient: ['/settings/agent/client', '/settings/agent/client/handlers', '/settings/agent/client/targets', '/paths'],
  AgentServer: ['/settings/agent/server', '/paths'],
} as const satisfies Record<string, readonly SectionPath[]>;

export type ModuleName = keyof typeof MODULE_SECTIONS;

/** The typed settings view of a module of the catalogue. */
export type SettingsOf<M extends ModuleName> = ModuleSettings<(typeof MODULE_SECTIONS)[M][number]>;
