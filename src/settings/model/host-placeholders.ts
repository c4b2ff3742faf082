/**
 * The host placeholders: `${hostname}` (the machine's name, or
 * $AGENT_HOSTNAME), `${host}` (up to the first dot), `${domain}` (after
 * it), each also as `_lc` / `_uc`. Include paths know them (includes.ts),
 * and so do keys the schema marks `x-host-placeholders` ([/settings/source] url).
 */
import { hostname as osHostname } from 'node:os';

/** The host placeholders of include paths, from $AGENT_HOSTNAME or the machine's name. */
export function hostPlaceholders(name = process.env.AGENT_HOSTNAME || osHostname()): Record<string, string> {
  const dot = name.indexOf('.');
  const host = dot < 0 ? name : name.slice(0, dot);
  const domain = dot < 0 ? '' : name.slice(dot + 1);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ hostname: name, host, domain })) {
    out[k] = v;
    out[`${k}_lc`] = v.toLowerCase();
    out[`${k}_uc`] = v.toUpperCase();
  }
  return out;
}
