/**
 * The answer of NSClientServer to one check_nt request: the password first
 * (a wrong or missing one, or none configured, is answered
 * `ERROR: Bad request.` as NSClient++ answers it, so the answer tells a
 * guesser nothing more), under the agent's one failed-login limit
 * (core/login-limit.ts, shared with the web server: a blocked address is
 * answered so without its password being checked), then `allow`, then the
 * command. CLIENTVERSION is
 * answered here; the others run the agent's queries (answers.ts says which)
 * and answer `ERROR: …` when the module that has the query is not enabled.
 * Every refusal is counted for the metrics (channel nsclient), as the NRPE
 * server does with its refusals, and logged with the peer: those about the
 * password at most one line a minute per address, with the count.
 */
import { VERSION } from '../../version.js';
import { withLinkedSignal } from '../../abort-link.js';
import type { Core } from '../../core/core.js';
import type { Logger } from '../../log.js';
import { escapeForLog } from '../../log.js';
import { escapeLog } from '../../log-escape.js';
import { WarningThrottle } from '../../log-throttle.js';
import { countRefusal } from '../../core/work-counters.js';
import { moduleOfQuery } from '../../settings/model/module-table.js';
import {
  BAD_REQUEST,
  NOT_ALLOWED,
  UNKNOWN_COMMAND,
  parseRequest,
  passwordMatches,
  type NsClientCommand,
} from '../../protocols/nsclient/request.js';
import { mapCommand, type MapOptions } from '../../protocols/nsclient/answers.js';

/** How the shared limit's log lines name this channel. */
const CHANNEL = 'the check_nt server';
/** Refusals a peer can repeat at will: a line a minute per address, with the count (log-throttle.ts). */
const NOTICES = new WarningThrottle();

/** What the requests read: switched with the listener's policy, only when a change was taken. */
export interface RequestState extends MapOptions {
  password: string;
  allowed: ReadonlySet<NsClientCommand>;
}

export interface RespondContext {
  core: Core;
  log: Logger;
  /** Aborted when the module stops. */
  signal: AbortSignal;
}

export async function respond(
  text: string,
  peerAddress: string,
  gone: AbortSignal,
  state: RequestState,
  c: RespondContext,
): Promise<string> {
  const peer = escapeLog(peerAddress || '?');
  const request = parseRequest(text);
  if (!request || state.password === '') {
    const why = !request ? 'not a check_nt request' : 'no password is configured';
    NOTICES.warn(c.log, why, peerAddress, `refused request from ${peer}: ${why}`);
    countRefusal('nsclient', request ? 'password' : 'bad request');
    return BAD_REQUEST;
  }
  // The agent's one failed-login limit (core/login-limit.ts): a blocked address is answered without checking.
  const attempt = c.core.logins.acquire(peerAddress);
  if (!attempt) {
    c.core.logins.noteBlocked(c.log, peerAddress, false, CHANNEL);
    countRefusal('nsclient', 'blocked');
    return BAD_REQUEST;
  }
  if (!passwordMatches(request.password, state.password)) {
    if (attempt.fail()) c.core.logins.noteBlocked(c.log, peerAddress, true, CHANNEL);
    NOTICES.warn(c.log, 'password', peerAddress, `refused request from ${peer}: wrong password`);
    countRefusal('nsclient', 'password');
    return BAD_REQUEST;
  }
  attempt.succeed();
  const command = request.command;
  if (command === undefined) {
    NOTICES.warn(
      c.log,
      'unknown command',
      peer,
      `refused request from ${peer}: unknown command code ${escapeForLog(request.code.slice(0, 20))}`,
    );
    countRefusal('nsclient', 'unknown command');
    return UNKNOWN_COMMAND;
  }
  if (!state.allowed.has(command)) {
    NOTICES.warn(c.log, 'not in allow', peer, `refused request from ${peer}: ${command.toUpperCase()} is not in allow`);
    countRefusal('nsclient', 'allow');
    return NOT_ALLOWED;
  }
  if (command === 'clientversion') return `agent ${VERSION}`;
  const mapped = mapCommand(command, request.args, state);
  if (typeof mapped === 'string') return mapped;
  if (!c.core.getQuery(mapped.query)) {
    const owner = moduleOfQuery(mapped.query)?.name ?? 'the module that has it';
    c.log.error(`${command.toUpperCase()} from ${peer}: ${mapped.query} is not loaded (enable ${owner} in [/modules])`);
    return `ERROR: ${mapped.query} is not loaded on this agent (enable ${owner})`;
  }
  // Cancelled when the peer goes or the module stops.
  const result = await withLinkedSignal([gone, c.signal], (signal) =>
    c.core.query(mapped.query, mapped.args, { signal, channel: 'nsclient' }),
  );
  return mapped.answer(result);
}
