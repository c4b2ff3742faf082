/**
 * The opt-in drop-in for sudo (src/packaging/allow-sudo.conf) lifts every
 * option of the shipped unit that makes systemd set no_new_privs for an
 * unprivileged User= (each was tried alone in the booted root of
 * package-nrpe-takeover.test.ts): a new seccomp option added to the unit
 * and not lifted here would stop sudo again. It grants no capability
 * beyond the three sudo needs, and the docs explain each line it sets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REPO } from '../../helpers/agent-process.js';

const unit = readFileSync(`${REPO}/src/packaging/config-agent.service`, 'utf8');
const dropIn = readFileSync(`${REPO}/src/packaging/allow-sudo.conf`, 'utf8');
const docs = readFileSync(`${REPO}/docs/operations.md`, 'utf8');

/** The options systemd 252 turns into no_new_privs for a service that is not root (systemd.exec(5), NoNewPrivileges=). */
const SETS_NO_NEW_PRIVS = [
  'NoNewPrivileges',
  'SystemCallFilter',
  'SystemCallArchitectures',
  'RestrictAddressFamilies',
  'RestrictNamespaces',
  'PrivateDevices',
  'ProtectKernelTunables',
  'ProtectKernelModules',
  'ProtectKernelLogs',
  'ProtectClock',
  'ProtectHostname',
  'MemoryDenyWriteExecute',
  'RestrictRealtime',
  'RestrictSUIDSGID',
  'LockPersonality',
  'DynamicUser',
];

const keys = (text: string): Map<string, string> =>
  new Map(
    text
      .split('\n')
      .filter((l) => /^\w+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

void test('every option of the unit that sets no_new_privs is lifted by allow-sudo.conf', () => {
  const set = keys(unit);
  const lifted = keys(dropIn);
  for (const key of SETS_NO_NEW_PRIVS.filter((k) => set.has(k))) {
    assert.ok(lifted.has(key), `${key} is set by the unit and not lifted`);
    assert.match(lifted.get(key) ?? '', /^(no)?$/, `${key}=${lifted.get(key)}`);
  }
});

void test('allow-sudo.conf grants only what sudo needs and keeps the rest of the unit', () => {
  assert.equal(keys(dropIn).get('CapabilityBoundingSet'), 'CAP_SETUID CAP_SETGID CAP_AUDIT_WRITE');
  assert.ok(!keys(dropIn).has('AmbientCapabilities'), 'no ambient capabilities: the agent itself stays without');
  for (const kept of ['User', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'DevicePolicy', 'ReadWritePaths'])
    assert.ok(!keys(dropIn).has(kept), `${kept} is left as the unit sets it`);
  assert.match(dropIn, /^\[Service\]$/m);
});

void test('docs/operations.md names every line of allow-sudo.conf', () => {
  for (const key of keys(dropIn).keys()) assert.ok(docs.includes(`\`${key}=`), `docs/operations.md names ${key}=`);
});

void test('the sudo check of validation asks for allow-sudo.conf, not only NoNewPrivileges=no', async () => {
  const { unliftedOptions } = await import('../../../src/formats/sudo-command.js');
  assert.ok(unliftedOptions(unit, []).includes('NoNewPrivileges'));
  assert.deepEqual(unliftedOptions(unit, [dropIn]), [], 'the shipped drop-in lifts all of them');
  const halfway = unliftedOptions(unit, ['[Service]\nNoNewPrivileges=no\n']);
  assert.ok(!halfway.includes('NoNewPrivileges'));
  assert.ok(halfway.includes('SystemCallFilter') && halfway.includes('RestrictSUIDSGID'), halfway.join(', '));
});
