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

export interface ModuleInfo {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The sections the module reads. */
  readonly settings: readonly SectionPath[];
  /** The queries the module registers when it runs. */
  readonly queries: readonly string[];
  /** A listening module: the section of its listener (bind to, port, TLS, limits). */
  readonly listener?: SectionPath;
  /** The one module whose context carries the control interface (the API and UI): WEBServer. */
  readonly control?: true;
  /** A module that acts on its own (sends results): left out of one-shot commands beside a running agent. */
  readonly background?: true;
}

interface Row {
  readonly sections: readonly SectionPath[];
  readonly title: string;
  readonly description: string;
  readonly queries: readonly string[];
  readonly listener?: SectionPath;
  readonly control?: true;
  readonly background?: true;
}

/**
 * The one table of modules, in start order (the reconciler starts modules in
 * this order and stops them in reverse): the sections each reads, its title,
 * description and queries, and the columns listener, control and background
 * (ModuleInfo). The catalogue (modules/catalogue.ts) adds each module's
 * loader; every other list of modules is read off this table.
 */
const ROWS = {
  CheckHelpers: {
    sections: [],
    title: 'Helper checks',
    description:
      'check_ok, check_warning, check_critical, check_version, check_negate, check_multi, check_timeout, check_index, check_dummy.',
    queries: [
      'check_ok',
      'check_warning',
      'check_critical',
      'check_version',
      'check_negate',
      'check_multi',
      'check_timeout',
      'check_index',
      'check_dummy',
    ],
  },
  CheckSystem: {
    sections: [],
    title: 'System checks',
    description:
      'check_cpu, check_load, check_memory, check_uptime, check_os_version, check_process, check_service, check_network, check_connections, check_kernel_stats, check_swap_io, check_cpu_utilization, check_temperature, check_os_updates, check_mailq, check_users.',
    queries: [
      'check_cpu',
      'check_cpu_utilization',
      'check_load',
      'check_memory',
      'check_uptime',
      'check_os_version',
      'check_process',
      'check_network',
      'check_connections',
      'check_kernel_stats',
      'check_swap_io',
      'check_service',
      'check_temperature',
      'check_os_updates',
      'check_mailq',
      'check_users',
      'checkCPU',
      'checkMem',
      'checkUpTime',
      'checkServiceState',
      'checkProcState',
    ],
  },
  CheckDisk: {
    sections: ['/settings/disk'],
    title: 'Disk checks',
    description: 'check_drivesize, check_files, check_mount and check_drive_io.',
    queries: [
      'check_drivesize',
      'check_files',
      'check_drive_io',
      'check_mount',
      'CheckDriveSize',
      'CheckFiles',
      'checkFile2',
    ],
  },
  CheckLogFile: {
    sections: ['/settings/logfile'],
    title: 'Log file checks',
    description: 'check_logfile: new lines of log files since the last call.',
    queries: ['check_logfile', 'checklogfile'],
  },
  CheckNet: {
    sections: ['/settings/net'],
    title: 'Network checks',
    description: 'check_tcp, check_http, check_dns, check_ping, check_ntp_offset.',
    queries: ['check_tcp', 'check_http', 'check_dns', 'check_ping', 'check_ntp_offset'],
  },
  CheckExternalScripts: {
    sections: [
      '/settings/external scripts',
      '/settings/external scripts/scripts',
      '/settings/external scripts/alias',
      '/settings/external scripts/wrappings',
      '/settings/external scripts/wrapped scripts',
      '/paths',
    ],
    title: 'External scripts',
    description: 'Runs configured scripts as queries.',
    queries: [],
  },
  WEBServer: {
    sections: ['/settings/WEB/server', '/settings/web/users', '/settings/web/roles', '/paths'],
    listener: '/settings/WEB/server',
    control: true,
    title: 'Web server',
    description: 'JSON API and web UI over HTTP(S).',
    queries: [],
  },
  RemoteClient: {
    sections: [
      '/settings/remote/client',
      '/settings/remote/client/handlers',
      '/settings/remote/client/targets',
      '/paths',
    ],
    title: 'Remote-protocol client',
    description: 'NRPE client: remote_query, remote_exec, remote_submit, remote_forward.',
    queries: ['remote_query', 'remote_exec', 'remote_submit', 'remote_forward'],
  },
  RemoteServer: {
    sections: ['/settings/remote/server', '/paths'],
    listener: '/settings/remote/server',
    title: 'Remote-protocol server',
    description: "NRPE server answering check_nrpe with the agent's queries.",
    queries: ['remote_submissions'],
  },
  NSClientServer: {
    sections: ['/settings/NSClient/server', '/paths'],
    listener: '/settings/NSClient/server',
    title: 'check_nt server',
    description: "Answers check_nt (the NSClient protocol) from the agent's system and disk checks.",
    queries: [],
  },
  AgentClient: {
    sections: ['/settings/agent/client', '/settings/agent/client/handlers', '/settings/agent/client/targets', '/paths'],
    title: 'Agent-protocol client',
    description: 'agent_query, agent_exec and agent_submit against other agents.',
    queries: ['agent_query', 'agent_exec', 'agent_submit'],
  },
  AgentServer: {
    sections: ['/settings/agent/server', '/paths'],
    listener: '/settings/agent/server',
    title: 'Agent-protocol server',
    description: 'Answers other agents over the agent protocol.',
    queries: ['agent_submissions'],
  },
  NSCAClient: {
    sections: ['/settings/NSCA/client', '/settings/NSCA/client/targets'],
    title: 'NSCA client',
    description: "Sends passive results submitted on its channel to an NSCA 2.x daemon (send_nsca's wire form).",
    queries: ['nsca_queue'],
  },
  IcingaClient: {
    sections: ['/settings/icinga/client', '/settings/icinga/client/targets', '/paths'],
    title: 'Icinga 2 client',
    description:
      "Posts passive results submitted on its channel to Icinga 2's process-check-result API over verified TLS.",
    queries: ['icinga_queue'],
  },
  Scheduler: {
    sections: ['/settings/scheduler', '/settings/scheduler/schedules'],
    background: true,
    title: 'Scheduler',
    description: 'Runs queries at intervals and submits their results on channels (passive checks).',
    queries: ['scheduler_list'],
  },
} as const satisfies { readonly [M in keyof ModulesSection]: Row };

