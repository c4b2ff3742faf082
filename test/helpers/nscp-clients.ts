/**
 * What the NSClient++-client tests share: the path of Debian's
 * check_nscp_api (package icinga2-bin), scripts with fixed output and
 * performance data, running a Nagios plugin with a time limit, an agent
 * process with its web server, and waiting for a condition.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, type AgentProcess, type StartOptions } from './agent-process.js';
import { inRange } from '../../src/in-range.js';

export const CHECK_NSCP_API = '/usr/lib/nagios/plugins/check_nscp_api';

/** Scripts with fixed output and perf data (also used by the Nagios test). */
export const PERF_SCRIPTS: Record<string, string> = {
  'scripts/perf_ok.sh': "#!/bin/sh\necho 'OK: all good|temp=21.5C;30;40;0;100 count=3;5;10'\nexit 0\n",
  'scripts/perf_warn.sh': "#!/bin/sh\necho 'WARNING: getting warm|temp=35C;30;40;0;100'\nexit 1\n",
  'scripts/perf_crit.sh': "#!/bin/sh\necho 'CRITICAL: too hot|temp=45.25C;30;40;0;100'\nexit 2\n",
};

export const PERF_SCRIPT_ENTRIES = `[/settings/external scripts/scripts]
perf_ok = /bin/sh perf_ok.sh
perf_warn = /bin/sh perf_warn.sh
perf_crit = /bin/sh perf_crit.sh
`;

export type { ProgramRun as PluginRun } from './run-program.js';
/** Run a Nagios plugin with a time limit; resolves with its exit code and output. */
export { runProgram as runPlugin } from './run-program.js';

/** An agent process whose WEBServer listens on HTTPS, with its base URL and its certificate (as the CA to trust). */
export interface WebAgent {
  agent: AgentProcess;
  base: string;
  port: string;
  ca: string;
}

export async function startWebAgent(options: StartOptions): Promise<WebAgent> {
  const agent = await startAgent(options);
  try {
    const m = await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:(\d+))/);
    return {
      agent,
      base: inRange(m, 1),
      port: inRange(m, 2),
      ca: readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8'),
    };
  } catch (err) {
    // Not handed to the caller, so not registered with its teardown: stopped here.
    await agent.stop();
    throw err;
  }
}

export { waitUntil } from './wait-until.js';
