/**
 * The DNS message format (RFC 1035 §4) as far as check_dns needs it: one
 * question out, the answer section in, with name compression. Every read is
 * bounds-checked; a malformed reply is a DnsWireError, never a crash.
 */

export const TYPES: Readonly<Record<string, number>> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
};
const TYPE_NAMES = new Map(Object.entries(TYPES).map(([k, v]) => [v, k]));

export const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'] as const;

export class DnsWireError extends Error {}

export interface DnsAnswer {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

export interface DnsReply {
  id: number;
  rcode: string;
  truncated: boolean;
  authoritative: boolean;
  question: { name: string; type: number };
  answers: DnsAnswer[];
}

/** A query for `name` of `type` with the given id; recursion desired unless `norec`. */
export function encodeQuery(id: number, name: string, type: number, norec = false): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .split('.')
    .filter((l) => l !== '');
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(norec ? 0x0000 : 0x0100, 2);
  header.writeUInt16BE(1, 4);
  parts.push(header);
  for (const l of labels) {
    const b = Buffer.from(l, 'utf8');
    if (b.length > 63) throw new DnsWireError(`label '${l}' is longer than 63 bytes`);
    parts.push(Buffer.from([b.length]), b);
  }
  parts.push(Buffer.from([0]));
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  parts.push(tail);
  const out = Buffer.concat(parts);
  if (out.length - 16 > 255) throw new DnsWireError('name is longer than 255 bytes');
  return out;
}

/** Parse a reply; throws DnsWireError for anything out of bounds. */
export function decodeReply(buf: Buffer): DnsReply {
  const need = (at: number, n: number): void => {
    if (at + n > buf.length) throw new DnsWireError('reply is cut short');
  };
  need(0, 12);
  const flags = buf.readUInt16BE(2);
  if ((flags & 0x8000) === 0) throw new DnsWireError('not a reply');
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  let at = 12;
  const readName = (start: number): [string, number] => {
    const labels: string[] = [];
    let pos = start;
    let end = -1;
    for (let hops = 0; hops < 64; hops++) {
      need(pos, 1);
      const len = buf.readUInt8(pos);
      if (len === 0) {
        return [labels.join('.'), end >= 0 ? end : pos + 1];
      }
      if ((len & 0xc0) === 0xc0) {
        need(pos, 2);
        if (end < 0) end = pos + 2;
        pos = buf.readUInt16BE(pos) & 0x3fff;
        continue;
      }
      need(pos + 1, len);
      labels.push(buf.toString('utf8', pos + 1, pos + 1 + len));
      pos += 1 + len;
    }
    throw new DnsWireError('name has too many labels or a compression loop');
  };
  let question = { name: '', type: 0 };
  for (let i = 0; i < qd; i++) {
    const [name, next] = readName(at);
    need(next, 4);
    if (i === 0) question = { name, type: buf.readUInt16BE(next) };
    at = next + 4;
  }
  const answers: DnsAnswer[] = [];
  for (let i = 0; i < an; i++) {
    const [name, next] = readName(at);
    need(next, 10);
    const type = buf.readUInt16BE(next);
    const ttl = buf.readUInt32BE(next + 4);
    const len = buf.readUInt16BE(next + 8);
    const rd = next + 10;
    need(rd, len);
    answers.push({ name, type: TYPE_NAMES.get(type) ?? `TYPE${type}`, ttl, data: rdata(type, rd, len, readName) });
    at = rd + len;
  }
  return {
    id: buf.readUInt16BE(0),
    rcode: RCODES[flags & 0x0f] ?? `RCODE${flags & 0x0f}`,
    truncated: (flags & 0x0200) !== 0,
    authoritative: (flags & 0x0400) !== 0,
    question,
    answers,
  };

  function rdata(type: number, at: number, len: number, name: (p: number) => [string, number]): string {
    switch (type) {
      case 1:
        if (len !== 4) throw new DnsWireError('A record is not 4 bytes');
        return [...buf.subarray(at, at + 4)].join('.');
      case 28: {
        if (len !== 16) throw new DnsWireError('AAAA record is not 16 bytes');
        const groups: string[] = [];
        for (let i = 0; i < 16; i += 2) groups.push(buf.readUInt16BE(at + i).toString(16));
        return compressV6(groups.join(':'));
      }
      case 2:
      case 5:
      case 12:
        return name(at)[0];
      case 15:
        need(at, 2);
        return `${buf.readUInt16BE(at)} ${name(at + 2)[0]}`;
      case 16: {
        const texts: string[] = [];
        let p = at;
        while (p < at + len) {
          need(p, 1);
          const l = buf.readUInt8(p);
          need(p + 1, l);
          texts.push(buf.toString('utf8', p + 1, p + 1 + l));
          p += 1 + l;
        }
        return texts.join('');
      }
      case 6:
        return name(at)[0];
      default:
        return buf.subarray(at, at + len).toString('hex');
    }
  }
}

/** The shortest text form of an IPv6 address written as eight groups. */
function compressV6(full: string): string {
  const groups = full.split(':');
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return full;
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}
