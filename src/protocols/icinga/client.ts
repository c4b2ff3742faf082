/**
 * Icinga 2's REST API, the one action passive checks need, in the form
 * NSClient++'s IcingaClient posts it: `POST /v1/actions/process-check-result`
 * with `type` (Service, or Host for a host check result), `filter`
 * (`host.name=="h" && service.name=="s"`: the names as users see them,
 * whatever apply rule made the object), `exit_status` (0-3; a host takes
 * only 0 UP or 1 DOWN, so anything but OK is DOWN), `plugin_output`,
 * `performance_data` and `check_source`. Authenticated as an ApiUser over
 * TLS whose certificate is always verified (against `ca`, Icinga's own CA,
 * or the system's CAs) and must name the server.
 *
 * Connections are kept alive per endpoint (one https.Agent each), so a
 * batch costs one handshake. `timeoutMs` bounds the whole request, from
 * asking for a connection to the last byte of the answer: a server that
 * trickles its answer a byte at a time is cut off at the deadline, not
 * only one that goes quiet. A 2xx answer whose result code is 200 counts
 * as taken. A 4xx other than 408 and 429 (no permission, bad request) and
 * a 500 with no result at all (Icinga 2.13's answer when the filter
 * matches no object) reject with `permanent: true`: retrying cannot help. Everything else
 * (refused, timeout, TLS failure, 5xx) rejects to be retried.
 */
import * as https from 'node:https';
import { isIP } from 'node:net';
import { AgentError, errorMessage } from '../../errors.js';
import { describeSocketError } from '../client-errors.js';
import { escapeForLog } from '../../log.js';
import { hostState } from '../../core/result.js';

export interface IcingaEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  /** PEM text of the CA certificates to trust; undefined: the system's. */
  ca?: string | undefined;
  /** Name the certificate must carry; default the host. */
  serverName?: string | undefined;
  timeoutMs: number;
}

export interface IcingaCheckResult {
  host: string;
  /** Empty for a host check result. */
  service: string;
  exitStatus: number;
  output: string;
  performanceData: readonly string[];
  checkSource: string;
}

export const ICINGA_PORT = 5665;

const agents = new Map<string, https.Agent>();

/** Posts one check result; see the file comment for what rejects how. */
export async function processCheckResult(e: IcingaEndpoint, r: IcingaCheckResult, signal?: AbortSignal): Promise<void> {
  const where = `${e.host}:${e.port}`;
  const body = checkResultBody(r);
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = https.request(
      {
        host: e.host,
        port: e.port,
        method: 'POST',
        path: '/v1/actions/process-check-result',
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          Authorization: `Basic ${Buffer.from(`${e.user}:${e.password}`).toString('base64')}`,
        },
        agent: agentFor(e),
        timeout: e.timeoutMs,
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 65536) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${e.timeoutMs / 1000} s`)));
    // The socket's timeout above measures silence only; this one the whole request.
    const deadline = setTimeout(
      () => req.destroy(new Error(`no complete answer within ${e.timeoutMs / 1000} s`)),
      e.timeoutMs,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.end(body);
  }).catch((err: unknown) => {
    const e2 = err as NodeJS.ErrnoException;
    throw new AgentError('AGENT_ERR_ICINGA_SEND', [where, e2.code ? describeSocketError(e2) : errorMessage(err)]);
  });
  const detail = statusText(answer.text);
  if (answer.status >= 200 && answer.status < 300 && detail.ok) return;
  // Icinga 2.13 answers a filter that matches no object with 500 and an empty result list.
  const noObject = detail.empty && answer.status === 500;
  const text = noObject
    ? `no ${r.service === '' ? `host ${r.host}` : `service ${r.host}!${r.service}`} (HTTP 500, no object matched)`
    : `HTTP ${answer.status}: ${detail.text.slice(0, 300)}`;
  const err = new AgentError('AGENT_ERR_ICINGA_SEND', [where, escapeForLog(text)]);
  if (noObject || (answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429))
    Object.assign(err, { permanent: true });
  throw err;
}

/** The JSON body of process-check-result for one result. */
export function checkResultBody(r: IcingaCheckResult): string {
  const isHost = r.service === '';
  const quote = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return JSON.stringify({
    type: isHost ? 'Host' : 'Service',
    filter: isHost ? `host.name==${quote(r.host)}` : `host.name==${quote(r.host)} && service.name==${quote(r.service)}`,
    exit_status: isHost ? hostState(r.exitStatus) : r.exitStatus,
    plugin_output: r.output,
    ...(r.performanceData.length > 0 ? { performance_data: r.performanceData } : {}),
    ...(r.checkSource !== '' ? { check_source: r.checkSource } : {}),
  });
}

/** Drops the kept-alive connections of every endpoint (module stop). */
export function closeIcingaConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

function agentFor(e: IcingaEndpoint): https.Agent {
  const key = JSON.stringify([e.host, e.port, e.ca ?? null, e.serverName ?? null]);
  let agent = agents.get(key);
  if (!agent) {
    // The name checked against the certificate; SNI carries it only when it is a name (RFC 6066 forbids addresses there).
    const name = e.serverName || e.host;
    agent = new https.Agent({
      keepAlive: true,
      maxSockets: 4,
      rejectUnauthorized: true,
      ...(e.ca !== undefined ? { ca: e.ca } : {}),
      ...(isIP(name) === 0 ? { servername: name } : {}),
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Icinga answers `{"results":[{"code":200,"status":"..."}]}` or `{"error":404,"status":"No objects found."}`. */
function statusText(text: string): { ok: boolean; empty: boolean; text: string } {
  try {
    const j = JSON.parse(text) as { results?: { code?: number; status?: string }[]; status?: string };
    const first = j.results?.[0];
    if (first) return { ok: first.code === 200, empty: false, text: first.status ?? text };
    return { ok: false, empty: Array.isArray(j.results), text: j.status ?? text };
  } catch {
    return { ok: false, empty: false, text };
  }
}
