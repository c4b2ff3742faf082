/**
 * settings/agent.ini (the embedded default that npm start runs) and every
 * example under settings/ must stay valid against the schemas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSettingsFile } from '../../../src/settings/store/load-file.js';

const SETTINGS = fileURLToPath(new URL('../../../../settings', import.meta.url));

// The fleet, web-users and passive-checks examples read their passwords from the environment, as a deployment would.
for (const name of [
  'AGENT_WEB_PASSWORD',
  'AGENT_ALICE_PASSWORD',
  'AGENT_NAGIOS_PASSWORD',
  'NSCA_PASSWORD',
  'ICINGA_API_PASSWORD',
])
  process.env[name] ??= 'example-password-from-the-environment';

const files = readdirSync(SETTINGS, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ini'));

void test('there is a default settings file', () => {
  assert.ok(files.includes('agent.ini'), `settings/agent.ini missing; found ${files.join(', ')}`);
});

for (const f of files) {
  void test(`settings/${f} is valid`, async () => {
    const r = await loadSettingsFile(join(SETTINGS, f));
    assert.ok(r.ok, `settings/${f}: ${JSON.stringify(!r.ok && r.problems, null, 1)}`);
  });
}

void test('the default enables the check modules and WEBServer on loopback over TLS', async () => {
  const r = await loadSettingsFile(join(SETTINGS, 'agent.ini'));
  assert.ok(r.ok);
  const s = r.snapshot;
  for (const m of ['CheckHelpers', 'CheckSystem', 'CheckDisk', 'WEBServer']) assert.equal(s.modules[m], true, m);
  assert.match(String(s.sections['/settings/WEB/server']?.port), /^\d+s$/);
  assert.equal(s.sections['/settings/WEB/server']?.['bind to'], '127.0.0.1');
});
