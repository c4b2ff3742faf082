/**
 * What a PEM private key or certificate says it holds (src/formats/
 * pem-key-type.ts), read without parsing either, against what node's own
 * parser finds in the same text, for every key format node writes and
 * certificates of each key type; and when a listener's start may leave the
 * checks to its server's TLS context build (pem-check.ts
 * keyCheckedByContext): only for a key of the certificate's type, which
 * OpenSSL checks against the certificate as it builds the context.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyCheckedByContext, pairProblem } from '../../../src/formats/pem-check.js';
import { certificateKeyType, declaredKeyType } from '../../../src/formats/pem-key-type.js';
import { certDir, type CertDir, type CertFiles } from '../../helpers/agent-certs.js';

/** Every PEM form node writes of a private key, by a name for the test's messages. */
function pemForms(name: string, key: KeyObject): [string, string][] {
  const forms: [string, string][] = [[`${name} pkcs8`, key.export({ type: 'pkcs8', format: 'pem' }).toString()]];
  if (key.asymmetricKeyType === 'rsa')
    forms.push([`${name} pkcs1`, key.export({ type: 'pkcs1', format: 'pem' }).toString()]);
  if (key.asymmetricKeyType === 'ec')
    forms.push([`${name} sec1`, key.export({ type: 'sec1', format: 'pem' }).toString()]);
  return forms;
}

void describe('pem-check: the key type a PEM key declares', () => {
  void it('is the type node parses out of the same key, for every algorithm and format', () => {
    const keys: [string, KeyObject][] = [
      ['rsa-2048', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey],
      ['rsa-pss', generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).privateKey],
      ['ec p-256', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey],
      ['ec p-384', generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey],
      ['ed25519', generateKeyPairSync('ed25519').privateKey],
      ['ed448', generateKeyPairSync('ed448').privateKey],
      ['dsa', generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }).privateKey],
    ];
    let checked = 0;
    for (const [name, key] of keys)
      for (const [form, pem] of pemForms(name, key)) {
        assert.equal(declaredKeyType(pem), createPrivateKey(pem).asymmetricKeyType, form);
        checked++;
      }
    assert.equal(checked, 10);
  });

  void it('says nothing for an encrypted key, an unknown algorithm or a body that is no key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const encrypted8 = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'x' });
    const encrypted1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs1',
      format: 'pem',
      cipher: 'aes-128-cbc',
      passphrase: 'x',
    });
    const x25519 = generateKeyPairSync('x25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.equal(createPrivateKey(x25519).asymmetricKeyType, 'x25519');
    for (const [what, pem] of [
      ['encrypted pkcs8', encrypted8.toString()],
      ['encrypted pkcs1', encrypted1.toString()],
      ['x25519 (no TLS certificate key)', x25519],
      ['a body that is no DER', '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END PRIVATE KEY-----\n'],
      ['an empty body', '-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n'],
      ['an unknown label', '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n'],
    ] as const)
      assert.equal(declaredKeyType(pem), undefined, what);
  });
});

void describe('pem-check: the key type a PEM certificate holds', () => {
  let certs: CertDir;
  before(() => (certs = certDir()));
  after(() => certs.remove());

  void it('is the type of the public key node parses out of the same certificate', () => {
    const kinds: [string, string[]][] = [
      ['rsa', ['-newkey', 'rsa:2048']],
      ['rsa-pss', ['-newkey', 'rsa-pss', '-pkeyopt', 'rsa_keygen_bits:2048']],
      ['ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']],
      ['ed25519', ['-newkey', 'ed25519']],
    ];
    for (const [name, newKey] of kinds) {
      const cert = join(certs.dir, `${name}.pem`);
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          ...newKey,
          '-nodes',
          '-subj',
          `/CN=${name}`,
          '-days',
          '1',
          '-keyout',
          join(certs.dir, `${name}.key`),
          '-out',
          cert,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 },
      );
      const pem = readFileSync(cert, 'utf8');
      assert.equal(certificateKeyType(pem), new X509Certificate(pem).publicKey.asymmetricKeyType, name);
    }
    const ec = certs.issue(certs.ca('type-ca'), 'typed', 'server');
    assert.equal(certificateKeyType(readFileSync(ec.cert, 'utf8')), 'ec', 'a CA-issued certificate with extensions');
    for (const bad of ['no certificate', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'])
      assert.equal(certificateKeyType(bad), undefined);
  });
});

