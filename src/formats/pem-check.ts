/**
 * Checks of PEM text read from TLS files, so that a bad file is reported
 * as what is wrong with which file instead of OpenSSL's bare
 * `PEM routines::no start line`. Each function returns the reason in plain
 * words (to follow "<file>: "), or undefined when the text is usable. None
 * throws.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { certificateKeyType, declaredKeyType } from './pem-key-type.js';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?-----END \1-----/;

/** Why `text` holds no usable PEM certificate (the first one is checked). */
export function certificateProblem(text: string | Buffer): string | undefined {
  return remembered('certificate', text, () => {
    const [first] = certificateBlocks(text);
    if (first === undefined) return 'the file is not a PEM certificate (no start line)';
    return parseProblem(first);
  });
}

/** Why `text` is not a usable CA file: every certificate in it must parse, and there must be one. */
export function caProblem(text: string | Buffer): string | undefined {
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) return 'the file holds no PEM certificate (no start line)';
  for (const [i, block] of blocks.entries()) {
    const problem = parseProblem(block);
    if (problem) return blocks.length > 1 ? `certificate ${i + 1}: ${problem}` : problem;
  }
  return undefined;
}

/** Whether `text` holds a PEM private key block (parsed or not): what privateKeyProblem() looks for first. */
export function holdsKeyBlock(text: string | Buffer): boolean {
  return KEY_BLOCK.test(text.toString());
}

/** Why `text` holds no usable PEM private key (the first one is checked; certificates may come before it). */
export function privateKeyProblem(text: string | Buffer): string | undefined {
  const block = KEY_BLOCK.exec(text.toString())?.[0];
  if (block === undefined) return 'the file holds no PEM private key (no start line)';
  return remembered('key', block, () => {
    try {
      parsedKey(block);
      return undefined;
    } catch (err) {
      return `the private key cannot be read (${(err as Error).message})`;
    }
  });
}

/**
 * Why the certificate and key (each already checked) cannot serve together, e.g. a key of another
 * certificate. `context: false` leaves out the TLS context this check builds to prove the pair
 * usable (a listener's start, whose server builds the real one next and reports a failure of it
 * with contextProblem()): a key of another certificate is still found here, by the certificate's
 * own check of the key.
 */
export function pairProblem(
  cert: string | Buffer,
  key: string | Buffer,
  { context = true }: { context?: boolean } = {},
): string | undefined {
  return remembered(context ? 'pair' : 'pair-key', `${cert.toString()}\0${key.toString()}`, () =>
    pairCheck(cert, key, context),
  );
}

/**
 * Whether building a TLS context of this certificate and key checks them as certificateProblem(),
 * privateKeyProblem() and pairProblem() would: the key says it is of the type of the certificate's
 * public key (pem-key-type.ts, neither parsed), so OpenSSL parses both and checks that the key
 * belongs to the certificate as it builds the context, and fails when anything is wrong
 * (contextProblem() words it). A key of another type goes to another slot of the context,
 * unchecked; a text that does not say its type (an encrypted key, an algorithm not listed) may be
 * either: false for both, and the checks run. For a listener's start, whose server builds its
 * context next: each is parsed once, by OpenSSL, not twice (issue 41).
 */
export function keyCheckedByContext(cert: string | Buffer, key: string | Buffer): boolean {
  const block = KEY_BLOCK.exec(key.toString())?.[0];
  const first = certificateBlocks(cert)[0];
  if (block === undefined || first === undefined) return false;
  const declared = declaredKeyType(block);
  return declared !== undefined && certificateKeyType(first) === declared;
}

/** The reason for a TLS context that could not be built of a certificate and key, as pairProblem words it. */
export function contextProblem(err: unknown): string {
  const message = (err as Error).message;
  if (/key values mismatch/i.test(message)) return 'the private key does not belong to the certificate';
  return `the certificate and key cannot be used (${message})`;
}

function pairCheck(cert: string | Buffer, key: string | Buffer, context: boolean): string | undefined {
  // OpenSSL's own check misses a key of another type (an EC key for an RSA certificate).
  try {
    const block = KEY_BLOCK.exec(key.toString())?.[0];
    const first = certificateBlocks(cert)[0];
    if (block && first && !parsedCertificate(first).checkPrivateKey(parsedKey(block)))
      return 'the private key does not belong to the certificate';
  } catch {
    // Unreadable input is reported by the checks below.
  }
  if (!context) return undefined;
  try {
    // No trust store: this context only proves the pair usable (and loading node's root certificates costs ~45 ms once).
    createSecureContext({ cert, key, ca: [] });
    return undefined;
  } catch (err) {
    return contextProblem(err);
  }
}

// ---------------------------------------------------------------- helpers

/**
 * Texts that passed a check, remembered by their content: a listener's
 * start checks its files twice (the settings check, then the load), a
 * reload again, and each check parses the certificate and the key and
 * builds a throwaway TLS context (about a tenth of the agent's start).
 * Changed content is new text and is checked in full; a problem is never
 * remembered, so its message is always current.
 */
const good = new Set<string>();
const GOOD_MAX = 256;

function remembered(kind: string, text: string | Buffer, check: () => string | undefined): string | undefined {
  const id = `${kind}\0${text.toString()}`;
  if (good.has(id)) return undefined;
  const problem = check();
  if (problem === undefined) {
    if (good.size >= GOOD_MAX) good.clear();
    good.add(id);
  }
  return problem;
}

function certificateBlocks(text: string | Buffer): string[] {
  return text.toString().match(CERT_BLOCK) ?? [];
}

/**
 * The certificate and the key parsed last: a listener's check parses the certificate, then the
 * key, then both again for the pair check; now each is parsed once (OpenSSL's PEM decoding of a
 * key is the costly part). Only what parsed is kept, so a failing text throws every time.
 */
let lastCertificate: { block: string; parsed: X509Certificate } | undefined;
let lastKey: { block: string; parsed: KeyObject } | undefined;

function parsedCertificate(block: string): X509Certificate {
  if (lastCertificate?.block !== block) lastCertificate = { block, parsed: new X509Certificate(block) };
  return lastCertificate.parsed;
}

function parsedKey(block: string): KeyObject {
  if (lastKey?.block !== block) lastKey = { block, parsed: createPrivateKey(block) };
  return lastKey.parsed;
}

function parseProblem(block: string): string | undefined {
  try {
    parsedCertificate(block);
    return undefined;
  } catch (err) {
    return `the certificate cannot be parsed (${(err as Error).message})`;
  }
}
