/**
 * The level of a log entry that crossed the plugin boundary (LogEntry.Entry.Level) as the
 * agent's logger names it; an unset or unknown level is info.
 */
import type { LogLevel } from '../log.js';
import { proto, type Plugin } from './plugin/codec.js';

export function levelOf(level: Plugin.LogEntry.Entry.Level | null | undefined): LogLevel {
  const Level = proto().LogEntry.Entry.Level;
  switch (level) {
    case Level.LOG_DEBUG:
      return 'debug';
    case Level.LOG_WARNING:
      return 'warning';
    case Level.LOG_ERROR:
      return 'error';
    case Level.LOG_CRITICAL:
      return 'critical';
    default:
      return 'info';
  }
}
