/**
 * What the settings layer knows about each module, without loading its
 * code: its name (the keys of `[/modules]` in schema/modules/modules.schema.json,
 * in start order), its title and description, the sections it reads and the
 * queries it registers. Settings validation (aliases, script checks), the
 * planner and the import of NSClient++ files read this table; the loaders
 * (lazy imports of module code) are in src/modules/catalogue.ts, which adds
 * one to each row.
 *
 * `sections`: a module's settings view holds exactly these sections (and
 * their resolved objects; settings/module-view.ts), a change in them is
 * handed to the module's apply() or restarts it, and `SettingsOf<'Name'>`
 * types the view. Keys marked `x-fallback` in a section's schema arrive
 * filled from their fallback section.
 *
 * `queries`: what the module registers when it runs, so that settings
 * validation can check what an alias names. A unit test
 * (test/unit/modules/catalogue.test.ts) keeps each list equal to what the
 * module really registers.
 */
import type { ModulesSection } from './generated/settings.js';
import type { ModuleSettings, SectionPath } from './module-view.js';

export const MODULE_SECTIONS = {
  CheckHelpers: [],
  CheckSystem: [],
  CheckDisk: ['/settings/disk'],
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
  NSClientServer: ['/settings/NSClient/server', '/paths'],
  AgentClient: ['/settings/agent/client', '/settings/agent/client/handlers', '/settings/agent/client/targets', '/paths'],
  AgentServer: ['/settings/agent/server', '/paths'],
  NSCAClient: ['/settings/NSCA/client', '/settings/NSCA/client/targets'],
  IcingaClient: ['/settings/icinga/client', '/settings/icinga/client/targets', '/paths'],
  Scheduler: ['/settings/scheduler', '/settings/scheduler/schedules'],
} as const satisfies Record<keyof ModulesSection, readonly SectionPath[]>;

/** A module of `[/modules]`; the schema and this table name the same ones (the compiler checks it). */
export type ModuleName = keyof typeof MODULE_SECTIONS;

/** The typed settings view of a module. */
export type SettingsOf<M extends ModuleName> = ModuleSettings<(typeof MODULE_SECTIONS)[M][number]>;

export interface ModuleInfo {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The sections the module reads (MODULE_SECTIONS). */
  readonly settings: readonly SectionPath[];
  /** The queries the module registers when it runs. */
  readonly queries: readonly string[];
}

type Row = Omit<ModuleInfo, 'name' | 'settings'>;

/** In start order (the reconciler starts modules in this order and stops them in reverse). */
const ROWS: { readonly [M in ModuleName]: Row } = {
  CheckHelpers: { title: 'Helper checks', description: 'check_ok, check_warning, check_critical, check_version, check_negate, check_multi, check_timeout, check_index, check_dummy.', queries: ['check_ok', 'check_warning', 'check_critical', 'check_version', 'check_negate', 'check_multi', 'check_timeout', 'check_index', 'check_dummy'] },
  CheckSystem: { title: 'System checks', description: 'check_cpu, check_load, check_memory, check_uptime, check_os_version, check_process, check_service, check_network, check_connections, check_kernel_stats, check_swap_io, check_cpu_utilization, check_temperature, check_os_updates, check_mailq, check_users.', queries: ['check_cpu', 'check_cpu_utilization', 'check_load', 'check_memory', 'check_uptime', 'check_os_version', 'check_process', 'check_network', 'check_connections', 'check_kernel_stats', 'check_swap_io', 'check_service', 'check_temperature', 'check_os_updates', 'check_mailq', 'check_users', 'checkCPU', 'checkMem', 'checkUpTime', 'checkServiceState', 'checkProcState'] },
  CheckDisk: { title: 'Disk checks', description: 'check_drivesize, check_files, check_mount and check_drive_io.', queries: ['check_drivesize', 'check_files', 'check_drive_io', 'check_mount', 'CheckDriveSize', 'CheckFiles', 'checkFile2'] },
  CheckLogFile: { title: 'Log file checks', description: 'check_logfile: new lines of log files since the last call.', queries: ['check_logfile', 'checklogfile'] },
  CheckNet: { title: 'Network checks', description: 'check_tcp, check_http, check_dns, check_ping, check_ntp_offset.', queries: ['check_tcp', 'check_http', 'check_dns', 'check_ping', 'check_ntp_offset'] },
  CheckExternalScripts: { title: 'External scripts', description: 'Runs configured scripts as queries.', queries: [] },
  WEBServer: { title: 'Web server', description: 'JSON API and web UI over HTTP(S).', queries: [] },
  RemoteClient: { title: 'Remote-protocol client', description: 'NRPE client: remote_query, remote_exec, remote_submit, remote_forward.', queries: ['remote_query', 'remote_exec', 'remote_submit', 'remote_forward'] },
  RemoteServer: { title: 'Remote-protocol server', description: 'NRPE server answering check_nrpe with the agent\'s queries.', queries: ['remote_submissions'] },
  NSClientServer: { title: 'check_nt server', description: 'Answers check_nt (the NSClient protocol) from the agent\'s system and disk checks.', queries: [] },
  AgentClient: { title: 'Agent-protocol client', description: 'agent_query, agent_exec and agent_submit against other agents.', queries: ['agent_query', 'agent_exec', 'agent_submit'] },
  AgentServer: { title: 'Agent-protocol server', description: 'Answers other agents over the agent protocol.', queries: ['agent_submissions'] },
  NSCAClient: { title: 'NSCA client', description: 'Sends passive results submitted on its channel to an NSCA 2.x daemon (send_nsca\'s wire form).', queries: ['nsca_queue'] },
  IcingaClient: { title: 'Icinga 2 client', description: 'Posts passive results submitted on its channel to Icinga 2\'s process-check-result API over verified TLS.', queries: ['icinga_queue'] },
  Scheduler: { title: 'Scheduler', description: 'Runs queries at intervals and submits their results on channels (passive checks).', queries: ['scheduler_list'] },
};

const MODULES: readonly ModuleInfo[] = (Object.keys(ROWS) as ModuleName[]).map((name) => ({ name, settings: MODULE_SECTIONS[name], ...ROWS[name] }));
const byLower = new Map(MODULES.map((m) => [m.name.toLowerCase(), m]));

/** Every module, in start order. */
export function moduleTable(): readonly ModuleInfo[] {
  return MODULES;
}

/** A module by name, case-insensitively. */
export function moduleInfo(name: string): ModuleInfo | undefined {
  return byLower.get(name.toLowerCase());
}

/** The module whose row lists the query (case-insensitive), if any. */
export function moduleOfQuery(query: string): ModuleInfo | undefined {
  const lower = query.toLowerCase();
  return MODULES.find((m) => m.queries.some((q) => q.toLowerCase() === lower));
}
