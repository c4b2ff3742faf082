/**
 * NSClient++'s NRPE and check_nt servers take their timeout from
 * [/settings/default]; each server here has its own key, so the import
 * writes the value there too, and says so in the report.
 */
import type { ImportChange, OutEntry, OutSection } from './translation.js';

/** The servers whose NSClient++ counterpart reads timeout from [/settings/default]: section, module, what it is there. */
const DEFAULT_TIMEOUT_SERVERS = [
  ['/settings/remote/server', 'RemoteServer', 'NRPE server'],
  ['/settings/NSClient/server', 'NSClientServer', 'check_nt server'],
] as const;

/**
 * NSClient++'s NRPE and check_nt servers take their timeout from
 * [/settings/default] when their own section has none; here each server
 * has its own key, so the value is written there.
 */
function defaultTimeout(
  source: { path: string; entries: { key: string; value: string; line: number }[] }[],
  out: Map<string, OutSection>,
  put: (path: string, e: OutEntry) => void,
  path: string,
  module: string,
): number | undefined {
  const def = source
    .find((s) => s.path.toLowerCase() === '/settings/default')
    ?.entries.find((e) => e.key.toLowerCase() === 'timeout');
  const server = out.get(path.toLowerCase());
  const enabled = out.get('/modules')?.entries.some((e) => e.key === module);
  if (!def || !enabled || server?.entries.some((e) => e.key === 'timeout')) return undefined;
  put(path, {
    key: 'timeout',
    value: def.value,
    comments: [],
    line: 0,
    sourceSection: '/settings/default',
    sourceKey: 'timeout',
  });
  return def.line;
}

/** Writes [/settings/default] timeout into the section of each enabled server that has none, with a note for each. */
export function copyDefaultTimeouts(
  source: { path: string; entries: { key: string; value: string; line: number }[] }[],
  out: Map<string, OutSection>,
  put: (path: string, e: OutEntry) => void,
  changes: ImportChange[],
): void {
  for (const [path, module, what] of DEFAULT_TIMEOUT_SERVERS) {
    const timeout = defaultTimeout(source, out, put, path, module);
    if (timeout)
      changes.push({
        line: timeout,
        section: '/settings/default',
        key: 'timeout',
        action: 'note',
        detail: `also written as [${path}] timeout: NSClient++'s ${what} takes it from [/settings/default], each server here has its own`,
      });
  }
}
