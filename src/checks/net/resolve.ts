/**
 * Name resolution for the network checks without getaddrinfo: Node's
 * dns.lookup runs the system resolver on libuv's four worker threads, where
 * a slow DNS server stalls file reads of the whole agent and the call cannot
 * be abandoned. Here an IP address is used as it is, a name is looked up in
 * /etc/hosts (read asynchronously, reread when it changes), then asked of
 * the resolv.conf servers through c-ares (dns.promises.Resolver), which runs
 * on the event loop and is cancelled when the deadline passes.
 */
import { isIP } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { Resolver } from 'node:dns/promises';
import { ResolveError } from './net-context.js';

export type Family = 0 | 4 | 6;

let hostsCache: { file: string; mtime: number; map: Map<string, string[]> } | undefined;

/** Addresses of `name` in a hosts file (lower-cased names), in file order. */
async function hostsFile(file: string): Promise<Map<string, string[]>> {
  try {
    const st = await stat(file);
    if (hostsCache && hostsCache.file === file && hostsCache.mtime === st.mtimeMs) return hostsCache.map;
    const map = new Map<string, string[]>();
    for (const raw of (await readFile(file, 'utf8')).split('\n')) {
      const [addr, ...names] = raw.replace(/#.*/, '').trim().split(/\s+/);
      if (!addr || isIP(addr) === 0) continue;
      for (const n of names) {
        const key = n.toLowerCase();
        map.set(key, [...(map.get(key) ?? []), addr]);
      }
    }
    hostsCache = { file, mtime: st.mtimeMs, map };
    return map;
  } catch {
    return new Map();
  }
}

export interface ResolveOptions {
  family?: Family;
  signal: AbortSignal;
  timeoutMs: number;
  /** For tests: another hosts file. */
  hostsPath?: string;
  /** For tests: DNS servers instead of resolv.conf's (`127.0.0.1:5353`). */
  servers?: string[];
}

/** The first address of `host` in the wanted family; throws ResolveError when there is none. */
export async function resolveHost(host: string, options: ResolveOptions): Promise<{ address: string; family: 4 | 6 }> {
  const want = options.family ?? 0;
  const literal = isIP(host.replace(/^\[(.*)\]$/, '$1'));
  if (literal !== 0) {
    const address = host.replace(/^\[(.*)\]$/, '$1');
    if (want !== 0 && want !== literal) throw new ResolveError(`${host} is not an IPv${want} address`);
    return { address, family: literal as 4 | 6 };
  }
  const listed = (await hostsFile(options.hostsPath ?? '/etc/hosts')).get(host.toLowerCase());
  const fromHosts = listed?.find((a) => want === 0 || isIP(a) === want);
  if (fromHosts) return { address: fromHosts, family: isIP(fromHosts) as 4 | 6 };
  options.signal.throwIfAborted();
  const resolver = new Resolver({ timeout: Math.max(1, Math.min(options.timeoutMs, 30_000)), tries: 1 });
  if (options.servers) resolver.setServers(options.servers);
  const cancel = (): void => resolver.cancel();
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    const errors: string[] = [];
    for (const fam of want === 0 ? ([4, 6] as const) : [want]) {
      try {
        const found = fam === 4 ? await resolver.resolve4(host) : await resolver.resolve6(host);
        if (found[0]) return { address: found[0], family: fam };
      } catch (err) {
        if (options.signal.aborted) throw err;
        errors.push((err as NodeJS.ErrnoException).code ?? (err as Error).message);
      }
    }
    throw new ResolveError(`cannot resolve ${host}${errors.length ? ` (${[...new Set(errors)].join(', ')})` : ''}`);
  } finally {
    options.signal.removeEventListener('abort', cancel);
  }
}
