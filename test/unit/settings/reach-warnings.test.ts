/**
 * Warnings about listeners that validate but that no client can use, at
 * the line to change: an NRPE server with TLS, no certificate and the
 * anonymous suites kept out; a role of web users without `public`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettingsText } from '../../../src/settings/model/load.js';

function warningsOf(text: string): string[] {
  const r = loadSettingsText(text, '/etc/config-agent/agent.ini');
  assert.ok(r.ok, JSON.stringify(r.problems));
  return r.warnings
    .filter((w) => /TLS_NO_SHARED_CIPHER|UI_SIGN_IN/.test(w.code))
    .map((w) => `${w.code}@${w.line}:${w.col} ${w.message}`);
}

const nrpe = (lines: string[]): string =>
  ['[/modules]', 'RemoteServer = enabled', '[/settings/remote/server]', ...lines, ''].join('\n');

void test('an NRPE server without a certificate whose ciphers exclude the anonymous suites', () => {
  const [w, ...rest] = warningsOf(nrpe(['allowed ciphers = ALL:!aNULL:!LOW:@STRENGTH']));
  assert.deepEqual(rest, []);
  assert.match(
    w ?? '',
    /^AGENT_WARN_TLS_NO_SHARED_CIPHER@4:19 RemoteServer has TLS on and no certificate.*allowed ciphers = ALL:!aNULL:!LOW:@STRENGTH keeps them out: no client can connect/,
  );
  // !ADH alone leaves anonymous ECDH in: reachable.
  assert.deepEqual(warningsOf(nrpe(['allowed ciphers = ALL:!ADH'])), []);
  assert.match(warningsOf(nrpe(['allowed ciphers = ALL:!ADH:!AECDH']))[0] ?? '', /TLS_NO_SHARED_CIPHER/);
  // The default list, plain NRPE, and a server with a certificate are all reachable.
  assert.deepEqual(warningsOf(nrpe([])), []);
  assert.deepEqual(warningsOf(nrpe(['use ssl = false', 'allowed ciphers = ALL:!aNULL'])), []);
});

void test('a role of web users without public warns at the role, naming its users; templates and public roles do not', () => {
  const text = [
    '[/modules]',
    'WEBServer = enabled',
    '[/settings/default]',
    'password = x',
    '[/settings/web/roles]',
    'api-only = info.get, queries.*',
    'viewer = public, info.get',
    'everything = *',
    '[/settings/web/users/tpl]',
    'is template = 1',
    'role = api-only',
    '[/settings/web/users/a]',
    'parent = tpl',
    'password = pbkdf2-sha256$100000$00$00',
    '[/settings/web/users/b]',
    'role = api-only',
    'password = pbkdf2-sha256$100000$00$00',
    '[/settings/web/users/c]',
    'role = viewer',
    'password = pbkdf2-sha256$100000$00$00',
    '[/settings/web/users/d]',
    'role = everything',
    'password = pbkdf2-sha256$100000$00$00',
    '',
  ].join('\n');
  const warnings = warningsOf(text);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0] ?? '',
    /^AGENT_WARN_UI_SIGN_IN@6:12 role api-only lacks the privilege public.*its users \(a, b\) can use the API but the UI refuses them/,
  );
  // Without WEBServer there is no UI to sign in to.
  assert.deepEqual(warningsOf(text.replace('WEBServer = enabled', 'WEBServer = disabled')), []);
});
