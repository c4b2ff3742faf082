/**
 * `config-agent run` marks its process non-dumpable (prctl(PR_SET_DUMPABLE, 0), by the addon
 * dist/bin/no-dump.node, src/cli/no-dump-c/): the kernel then gives the agent's /proc/<pid>
 * files to root, so the scripts and checks the agent runs, as its own user, cannot read
 * /proc/<agent>/environ, the environment the agent was started with (where `${env:}` secrets
 * come from), nor attach to the agent. Without the addon (no C compiler at build time) the
 * agent runs dumpable and says so once.
 */
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { loadAddon } from '../native-addon.js';
import { PACKAGE_ROOT } from '../package-root.js';

interface NoDumpAddon {
  nodump: () => number;
}

export const NO_DUMP_ADDON = join(PACKAGE_ROOT, 'dist/bin/no-dump.node');

/** Marks this process non-dumpable; true when done. */
export function markNonDumpable(log: Logger): boolean {
  const addon = loadAddon<NoDumpAddon>(NO_DUMP_ADDON, 'nodump');
  const errno = addon ? addon.nodump() : undefined;
  if (errno === 0) {
    log.debug('process marked non-dumpable: scripts of this user cannot read /proc/<agent>/environ');
    return true;
  }
  log.warning(
    `could not mark the process non-dumpable (${errno === undefined ? `no addon ${NO_DUMP_ADDON}` : `errno ${errno}`}): scripts of this user can read /proc/${process.pid}/environ`,
  );
  return false;
}
