/**
 * Talking to systemd when the agent runs as its service (NOTIFY_SOCKET set): readiness, reloads,
 * stopping, status lines and the watchdog's keep-alive. Sent from the agent's own process by the
 * addon dist/bin/sd-notify.node (src/cli/sd-notify-c/), so the unit's default NotifyAccess=main
 * accepts them. Where the build had no C compiler the addon is missing and the state goes through
 * a `systemd-notify` child, which systemd accepts only with NotifyAccess=all. Outside systemd
 * everything here does nothing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { loadAddon } from '../native-addon.js';
import { PACKAGE_ROOT } from '../package-root.js';

interface NotifyAddon {
  send: (socketPath: string, state: string) => number;
}

export const SD_NOTIFY_ADDON = join(PACKAGE_ROOT, 'dist/bin/sd-notify.node');

/** The addon, loaded at the first notification; null when it is not there or does not load. */
function loadNotifyAddon(): NotifyAddon | null {
  return loadAddon<NotifyAddon>(SD_NOTIFY_ADDON, 'send');
}

/** How the last notification went: 'addon', 'systemd-notify', or an errno text. For tests and the debug log. */
export let lastNotifyRoute = '';

/** Sends `state` (lines of NAME=value) to systemd; does nothing outside a notify service. */
export function notifySystemd(state: string): void {
  const socket = process.env.NOTIFY_SOCKET;
  if (socket === undefined || socket === '') return;
  const own = loadNotifyAddon();
  if (own) {
    const errno = own.send(socket, state);
    lastNotifyRoute = errno === 0 ? 'addon' : `errno ${errno}`;
    return;
  }
  lastNotifyRoute = 'systemd-notify';
  const child = execFile('systemd-notify', [`--pid=${process.pid}`, state], () => undefined);
  child.on('error', () => undefined);
}

/**
 * The watchdog's keep-alive: when systemd asks for one (WATCHDOG_USEC, for this process when
 * WATCHDOG_PID is set), WATCHDOG=1 every half of that interval from a timer of the event loop, so
 * a loop that stops turning stops the keep-alives and systemd restarts the agent. The timer does
 * not keep the process alive. Returns the function that stops it, or undefined when not asked.
 */
export function startWatchdog(status?: () => string): (() => void) | undefined {
  const usec = Number(process.env.WATCHDOG_USEC);
  const pid = process.env.WATCHDOG_PID;
  if (!Number.isFinite(usec) || usec <= 0) return undefined;
  if (pid !== undefined && pid !== '' && Number(pid) !== process.pid) return undefined;
  // The STATUS= line rides on the watchdog's own timer (no wakeup of its own), sent when it changed.
  // What READY=1 said already: sent again only once it changes.
  let said = status?.() ?? '';
  const tick = (): void => {
    const now = status?.() ?? '';
    notifySystemd(now !== said ? `WATCHDOG=1\nSTATUS=${now}` : 'WATCHDOG=1');
    said = now;
  };
  const timer = setInterval(tick, Math.max(1, Math.floor(usec / 2000)));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A stall for testing the watchdog (docs/operations.md "Running as a service"): with AGENT_TEST_STALL_SIGNAL
 * set to a signal name (SIGUSR2), that signal blocks the event loop for good, as a runaway
 * computation would. Never set in the shipped unit.
 */
export function installTestStall(): void {
  const signal = process.env.AGENT_TEST_STALL_SIGNAL;
  if (signal === undefined || signal === '') return;
  process.on(signal as NodeJS.Signals, () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
}
