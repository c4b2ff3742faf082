/**
 * RemoteServer: answers NRPE queries (check_nrpe, our RemoteClient) with the
 * agent's own queries, from [/settings/remote/server].
 *
 * A peer runs only the queries `allowed queries` allows (default: all but
 * the client queries remote_* and agent_*, so the agent is no relay); the
 * core checks nested queries against the same list.
 *
 * Start, staged apply and stop are the listener modules' one skeleton
 * (modules/listener-module.ts): `apply(next)` takes allowed hosts, allowed queries, allow arguments, allow
 * nasty characters, payload length, timeout and submit channel in place; new
 * TLS files, CA, verify mode or ciphers apply to new connections on the same
 * port; a changed port, bind address or `use ssl` rebinds. Every part of the
 * change is switched only after the listener took it: a failed move keeps
 * the whole previous policy. A renewed certificate file is served without a
 * settings edit. `port = 0` lets the system pick a port (logged).
 *
 * Submissions (`_NRPE_SUBMIT!<alias>!<code>!<message>`) are taken only when
 * `submit channel` is set: each is put on that channel, logged as
 * `submission from <source>: <alias> <STATUS>: <message>` and kept (the
 * latest per alias and source) for the query `remote_submissions`, a JSON
 * list. The source is the verified client certificate's CN, else the peer
 * address.
 */
import type { ModuleContext } from '../module.js';
import { listenerModule } from '../listener-module.js';
import { listenerTlsFiles } from '../../settings/store/tls-checks.js';
import type { SettingsOf } from '../../settings/model/module-table.js';
import { startNrpeServer, type NrpePeer, type NrpeServerPolicy } from '../../protocols/nrpe/server.js';
import { NRPE_CHECK, NRPE_SUBMIT_COMMAND } from '../../protocols/nrpe/packet.js';
import { splitOutput, type QueryResult, type Status, parseStatus } from '../../core/result.js';
import { VERSION } from '../../version.js';
import { describeSubmission, SubmissionStore } from '../../core/submission-store.js';
import { ALLOWED_QUERIES, parseAllowList } from '../../formats/command-allow-list.js';
import { commandGuard, type GuardOptions } from '../../protocols/command-guard.js';
import { withLinkedSignal } from '../../abort-link.js';
import type { ServerTlsSpec } from '../../protocols/listener/server-tls.js';

const SECTION = '/settings/remote/server';
const SUBMIT_COMMAND = NRPE_SUBMIT_COMMAND;

type Settings = SettingsOf<'RemoteServer'>;

/** What the queries of a connection read besides the listener's policy: switched with it, only when a change was taken. */
interface QueryState {
  allowed: GuardOptions;
  submitChannel: string;
  unknownAnswer: 'agent' | 'nrpe';
}

export const agentModule = listenerModule<Settings, NrpeServerPolicy, QueryState>({
  name: 'RemoteServer',
  what: 'the NRPE server',
  counter: 'nrpe',
  policyOf: (view, hosts) => {
    const s = view.sections[SECTION];
    return {
      ...hosts,
      allowArguments: s['allow arguments'],
      allowNastyCharacters: s['allow nasty characters'],
      payloadLength: s['payload length'],
      timeoutMs: s.timeout * 1000,
    };
  },
  stateOf: (view, log) => {
    const s = view.sections[SECTION];
    return {
      allowed: { server: 'RemoteServer', section: SECTION, queries: parseAllowList(s[ALLOWED_QUERIES]), log },
      submitChannel: s['submit channel'],
      unknownAnswer: s['unknown command'],
    };
  },
  tlsSpecOf,
  serve: (ctx, state) => {
    const store = new SubmissionStore();
    const answer = nrpeAnswer(ctx, state, store);
    return {
      open: (a) =>
        startNrpeServer({
          ...a.policy,
          host: a.host,
          port: a.port,
          tls: a.tls,
          guard: a.guard,
          dataCommands: [SUBMIT_COMMAND],
          answer,
          log: ctx.log,
        }),
      started: (releases) =>
        releases.add(
          ctx.core.registerSimpleQuery(
            {
              name: 'remote_submissions',
              module: 'RemoteServer',
              title: 'Results submitted over NRPE',
              description:
                'The latest result submitted with _NRPE_SUBMIT (remote_submit) per command and source, as a JSON list in the message.',
            },
            async () => ({ result: 0, message: JSON.stringify(store.list()), perf: [] }),
          ),
        ),
    };
  },
});

/** The answer to an NRPE query: the check of the daemon itself, a submission, else the agent's query (each under the state in force). */
function nrpeAnswer(
  ctx: ModuleContext<Settings>,
  state: () => QueryState,
  store: SubmissionStore,
): (command: string, args: string[], peer: NrpePeer, gone: AbortSignal) => Promise<QueryResult> {
  const takeSubmission = async (args: string[], peer: NrpePeer): Promise<QueryResult> => {
    const [alias = '', code = '', ...rest] = args;
    const status: Status | undefined = parseStatus(code);
    const submitChannel = state().submitChannel;
    if (!submitChannel)
      return {
        command: SUBMIT_COMMAND,
        result: 3,
        message: 'This server does not accept submissions (submit channel is not set)',
        perf: [],
      };
    if (!alias || status === undefined)
      return {
        command: SUBMIT_COMMAND,
        result: 3,
        message: 'A submission needs an alias and a result code: _NRPE_SUBMIT!<alias>!<code>!<message>',
        perf: [],
      };
    const result: QueryResult = { command: alias, result: status, ...splitOutput(rest.join('!')) };
    for (const entry of store.keep([result], peer.certificate || peer.address, peer.address))
      ctx.log.info(describeSubmission(entry));
    const taken = await ctx.core.submit(submitChannel, [result], 'RemoteServer');
    return {
      command: SUBMIT_COMMAND,
      result: 0,
      message: `Submission of ${alias} accepted on channel ${submitChannel} (${taken} listener${taken === 1 ? '' : 's'})`,
      perf: [],
    };
  };

  return async (command, args, peer, gone) => {
    if (command === NRPE_CHECK)
      return { command, result: 0, message: `I (agent ${VERSION}) seem to be doing fine...`, perf: [] };
    if (command === SUBMIT_COMMAND) return takeSubmission(args, peer);
    const { allowed, unknownAnswer } = state();
    const allow = commandGuard(allowed, peer.address);
    // As the NRPE daemon words it, for peers that match on its text (unknown command = nrpe): nrpe knows only its commands.
    if (unknownAnswer === 'nrpe' && (!ctx.core.getQuery(command) || allow?.('query', command) !== undefined))
      return { command, result: 3, message: `NRPE: Command '${command}' not defined`, perf: [] };
    // Runs until the peer goes or the module stops.
    return withLinkedSignal([gone, ctx.signal], (signal) =>
      ctx.core.query(command, args, allow ? { signal, allow, channel: 'nrpe' } : { signal, channel: 'nrpe' }),
    );
  };
}

/** The TLS of these settings (protocols/listener/server-tls.ts); undefined without `use ssl`. */
function tlsSpecOf(view: Settings): ServerTlsSpec | undefined {
  const files = listenerTlsFiles(view, 'RemoteServer');
  if (!files) return undefined;
  const s = view.sections[SECTION];
  return {
    ...(files.pair ? { pair: files.pair } : {}),
    ...(files.ca !== undefined ? { ca: files.ca } : {}),
    verifyMode: s['verify mode'],
    verify: 'by-mode',
    ciphers: s['allowed ciphers'],
    dh: s.dh,
  };
}
