/**
 * The Linux host checks that module CheckSystem answers besides its
 * original ones (issue 16). Rate checks share the process-wide counter
 * history, so their state outlives a module restart or settings reload.
 */
import type { CheckDefinition } from '../engine.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { sharedCounterHistory, type CounterHistory } from '../rates/counter-history.js';
import { networkCheck } from './network-check.js';
import { kernelStatsCheck } from './kernel-stats-check.js';
import { swapIoCheck } from './swap-io-check.js';
import { cpuUtilizationCheck } from './cpu-utilization-check.js';
import { connectionsCheck } from './connections-check.js';
import { serviceCheck } from './service-check.js';
import { temperatureCheck } from './temperature-check.js';
import { osUpdatesCheck } from './os-updates-check.js';
import { mailqCheck } from './mailq-check.js';

export function hostSystemChecks(
  host: HostSources = realHost(),
  history: CounterHistory = sharedCounterHistory(),
): CheckDefinition[] {
  return [
    serviceCheck(host),
    networkCheck(host, history),
    connectionsCheck(host),
    kernelStatsCheck(host, history),
    swapIoCheck(host, history),
    cpuUtilizationCheck(host, history),
    temperatureCheck(host),
    osUpdatesCheck(host),
    mailqCheck(host),
  ];
}
