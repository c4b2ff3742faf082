/**
 * The static module catalogue: explicit names mapped to lazy imports, so a
 * module's code loads only when the module is enabled. Each module file
 * exports `createModule(): AgentModule`; its shape is checked on load.
 */
import type { AgentModule, ModuleFactory } from './module.js';
import type { SectionPath } from '../settings/module-view.js';
import { MODULE_SECTIONS } from './module-sections.js';

export interface CatalogueEntry {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /**
   * The sections this module reads (modules/module-sections.ts): its settings
   * view holds exactly these (settings/module-view.ts), and a change in them
   * is handed to the module's apply() or restarts it.
   */
  readonly settings: readonly SectionPath[];
  /**
   * The queries the module registers when it runs, known without loading it,
   * so that settings validation can check what an alias names. A unit test
   * (test/unit/modules/catalogue.test.ts) keeps this list equal to what the
   * module really registers.
   */
  readonly queries: readonly string[];
  readonly load: () => Promise<ModuleFactory>;
}

const entries: readonly CatalogueEntry[] = [
  { name: 'CheckHelpers', title: 'Helper checks', description: 'check_ok, check_warning, check_critical, check_version, check_negate, check_multi, check_timeout, check_index, check_dummy.', settings: MODULE_SECTIONS.CheckHelpers, queries: ['check_ok', 'check_warning', 'check_critical', 'check_version', 'check_negate', 'check_multi', 'check_timeout', 'check_index', 'check_dummy'], load: () => import('./check-helpers/index.js') },
  { name: 'CheckSystem', title: 'System checks', description: 'check_cpu, check_load, check_memory, check_uptime, check_os_version, check_process, check_service, check_network, check_connections, check_kernel_stats, check_swap_io, check_cpu_utilization, check_temperature, check_os_updates, check_mailq.', settings: MODULE_SECTIONS.CheckSystem, queries: ['check_cpu', 'check_cpu_utilization', 'check_load', 'check_memory', 'check_uptime', 'check_os_version', 'check_process', 'check_network', 'check_connections', 'check_kernel_stats', 'check_swap_io', 'check_service', 'check_temperature', 'check_os_updates', 'check_mailq'], load: () => import('./check-system/index.js') },
  { name: 'CheckDisk', title: 'Disk checks', description: 'check_drivesize, check_files, check_mount and check_drive_io.', settings: MODULE_SECTIONS.CheckDisk, queries: ['check_drivesize', 'check_files', 'check_drive_io', 'check_mount'], load: () => import('./check-disk/index.js') },
  { name: 'CheckLogFile', title: 'Log file checks', description: 'check_logfile: new lines of log files since the last call.', settings: MODULE_SECTIONS.CheckLogFile, queries: ['check_logfile', 'checklogfile'], load: () => import('./check-logfile/index.js') },
  { name: 'CheckNet', title: 'Network checks', description: 'check_tcp, check_http, check_dns, check_ping, check_ntp_offset.', settings: MODULE_SECTIONS.CheckNet, queries: ['check_tcp', 'check_http', 'check_dns', 'check_ping', 'check_ntp_offset'], load: () => import('./check-net/index.js') },
  { name: 'CheckExternalScripts', title: 'External scripts', description: 'Runs configured scripts as queries.', settings: MODULE_SECTIONS.CheckExternalScripts, queries: [], load: () => import('./check-external-scripts/index.js') },
  { name: 'WEBServer', title: 'Web server', description: 'JSON API and web UI over HTTP(S).', settings: MODULE_SECTIONS.WEBServer, queries: [], load: () => import('./web-server/index.js') },
  { name: 'RemoteClient', title: 'Remote-protocol client', description: 'NRPE client: remote_query, remote_exec, remote_submit, remote_forward.', settings: MODULE_SECTIONS.RemoteClient, queries: ['remote_query', 'remote_exec', 'remote_submit', 'remote_forward'], load: () => import('./remote-client/index.js') },
  { name: 'RemoteServer', title: 'Remote-protocol server', description: 'NRPE server answering check_nrpe with the agent\'s queries.', settings: MODULE_SECTIONS.RemoteServer, queries: ['remote_submissions'], load: () => import('./remote-server/index.js') },
  { name: 'AgentClient', title: 'Agent-protocol client', description: 'agent_query, agent_exec and agent_submit against other agents.', settings: MODULE_SECTIONS.AgentClient, queries: ['agent_query', 'agent_exec', 'agent_submit'], load: () => import('./agent-client/index.js') },
  { name: 'AgentServer', title: 'Agent-protocol server', description: 'Answers other agents over the agent protocol.', settings: MODULE_SECTIONS.AgentServer, queries: ['agent_submissions'], load: () => import('./agent-server/index.js') },
];

const byLower = new Map(entries.map((e) => [e.name.toLowerCase(), e]));

export function catalogue(): readonly CatalogueEntry[] {
  return entries;
}

/** The module whose catalogue entry lists the query (case-insensitive), if any. */
export function moduleOfQuery(query: string): CatalogueEntry | undefined {
  const lower = query.toLowerCase();
  return entries.find((e) => e.queries.some((q) => q.toLowerCase() === lower));
}

/** Find a module by name, case-insensitively. */
export function findModule(name: string): CatalogueEntry | undefined {
  return byLower.get(name.toLowerCase());
}

/** Check that what a module file produced has the module shape; returns the problem or undefined. */
export function shapeProblem(mod: unknown, expectedName: string): string | undefined {
  if (typeof mod !== 'object' || mod === null) return 'createModule() did not return an object';
  const m = mod as Partial<AgentModule>;
  if (m.name !== expectedName) return `name is ${JSON.stringify(m.name)}, expected ${JSON.stringify(expectedName)}`;
  if (typeof m.start !== 'function') return 'start is not a function';
  if (typeof m.stop !== 'function') return 'stop is not a function';
  if (m.apply !== undefined && typeof m.apply !== 'function') return 'apply is not a function';
  return undefined;
}
