/**
 * rebind() with real TLS files (openssl, in a temp folder) and real TLS
 * listeners on 127.0.0.1: new material is loaded and checked first
 * (src/formats/tls-files.ts, what the three listener modules use), the
 * new listener starts, then the old one closes; on any failure the old
 * listener keeps answering and the error says "kept previous settings".
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { connect, createServer, type Server } from 'node:tls';
import { presentedName as presented } from '../../../helpers/abuse-peers.js';
import { rebind, type RebindPlan } from '../../../../src/protocols/listener/rebind.js';
import { ApplyKeptError } from '../../../../src/errors.js';
import { checkCa, checkPair } from '../../../../src/formats/tls-files.js';
import { certDir, type CertDir, type CertFiles } from '../../../helpers/agent-certs.js';

interface Files {
  cert: string;
  /** Empty: the certificate file holds the key. */
  key: string;
  ca?: string;
}

interface Material {
  cert: string;
  key: string;
  ca?: string;
}

/** What a listener module's load() does: check every file, or throw naming the file and the reason. */
function load(files: Files): Material {
  const pair = checkPair({ cert: files.cert, key: files.key, keyExplicit: files.key !== '', createsMissing: false });
  if (!pair.ok) throw new Error(`${pair.problem.setting} ${pair.problem.file}: ${pair.problem.reason}`);
  if ('missing' in pair) throw new Error('unreachable: createsMissing is false');
  if (files.ca === undefined) return { cert: pair.cert, key: pair.key };
  const ca = checkCa(files.ca);
  if (!ca.ok) throw new Error(`ca ${ca.problem.file}: ${ca.problem.reason}`);
  return { cert: pair.cert, key: pair.key, ca: ca.ca };
}

function listen(m: Material, port: number): Promise<Server> {
  const srv = createServer({ cert: m.cert, key: m.key, ...(m.ca ? { ca: m.ca } : {}) }, (s) => s.end('hello\n'));
  return new Promise((res, rej) => {
    srv.once('error', rej);
    srv.listen(port, '127.0.0.1', () => {
      srv.off('error', rej);
      res(srv);
    });
  });
}

/** The port a listener got (they all listen on port 0: the system picks). */
function portOf(srv: Server | undefined): number {
  return (srv?.address() as { port: number }).port;
}

function close(srv: Server): Promise<void> {
  return new Promise((res) => srv.close(() => res()));
}

