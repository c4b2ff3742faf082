/**
 * The managed listener's staged apply (src/protocols/listener/managed-listener.ts)
 * over a minimal real transport (a plain TCP listener on loopback that
 * answers each connection with its policy): a change is committed (the
 * transport's policy and the module's own state) only once the listener
 * took it; a failure at any step leaves the old policy, the old listener
 * and the module's state as they were. Ports are 0 (the system picks).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ApplyKeptError } from '../../../../src/errors.js';
import { waitUntil } from '../../../helpers/wait-until.js';
import { getLogger } from '../../../../src/log.js';
import type { ListenerWants, OpenArgs, Transport } from '../../../../src/protocols/listener/listener-contract.js';
import { ManagedListener } from '../../../../src/protocols/listener/managed-listener.js';
import { certificateProblem, pairProblem, privateKeyProblem } from '../../../../src/formats/pem-check.js';

const log = getLogger('test:managed-listener');
const LIMITS = { maxConnections: 10, maxPerAddress: 10, firstRequestMs: 5000 };

/** What a connection to 127.0.0.1:port is answered (the policy of the listener there), or the error code. */
function answer(port: number): Promise<string> {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString()));
    s.once('close', () => res(text));
    s.once('error', (err: NodeJS.ErrnoException) => res(err.code ?? err.message));
  });
}

