/**
 * The allow-lists of a protocol server (formats/command-allow-list.ts) as
 * the guard the core runs: `commandGuard` turns the lists of one server into
 * the `allow` function the core checks before it runs any query or exec
 * command, nested ones included (check_negate, check_multi, aliases run
 * through the same guard), so a refused name cannot be reached by wrapping
 * it. A refusal logs one line and answers a message naming the setting that
 * would allow it.
 */
import type { CommandFilter, CommandKind } from '../core/core.js';
import { formatMessage } from '../errors.js';
import { ALLOWED_EXECS, ALLOWED_QUERIES, type AllowList } from '../formats/command-allow-list.js';
import type { Logger } from '../log.js';
import { escapeForLog } from '../log.js';
import { PEER_EVENTS } from '../log-throttle.js';

export interface GuardOptions {
  /** Module name, for messages: `AgentServer`. */
  server: string;
  /** Settings section of the lists: `/settings/agent/server`. */
  section: string;
  queries: AllowList;
  /** Undefined: the protocol carries no exec commands. */
  execs?: AllowList;
  log: Logger;
}

/**
 * The guard for one peer: undefined for an allowed name, else the refusal
 * message (the refusal is logged with the peer's address). Answers
 * undefined as a whole when both lists allow everything, so the core skips
 * the check.
 */
export function commandGuard(options: GuardOptions, peer: string): CommandFilter | undefined {
  if (options.queries.everything && (options.execs === undefined || options.execs.everything)) return undefined;
  return (kind: CommandKind, name: string) => {
    const list = kind === 'query' ? options.queries : options.execs;
    if (list?.allows(name)) return undefined;
    const what = kind === 'query' ? 'query' : 'exec command';
    const key = kind === 'query' ? ALLOWED_QUERIES : ALLOWED_EXECS;
    PEER_EVENTS.warn(
      options.log,
      `refused ${what}`,
      peer,
      `refused ${what} ${escapeForLog(name)} from ${escapeForLog(peer)}: not in ${list ? key : 'any allow-list'} of [${options.section}]`,
    );
    if (!list) return `${what} ${name} cannot run over ${options.server}`;
    return formatMessage('AGENT_ERR_COMMAND_REFUSED', [what, name, options.server, key, options.section]);
  };
}
