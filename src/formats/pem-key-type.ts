/**
 * The key type a PEM private key or certificate says it holds, read from
 * its label or from the algorithm identifier in its DER body, without
 * parsing the key or the certificate (pem-check.ts keyCheckedByContext:
 * whether a TLS context build can check a pair by itself). Types are named
 * as node's KeyObject names them (`rsa`, `ec`, `ed25519`, …). Undefined
 * whenever the text does not say plainly: an encrypted key, an algorithm
 * not listed here, a body that is not the DER it should be. Nothing here
 * throws.
 */

/** Key types by the DER of the algorithm's object identifier (PKCS#8 and SubjectPublicKeyInfo alike). */
const ALGORITHMS: ReadonlyMap<string, string> = new Map([
  ['2a864886f70d010101', 'rsa'], // 1.2.840.113549.1.1.1 rsaEncryption
  ['2a864886f70d01010a', 'rsa-pss'], // 1.2.840.113549.1.1.10
  ['2a8648ce3d0201', 'ec'], // 1.2.840.10045.2.1 id-ecPublicKey
  ['2a8648ce380401', 'dsa'], // 1.2.840.10040.4.1
  ['2b6570', 'ed25519'], // 1.3.101.112
  ['2b6571', 'ed448'], // 1.3.101.113
]);

/** The key types of the traditional (PKCS#1, SEC1) labels. */
const LABEL_TYPES: ReadonlyMap<string, string> = new Map([
  ['RSA PRIVATE KEY', 'rsa'],
  ['EC PRIVATE KEY', 'ec'],
  ['DSA PRIVATE KEY', 'dsa'],
]);

/**
 * The key type a PEM private key block says it holds: a traditional label's, or the algorithm of a
 * PKCS#8 body (SEQUENCE { INTEGER version, SEQUENCE { OID algorithm, … }, … }).
 */
export function declaredKeyType(block: string): string | undefined {
  const label = labelOf(block);
  if (label === undefined || block.includes('Proc-Type:')) return undefined;
  const traditional = LABEL_TYPES.get(label);
  if (traditional !== undefined || label !== 'PRIVATE KEY') return traditional;
  const der = derOf(block, label);
  const key = element(der, 0, 0x30);
  const version = key && element(der, key.start, 0x02);
  // The version: 0, or 1 for a key with its public key beside it (RFC 5958).
  if (!version || version.end - version.start !== 1) return undefined;
  return algorithmAt(der, version.end);
}

/**
 * The type of the public key a PEM certificate block holds: the algorithm of its
 * SubjectPublicKeyInfo, the seventh element of the TBSCertificate when it has a version
 * ([0] version, serial, signature, issuer, validity, subject, subjectPublicKeyInfo; RFC 5280).
 */
export function certificateKeyType(block: string): string | undefined {
  if (labelOf(block) !== 'CERTIFICATE') return undefined;
  const der = derOf(block, 'CERTIFICATE');
  const certificate = element(der, 0, 0x30);
  const tbs = certificate && element(der, certificate.start, 0x30);
  if (!tbs) return undefined;
  let at = tbs.start;
  const version = element(der, at, 0xa0);
  if (version) at = version.end;
  // serialNumber, signature, issuer, validity, subject.
  for (const tag of [0x02, 0x30, 0x30, 0x30, 0x30]) {
    const skipped = element(der, at, tag);
    if (!skipped) return undefined;
    at = skipped.end;
  }
  const spki = element(der, at, 0x30);
  return spki && algorithmAt(der, spki.start);
}

// ---------------------------------------------------------------- helpers

function labelOf(block: string): string | undefined {
  return /^-----BEGIN ([A-Z0-9 ]+)-----/.exec(block)?.[1];
}

/** The DER bytes of a PEM block (its base64 between the lines). */
function derOf(block: string, label: string): Buffer {
  const body = block.slice(`-----BEGIN ${label}-----`.length).replace(/-----END[\s\S]*$/, '');
  return Buffer.from(body.replace(/\s+/g, ''), 'base64');
}

/** The DER element at `at` when its tag is `tag`: where its content starts and where it ends. */
function element(der: Buffer, at: number, tag: number): { start: number; end: number } | undefined {
  if (der[at] !== tag) return undefined;
  const first = der[at + 1];
  if (first === undefined) return undefined;
  let start = at + 2;
  let length = first;
  if (first & 0x80) {
    // Long form: the next (first & 0x7f) bytes, at most 4 here, are the length.
    const count = first & 0x7f;
    if (count === 0 || count > 4 || start + count > der.length) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0);
    start += count;
  }
  const end = start + length;
  return end <= der.length ? { start, end } : undefined;
}

/** The key type of the AlgorithmIdentifier (SEQUENCE { OID, … }) at `at`. */
function algorithmAt(der: Buffer, at: number): string | undefined {
  const algorithm = element(der, at, 0x30);
  const oid = algorithm && element(der, algorithm.start, 0x06);
  if (!oid || oid.end > algorithm.end) return undefined;
  return ALGORITHMS.get(der.subarray(oid.start, oid.end).toString('hex'));
}
