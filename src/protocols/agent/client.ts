/**
 * The agent-protocol client: a pool of connections keyed by host, port and
 * TLS settings, each carrying many requests at once, matched to answers by
 * the header id.
 *
 * Guarantees:
 * - `request` resolves with the decoded answer of the expected kind, or
 *   rejects with an AgentError whose message says what happened (connect
 *   refused, timeout, TLS failure or certificate rejection, connection
 *   closed, malformed frame, the peer's Error frame);
 * - a connection that fails is dropped from the pool; the next request
 *   opens a new one. Failures before any answer arrived (refused, reset,
 *   closed) are retried `retry` times on a new connection, spaced by the
 *   clients' backoff (connect-retry.ts); timeouts, TLS
 *   rejections and Error answers are not;
 * - a request that times out fails alone; its late answer is ignored;
 * - idle pooled sockets do not keep the process alive and close after
 *   `idleMs`.
 */
import type { Plugin } from '../../core/plugin/codec.js';
import {
  ClientConnection,
  ConnectionLost,
  type AgentEndpoint,
  type RequestKind,
  type RequestOptions,
} from './client-connection.js';
import { CLIENT_MAX_FRAME, FrameKind } from './framing.js';
import { withRetries } from '../../retry-policy.js';
import { CONNECT_RETRY } from '../connect-retry.js';

export type { AgentEndpoint, RequestOptions } from './client-connection.js';

export class AgentClientPool {
  private readonly pool = new Map<string, ClientConnection>();

  constructor(private readonly options: { maxFrame?: number; idleMs?: number; sender?: string } = {}) {}

  query(
    endpoint: AgentEndpoint,
    payload: Plugin.QueryRequestMessage.Request.$Properties[],
    options: RequestOptions,
  ): Promise<Plugin.QueryResponseMessage> {
    return this.request(endpoint, FrameKind.QueryRequest, payload, options) as Promise<Plugin.QueryResponseMessage>;
  }

  exec(
    endpoint: AgentEndpoint,
    payload: Plugin.ExecuteRequestMessage.Request.$Properties[],
    options: RequestOptions,
  ): Promise<Plugin.ExecuteResponseMessage> {
    return this.request(endpoint, FrameKind.ExecRequest, payload, options) as Promise<Plugin.ExecuteResponseMessage>;
  }

  /** Resolves with the acknowledgement (a QueryResponseMessage with one entry per result). */
  submit(
    endpoint: AgentEndpoint,
    payload: Plugin.QueryResponseMessage.Response.$Properties[],
    options: RequestOptions,
  ): Promise<Plugin.QueryResponseMessage> {
    return this.request(endpoint, FrameKind.Submit, payload, options) as Promise<Plugin.QueryResponseMessage>;
  }

  /** Open connections (for tests and status). */
  size(): number {
    return this.pool.size;
  }

  /** Close every connection; requests in flight fail. */
  async close(): Promise<void> {
    const all = [...this.pool.values()];
    this.pool.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  private async request(
    endpoint: AgentEndpoint,
    kind: RequestKind,
    payload: unknown[],
    options: RequestOptions,
  ): Promise<unknown> {
    try {
      return await withRetries(
        async () => {
          options.signal?.throwIfAborted();
          return this.connection(endpoint).request(kind, payload, options);
        },
        {
          retries: options.retry ?? 0,
          policy: CONNECT_RETRY,
          retryable: (err) => err instanceof ConnectionLost,
          signal: options.signal,
        },
      );
    } catch (err) {
      throw err instanceof ConnectionLost ? err.cause : err;
    }
  }

  private connection(endpoint: AgentEndpoint): ClientConnection {
    const key = `${endpoint.host}:${endpoint.port}|${endpoint.tls ? (endpoint.tlsKey ?? 'tls') : 'plain'}`;
    const existing = this.pool.get(key);
    if (existing && !existing.dead) return existing;
    const conn = new ClientConnection(
      endpoint,
      this.options.maxFrame ?? CLIENT_MAX_FRAME,
      this.options.idleMs ?? 60_000,
      this.options.sender,
      () => {
        if (this.pool.get(key) === conn) this.pool.delete(key);
      },
    );
    this.pool.set(key, conn);
    return conn;
  }
}
