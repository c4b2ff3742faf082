/**
 * CheckNet: check_tcp, check_http, check_dns, check_ping and
 * check_ntp_offset (library code in src/checks/net/). `[/settings/net]
 * max concurrent` bounds the probes each check has in flight, `max timeout`
 * and `max body size` what a request's timeout= and max-size= may ask; a
 * change applies in place (waiting probes start at once if the limit grew).
 */
import type { AgentModule, ModuleContext } from '../module.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { registerChecks } from '../../checks/register.js';
import { NetLimits, type NetBounds } from '../../checks/net/net-context.js';
import { tcpCheck } from '../../checks/net/tcp-check.js';
import { httpCheck } from '../../checks/net/http-check.js';
import { dnsCheck } from '../../checks/net/dns-check.js';
import { pingCheck } from '../../checks/net/ping-check.js';
import { ntpCheck } from '../../checks/net/ntp-check.js';

const SECTION = '/settings/net';

type Settings = SettingsOf<'CheckNet'>;

const boundsOf = (s: Settings): NetBounds => {
  const net = s.sections[SECTION];
  return { maxConcurrent: net['max concurrent'], maxTimeoutMs: net['max timeout'], maxBodySize: net['max body size'] };
};

export const agentModule: AgentModule<Settings> = {
  name: 'CheckNet',
  async start(ctx: ModuleContext<Settings>) {
    const limits = new NetLimits(boundsOf(ctx.settings));
    const unregister = registerChecks(ctx.core, 'CheckNet', [
      tcpCheck(limits),
      httpCheck(limits),
      dnsCheck(limits),
      pingCheck(limits),
      ntpCheck(limits),
    ]);
    return {
      async apply(next) {
        limits.setBounds(boundsOf(next));
        return true;
      },
      async stop() {
        unregister();
      },
    };
  },
};
