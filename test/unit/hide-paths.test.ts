import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hidePaths } from '../../src/hide-paths.js';

void test('a path under the settings folder becomes relative, another machine path its bare name', () => {
  assert.equal(
    hidePaths('settings file /tmp/agent-x/agent.ini is invalid', '/tmp/agent-x'),
    'settings file agent.ini is invalid',
  );
  assert.equal(
    hidePaths('cannot include /tmp/agent-x/conf.d/a.ini: no such file', '/tmp/agent-x'),
    'cannot include conf.d/a.ini: no such file',
  );
  assert.equal(
    hidePaths('cannot include /etc/secret/other.ini: no such file', '/tmp/agent-x'),
    'cannot include other.ini: no such file',
  );
  assert.equal(hidePaths('spawn "/usr/lib/x/check.sh" failed', '/tmp/agent-x'), 'spawn "check.sh" failed');
  assert.equal(hidePaths('(file=/var/log/syslog)'), '(file=syslog)');
});

void test('section names, URL paths and URLs are kept', () => {
  const kept = [
    'unknown section [/settings/bogus]',
    'Not found: GET /api/v1/queries/x',
    'see https://127.0.0.1:8443/tmp/x',
    'allowed queries in [/settings/remote/server]',
    'no slash at all',
  ];
  for (const text of kept) assert.equal(hidePaths(text, '/tmp/agent-x'), text);
});