void describe('pem-check: key types of hostile text', () => {
  let certs: CertDir;
  before(() => (certs = certDir()));
  after(() => certs.remove());

  void it('a cut or random body says nothing and throws nothing', () => {
    const pem = (label: string, der: Buffer): string =>
      `-----BEGIN ${label}-----\n${der.toString('base64')}\n-----END ${label}-----\n`;
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' });
    const issued = certs.issue(certs.ca('hostile-ca'), 'hostile', 'server');
    const cert = new X509Certificate(readFileSync(issued.cert)).raw;
    assert.equal(declaredKeyType(pem('PRIVATE KEY', key)), 'ec');
    assert.equal(certificateKeyType(pem('CERTIFICATE', cert)), 'ec');
    // Every prefix of a real key and certificate: each outer length then claims more than is there.
    for (let n = 0; n < key.length; n++)
      assert.equal(declaredKeyType(pem('PRIVATE KEY', key.subarray(0, n))), undefined);
    for (let n = 0; n < cert.length; n++)
      assert.equal(certificateKeyType(pem('CERTIFICATE', cert.subarray(0, n))), undefined);
    // Random bytes, and random bytes behind a real head (bounded: 2,000 of each).
    for (let i = 0; i < 2000; i++) {
      const noise = randomBytes(1 + (i % 300));
      for (const der of [
        noise,
        Buffer.concat([key.subarray(0, 30), noise]),
        Buffer.concat([cert.subarray(0, 8), noise]),
      ]) {
        assert.doesNotThrow(() => declaredKeyType(pem('PRIVATE KEY', der)));
        assert.doesNotThrow(() => certificateKeyType(pem('CERTIFICATE', der)));
      }
    }
  });
});

void describe('pem-check: a key left to the server context build', () => {
  let certs: CertDir;
  let ec: CertFiles;
  let otherEc: CertFiles;
  before(() => {
    certs = certDir();
    const ca = certs.ca('pem-check-ca');
    ec = certs.issue(ca, 'ec-server', 'server');
    otherEc = certs.issue(ca, 'other-ec-server', 'server');
  });
  after(() => certs.remove());

  void it('only a key of the certificate type, whose mismatch the context build then finds itself', () => {
    const cert = readFileSync(ec.cert, 'utf8');
    const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    assert.equal(keyCheckedByContext(cert, readFileSync(ec.key, 'utf8')), true);
    // Another certificate's key of the same type: left to the build, and the build refuses it.
    const otherKey = readFileSync(otherEc.key, 'utf8');
    assert.equal(keyCheckedByContext(cert, otherKey), true);
    assert.throws(() => createSecureContext({ cert, key: otherKey }), /key values mismatch/);
    // An EC key on another curve is of the same type: the build refuses it too.
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    assert.equal(keyCheckedByContext(cert, p384), true);
    assert.throws(() => createSecureContext({ cert, key: p384 }), /key values mismatch/);
    // A key of another type: OpenSSL would take it into another slot unchecked, so the checks run.
    assert.equal(keyCheckedByContext(cert, rsaKey), false);
    assert.doesNotThrow(() => createSecureContext({ cert, key: rsaKey }));
    assert.equal(pairProblem(cert, rsaKey), 'the private key does not belong to the certificate');
    assert.equal(keyCheckedByContext(cert, 'no key'), false);
    assert.equal(keyCheckedByContext('no certificate', otherKey), false);
  });
});
