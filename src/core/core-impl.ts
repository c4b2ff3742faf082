/**
 * The core implementation. Every query, exec command, submission, log entry
 * and settings lookup crosses the protobuf boundary: callers encode a plugin
 * message, handlers decode it and answer with an encoded message (a simple
 * query runs on the request queryRaw decoded, and its answer is encoded in
 * queryRaw's response: each message is encoded and decoded once). A handler
 * that throws or answers garbage yields an UNKNOWN result naming the
 * problem; it never takes the caller down.
 */
import { sliceSpent } from './work-slice.js';
import { withPatternScope } from '../formats/pattern-cost.js';
import { refusedAs } from './command-names.js';
import { countRefusal, observeQuery } from './work-counters.js';
import { errorMessage, formatMessage } from '../errors.js';
import { escapeForLog, sink } from '../log.js';
import { levelOf } from './log-level.js';
import {
  answerHeader,
  decode,
  encode,
  header,
  type Plugin,
  proto,
  resultToResponse,
  responseToResult,
} from './plugin/codec.js';
import { toStatus, type Status } from './result.js';
import type {
  CallOptions,
  Core,
  QueryInfo,
  RawChannelHandler,
  RawExecHandler,
  RawQueryHandler,
  SettingsHealth,
  SimpleExec,
  SimpleQuery,
} from './core.js';
import type { Snapshot } from '../settings/model/snapshot.js';
import { answerSettingsQuery } from './settings-query.js';
import { AuthRateLimiter, limitsReader } from './login-limit.js';
import { unknownQueryMessage } from './unknown-query.js';
import { simpleExecHandler, simpleQueryHandler, simpleRunOf, verified } from './simple-handlers.js';

interface Registered<H> {
  info: QueryInfo;
  handler: H;
}

