/**
 * The error catalogue and its page agree: every code in src/errors.ts is
 * documented in the error table of docs/errors.md, and every code the page
 * documents exists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentError, CODES, formatMessage } from '../../src/errors.js';
import { inRange } from '../../src/in-range.js';

const PAGE = readFileSync(fileURLToPath(new URL('../../../docs/errors.md', import.meta.url)), 'utf8');
const table = PAGE.slice(PAGE.indexOf('## Error codes'));
const documented = new Set([...table.matchAll(/^\| `(AGENT_(?:ERR|WARN)_[A-Z0-9_]+)` \|/gm)].map((m) => inRange(m, 1)));

void test('every code is documented in the error table of docs/errors.md', () => {
  const missing = Object.keys(CODES).filter((c) => !documented.has(c));
  assert.deepEqual(missing, []);
});

void test('every documented code exists', () => {
  const stale = [...documented].filter((c) => !(c in CODES));
  assert.deepEqual(stale, []);
});

void test('warnings are named AGENT_WARN_ and errors AGENT_ERR_', () => {
  for (const [code, info] of Object.entries(CODES)) {
    const warning = (info as { severity?: string }).severity === 'warning';
    assert.equal(code.startsWith('AGENT_WARN_'), warning, code);
  }
});

void test('AgentError carries code, status and a filled message', () => {
  const e = new AgentError('AGENT_ERR_HTTP_BAD_JSON', ['Unexpected token']);
  assert.equal(e.code, 'AGENT_ERR_HTTP_BAD_JSON');
  assert.equal(e.status, 400);
  assert.equal(e.message, 'invalid JSON body: Unexpected token');
  assert.equal(formatMessage('AGENT_ERR_MODULE_TIMEOUT', ['X', 'start']), 'module X did not finish start within %s ms');
});
