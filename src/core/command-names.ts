/**
 * The names a command goes by, for the allow-lists: a peer may write a
 * refused check as a legacy name (`checkProcState` runs check_process), in
 * another case, or through an alias, so the allow-list is asked about the
 * command under each of them (issue 37, item 3).
 */
import type { CommandFilter, CommandKind, QueryInfo } from './core.js';

/**
 * The allow-list's refusal of a command under any name it goes by: as
 * written, as registered, and what it runs (the check behind a legacy name,
 * the query an alias runs), so another spelling of a refused command is
 * refused too; undefined when every name is allowed.
 */
export function refusedAs(
  allow: CommandFilter | undefined,
  kind: CommandKind,
  written: string,
  info: QueryInfo | undefined,
): string | undefined {
  if (!allow) return undefined;
  for (const name of new Set([written, info?.name, info?.runs, info?.aliasOf])) {
    const refused = name === undefined ? undefined : allow(kind, name);
    if (refused !== undefined) return refused;
  }
  return undefined;
}
