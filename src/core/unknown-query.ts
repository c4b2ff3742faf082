/**
 * The answer to a query that does not exist: `Unknown command(s): NAME`,
 * then why and what to do where that is known. A query of a module that
 * [/modules] does not enable names the module and the line that enables
 * it. A name close to an existing query, or a well-known plugin name
 * (`check_disk` of the Nagios plugins), gets "did you mean".
 */
import { formatMessage } from '../errors.js';
import { closest } from '../settings/model/did-you-mean.js';
import { moduleOfQuery, moduleTable } from '../settings/model/module-table.js';

/** Names of Nagios plugins and NSClient++ checks that are called differently here. */
const KNOWN_AS: Readonly<Record<string, string>> = {
  check_disk: 'check_drivesize',
  check_procs: 'check_process',
  check_proc: 'check_process',
  check_mem: 'check_memory',
  check_swap: 'check_memory type=swap',
  check_services: 'check_service',
  check_uptime_ex: 'check_uptime',
  check_file_age: 'check_files',
  check_log: 'check_logfile',
  check_eventlog: 'check_logfile (there is no Windows event log here)',
};

export function unknownQueryMessage(
  name: string,
  modules: Readonly<Partial<Record<string, boolean>>> | undefined,
  registered: readonly string[],
): string {
  const base = formatMessage('AGENT_ERR_QUERY_UNKNOWN', [name]);
  const owner = moduleOfQuery(name);
  if (owner && modules && modules[owner.name] !== true)
    return `${base} (a query of ${owner.name}, which is not enabled: add ${owner.name} = enabled to [/modules])`;
  if (owner) return base;
  const known = KNOWN_AS[name.toLowerCase()];
  if (known) return `${base}; did you mean "${known}"?`;
  // Stricter than for settings keys: query names share long prefixes (check_…), so only a typo's distance counts.
  const near = closest(name, [...registered, ...moduleTable().flatMap((m) => m.queries)], 4);
  return near === undefined ? base : `${base}; did you mean "${near}"?`;
}
