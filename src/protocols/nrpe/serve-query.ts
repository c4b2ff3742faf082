/**
 * One connection of the NRPE server (server.ts): read one packet, check it
 * (type, arguments, nasty characters), ask for the answer with a signal
 * that aborts when the peer goes, write one response of the same version
 * and close. A bad packet is dropped and logged; a refused query is
 * answered UNKNOWN with the reason.
 */
import type * as net from 'node:net';
import { errorMessage } from '../../errors.js';
import { escapeForLog, sink, type Logger } from '../../log.js';
import { toNagios, type QueryResult } from '../../core/result.js';
import { escapeLog } from '../../log-escape.js';
import { countRefusal } from '../../core/work-counters.js';
import { PacketReader } from './packet-reader.js';
import { peerGone } from '../listener/peer-gone.js';
import {
  encodePacket,
  NRPE_MAX_BUFFER,
  parseRequest,
  QUERY_PACKET,
  RESPONSE_PACKET,
  type NrpePacket,
} from './packet.js';
import type { NrpePeer, NrpeServerOptions, NrpeServerPolicy } from './server-types.js';
import { faultKind, PEER_EVENTS } from '../../log-throttle.js';

/** Characters refused in queries unless `allowNastyCharacters` (those of the NRPE daemon). */
export const NASTY_CHARACTERS = "|`&><'\\[]{};\r\n";
const NASTY = /[|`&><'\\[\]{};\r\n]/;

export function handleConnection(
  socket: net.Socket,
  from: NrpePeer,
  policy: NrpeServerPolicy,
  options: NrpeServerOptions,
  log: Logger,
  served: () => void,
): void {
  const peer = escapeLog(socket.remoteAddress ?? '?');
  const reader = new PacketReader({ payloadLength: policy.payloadLength, maxBufferLength: NRPE_MAX_BUFFER });
  let done = false;
  // Until the query is complete the guard's first-request deadline (counted from the accept) applies.
  socket.on('error', (err) => log.debug(`connection from ${peer}: ${err.message}`));
  const onData = (chunk: Buffer): void => {
    if (done) return;
    reader.push(chunk);
    let packet: NrpePacket | undefined;
    try {
      packet = reader.next();
    } catch (err) {
      done = true;
      const why = errorMessage(err);
      PEER_EVENTS.warn(log, faultKind('nrpe-dropped', why), peer, `dropped ${peer}: ${escapeForLog(why)}`);
      socket.destroy();
      return;
    }
    if (packet === undefined) return;
    done = true;
    served();
    socket.off('data', onData);
    // Reading goes on (whatever else the peer sends is dropped) so that its leaving is seen: the
    // close aborts the query, which kills its script or closes its probe's socket.
    const gone = peerGone(socket, peer);
    socket.on('data', () => undefined);
    // From here the listener's idle rule: the answer (the check included) is written within the timeout.
    socket.setTimeout(policy.timeoutMs, () => socket.destroy());
    void respond(socket, from, packet, policy, options, log, gone).catch((err: unknown) => {
      log.error(`answering ${peer} failed: ${escapeForLog(errorMessage(err))}`);
      socket.destroy();
    });
  };
  socket.on('data', onData);
}

async function respond(
  socket: net.Socket,
  from: NrpePeer,
  packet: NrpePacket,
  policy: NrpeServerPolicy,
  options: NrpeServerOptions,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const peer = escapeLog(socket.remoteAddress ?? '?');
  if (packet.type !== QUERY_PACKET) {
    PEER_EVENTS.warn(log, 'nrpe-dropped', peer, `dropped ${peer}: packet type ${packet.type} is not a query`);
    socket.destroy();
    return;
  }
  const text = packet.text.toString('utf8');
  const { command, args } = parseRequest(text);
  let result: Pick<QueryResult, 'result' | 'message' | 'perf'>;
  const isData = options.dataCommands?.includes(command) === true;
  if (command === '') {
    PEER_EVENTS.warn(log, 'nrpe-dropped', peer, `dropped ${peer}: empty query`);
    socket.destroy();
    return;
  } else if (!isData && args.length > 0 && !policy.allowArguments) {
    PEER_EVENTS.warn(
      log,
      'nrpe-refused',
      peer,
      `refused query ${escapeForLog(command)} from ${peer}: it has arguments and allow arguments is off`,
    );
    countRefusal('nrpe', 'allow arguments');
    result = refusal(`Request contained arguments, which this server does not allow (allow arguments = false)`);
  } else if (!isData && !policy.allowNastyCharacters && NASTY.test(text)) {
    PEER_EVENTS.warn(
      log,
      'nrpe-refused',
      peer,
      `refused query ${escapeForLog(command)} from ${peer}: it contains characters refused while allow nasty characters is off`,
    );
    countRefusal('nrpe', 'allow nasty characters');
    // Named without a literal `|`: check_nrpe and our client would read all after it as perf data.
    result = refusal(
      `Request contained illegal characters (one of ${NASTY_CHARACTERS.replace(/[|\r\n]/g, '')}, the vertical bar or a line break); allow nasty characters = false`,
    );
  } else {
    const started = performance.now();
    try {
      result = await options.answer(command, args, from, signal);
    } catch (err) {
      result = refusal(`${command} failed: ${errorMessage(err)}`);
    }
    // One line per query only when debug output is asked for: otherwise a busy server would push
    // every other entry out of the log buffer (and each kept record costs the garbage collector).
    if (sink.consoleLevel === 'debug')
      log.debug(`${peer} ${escapeForLog(command)}: status ${result.result} in ${performance.now() - started} ms`);
  }
  if (socket.destroyed) return;
  const response = encodePacket({
    version: packet.version,
    type: RESPONSE_PACKET,
    result: result.result,
    // The text must fit the packet (v2: payload length less the NUL; v3/v4: the
    // 64 KiB buffer): toNagios cuts the long text, never the first line's perf data.
    text: toNagios(result, (packet.version === 2 ? policy.payloadLength : NRPE_MAX_BUFFER) - 1),
    payloadLength: policy.payloadLength,
  });
  // One write, then close: check_nrpe over TLS waits for the close.
  socket.end(response);
}

function refusal(message: string): Pick<QueryResult, 'result' | 'message' | 'perf'> {
  return { result: 3, message, perf: [] };
}
