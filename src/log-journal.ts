/**
 * Console lines for systemd's journal. When the agent's stdout is the journal's stream (systemd
 * sets JOURNAL_STREAM to its device:inode; a shell redirect or a pipe leaves another file there),
 * each line starts with its syslog priority as `<N>`, which journald takes as the entry's
 * priority (SyslogLevelPrefix= is on by default), and carries no time of its own: the journal
 * stamps every entry. `journalctl -p warning` then finds the agent's warnings and errors.
 */
import { fstatSync } from 'node:fs';

/** syslog(3) priorities of the agent's levels. */
export const SYSLOG_PRIORITY = { debug: 7, info: 6, warning: 4, error: 3, critical: 2 } as const;

/** True when file descriptor `fd` is the stream systemd connected to the journal. */
export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const stream = env.JOURNAL_STREAM;
  if (stream === undefined || stream === '') return false;
  const [dev, ino] = stream.split(':');
  try {
    const st = fstatSync(fd, { bigint: true });
    return String(st.dev) === dev && String(st.ino) === ino;
  } catch {
    return false;
  }
}

let journalConsole: boolean | undefined;

/** Whether the agent's stdout is the journal's stream; asked once per process (the logger and the web password's notice). */
export function consoleIsJournal(): boolean {
  return (journalConsole ??= isJournalStream(1));
}
