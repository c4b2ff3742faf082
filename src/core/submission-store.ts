/**
 * Passive results other agents submitted (agent protocol, NRPE
 * `_NRPE_SUBMIT`): the latest per command and source, in arrival order of
 * their last update. The caller names the source (the sender in the message
 * header, else the client certificate's CN, else the peer address).
 * Bounded: beyond `capacity` entries the least recently updated go first.
 */
import { escapeForLog } from '../log.js';
import { formatPerfList, STATUS_NAMES, type QueryResult, type Status } from './result.js';
import { isoTime } from '../iso-time.js';

export interface Submission {
  command: string;
  source: string;
  /** Address of the connection it came over. */
  address: string;
  result: Status;
  status: (typeof STATUS_NAMES)[number];
  message: string;
  /** Perf data in Nagios text form; empty when none. */
  perf: string;
  /** ISO 8601 time of arrival. */
  received: string;
}

export class SubmissionStore {
  private readonly entries = new Map<string, Submission>();

  constructor(private readonly capacity = 1000) {}

  /** Keeps each result under (source, command), replacing an older one; returns what was kept. */
  keep(results: readonly QueryResult[], source: string, address: string): Submission[] {
    const received = isoTime(Date.now());
    const kept: Submission[] = [];
    for (const r of results) {
      const entry: Submission = {
        command: r.command,
        source,
        address,
        result: r.result,
        status: STATUS_NAMES[r.result],
        message: r.message,
        perf: formatPerfList(r.perf),
        received,
      };
      const key = `${source}\u0000${r.command.toLowerCase()}`;
      this.entries.delete(key);
      this.entries.set(key, entry);
      kept.push(entry);
    }
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return kept;
  }

  list(): Submission[] {
    return [...this.entries.values()];
  }
}

/** The log line of one submission: `submission from <source>: <command> <STATUS>: <message>[|perf]`. */
export function describeSubmission(entry: Submission): string {
  // Every field came from a peer: escaped, so a submission cannot forge log lines.
  return `submission from ${escapeForLog(entry.source)}: ${escapeForLog(entry.command)} ${escapeForLog(entry.status)}: ${escapeForLog(entry.message)}${entry.perf ? `|${escapeForLog(entry.perf)}` : ''}`;
}
