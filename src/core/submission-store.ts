/**
 * Results other agents submitted: the latest per command and source, in
 * arrival order of their last update. The source is the sender named in the
 * message header, else the client certificate's CN, else the peer address.
 * Bounded: beyond `capacity` entries the least recently updated go first.
 */
import { decode, responseToResult } from '../../protocols/plugin/codec.js';
import type { PeerInfo } from '../../protocols/agent/server.js';
import { formatPerfList, STATUS_NAMES, type Status } from '../../core/result.js';

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

  /** Decode a SubmitResponseMessage and keep each result; returns what was kept. Throws AGENT_ERR_PROTOBUF on a bad message. */
  take(bytes: Uint8Array, peer: PeerInfo): Submission[] {
    const message = decode('SubmitResponseMessage', bytes);
    const source = message.header.sender || peer.certificate || peer.address;
    const received = new Date().toISOString();
    const kept: Submission[] = [];
    for (const payload of message.payload) {
      const r = responseToResult(payload);
      const entry: Submission = {
        command: r.command,
        source,
        address: peer.address,
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
