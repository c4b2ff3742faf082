/**
 * A listener with simple handlers for the agent-protocol unit tests: query
 * answers OK echoing the command and arguments (`sleep <ms>` waits first,
 * `fail` makes the handler throw), exec answers with the joined arguments,
 * submit records what came in. `events` emits 'sleep' when a `sleep`
 * query starts waiting, so a test knows that request is in flight.
 */
import { startAgentListener, type AgentListener, type PeerInfo } from '../../src/protocols/agent/server.js';
import { decode, encode } from '../../src/core/plugin/codec.js';
import { Plugin } from '../../src/core/plugin/generated/plugin.js';
import { getLogger } from '../../src/log.js';
import type { TlsOptions } from 'node:tls';
import { EventEmitter } from 'node:events';

export interface TestPeer {
  listener: AgentListener;
  port: number;
  submitted: { command: string; message: string; peer: PeerInfo }[];
  events: EventEmitter;
}

export async function startTestPeer(
  options: {
    tls?: TlsOptions;
    maxFrame?: number;
    allowed?: (a: string | undefined) => boolean;
    idleTimeoutMs?: number;
  } = {},
): Promise<TestPeer> {
  const submitted: TestPeer['submitted'] = [];
  const events = new EventEmitter();
  const listener = await startAgentListener({
    host: '127.0.0.1',
    port: 0,
    ...(options.tls ? { tls: options.tls } : {}),
    isAllowed: options.allowed ?? (() => true),
    maxFrame: options.maxFrame ?? 4096,
    idleTimeoutMs: options.idleTimeoutMs ?? 5000,
    log: getLogger('test:agent-peer'),
    handlers: {
      async query(bytes) {
        const req = decode('QueryRequestMessage', bytes);
        const payload = [];
        for (const p of req.payload) {
          if (p.command === 'sleep') {
            events.emit('sleep');
            await new Promise((r) => setTimeout(r, Number(p.arguments?.[0] ?? 0)));
          }
          if (p.command === 'fail') throw new Error('handler broke');
          payload.push({
            command: p.command,
            result: Plugin.ResultCode.OK,
            message: `echo ${p.command} ${(p.arguments ?? []).join(' ')}`.trim(),
          });
        }
        // A header with another id: the listener must put the request's id back.
        return encode('QueryResponseMessage', { header: { type: 2, version: 1, id: 999_999 }, payload });
      },
      async exec(bytes) {
        const req = decode('ExecuteRequestMessage', bytes);
        return encode('ExecuteResponseMessage', {
          header: { type: 4, version: 1, id: req.header.id },
          payload: req.payload.map((p) => ({
            command: p.command,
            result: Plugin.ResultCode.WARNING,
            message: `ran ${(p.arguments ?? []).join(',')}`,
          })),
        });
      },
      async submit(bytes, peer) {
        const m = decode('SubmitResponseMessage', bytes);
        for (const p of m.payload) submitted.push({ command: p.command, message: p.message, peer });
      },
    },
  });
  return { listener, port: listener.address().port, submitted, events };
}
