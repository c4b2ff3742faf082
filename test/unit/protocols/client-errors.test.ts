/** protocols/client-errors.ts: one socket-error describer and one TLS hint for both clients, each in its own option words. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeSocketError, tlsHint, type TlsHintWords } from '../../../src/protocols/client-errors.js';

const err = (code: string, message = `${code} happened`): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code });
const NRPE: TlsHintWords = {
  peer: 'the server',
  certificate: '--certificate and --certificate-key',
  ca: '--ca and --verify',
  plain: 'try --no-ssl',
};
const TARGET: TlsHintWords = {
  peer: 'the peer',
  certificate: 'certificate and certificate key',
  ca: 'ca and verify mode',
  plain: 'try --no-ssl or check use ssl on the peer',
};

void test('socket errors in words', () => {
  assert.equal(describeSocketError(err('ECONNREFUSED')), 'connection refused');
  assert.equal(describeSocketError(err('ECONNRESET')), 'connection reset by peer');
  assert.equal(describeSocketError(err('ENOTFOUND')), 'host not found (ENOTFOUND)');
  assert.equal(describeSocketError(err('ENETUNREACH')), 'unreachable (ENETUNREACH)');
  assert.equal(describeSocketError(err('ETIMEDOUT', 'connect timed out')), 'ETIMEDOUT: connect timed out');
});

void test("the same TLS hints in each client's words", () => {
  assert.equal(
    tlsHint(err('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), NRPE),
    'the server requires a client certificate (set --certificate and --certificate-key) [ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED]',
  );
  assert.equal(
    tlsHint(err('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), TARGET),
    'the peer requires a client certificate (set certificate and certificate key) [ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED]',
  );
  assert.equal(
    tlsHint(err('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), TARGET),
    "SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain (the peer's certificate is not trusted: check ca and verify mode)",
  );
  assert.equal(
    tlsHint(err('ERR_SSL_WRONG_VERSION_NUMBER'), NRPE),
    'the server does not speak TLS here (try --no-ssl) [ERR_SSL_WRONG_VERSION_NUMBER]',
  );
  assert.match(
    tlsHint(err('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'), TARGET),
    /^the peer rejected our client certificate \(not signed by its CA\?\)/,
  );
});
