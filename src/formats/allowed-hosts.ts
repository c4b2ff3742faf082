/**
 * `allowed hosts` matching, shared by every server (remote, agent, web).
 *
 * The setting is a comma list. Each entry is one of:
 * - a numeric IPv4 or IPv6 address, optionally with a `/bits` netmask
 *   (`10.0.0.0/8`, `fd00::/8`; without a mask the whole address must match);
 * - an IPv4 `*` range such as `10.0.*.*`, where a `*` octet matches any octet;
 * - `localhost`, which stands for `127.0.0.1` and `::1`;
 * - a host name (`poller.example.com`), kept as a `name` matcher that
 *   matches nothing until the servers resolve it (src/protocols/
 *   allowed-host-names.ts, at start and on each reload, as nrpe resolves
 *   its allowed_hosts when it reads its configuration).
 *
 * An empty list allows nobody (fail closed); `0.0.0.0/0` allows every IPv4
 * peer and `::/0` every IPv6 peer. An IPv4-mapped IPv6 peer
 * (`::ffff:127.0.0.1`) matches IPv4 entries, and an IPv4 peer matches the
 * `::ffff:a.b.c.d` form of IPv6 entries.
 */
import { BlockList, isIPv4 } from 'node:net';

/**
 * One parsed entry of the list: addresses and subnets go to a node:net
 * BlockList (used here as an allow list); `*` ranges keep our own octet
 * matcher, which BlockList has no form for.
 */
export type HostMatcher =
  | { readonly kind: 'net'; readonly text: string; readonly list: BlockList }
  | { readonly kind: 'name'; readonly text: string; readonly list: BlockList }
  | { readonly kind: 'wildcard'; readonly text: string; readonly octets: ReadonlyArray<number | null> };

export interface ParsedAllowedHosts {
  /** Matchers for every valid entry, in list order. */
  readonly matchers: readonly HostMatcher[];
  /** One message per entry that could not be parsed (the entry is ignored). */
  readonly problems: readonly string[];
}

/**
 * Parses an `allowed hosts` list. Never throws: bad entries are left out of
 * `matchers` and described in `problems`, so a caller can warn and carry on
 * with the valid ones.
 */
export function parseAllowedHosts(list: string): ParsedAllowedHosts {
  const matchers: HostMatcher[] = [];
  const problems: string[] = [];
  let unread = 0;
  // One BlockList for every address and mask of the list, built at the first match: validating a
  // list (the settings, a pulled file of 400,000 entries) builds none, matching builds one, not one each.
  const nets = sharedList();
  for (const raw of list.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = parseEntry(entry, nets);
    if (typeof parsed !== 'string') matchers.push(parsed);
    else if (problems.length < MAX_PROBLEMS) problems.push(`allowed hosts entry "${excerpt(entry)}": ${parsed}`);
    else unread++;
  }
  if (unread > 0) problems.push(`${unread} more allowed hosts entries could not be read`);
  return { matchers, problems };
}

/** Entries described one by one; the rest of the bad ones are counted. */
const MAX_PROBLEMS = 20;

/**
 * True when `remoteAddress` (as reported by `socket.remoteAddress`) matches
 * one of the matchers. An address that is missing or not numeric never matches.
 */
export function isAllowed(matchers: readonly HostMatcher[], remoteAddress: string | undefined): boolean {
  if (remoteAddress === undefined) return false;
  // Answers are remembered per matcher list (a parsed list never changes), so a
  // peer that connects again costs one map lookup instead of parsing its address.
  let memo = answers.get(matchers);
  if (!memo) answers.set(matchers, (memo = new Map<string, boolean>()));
  const known = memo.get(remoteAddress);
  if (known !== undefined) return known;
  const forms = addressForms(remoteAddress);
  const allowed = forms.length > 0 && anyMatches(matchers, forms);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(remoteAddress, allowed);
  return allowed;
}

/** Addresses remembered per matcher list before the memo starts over (bounds memory under a scan). */
const MEMO_LIMIT = 4096;
const answers = new WeakMap<readonly HostMatcher[], Map<string, boolean>>();

// ---------------------------------------------------------------- helpers

interface AddressForm {
  readonly family: 'ipv4' | 'ipv6';
  /** Numeric text, without an IPv6 zone. */
  readonly text: string;
  readonly bytes: Uint8Array;
}

const HOST_NAME =
  /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function parseEntry(entry: string, nets: SharedList): HostMatcher | string {
  if (entry.toLowerCase() === 'localhost') {
    nets.add('127.0.0.1', 32, 'ipv4');
    nets.add('::1', 128, 'ipv6');
    return nets.matcher(entry);
  }
  if (entry.includes('*')) {
    const parts = entry.split('.');
    if (parts.length !== 4) return 'a * range needs four IPv4 octets, such as 10.0.*.*';
    const octets: Array<number | null> = [];
    for (const p of parts) {
      if (p === '*') octets.push(null);
      else if (/^\d{1,3}$/.test(p) && Number(p) <= 255) octets.push(Number(p));
      else return `"${excerpt(p)}" is neither an octet (0-255) nor *`;
    }
    return { kind: 'wildcard', text: entry, octets };
  }
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const maskText = slash === -1 ? undefined : entry.slice(slash + 1);
  const family = isIPv4(address) ? 'ipv4' : isIPv6Text(address) ? 'ipv6' : undefined;
  if (family === undefined) {
    // A DNS name (RFC 1123 labels): resolved by the servers; it matches nothing until then.
    if (maskText === undefined && HOST_NAME.test(entry) && !/^[\d.]+$/.test(entry)) return unresolvedName(entry);
    return 'not a numeric IPv4/IPv6 address, netmask, * range, localhost or host name';
  }
  const max = family === 'ipv4' ? 32 : 128;
  let prefix = max;
  if (maskText !== undefined) {
    if (!/^\d{1,3}$/.test(maskText) || Number(maskText) > max)
      return `netmask "/${excerpt(maskText)}" must be 0-${max}`;
    prefix = Number(maskText);
  }
  nets.add(address, prefix, family);
  return nets.matcher(entry);
}

