/**
 * Which `Host` header the web server answers to, for the absolute `*_url`
 * links of its answers (`query_url`, `execute_nagios_url`, `Link`, …). A
 * link built from any Host a client sends would point wherever the client
 * (or a man in the middle, or a page that made the browser send it) wants,
 * so a Host is used only when the server answers to it:
 *
 * 1. a name or name:port listed in `[/settings/WEB/server] public hosts`
 *    (a listed name without a port matches any port: the name a reverse
 *    proxy forwards);
 * 2. otherwise the port (the scheme's default when absent) must be the
 *    listener's own port, and the name one of: the address the request
 *    came in on (the listener's bound address, or with `bind to` empty the
 *    local address of the connection), any address of this machine's
 *    interfaces, `localhost` or a name under `.localhost`, the machine's
 *    host name (os.hostname(), and its first label), or a DNS name or IP
 *    address in the subject alternative names of the TLS certificate the
 *    connection uses (`*.example.com` matches one label).
 *
 * Any other Host (`evil.example:1`) is not used: the links then use the
 * first entry of `public hosts` (its port, or the listener's port), or else
 * the local address and port of the connection. Names compare without
 * regard to case and a trailing dot.
 *
 * Cost: the answer is remembered on the connection for its Host header
 * and `public hosts` (a keep-alive client sends the same Host every time),
 * for at most a minute (what interface addresses are cached for), so the
 * parsing and name checks run once per connection and minute.
 */
import { networkInterfaces } from 'node:os';
import { hostName } from './host-name.js';
import type { IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** Host names the settings add (`public hosts`), parsed once per settings snapshot. */
export interface PublicHosts {
  /** Lower-case names, each with its port or undefined for any port. */
  readonly entries: readonly { name: string; port: number | undefined }[];
}

const HOST_HEADER = /^(?:([A-Za-z0-9.\-_]+)|\[([0-9A-Fa-f:.]+)\])(?::(\d{1,5}))?$/;
const ENTRY = HOST_HEADER;

/** `public hosts` text (comma or space separated) as entries; entries that are no host[:port] are left out. */
export function parsePublicHosts(text: string): PublicHosts {
  const entries: { name: string; port: number | undefined }[] = [];
  for (const raw of text.split(/[,\s]+/)) {
    const m = ENTRY.exec(raw.trim());
    if (!m) continue;
    entries.push({ name: normalize(m[1] ?? m[2] ?? ''), port: m[3] !== undefined ? Number(m[3]) : undefined });
  }
  return { entries };
}

/** The last answer of linkBase on a connection: for which Host header and public hosts, until when. */
const LINK_MEMO = Symbol('agent.linkBase');
interface LinkMemo {
  header: string | undefined;
  hosts: PublicHosts;
  base: string;
  until: number;
}
const MEMO_MS = 60_000;

/**
 * `http(s)://host:port` for the links of an answer to `req` (see the file's
 * contract for which Host header is used).
 */
export function linkBase(req: IncomingMessage, hosts: PublicHosts): string {
  const socket = req.socket as Socket & { [LINK_MEMO]?: LinkMemo };
  const header = req.headers.host;
  const memo = socket[LINK_MEMO];
  const now = performance.now();
  if (memo !== undefined && memo.header === header && memo.hosts === hosts && now < memo.until) return memo.base;
  const base = computeLinkBase(socket, header, hosts);
  socket[LINK_MEMO] = { header, hosts, base, until: now + MEMO_MS };
  return base;
}

// ---------------------------------------------------------------- helpers

function computeLinkBase(socket: Socket, header: string | undefined, hosts: PublicHosts): string {
  const scheme = socket instanceof TLSSocket ? 'https' : 'http';
  const localPort = socket.localPort ?? 0;
  const m = header !== undefined ? HOST_HEADER.exec(header) : null;
  if (m) {
    const name = normalize(m[1] ?? m[2] ?? '');
    const port = m[3] !== undefined ? Number(m[3]) : scheme === 'https' ? 443 : 80;
    if (hosts.entries.some((e) => e.name === name && (e.port === undefined || e.port === port)))
      return `${scheme}://${header}`;
    if (port === localPort && isOwnName(name, socket)) return `${scheme}://${header}`;
  }
  const configured = hosts.entries[0];
  if (configured) return `${scheme}://${bracket(configured.name)}:${configured.port ?? localPort}`;
  return `${scheme}://${bracket(plainAddress(socket.localAddress ?? '127.0.0.1'))}:${localPort}`;
}

function isOwnName(name: string, socket: Socket): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) !== 0) {
    if (name === plainAddress(socket.localAddress ?? '')) return true;
    if (interfaceAddresses().has(name)) return true;
  } else {
    const own = normalize(hostName());
    if (name === own || name === own.split('.')[0]) return true;
  }
  return socket instanceof TLSSocket && certificateNames(socket).some((n) => n === name || wildcardMatch(n, name));
}

/** `*.example.com` matches `a.example.com`, not `example.com` nor `a.b.example.com`. */
function wildcardMatch(pattern: string, name: string): boolean {
  if (!pattern.startsWith('*.')) return false;
  const suffix = pattern.slice(1);
  if (!name.endsWith(suffix)) return false;
  const label = name.slice(0, name.length - suffix.length);
  return label !== '' && !label.includes('.');
}

/** Addresses of this machine's interfaces, read at most once a minute. */
let interfaces: { at: number; set: Set<string> } | undefined;
function interfaceAddresses(): Set<string> {
  const now = performance.now();
  if (!interfaces || now - interfaces.at > 60_000) {
    const set = new Set<string>();
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) set.add(normalize(a.address.replace(/%.*$/, '')));
    interfaces = { at: now, set };
  }
  return interfaces.set;
}

/** DNS names and IP addresses in the subject alternative names of the connection's own certificate, per connection. */
const SAN_MEMO = new WeakMap<TLSSocket, string[]>();
function certificateNames(socket: TLSSocket): string[] {
  let names = SAN_MEMO.get(socket);
  if (names === undefined) {
    const cert = socket.getCertificate() as { subjectaltname?: string } | null | undefined;
    const san = cert?.subjectaltname ?? '';
    names =
      typeof san === 'string'
        ? san
            .split(/,\s*/)
            .map((e) => normalize(e.replace(/^(DNS|IP Address):/, '')))
            .filter((e) => e !== '')
        : [];
    SAN_MEMO.set(socket, names);
  }
  return names;
}

/** An IPv4-mapped IPv6 address as the IPv4 address. */
function plainAddress(address: string): string {
  return normalize(address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1'));
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function bracket(name: string): string {
  return name.includes(':') ? `[${name}]` : name;
}
