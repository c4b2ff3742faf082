/**
 * `allowed hosts` with host names, for the listeners: the list is parsed at
 * once (addresses and ranges work from the first connection), and each
 * name is resolved (every A and AAAA address, as getaddrinfo gives them)
 * when the list is made, which the servers do at start and on each reload.
 * A name that does not resolve allows nobody and is logged as a warning
 * naming it; the next reload tries again. Until its lookup has answered,
 * a name matches nothing (fail closed). `ready` settles when every lookup
 * has, bounded by `timeoutMs`.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIPv4 } from 'node:net';
import { isAllowed, parseAllowedHosts, type HostMatcher } from '../formats/allowed-hosts.js';
import { inRange } from '../in-range.js';

export type Lookup = (name: string) => Promise<string[]>;

const systemLookup: Lookup = async (name) =>
  (await lookup(name, { all: true, order: 'verbatim' })).map((a) => a.address);

export interface AllowedHosts {
  isAllowed(address: string | undefined): boolean;
  /** Settles when every name has been looked up (or given up on). */
  readonly ready: Promise<void>;
}

export function allowedHosts(
  list: string,
  warn: (message: string) => void,
  options: { lookup?: Lookup; timeoutMs?: number } = {},
): AllowedHosts {
  const { matchers, problems } = parseAllowedHosts(list);
  for (const p of problems) warn(p);
  let current: readonly HostMatcher[] = matchers;
  const names = matchers.filter((m) => m.kind === 'name');
  const find = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? 5000;
  const resolveOne = async (m: HostMatcher): Promise<HostMatcher> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const addresses = await Promise.race([
        find(m.text),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      const resolved = new BlockList();
      for (const a of addresses) resolved.addAddress(a, isIPv4(a) ? 'ipv4' : 'ipv6');
      return { kind: 'net', text: m.text, list: resolved };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      warn(`allowed hosts entry "${m.text}" does not resolve (${code}): it allows nobody until a reload resolves it`);
      return m;
    } finally {
      clearTimeout(timer);
    }
  };
  const ready =
    names.length === 0
      ? Promise.resolve()
      : Promise.all(names.map(resolveOne)).then((done) => {
          const byText = new Map<HostMatcher, HostMatcher>(names.map((n, i) => [n, inRange(done, i)]));
          // A new list (not the same array changed): answers remembered for the old one do not carry over.
          current = matchers.map((m) => byText.get(m) ?? m);
        });
  return { isAllowed: (address) => isAllowed(current, address), ready };
}
