import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeLog, maskSecrets } from '../../src/log-escape.js';

void test('line breaks and control bytes cannot start a forged log line', () => {
  const forged = 'check_ok\r\n2026-01-01T00:00:00.000Z info     agent:run: agent ready';
  const out = escapeLog(forged);
  assert.equal(out, 'check_ok\\r\\n2026-01-01T00:00:00.000Z info     agent:run: agent ready');
  assert.doesNotMatch(out, /[\r\n]/);
  assert.equal(escapeLog('a\u0000b\u001b[31mc\u007f\u0085\u2028\t'), 'a\\x00b\\x1b[31mc\\x7f\\x85\\u2028\\t');
});

void test('printable text in any script is kept; a backslash is doubled so escapes stay unambiguous', () => {
  assert.equal(escapeLog('Grüße 127.0.0.1 日本'), 'Grüße 127.0.0.1 日本');
  assert.equal(escapeLog('a\\nb'), 'a\\\\nb');
  assert.equal(escapeLog(42), '42');
});

void test('maskSecrets: URL userinfo (up to its last @) and secret values are masked, the rest of the URL kept', () => {
  assert.equal(
    maskSecrets('pulling https://fleet:pw@ss@cfg.example:8443/a@b.ini failed', []),
    'pulling https://******@cfg.example:8443/a@b.ini failed',
  );
  assert.equal(
    maskSecrets('git: ssh://git@host/repo.git, HTTP://T0KEN@h/', []),
    'git: ssh://******@host/repo.git, HTTP://******@h/',
  );
  assert.equal(maskSecrets('mail me at a@b.example', []), 'mail me at a@b.example');
  // A secret value that is a whole URL is masked whole, before its userinfo would change it.
  assert.equal(maskSecrets('url https://u:p@h/x/tok', ['https://u:p@h/x/tok']), 'url ******');
  assert.equal(maskSecrets('url https://h/x/tok-1234/a', ['tok-1234']), 'url https://h/x/******/a');
});
