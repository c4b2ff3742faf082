/**
 * The level of a log entry that crossed the plugin boundary (LogEntry.Entry.Level) as the
 * agent's logger names it; an unset or unknown level is info.
 */
import type { LogLevel } from '../log.js';
import { Plugin } from './plugin/codec.js';

export function levelOf(level: Plugin.LogEntry.Entry.Level | null | undefined): LogLevel {
  switch (level) {
    case Plugin.LogEntry.Entry.Level.LOG_DEBUG:
      return 'debug';
    case Plugin.LogEntry.Entry.Level.LOG_WARNING:
      return 'warning';
    case Plugin.LogEntry.Entry.Level.LOG_ERROR:
      return 'error';
    case Plugin.LogEntry.Entry.Level.LOG_CRITICAL:
      return 'critical';
    default:
      return 'info';
  }
}