void describe('managed listener: stage, then commit', () => {
  const listeners: ManagedListener<string>[] = [];
  /** Opens with this policy fail from the second on (the first meets the old listener's address). */
  let refuseOpen: string | undefined;
  let opensOfRefused = 0;
  const open = async (a: OpenArgs<string>): Promise<Transport<string>> => {
    if (a.policy === refuseOpen && ++opensOfRefused > 1) throw new Error('no cipher match');
    let policy = a.policy;
    const srv: Server = createServer((s) => {
      if (a.guard.admit(s)) s.end(policy);
    });
    await new Promise<void>((res, rej) => {
      srv.once('error', rej);
      srv.listen(a.port, a.host || '127.0.0.1', () => res());
    });
    return {
      address: () => srv.address() as { address: string; family: string; port: number },
      setPolicy: (p) => (policy = p),
      setTls: () => false,
      close: () => new Promise<void>((res) => srv.close(() => res())),
    };
  };
  const wants = (policy: string, port = 0, tlsProblem?: string): ListenerWants<string> => ({
    host: '127.0.0.1',
    port,
    tls: tlsProblem
      ? {
          pair: { cert: `/nonexistent/${tlsProblem}.pem`, key: '', keyExplicit: false, createsMissing: false },
          verifyMode: 'none',
          verify: 'by-mode',
        }
      : undefined,
    limits: LIMITS,
    policy,
    tlsFail: (problems) => new Error(problems.map((p) => `${p.file}: ${p.reason}`).join('; ')),
  });
  const started = async (policy: string): Promise<ManagedListener<string>> => {
    const l = new ManagedListener<string>({
      what: 'the test server',
      counter: 'test',
      log,
      open,
      describe: (w) => `to 127.0.0.1:${w.port}`,
    });
    listeners.push(l);
    await l.start(wants(policy));
    return l;
  };
  after(async () => {
    for (const l of listeners) await l.close();
  });
  /** A listener whose transport builds the TLS context of what it opens, as a server does; `contexts` counts the builds. */
  const contextBuilding = (): { l: ManagedListener<string>; contexts: () => number } => {
    let contexts = 0;
    const l = new ManagedListener<string>({
      what: 'the test server',
      counter: 'test',
      log,
      open: async (a) => {
        contexts++;
        createSecureContext(a.tls);
        return open(a);
      },
      describe: (w) => `to 127.0.0.1:${w.port}`,
    });
    listeners.push(l);
    return { l, contexts: () => contexts };
  };
  /** wants('tls') on this certificate and key file. */
  const tlsWants = (cert: string, key: string): ListenerWants<string> => ({
    ...wants('tls'),
    tls: { pair: { cert, key, keyExplicit: true, createsMissing: false }, verifyMode: 'none', verify: 'by-mode' },
  });

  void it('port 0: address() is the port the system gave', async () => {
    const l = await started('a');
    const port = l.address()?.port ?? 0;
    assert.ok(port > 0);
    assert.equal(await answer(port), 'a');
  });

  void it('a change the listener takes in place: policy and module state switch together', async () => {
    const l = await started('old');
    const port = l.address()?.port ?? 0;
    let state = 'old';
    assert.equal(await l.apply(wants('new'), () => (state = 'new')), 'unchanged');
    assert.deepEqual([state, await answer(port)], ['new', 'new']);
    // The port that 0 gave, written out: the same listener.
    assert.equal(await l.apply(wants('newer', port), () => (state = 'newer')), 'unchanged');
    assert.deepEqual([state, l.address()?.port, await answer(port)], ['newer', port, 'newer']);
  });

  void it('unusable TLS files: nothing switches, the old listener answers with the old policy', async () => {
    const l = await started('old');
    const port = l.address()?.port ?? 0;
    let state = 'old';
    await assert.rejects(
      l.apply(wants('new', 0, 'missing'), () => (state = 'new')),
      (err: Error) => {
        assert.ok(err instanceof ApplyKeptError);
        assert.match(
          err.message,
          /^cannot move the test server to 127\.0\.0\.1:0: \/nonexistent\/missing\.pem: no such file; kept previous settings$/,
        );
        return true;
      },
    );
    assert.deepEqual([state, l.address()?.port, await answer(port)], ['old', port, 'old']);
  });

  void it('a new port another socket holds: nothing switches', async () => {
    const l = await started('old');
    const port = l.address()?.port ?? 0;
    const blocker = createServer();
    const busy = await new Promise<number>((res) =>
      blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
    );
    let state = 'old';
    try {
      await assert.rejects(
        l.apply(wants('new', busy), () => (state = 'new')),
        /EADDRINUSE.*kept previous settings$/,
      );
      assert.deepEqual([state, l.address()?.port, await answer(port)], ['old', port, 'old']);
    } finally {
      await new Promise<void>((res) => blocker.close(() => res()));
    }
  });

  void it('the same port, the new listener fails after the old one closed for it: the old settings listen again, nothing switched', async () => {
    const l = await started('old');
    const port = l.address()?.port ?? 0;
    // The same port on every address: the new listener meets the old one's address, so the old one closes first.
    let state = 'old';
    refuseOpen = 'new';
    try {
      await assert.rejects(
        l.apply({ ...wants('new', port), host: '' }, () => (state = 'new')),
        /no cipher match; kept previous settings$/,
      );
    } finally {
      refuseOpen = undefined;
    }
    assert.deepEqual([state, l.address()?.port, await answer(port)], ['old', port, 'old']);
    // The reopened listener takes later in-place changes.
    assert.equal(await l.apply(wants('later', port), () => (state = 'later')), 'unchanged');
    assert.deepEqual([state, await answer(port)], ['later', 'later']);
  });

  void it('another address: the new listener serves the new policy, then the old one closes', async () => {
    const l = await started('old');
    const port = l.address()?.port ?? 0;
    let state = 'old';
    assert.equal(await l.apply({ ...wants('moved'), host: '' }, () => (state = 'moved')), 'rebound');
    const moved = l.address()?.port ?? 0;
    assert.notEqual(moved, port);
    assert.deepEqual([state, await answer(moved)], ['moved', 'moved']);
    await waitUntil(async () => (await answer(port)) === 'ECONNREFUSED', 10_000, 'the old listener closed');
  });

  void it('a start leaves the context check to the server, and reports its failure as the check would', async () => {
    // A certificate whose key belongs to it but that OpenSSL refuses in a context (RSA 512: `ee key too small`).
    const dir = mkdtempSync(join(tmpdir(), 'managed-listener-'));
    try {
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'cert.key');
      const args = ['req', '-x509', '-newkey', 'rsa:512', '-nodes', '-subj', '/CN=test', '-days', '1'];
      execFileSync('openssl', [...args, '-keyout', key, '-out', cert], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 10_000,
      });
      const expected = pairProblem(readFileSync(cert), readFileSync(key));
      assert.match(expected ?? '', /^the certificate and key cannot be used \(.*ee key too small\)$/);
      const { l, contexts } = contextBuilding();
      await assert.rejects(l.start(tlsWants(cert, key)), { message: `${key}: ${expected}` });
      assert.equal(contexts(), 1, 'the server built the one context');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('a key of the certificate type is parsed by the server build alone; what it refuses is named as the check names it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'managed-listener-'));
    try {
      const pair = (name: string): { cert: string; key: string } => {
        const cert = join(dir, `${name}.pem`);
        const key = join(dir, `${name}.key`);
        const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
        execFileSync('openssl', [...args, '-subj', `/CN=${name}`, '-days', '1', '-keyout', key, '-out', cert], {
          stdio: ['ignore', 'ignore', 'pipe'],
          timeout: 10_000,
        });
        return { cert, key };
      };
      const a = pair('a');
      const b = pair('b');
      // A key whose PKCS#8 frame (lengths, the algorithm) is intact and whose inner EC key is not
      // (its SEQUENCE tag made a SET's): it says it is EC, and only OpenSSL's decoder finds it broken.
      const broken = join(dir, 'broken.key');
      const der = Buffer.from(readFileSync(a.key, 'utf8').replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
      // The OCTET STRING after the algorithm identifier (04 <length> 30 …): its first byte is the tag.
      let inner = 20;
      while (inner < der.length && !(der[inner] === 0x04 && der[inner + 2] === 0x30)) inner++;
      inner += 2;
      assert.ok(inner < der.length, 'the EC key inside the PKCS#8 body');
      der[inner] = 0x31;
      writeFileSync(broken, `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`);
      const { l, contexts } = contextBuilding();
      const start = (cert: string, key: string): Promise<void> => l.start(tlsWants(cert, key));
      // Another certificate's key: OpenSSL's `key values mismatch`, in the check's words.
      await assert.rejects(start(a.cert, b.key), {
        message: `${b.key}: ${pairProblem(readFileSync(a.cert), readFileSync(b.key))}`,
      });
      assert.equal(contexts(), 1);
      // A key that cannot be read: the check's reason, not OpenSSL's decoder error.
      const unreadable = privateKeyProblem(readFileSync(broken, 'utf8'));
      assert.match(unreadable ?? '', /^the private key cannot be read \(/);
      await assert.rejects(start(a.cert, broken), { message: `${broken}: ${unreadable}` });
      assert.equal(contexts(), 2, "each start built one context, the server's");
      // A certificate whose TBS part is intact (its key type shows) and whose signature algorithm
      // after it is not: only OpenSSL's parser finds it broken; the check's words.
      const brokenCert = join(dir, 'broken.pem');
      const certDer = Buffer.from(readFileSync(a.cert, 'utf8').replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
      // Where a DER element ends: its tag, its length (short or long form), its content.
      const endOf = (at: number): number => {
        const first = certDer[at + 1] ?? 0;
        if (first < 0x80) return at + 2 + first;
        let length = 0;
        for (let i = 0; i < (first & 0x7f); i++) length = length * 256 + (certDer[at + 2 + i] ?? 0);
        return at + 2 + (first & 0x7f) + length;
      };
      const tbs = 2 + ((certDer[1] ?? 0) & 0x80 ? (certDer[1] ?? 0) & 0x7f : 0);
      assert.equal(certDer[tbs], 0x30, 'the TBSCertificate');
      const afterTbs = endOf(tbs);
      assert.equal(certDer[afterTbs], 0x30, 'the signature algorithm after it');
      certDer[afterTbs] = 0x31;
      writeFileSync(
        brokenCert,
        `-----BEGIN CERTIFICATE-----\n${certDer.toString('base64')}\n-----END CERTIFICATE-----\n`,
      );
      const unparsable = certificateProblem(readFileSync(brokenCert, 'utf8'));
      assert.match(unparsable ?? '', /^the certificate cannot be parsed \(/);
      await assert.rejects(start(brokenCert, a.key), { message: `${brokenCert}: ${unparsable}` });
      assert.equal(contexts(), 3);
      await start(a.cert, a.key);
      assert.equal(contexts(), 4);
      assert.equal(await answer(l.address()?.port ?? 0), 'tls');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
