/**
 * Tell systemd about readiness and stopping when running under it
 * (NOTIFY_SOCKET set), through the systemd-notify tool; without systemd,
 * or when the tool is missing, this does nothing.
 */
import { execFile } from 'node:child_process';

export function notifySystemd(state: string): void {
  if (!process.env.NOTIFY_SOCKET) return;
  const child = execFile('systemd-notify', [`--pid=${process.pid}`, state], () => undefined);
  child.on('error', () => undefined);
}
