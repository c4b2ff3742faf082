import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyTlsError, isTlsError } from '../../../src/protocols/tls-errors.js';

const err = (code: string, extra: Record<string, unknown> = {}): NodeJS.ErrnoException =>
  Object.assign(new Error(code), { code, ...extra });

void test('OpenSSL and node codes are classified once for every client', () => {
  const cases: Array<[string, ReturnType<typeof classifyTlsError>]> = [
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'client-certificate-required'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'client-certificate-rejected'],
    ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'client-certificate-rejected'],
    ['ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN', 'client-certificate-rejected'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'untrusted'],
    ['CERT_HAS_EXPIRED', 'untrusted'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'not-tls'],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'not-tls'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'other'],
  ];
  for (const [code, kind] of cases) {
    assert.equal(classifyTlsError(err(code)), kind, code);
    assert.equal(isTlsError(err(code)), true, code);
  }
});

void test('socket errors are not TLS errors', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT'])
    assert.equal(isTlsError(err(code)), false, code);
  assert.equal(isTlsError(err('EPROTO', { library: 'SSL routines' })), true);
});
