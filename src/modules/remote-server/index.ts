/**
 * RemoteServer: answers NRPE queries (check_nrpe, our RemoteClient) with the
 * agent's own queries, from [/settings/remote/server].
 *
 * A peer runs only the queries `allowed queries` allows (default: all but
 * the client queries remote_* and agent_*, so the agent is no relay); the
 * core checks nested queries against the same list.
 *
 * `apply(next)` takes allowed hosts, allowed queries, allow arguments, allow nasty
 * characters, payload length, timeout and submit channel in place. A changed
 * port, bind address or TLS setting rebinds: the new listener starts before
 * the old one closes (when both use the same address the old one closes
 * first, since the port cannot be bound twice).
 *
 * Submissions (`_NRPE_SUBMIT!<alias>!<code>!<message>`) are taken only when
 * `submit channel` is set: each is put on that channel, logged as
 * `submission from <source>: <alias> <STATUS>: <message>` and kept (the
 * latest per alias and source) for the query `remote_submissions`, a JSON
 * list. The source is the verified client certificate's CN, else the peer
 * address.
 */
import type { TlsOptions } from 'node:tls';
import type { AgentModule, ModuleContext } from '../module.js';
import { rebind } from '../rebind.js';
import { assertTlsFiles, listenerTlsFiles } from '../../settings/tls-checks.js';
import { checkPair } from '../../formats/tls-files.js';
import { errorMessage } from '../../errors.js';
import type { SettingsOf } from '../../settings/module-table.js';
import { fallbackSource } from '../../settings/module-view.js';
import { allowedHosts } from '../../protocols/allowed-host-names.js';
import { startNrpeServer, type NrpePeer, type NrpeServer, type NrpeServerPolicy } from '../../protocols/nrpe/server.js';
import { buildServerTls } from '../../protocols/nrpe/tls.js';
import { NRPE_CHECK, NRPE_SUBMIT_COMMAND } from '../../protocols/nrpe/packet.js';
import { splitOutput, type QueryResult, type Status, parseStatus } from '../../core/result.js';
import { VERSION } from '../../version.js';
import { describeSubmission, SubmissionStore } from '../../core/submission-store.js';
import { ALLOWED_QUERIES, parseAllowList } from '../../formats/command-allow-list.js';
import { commandGuard, type GuardOptions } from '../../protocols/command-guard.js';
import { withLinkedSignal } from '../../abort-link.js';

const SECTION = '/settings/remote/server';
const SUBMIT_COMMAND = NRPE_SUBMIT_COMMAND;

type Settings = SettingsOf<'RemoteServer'>;

