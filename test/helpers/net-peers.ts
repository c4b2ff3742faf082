/**
 * Loopback peers for the network checks, written here independently of the
 * agent's code: a TCP banner/echo server, HTTP and HTTPS servers (the
 * certificate's validity window is chosen by the test), a DNS server that
 * answers over UDP from a table, and an SNTP responder whose clock runs
 * `offsetMs` ahead of ours. Every one binds 127.0.0.1 (or ::1) on port 0
 * and has close().
 */
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface Peer {
  port: number;
  close(): Promise<void>;
}

function listenTcp(server: TcpServer, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closer(server: TcpServer, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(server: TcpServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

/** Greets with `banner\r\n`, then echoes each line as `echo: <line>\r\n`. */
export async function tcpPeer(banner = 'HELLO test-peer', host = '127.0.0.1'): Promise<Peer> {
  const server = createTcpServer((s) => {
    s.on('error', () => undefined);
    s.write(`${banner}\r\n`);
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        s.write(`echo: ${buf.slice(0, i).replace(/\r$/, '')}\r\n`);
        buf = buf.slice(i + 1);
      }
    });
  });
  const sockets = track(server);
  return { port: await listenTcp(server, host), close: closer(server, sockets) };
}

/** Accepts connections and never says anything (for read timeouts). */
export async function silentTcpPeer(): Promise<Peer> {
  const server = createTcpServer((s) => s.on('error', () => undefined));
  const sockets = track(server);
  return { port: await listenTcp(server), close: closer(server, sockets) };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `/` answers 200 with "hello from the test peer", `/status/N` answers N, `/slow` never answers, `/big` 2 MB. */
export const defaultHandler: Handler = (req, res) => {
  const url = req.url ?? '/';
  const status = /^\/status\/(\d{3})$/.exec(url);
  if (status) {
    res.writeHead(Number(status[1]), { 'content-type': 'text/plain' }).end(`status ${status[1]}`);
  } else if (url === '/slow') {
    // never answers; the client's deadline must end it
  } else if (url === '/big') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(2 * 1024 * 1024));
  } else if (url === '/host') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`host header: ${req.headers.host}`);
  } else {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from the test peer');
  }
};

export async function httpPeer(handler: Handler = defaultHandler): Promise<Peer> {
  const server = createHttpServer(handler);
  const sockets = track(server);
  return { port: await listenTcp(server), close: closer(server, sockets) };
}

/** An HTTPS server with a self-signed certificate for localhost/127.0.0.1 valid from `notBefore` to `notAfter`. */
export async function httpsPeer(
  notBefore: Date,
  notAfter: Date,
  handler: Handler = defaultHandler,
): Promise<Peer & { cert: string }> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const server = createHttpsServer({ cert: pems.cert, key: pems.private }, handler);
  server.on('tlsClientError', () => undefined);
  const sockets = track(server);
  return { port: await listenTcp(server), close: closer(server, sockets), cert: pems.cert };
}

function bindUdp(sock: UdpSocket, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(0, host, () => resolve(sock.address().port));
  });
}

export interface DnsRecords {
  [name: string]: { A?: string[]; AAAA?: string[]; MX?: [number, string][]; TXT?: string[] };
}

export interface DnsPeerOptions {
  /** 'answer' (default), 'silent' (never replies), 'wrong-id' (replies with another id first, then the right one). */
  mode?: 'answer' | 'silent' | 'wrong-id';
  /** Count of queries received, for tests. */
  onQuery?: (name: string, type: number) => void;
}

const TYPE = { A: 1, MX: 15, TXT: 16, AAAA: 28 } as const;