/**
 * The matcher of a name not resolved yet: its list empty, shared, never added to (a resolved name gets
 * its own), made when first read (node loads BlockList's code at the first one, which a start need not).
 */
let nobody: BlockList | undefined;
function unresolvedName(text: string): HostMatcher {
  return {
    kind: 'name',
    text,
    get list() {
      return (nobody ??= new BlockList());
    },
  };
}

interface SharedList {
  add(address: string, prefix: number, family: 'ipv4' | 'ipv6'): void;
  /** A `net` matcher whose list is the shared one (built at the first use). */
  matcher(text: string): HostMatcher;
}

function sharedList(): SharedList {
  const pending: [string, number, 'ipv4' | 'ipv6'][] = [];
  let built: BlockList | undefined;
  const list = (): BlockList => {
    if (built) return built;
    built = new BlockList();
    for (const [address, prefix, family] of pending) {
      try {
        built.addSubnet(address, prefix, family);
      } catch {
        // Checked by our own parsers above; one BlockList refuses after all matches nothing.
      }
    }
    pending.length = 0;
    return built;
  };
  return {
    add: (address, prefix, family) => void pending.push([address, prefix, family]),
    matcher: (text) => new SharedNet(text, list),
  };
}

/** A `net` matcher of an address or mask: a small object whose list, shared by the whole parsed list, is built when first asked for. */
class SharedNet {
  readonly kind = 'net';
  constructor(
    readonly text: string,
    private readonly shared: () => BlockList,
  ) {}

  get list(): BlockList {
    return this.shared();
  }
}

/** Whether a matcher takes one of the forms; a list shared by many matchers is asked once. */
function anyMatches(matchers: readonly HostMatcher[], forms: readonly AddressForm[]): boolean {
  const asked = new Set<BlockList>();
  for (const m of matchers) {
    if (m.kind !== 'wildcard') {
      if (asked.has(m.list)) continue;
      asked.add(m.list);
    }
    if (forms.some((f) => matchOne(m, f))) return true;
  }
  return false;
}

/** An entry as a problem shows it: a long one cut. */
function excerpt(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function matchOne(m: HostMatcher, a: AddressForm): boolean {
  if (m.kind === 'wildcard') return a.family === 'ipv4' && m.octets.every((o, i) => o === null || o === a.bytes[i]);
  return m.list.check(a.text, a.family);
}

/**
 * The peer address, plus its IPv4 / IPv4-mapped twin where one exists, so
 * that an IPv4 entry matches a mapped peer and a `::ffff:a.b.c.d` entry an
 * IPv4 peer whatever BlockList itself makes of mapped addresses.
 */
function addressForms(address: string): AddressForm[] {
  const bare = address.replace(/%.*$/, '');
  if (isIPv4(bare)) {
    const v4 = ipv4Bytes(bare)!;
    return [
      { family: 'ipv4', text: bare, bytes: v4 },
      { family: 'ipv6', text: `::ffff:${bare}`, bytes: new Uint8Array(0) },
    ];
  }
  const v6 = bare.includes(':') ? ipv6Bytes(bare) : undefined;
  if (v6 !== undefined) {
    const forms: AddressForm[] = [{ family: 'ipv6', text: bare, bytes: v6 }];
    if (v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff) {
      const v4 = v6.slice(12);
      forms.push({ family: 'ipv4', text: v4.join('.'), bytes: v4 });
    }
    return forms;
  }
  return [];
}

/**
 * Whether `text` is a numeric IPv6 address, by our own parser rather than
 * node:net's isIPv6: that one's regular expression is so large that its
 * first use compiles for several milliseconds, a noticeable part of the
 * agent's start (`allowed hosts = 127.0.0.1, ::1` by default). A zone
 * (`%eth0`) is not part of an entry; peers' zones are cut before.
 */
function isIPv6Text(text: string): boolean {
  return text.includes(':') && ipv6Bytes(text) !== undefined;
}

function ipv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return Uint8Array.from(parts);
}

/** Parses an IPv6 address (with `::` and an optional dotted IPv4 tail) to 16 bytes. */
function ipv6Bytes(text: string): Uint8Array | undefined {
  let head = text;
  const lastColon = head.lastIndexOf(':');
  if (head.slice(lastColon + 1).includes('.')) {
    // Rewrite a dotted IPv4 tail as two hex groups, then parse as usual.
    const v4 = ipv4Bytes(head.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    const hex = (a: number, b: number): string => ((a << 8) | b).toString(16);
    const [a = 0, b = 0, c = 0, d = 0] = v4; // ipv4Bytes gives 4 bytes
    head = `${head.slice(0, lastColon + 1)}${hex(a, b)}:${hex(c, d)}`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const [leftText = '', rightText] = halves;
  const left = hexGroups(leftText);
  const right = rightText !== undefined ? hexGroups(rightText) : [];
  if (left === undefined || right === undefined) return undefined;
  let groups = left;
  if (halves.length === 2) {
    const fill = 8 - left.length - right.length;
    if (fill < 1) return undefined;
    groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  }
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

function hexGroups(s: string): number[] | undefined {
  if (s === '') return [];
  const out: number[] = [];
  for (const g of s.split(':')) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    out.push(parseInt(g, 16));
  }
  return out;
}
