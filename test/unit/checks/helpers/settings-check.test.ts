/** check_settings's states from a health record: refused local or pulled settings, a failing source, an old revision. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  settingsCheck,
  settingsCheckOptions,
  settingsStatusLine,
} from '../../../../src/checks/helpers/settings-check.js';
import type { SettingsHealth } from '../../../../src/core/core.js';

const now = Date.parse('2026-11-28T12:00:00Z');
const source = {
  revision: '"abc-12"',
  lastSuccess: '2026-11-28T11:59:00Z',
  lastChange: '2026-11-27T12:00:00Z',
  lastError: null,
  refused: false,
  failuresInARow: 0,
};
const good: SettingsHealth = { lastResult: 'ok', problems: [], appliedHash: 'f'.repeat(64), source };
const defaults = settingsCheckOptions([]);

void test('OK with the revision and the perf data', () => {
  const r = settingsCheck(good, defaults, now);
  assert.equal(r.result, 0);
  assert.equal(r.message, 'OK: settings in force, revision "abc-12"');
  assert.deepEqual(r.perf, [
    { alias: 'since_good_pull', value: 60, unit: 's' },
    { alias: 'since_change', value: 86_400, unit: 's' },
  ]);
  assert.equal(
    settingsCheck({ ...good, source: undefined }, defaults, now).message,
    'OK: settings in force, revision local ffffffffffff',
  );
});

void test('CRITICAL for refused settings, local or pulled; WARNING for a failing source or an old revision', () => {
  const local = settingsCheck(
    { ...good, lastResult: 'invalid', problems: [{ message: 'agent.ini:3 bad' }] },
    defaults,
    now,
  );
  assert.deepEqual([local.result, local.message], [2, 'CRITICAL: the settings last read are refused: agent.ini:3 bad']);
  const pulled = settingsCheck(
    { ...good, source: { ...source, lastError: 'not applied', refused: true } },
    defaults,
    now,
  );
  assert.equal(pulled.result, 2);
  const failing = { ...good, source: { ...source, lastError: 'connection refused', failuresInARow: 3 } };
  assert.equal(settingsCheck(failing, defaults, now).result, 1);
  assert.equal(settingsCheck(failing, settingsCheckOptions(['max-failures=4']), now).result, 0);
  assert.equal(settingsCheck(good, settingsCheckOptions(['max-age=1h']), now).result, 1);
  assert.equal(settingsCheck(good, settingsCheckOptions(['max-age=2d']), now).result, 0);
  assert.throws(() => settingsCheckOptions(['max-age=soon']), /max-failures=N, max-age=DURATION/);
  assert.equal(settingsCheck(undefined, defaults, now).result, 3);
});

void test('the systemd status line says the same', () => {
  assert.equal(settingsStatusLine(good), 'settings OK');
  assert.equal(
    settingsStatusLine({ ...good, lastResult: 'invalid', problems: [{ message: 'x' }] }),
    'settings CRITICAL: the settings last read are refused: x',
  );
});