/** A DNS server over UDP on 127.0.0.1: answers from `records`, NXDOMAIN for unknown names. */
export async function dnsPeer(records: DnsRecords, options: DnsPeerOptions = {}): Promise<Peer> {
  const sock = createSocket('udp4');
  sock.on('message', (msg, rinfo) => {
    if (msg.length < 12) return;
    // Question: labels from byte 12, then type and class.
    const labels: string[] = [];
    let at = 12;
    while (at < msg.length && msg[at] !== 0) {
      const len = msg.readUInt8(at);
      labels.push(msg.toString('utf8', at + 1, at + 1 + len));
      at += 1 + len;
    }
    const qEnd = at + 5;
    const qtype = msg.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    options.onQuery?.(name, qtype);
    if (options.mode === 'silent') return;
    const entry = records[name];
    const answers: Buffer[] = [];
    const rr = (type: number, rdata: Buffer): Buffer => {
      const head = Buffer.alloc(12);
      head.writeUInt16BE(0xc00c, 0); // pointer to the question's name
      head.writeUInt16BE(type, 2);
      head.writeUInt16BE(1, 4);
      head.writeUInt32BE(300, 6);
      head.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([head, rdata]);
    };
    const encName = (n: string): Buffer =>
      Buffer.concat([
        ...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
        Buffer.from([0]),
      ]);
    if (entry && qtype === TYPE.A)
      for (const a of entry.A ?? []) answers.push(rr(1, Buffer.from(a.split('.').map(Number))));
    if (entry && qtype === TYPE.AAAA) {
      for (const a of entry.AAAA ?? []) {
        const [head = '', tail = ''] = a.split('::');
        const h = head ? head.split(':') : [];
        const t = tail ? tail.split(':') : [];
        const groups = [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
        const b = Buffer.alloc(16);
        groups.forEach((g, i) => b.writeUInt16BE(parseInt(g, 16), i * 2));
        answers.push(rr(28, b));
      }
    }
    if (entry && qtype === TYPE.MX)
      for (const [pref, host] of entry.MX ?? [])
        answers.push(rr(15, Buffer.concat([Buffer.from([pref >> 8, pref & 255]), encName(host)])));
    if (entry && qtype === TYPE.TXT)
      for (const t of entry.TXT ?? []) answers.push(rr(16, Buffer.concat([Buffer.from([t.length]), Buffer.from(t)])));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | (entry ? 0 : 3), 2); // response, RD, RA; rcode NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const reply = Buffer.concat([header, msg.subarray(12, qEnd), ...answers]);
    if (options.mode === 'wrong-id') {
      const forged = Buffer.from(reply);
      forged.writeUInt16BE((msg.readUInt16BE(0) + 1) & 0xffff, 0);
      forged.writeUInt16BE(0x8183, 2); // a forged NXDOMAIN that must be ignored
      forged.writeUInt16BE(0, 6);
      sock.send(forged.subarray(0, 12 + (qEnd - 12)), rinfo.port, rinfo.address);
    }
    sock.send(reply, rinfo.port, rinfo.address);
  });
  const port = await bindUdp(sock, '127.0.0.1');
  return { port, close: () => new Promise((r) => sock.close(() => r())) };
}

/** An SNTP responder on 127.0.0.1 whose clock is `offsetMs` ahead of ours; `stratum` 0 sends a kiss-o'-death RATE. */
export async function ntpPeer(offsetMs: number, stratum = 2): Promise<Peer> {
  const sock = createSocket('udp4');
  const write = (buf: Buffer, at: number, unixMs: number): void => {
    const secs = Math.floor(unixMs / 1000);
    buf.writeUInt32BE(secs + 2_208_988_800, at);
    buf.writeUInt32BE(Math.floor(((unixMs - secs * 1000) / 1000) * 2 ** 32), at + 4);
  };
  sock.on('message', (msg, rinfo) => {
    if (msg.length < 48 || (msg.readUInt8(0) & 7) !== 3) return;
    const now = performance.timeOrigin + performance.now() + offsetMs;
    const reply = Buffer.alloc(48);
    reply[0] = (0 << 6) | (4 << 3) | 4; // LI 0, version 4, mode 4 (server)
    reply[1] = stratum;
    reply[2] = 6;
    reply[3] = 0xec;
    if (stratum === 0) reply.write('RATE', 12, 'ascii');
    else Buffer.from([127, 0, 0, 1]).copy(reply, 12);
    write(reply, 16, now - 1000);
    msg.copy(reply, 24, 40, 48); // originate = the client's transmit time
    write(reply, 32, now);
    write(reply, 40, now);
    sock.send(reply, rinfo.port, rinfo.address);
  });
  const port = await bindUdp(sock, '127.0.0.1');
  return { port, close: () => new Promise((r) => sock.close(() => r())) };
}