void describe('rebind (real TLS files and listeners)', () => {
  let certs: CertDir;
  let ca: CertFiles;
  let oldFiles: CertFiles;
  let newFiles: CertFiles;
  let current: Server | undefined;
  let port: number;
  const opened: Server[] = [];

  /** The plan a listener module builds: the new port, or the same one. */
  const plan = (
    files: Files,
    nextPort: number,
    extra: Partial<RebindPlan<Server, Material>> = {},
  ): RebindPlan<Server, Material> => ({
    target: `the test server to 127.0.0.1:${nextPort}`,
    load: () => load(files),
    samePort: nextPort === port,
    open: async (m) => {
      const srv = await listen(m, nextPort);
      opened.push(srv);
      return srv;
    },
    reopen: async () => {
      const srv = await listen(load(oldFiles), port);
      opened.push(srv);
      return srv;
    },
    close,
    adopt: (s) => {
      current = s;
    },
    ...extra,
  });

  before(async () => {
    certs = certDir();
    ca = certs.ca('rebind-ca');
    oldFiles = certs.issue(ca, 'old-server', 'server');
    newFiles = certs.issue(ca, 'new-server', 'server');
  });
  after(async () => {
    for (const s of opened) if (s.listening) await close(s);
    certs.remove();
  });

  /** A fresh "old" listener for each case. */
  const startOld = async (): Promise<Server> => {
    if (current?.listening) await close(current);
    current = await listen(load(oldFiles), 0);
    port = portOf(current);
    opened.push(current);
    assert.equal(await presented(port), 'old-server');
    return current;
  };

  void it('good new material on a new port: the new listener answers, then the old one is closed', async () => {
    const old = await startOld();
    assert.equal(await rebind(old, plan({ ...newFiles, ca: ca.cert }, 0)), 'rebound');
    assert.notEqual(current, old);
    assert.equal(await presented(portOf(current)), 'new-server');
    assert.equal(old.listening, false);
    assert.equal(await presented(port), 'ECONNREFUSED');
  });

  void it('a key of another certificate: nothing is opened, the old listener keeps answering', async () => {
    const old = await startOld();
    const before = opened.length;
    await assert.rejects(rebind(old, plan({ cert: newFiles.cert, key: oldFiles.key }, 0)), (err: Error) => {
      assert.ok(err instanceof ApplyKeptError);
      assert.match(
        err.message,
        /^cannot move the test server to 127\.0\.0\.1:\d+: certificate key .*old-server\.key: the private key does not belong to the certificate; kept previous settings$/,
      );
      return true;
    });
    assert.equal(opened.length, before, 'no listener was started');
    assert.equal(current, old);
    assert.equal(await presented(port), 'old-server');
  });

  void it('an unreadable key file (a folder): kept previous settings, the old listener answers', async () => {
    const old = await startOld();
    const folder = join(certs.dir, 'key-is-a-folder');
    mkdirSync(folder, { recursive: true });
    await assert.rejects(
      rebind(old, plan({ cert: newFiles.cert, key: folder }, 0)),
      /certificate key .*key-is-a-folder: it is a folder, not a file; kept previous settings$/,
    );
    assert.equal(await presented(port), 'old-server');
  });

  void it('a CA file that is not a certificate, or holds one that does not parse: kept previous settings', async () => {
    const old = await startOld();
    const garbage = join(certs.dir, 'garbage-ca.pem');
    writeFileSync(garbage, 'this is no certificate\n');
    await assert.rejects(
      rebind(old, plan({ ...newFiles, ca: garbage }, 0)),
      /ca .*garbage-ca\.pem: the file holds no PEM certificate \(no start line\); kept previous settings$/,
    );
    const broken = join(certs.dir, 'broken-ca.pem');
    const pem = readFileSync(ca.cert, 'utf8');
    // Keep the PEM frame, break the DER inside it.
    writeFileSync(broken, pem.replace(/\n([A-Za-z0-9+/]{20})/, '\nAAAAAAAAAAAAAAAAAAAA'));
    await assert.rejects(
      rebind(old, plan({ ...newFiles, ca: broken }, 0)),
      /ca .*broken-ca\.pem: the certificate cannot be parsed .*; kept previous settings$/,
    );
    assert.equal(current, old);
    assert.equal(await presented(port), 'old-server');
  });

  void it("a certificate file that also holds its key (NSClient++'s convention) is taken", async () => {
    const old = await startOld();
    const combined = join(certs.dir, 'combined.pem');
    writeFileSync(combined, readFileSync(newFiles.cert, 'utf8') + readFileSync(newFiles.key, 'utf8'));
    assert.equal(await rebind(old, plan({ cert: combined, key: '' }, 0)), 'rebound');
    assert.equal(await presented(portOf(current)), 'new-server');
    assert.equal(old.listening, false);
  });

  void it('a new port that another program holds: kept previous settings, the old listener answers', async () => {
    const old = await startOld();
    const blocker: NetServer = createNetServer();
    const taken = await new Promise<number>((res) =>
      blocker.listen(0, '127.0.0.1', () => res((blocker.address() as { port: number }).port)),
    );
    try {
      await assert.rejects(rebind(old, plan(newFiles, taken)), /EADDRINUSE.*; kept previous settings$/);
      assert.equal(current, old);
      assert.equal(old.listening, true);
      assert.equal(await presented(port), 'old-server');
    } finally {
      await new Promise<void>((res) => blocker.close(() => res()));
    }
  });

  void it('the same port and address: the new listener finds it in use, so the old one closes first and the new one answers', async () => {
    const old = await startOld();
    let attempts = 0;
    const base = plan(newFiles, port);
    const counting: RebindPlan<Server, Material> = {
      ...base,
      open: (m) => {
        attempts++;
        return base.open(m);
      },
    };
    assert.equal(await rebind(old, counting), 'rebound');
    assert.equal(attempts, 2, 'the first bind met EADDRINUSE, the second came after the close');
    assert.equal(old.listening, false);
    assert.equal(await presented(port), 'new-server');
  });

  void it('the same port, new listener fails to start for another reason: the old one is left as it was', async () => {
    const old = await startOld();
    const failing = plan(newFiles, port, {
      open: async () => {
        throw new Error('no cipher match');
      },
    });
    await assert.rejects(rebind(old, failing), /no cipher match; kept previous settings$/);
    assert.equal(current, old);
    assert.equal(old.listening, true);
    assert.equal(await presented(port), 'old-server');
  });

  void it('the same port, address in use, then the new listener fails: the previous settings are opened again and answer', async () => {
    const old = await startOld();
    let attempts = 0;
    const failing = plan(newFiles, port, {
      open: async (m) => {
        attempts++;
        if (attempts === 1) return listen(m, port); // EADDRINUSE: the old listener holds it
        throw new Error('no cipher match');
      },
    });
    await assert.rejects(rebind(old, failing), /no cipher match; kept previous settings$/);
    assert.equal(old.listening, false, 'the old listener had to close for the port');
    assert.notEqual(current, old);
    assert.equal(current?.listening, true);
    assert.equal(await presented(port), 'old-server');
  });

  void it('the same port, TLS only: swapped in place, an open connection is not disturbed', async () => {
    const old = await startOld();
    const open = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    await new Promise<void>((res) => open.once('secureConnect', () => res()));
    const how = await rebind(old, {
      ...plan(newFiles, port),
      swap: (m) => {
        old.setSecureContext({ cert: m.cert, key: m.key });
        return true;
      },
    });
    assert.equal(how, 'swapped');
    assert.equal(current, old);
    assert.equal(String(open.getPeerCertificate().subject.CN), 'old-server');
    assert.equal(open.destroyed, false);
    open.destroy();
    assert.equal(await presented(port), 'new-server');
  });
});