export interface CoreOptions {
  settings: () => Snapshot;
  health?: () => SettingsHealth;
}
// long function: the core's methods share its registries in one closure
export function createCore(options: CoreOptions): Core {
  const queries = new Map<string, Registered<RawQueryHandler>>();
  const execs = new Map<string, Registered<RawExecHandler>>();
  const channels = new Map<string, { name: string; listeners: Set<{ module: string; handler: RawChannelHandler }> }>();
  const log = sink.logger('agent:core');
  const unknownQuery = (name: string): string => {
    let modules: Readonly<Partial<Record<string, boolean>>> | undefined;
    try {
      modules = options.settings().modules;
    } catch {
      modules = undefined;
    }
    return unknownQueryMessage(
      name,
      modules,
      [...queries.values()].map((q) => q.info.name),
    );
  };

  const register = <H>(map: Map<string, Registered<H>>, info: QueryInfo, handler: H): (() => void) => {
    const key = info.name.toLowerCase();
    const entry = { info, handler };
    map.set(key, entry);
    return () => {
      if (map.get(key) === entry) map.delete(key);
    };
  };

  // Its figures are the settings' in force (before the first settings: the schema's defaults).
  const logins = new AuthRateLimiter(limitsReader(options.settings));

  const core: Core = {
    logins,
    settingsHealth: () => options.health?.(),
    registerQuery: (info, handler) => register(queries, info, handler),
    registerSimpleQuery(info, fn: SimpleQuery) {
      return register(queries, info, simpleQueryHandler(fn));
    },
    listQueries: () => [...queries.values()].map((q) => q.info).sort((a, b) => a.name.localeCompare(b.name)),
    getQuery: (name) => queries.get(name.toLowerCase())?.info,

    async query(command, args = [], opts = {}) {
      const request = encode('QueryRequestMessage', {
        header: header(proto().Header.Type.QUERY_REQUEST),
        payload: [{ id: 1, command, arguments: [...args] }],
      });
      const response = decode('QueryResponseMessage', await core.queryRaw(request, opts));
      const first = response.payload[0];
      if (!first) return { command, result: 3, message: `query ${command} returned no result`, perf: [] };
      return responseToResult(first);
    },

    queryRaw: (bytes, opts = {}) => withPatternScope(() => queryAll(bytes, opts)),

    registerExec: (info, handler) => register(execs, info, handler),
    registerSimpleExec(info, fn: SimpleExec) {
      return register(execs, info, simpleExecHandler(fn));
    },
    listExecs: () => [...execs.values()].map((q) => q.info),

    async exec(command, args = []) {
      const request = encode('ExecuteRequestMessage', {
        header: header(proto().Header.Type.EXEC_REQUEST),
        payload: [{ id: 1, command, arguments: [...args] }],
      });
      const response = decode('ExecuteResponseMessage', await core.execRaw(request));
      const first = response.payload[0];
      if (!first) return { command, result: 3 as Status, message: `exec ${command} returned no result` };
      return { command: first.command, result: toStatus(first.result), message: first.message };
    },

    async execRaw(bytes, opts = {}) {
      const request = decode('ExecuteRequestMessage', bytes);
      const payload: Plugin.ExecuteResponseMessage.Response.$Properties[] = [];
      for (const p of request.payload) {
        const entry = execs.get(p.command.toLowerCase());
        const refused = refusedAs(opts.allow, 'exec', p.command, entry?.info);
        if (refused !== undefined) {
          payload.push({
            ...(p.id != null ? { id: p.id } : {}),
            command: p.command,
            arguments: p.arguments,
            result: proto().ResultCode.UNKNOWN,
            message: refused,
          });
          continue;
        }
        if (!entry) {
          payload.push({
            ...(p.id != null ? { id: p.id } : {}),
            command: p.command,
            arguments: p.arguments,
            result: proto().ResultCode.UNKNOWN,
            message: formatMessage('AGENT_ERR_QUERY_UNKNOWN', [p.command]),
          });
          continue;
        }
        try {
          const answer = decode(
            'ExecuteResponseMessage',
            await entry.handler(encode('ExecuteRequestMessage', { header: request.header, payload: [p] })),
          );
          payload.push(...answer.payload);
        } catch (err) {
          payload.push({
            ...(p.id != null ? { id: p.id } : {}),
            command: p.command,
            arguments: p.arguments,
            result: proto().ResultCode.UNKNOWN,
            message: `exec ${p.command} failed: ${errorMessage(err)}`,
          });
        }
      }
      return encode('ExecuteResponseMessage', {
        header: answerHeader(request.header, proto().Header.Type.EXEC_RESPONSE),
        payload,
      });
    },

    subscribe(channel, module, handler) {
      const key = channel.toLowerCase();
      let c = channels.get(key);
      if (!c) channels.set(key, (c = { name: channel, listeners: new Set() }));
      const entry = { module, handler };
      c.listeners.add(entry);
      return () => void c.listeners.delete(entry);
    },
    async submit(channel, results, sender) {
      const message = encode('SubmitResponseMessage', {
        header: header(proto().Header.Type.QUERY_RESPONSE, sender !== undefined ? { sender } : {}),
        payload: results.map((r) => resultToResponse(r)),
      });
      return core.submitRaw(channel, message);
    },
    async submitRaw(channel, message) {
      decode('SubmitResponseMessage', message);
      const c = channels.get(channel.toLowerCase());
      if (!c) return 0;
      let taken = 0;
      for (const l of [...c.listeners]) {
        try {
          await l.handler(message);
          taken++;
        } catch (err) {
          log.error(
            `channel ${escapeForLog(channel)}: ${l.module} failed to take a submission: ${escapeForLog(errorMessage(err))}`,
          );
        }
      }
      return taken;
    },
    listChannels: () =>
      [...channels.values()].map((c) => ({ name: c.name, modules: [...c.listeners].map((l) => l.module) })),

    logRaw(bytes) {
      const entry = decode('LogEntry', bytes);
      for (const e of entry.entry) {
        sink.write(levelOf(e.level), e.sender || 'agent:module', e.message ?? '', {
          ...(e.file ? { file: e.file } : {}),
          ...(e.line ? { line: e.line } : {}),
        });
      }
    },
    settingsRaw(bytes) {
      return answerSettingsQuery(options.settings(), bytes);
    },
    forModule: (sections) => confined(sections),
  };
  async function queryAll(bytes: Uint8Array, opts: CallOptions): Promise<Uint8Array> {
    const request = decode('QueryRequestMessage', bytes);
    const payload: Plugin.QueryResponseMessage.Response.$Properties[] = [];
    for (const p of request.payload) {
      // Many quick queries would otherwise run as one chain of microtasks, holding every socket of
      // the agent until the last: let I/O in once the slice is spent (and stop once nobody waits).
      if (request.payload.length > 1 && sliceSpent()) {
        await new Promise((resolve) => setImmediate(resolve));
        opts.signal?.throwIfAborted();
      }
      const entry = queries.get(p.command.toLowerCase());
      const refused = refusedAs(opts.allow, 'query', p.command, entry?.info);
      if (refused !== undefined) {
        if (opts.channel) countRefusal(opts.channel, 'allowed queries');
        payload.push(
          resultToResponse({ command: p.command, result: 3, message: refused, perf: [] }, p.id ?? undefined),
        );
        continue;
      }
      if (!entry) {
        if (opts.channel) observeQuery(opts.channel, 'unknown', 0, 3);
        payload.push(
          resultToResponse(
            { command: p.command, result: 3, message: unknownQuery(p.command), perf: [] },
            p.id ?? undefined,
          ),
        );
        continue;
      }
      const started = opts.channel ? performance.now() : 0;
      try {
        // A simple query (registerSimpleQuery) runs on the request decoded here; its answer is encoded with the others below.
        const simple = simpleRunOf(entry.handler);
        if (simple) {
          payload.push(verified(await simple(p, opts)));
          continue;
        }
        // Each handler sees a request holding only its payload; a one-payload request already is one.
        const single =
          request.payload.length === 1
            ? bytes
            : encode('QueryRequestMessage', { header: request.header, payload: [p] });
        const answer = decode('QueryResponseMessage', await entry.handler(single, opts));
        if (answer.payload.length === 0) throw new Error('the handler answered no payload');
        payload.push(...answer.payload);
      } catch (err) {
        const message = formatMessage('AGENT_ERR_QUERY_FAILED', [p.command, errorMessage(err)]);
        // The command and the handler's error may hold what a peer sent.
        log.error(escapeForLog(message));
        payload.push(resultToResponse({ command: p.command, result: 3, message, perf: [] }, p.id ?? undefined));
      } finally {
        if (opts.channel)
          observeQuery(
            opts.channel,
            entry.info.name,
            (performance.now() - started) / 1000,
            toStatus(payload.at(-1)?.result ?? 3),
          );
      }
    }
    return encode('QueryResponseMessage', {
      header: answerHeader(request.header, proto().Header.Type.QUERY_RESPONSE),
      payload,
    });
  }

  /** The core with settings lookups confined to `scope`; narrowing it again only ever narrows. */
  function confined(scope: readonly string[]): Core {
    const own = new Set(scope.map((s) => s.toLowerCase()));
    return {
      ...core,
      settingsRaw: (bytes: Uint8Array) => answerSettingsQuery(options.settings(), bytes, scope),
      forModule: (sections) => confined(sections.filter((s) => own.has(s.toLowerCase()))),
    };
  }

  return core;
}