export function createModule(): AgentModule<Settings> {
  let ctx: ModuleContext<Settings> | undefined;
  let server: NrpeServer | undefined;
  let listenerKey = '';
  /** The settings the listener runs on (for reopening it after a failed move). */
  let applied: Settings | undefined;
  let submitChannel = '';
  let unknownAnswer: 'agent' | 'nrpe' = 'agent';
  let allowed: GuardOptions;
  const allowOf = (view: Settings): GuardOptions => ({
    server: 'RemoteServer',
    section: SECTION,
    queries: parseAllowList(view.sections[SECTION][ALLOWED_QUERIES]),
    log: ctx!.log,
  });
  const store = new SubmissionStore();
  const cleanup: (() => void)[] = [];

  let hostsReady: Promise<void> = Promise.resolve();
  const policyOf = (view: Settings): NrpeServerPolicy => {
    const s = view.sections[SECTION];
    const from = fallbackSource(view, SECTION, 'allowed hosts');
    // Host names are resolved now (start, reload); `hostsReady` lets start wait for them.
    const hosts = allowedHosts(s['allowed hosts'], (p) => ctx!.log.warning(`${from}: ${p}`));
    hostsReady = hosts.ready;
    return {
      isAllowed: (address) => hosts.isAllowed(address),
      allowedHostsFrom: from,
      allowArguments: s['allow arguments'],
      allowNastyCharacters: s['allow nasty characters'],
      payloadLength: s['payload length'],
      timeoutMs: s.timeout * 1000,
      maxConnections: s['max connections'],
      maxPerAddress: s['max connections per address'],
    };
  };

  /**
   * TLS options with every file read and checked; undefined for plain. A
   * problem of the files throws the lines `agent settings validate` prints
   * (TlsFilesError, settings/tls-checks.ts).
   */
  const tlsOf = (view: Settings): TlsOptions | undefined => {
    const s = view.sections[SECTION];
    const files = listenerTlsFiles(view, 'RemoteServer');
    if (!files) return undefined;
    assertTlsFiles(view, 'RemoteServer');
    const pair = files.pair ? checkPair(files.pair) : undefined;
    return buildServerTls({
      allowedCiphers: s['allowed ciphers'],
      certificate: files.pair?.cert ?? '',
      // The file the checked key came from (the certificate file when it holds the key).
      certificateKey: pair?.ok && 'keyFile' in pair ? pair.keyFile : '',
      ca: files.ca ?? '',
      verifyMode: s['verify mode'],
      dh: s.dh,
    });
  };

  const listen = async (view: Settings, tls: TlsOptions | undefined): Promise<NrpeServer> => {
    const s = view.sections[SECTION];
    const srv = await startNrpeServer({
      ...policyOf(view),
      host: s['bind to'],
      port: s.port,
      tls,
      dataCommands: [SUBMIT_COMMAND],
      answer,
      log: ctx!.log,
    });
    const a = srv.address();
    ctx!.log.info(`listening on ${a.address}:${a.port} (${tls ? 'TLS' : 'plain'})`);
    return srv;
  };

  const answer = async (command: string, args: string[], peer: NrpePeer, gone: AbortSignal): Promise<QueryResult> => {
    if (command === NRPE_CHECK) return { command, result: 0, message: `I (agent ${VERSION}) seem to be doing fine...`, perf: [] };
    if (command === SUBMIT_COMMAND) return takeSubmission(args, peer);
    const allow = commandGuard(allowed, peer.address);
    // As the NRPE daemon words it, for peers that match on its text (unknown command = nrpe): nrpe knows only its commands.
    if (unknownAnswer === 'nrpe' && (!ctx!.core.getQuery(command) || allow?.('query', command) !== undefined)) return { command, result: 3, message: `NRPE: Command '${command}' not defined`, perf: [] };
    // Runs until the peer goes or the module stops.
    return withLinkedSignal([gone, ctx!.signal], (signal) => ctx!.core.query(command, args, allow ? { signal, allow, channel: 'nrpe' } : { signal, channel: 'nrpe' }));
  };

  const takeSubmission = async (args: string[], peer: NrpePeer): Promise<QueryResult> => {
    const [alias = '', code = '', ...rest] = args;
    const status: Status | undefined = parseStatus(code);
    if (!submitChannel) return { command: SUBMIT_COMMAND, result: 3, message: 'This server does not accept submissions (submit channel is not set)', perf: [] };
    if (!alias || status === undefined) return { command: SUBMIT_COMMAND, result: 3, message: 'A submission needs an alias and a result code: _NRPE_SUBMIT!<alias>!<code>!<message>', perf: [] };
    const result: QueryResult = { command: alias, result: status, ...splitOutput(rest.join('!')) };
    for (const entry of store.keep([result], peer.certificate || peer.address, peer.address)) ctx!.log.info(describeSubmission(entry));
    const taken = await ctx!.core.submit(submitChannel, [result], 'RemoteServer');
    return { command: SUBMIT_COMMAND, result: 0, message: `Submission of ${alias} accepted on channel ${submitChannel} (${taken} listener${taken === 1 ? '' : 's'})`, perf: [] };
  };

  return {
    name: 'RemoteServer',
    async start(context) {
      ctx = context;
      allowed = allowOf(context.settings);
      listenerKey = keyOf(context.settings);
      submitChannel = context.settings.sections[SECTION]['submit channel'];
      unknownAnswer = context.settings.sections[SECTION]['unknown command'];
      applied = context.settings;
      const tls = tlsOf(context.settings);
      // Given up (time limit, agent stopping): open nothing.
      context.signal.throwIfAborted();
      server = await listen(context.settings, tls);
      // Names in allowed hosts answer before the module counts as started (each lookup is bounded).
      await hostsReady;
      // Given up while binding: the runner stops this instance (closing the listener); register nothing.
      context.signal.throwIfAborted();
      cleanup.push(
        context.core.registerSimpleQuery(
          {
            name: 'remote_submissions',
            module: 'RemoteServer',
            title: 'Results submitted over NRPE',
            description: 'The latest result submitted with _NRPE_SUBMIT (remote_submit) per command and source, as a JSON list in the message.',
          },
          async () => ({ result: 0, message: JSON.stringify(store.list()), perf: [] }),
        ),
      );
    },
    async apply(next) {
      allowed = allowOf(next);
      submitChannel = next.sections[SECTION]['submit channel'];
      unknownAnswer = next.sections[SECTION]['unknown command'];
      const key = keyOf(next);
      if (server === undefined) return false;
      if (key === listenerKey) {
        server.setPolicy(policyOf(next));
        applied = next;
        return true;
      }
      const previous = applied as Settings;
      const sameAddress = addressOf(next) === addressOf(previous);
      const samePort = next.sections[SECTION].port === previous.sections[SECTION].port;
      const current = server;
      const s = next.sections[SECTION];
      try {
        const how = await rebind<NrpeServer, TlsOptions | undefined>(current, {
          target: `the NRPE server to ${s['bind to'] || '*'}:${s.port} (${s['use ssl'] ? 'TLS' : 'plain'})`,
          load: () => tlsOf(next),
          // Same address, TLS before and after: new certificate, CA, verify mode or ciphers for new connections.
          swap: (tls) => sameAddress && current.setTls(tls),
          samePort,
          open: (tls) => listen(next, tls),
          reopen: () => listen(previous, tlsOf(previous)),
          close: (old) => old.close(),
          adopt: (srv) => {
            server = srv;
          },
        });
        if (how === 'swapped') ctx!.log.info('new TLS settings for new connections');
      } catch (err) {
        ctx!.log.error(errorMessage(err));
        throw err;
      }
      (server as NrpeServer | undefined)?.setPolicy(policyOf(next));
      listenerKey = key;
      applied = next;
      return true;
    },
    async stop() {
      for (const c of cleanup.splice(0)) c();
      await server?.close();
      server = undefined;
    },
  };
}

/** The settings that need a new listener when they change. */
function keyOf(view: Settings): string {
  const s = view.sections[SECTION];
  return JSON.stringify([s.port, s['bind to'], s['use ssl'], s.certificate, s['certificate key'], s.ca, s['verify mode'], s['allowed ciphers'], s.dh]);
}

function addressOf(view: Settings): string {
  const s = view.sections[SECTION];
  return `${s['bind to']}:${s.port}`;
}