/** A module of `[/modules]`; the schema and this table name the same ones (the compiler checks it). */
export type ModuleName = keyof typeof ROWS;

/** The sections each module reads (a column of the table). */
export const MODULE_SECTIONS = Object.fromEntries(Object.entries(ROWS).map(([name, row]) => [name, row.sections])) as {
  readonly [M in ModuleName]: (typeof ROWS)[M]['sections'];
};

/** The typed settings view of a module. */
export type SettingsOf<M extends ModuleName> = ModuleSettings<(typeof ROWS)[M]['sections'][number]>;

/** The modules with a listener of their own. */
export type ListenerModule = {
  [M in ModuleName]: (typeof ROWS)[M] extends { readonly listener: string } ? M : never;
}[ModuleName];

/** The section of each listening module's listener (a column of the table). */
export const LISTENER_SECTIONS = Object.fromEntries(
  Object.entries(ROWS).flatMap(([name, row]) => ('listener' in row ? [[name, row.listener]] : [])),
) as Readonly<Record<ListenerModule, SectionPath>>;

const MODULES: readonly ModuleInfo[] = (Object.keys(ROWS) as ModuleName[]).map((name) => {
  const row: Row = ROWS[name];
  return {
    name,
    settings: row.sections,
    title: row.title,
    description: row.description,
    queries: row.queries,
    ...(row.listener !== undefined ? { listener: row.listener } : {}),
    ...(row.control === true ? { control: true as const } : {}),
    ...(row.background === true ? { background: true as const } : {}),
  };
});
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
