/**
 * Our NSCA packets against send_nsca's, byte for byte where they are not
 * random: a listener in this process (port 0) plays nsca's part with a
 * fixed IV and timestamp; Debian's send_nsca and our client each send the
 * same result to it with the same password and method. Each capture is
 * decrypted here (XOR, or 8-bit CFB over OpenSSL's DES-EDE3 (single DES as
 * K,K,K) / AES-256 or our
 * Rijndael for the wide blocks, keyed as libmcrypt keys them), and the two
 * plaintexts must agree on every byte that is not send_nsca's random fill:
 * version, timestamp, status, the NUL-terminated host, service and output,
 * and each one's CRC32 must match its own bytes. A key or IV derived
 * differently from send_nsca's would decrypt to noise with a wrong CRC.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { sendNsca } from '../../src/protocols/nsca/client.js';
import { RijndaelEncryptor } from '../../src/protocols/nsca/rijndael.js';
import { SEND_NSCA } from '../helpers/nsca-daemon.js';
import { inRange } from '../../src/in-range.js';
import { defined } from '../helpers/defined.js';

const IV = Buffer.from(Array.from({ length: 128 }, (_, i) => (i * 37 + 11) & 0xff));
const TIMESTAMP = 1_800_000_000;
const PASSWORD = 'same password';
const dir = mkdtempSync(join(tmpdir(), 'nsca-differential-'));
let server: Server;
let port = 0;
const captures: Buffer[] = [];
let onCapture: (() => void) | undefined;

before(async () => {
  server = createServer((socket) => {
    const init = Buffer.alloc(132);
    IV.copy(init);
    init.writeUInt32BE(TIMESTAMP, 128);
    socket.write(init);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      captures.push(Buffer.concat(chunks));
      socket.end();
      onCapture?.();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});

after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function capture(send: () => Promise<unknown>): Promise<Buffer> {
  const got = new Promise<void>((r) => (onCapture = r));
  await send();
  await got;
  return defined(captures.at(-1));
}

function sendNscaProgram(method: number): Promise<number | null> {
  const cfg = join(dir, `send_nsca-${method}.cfg`);
  writeFileSync(cfg, `password=${PASSWORD}\nencryption_method=${method}\n`);
  return new Promise((resolve, reject) => {
    const p = spawn(SEND_NSCA, ['-H', '127.0.0.1', '-p', String(port), '-c', cfg], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    p.on('error', reject);
    p.on('close', resolve);
    p.stdin.end('host-a\tservice-b\t2\tsome output|x=1');
  });
}

/** Decrypts one captured packet as nsca's decrypt_buffer does. */
function decrypt(method: number, packet: Buffer): Buffer {
  const key = (size: number): Buffer => {
    const k = Buffer.alloc(size);
    k.write(PASSWORD.slice(0, size), 'latin1');
    return k;
  };
  if (method === 0) return Buffer.from(packet);
  if (method === 2)
    return createDecipheriv('des-ede3-cfb8', Buffer.concat([key(8), key(8), key(8)]), IV.subarray(0, 8)).update(packet);
  if (method === 1) {
    const out = Buffer.from(packet);
    for (const [i, b] of out.entries()) out[i] = b ^ inRange(IV, i % 128) ^ PASSWORD.charCodeAt(i % PASSWORD.length);
    return out;
  }
  if (method === 3) return createDecipheriv('des-ede3-cfb8', key(24), IV.subarray(0, 8)).update(packet);
  if (method === 14) return createDecipheriv('aes-256-cfb8', key(32), IV.subarray(0, 16)).update(packet);
  const size = method === 15 ? 24 : 32;
  const cipher = new RijndaelEncryptor(size, key(32));
  const register = Uint8Array.from(IV.subarray(0, size));
  const block = new Uint8Array(size);
  const out = Buffer.alloc(packet.length);
  for (let i = 0; i < packet.length; i++) {
    block.set(register);
    cipher.encryptBlock(block);
    out[i] = inRange(packet, i) ^ inRange(block, 0);
    register.copyWithin(0, 1);
    register[size - 1] = inRange(packet, i);
  }
  return out;
}

/** The bytes of a plaintext packet that are not random fill, and whether its CRC holds. */
function meaning(p: Buffer): { fields: string; crcOk: boolean } {
  const text = (from: number, size: number): string =>
    inRange(
      p
        .subarray(from, from + size)
        .toString('latin1')
        .split('\0'),
      0,
    );
  const zeroed = Buffer.from(p);
  zeroed.writeUInt32BE(0, 4);
  return {
    fields: JSON.stringify([
      p.length,
      p.readInt16BE(0),
      p.readUInt32BE(8),
      p.readInt16BE(12),
      text(14, 64),
      text(78, 128),
      text(206, 4096),
    ]),
    crcOk: crc32(zeroed) === p.readUInt32BE(4),
  };
}

for (const method of [0, 1, 2, 3, 14, 15, 16]) {
  void test(`method ${method}: our packet and send_nsca's decrypt to the same fields, each with a valid CRC`, async () => {
    const theirs = await capture(() => sendNscaProgram(method));
    const ours = await capture(() =>
      sendNsca({ host: '127.0.0.1', port, method, password: PASSWORD, payloadLength: 4096, timeoutMs: 5000 }, [
        { host: 'host-a', service: 'service-b', code: 2, output: 'some output|x=1' },
      ]),
    );
    assert.equal(theirs.length, 4304);
    assert.equal(ours.length, 4304);
    const a = meaning(decrypt(method, theirs));
    const b = meaning(decrypt(method, ours));
    assert.ok(a.crcOk, "send_nsca's packet decrypts with a valid CRC (the key and IV are derived as nsca does)");
    assert.ok(b.crcOk, 'ours too');
    assert.equal(b.fields, a.fields);
    assert.equal(a.fields, JSON.stringify([4304, 3, TIMESTAMP, 2, 'host-a', 'service-b', 'some output|x=1']));
  });
}
