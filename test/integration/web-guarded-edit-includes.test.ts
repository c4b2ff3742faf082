/**
 * The settings API on an agent whose file includes a shared base (agent
 * process, HTTPS): an edit goes to the file that holds the key and the
 * answer names it; an edit whose merged result (every include followed)
 * would not validate is refused with 422 and writes nothing, also when the
 * edited file alone would be valid (a template in the base that the main
 * file's target inherits from).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';

const MAIN = `[/includes]
base = shared/base.ini

[/modules]
WEBServer = enabled

[/settings/remote/client/targets/web]
parent = tpl
address = 127.0.0.1:5666
`;
const BASE = `; shared base
[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = include-api-secret

[/settings/remote/client/targets/tpl]
is template = true
timeout = 20
`;

void describe('settings API over [/includes] (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  let baseFile = '';
  const made = new Teardown();
  after(() => made.close());
  const request = (method: string, path: string, body?: unknown) =>
    webRequest(`${base}${path}`, {
      ca,
      user: 'root',
      password: 'include-api-secret',
      method,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });

  before(async () => {
    ({ agent, base, ca } = made.add(await startWebAgent({ ini: MAIN, files: { 'shared/base.ini': BASE } }), (w) =>
      w.agent.stop(),
    ));
    baseFile = join(agent.dir, 'shared', 'base.ini');
  });

  void it('an invalid value for a key of the base: 422 naming the base line, nothing written', async () => {
    const r = await request('PUT', '/api/v1/settings/settings/WEB/server', { key: 'port', value: '99999s' });
    assert.equal(r.status, 422, r.body);
    assert.match(r.body, /base\.ini line 3/);
    assert.equal(readFileSync(baseFile, 'utf8'), BASE);
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), MAIN);
  });

  void it('removing a base template that the main file inherits from: 422, nothing written', async () => {
    const r = await request('DELETE', '/api/v1/settings/settings/remote/client/targets/tpl');
    assert.equal(r.status, 422, r.body);
    assert.match(r.body, /AGENT_ERR_OBJECT_PARENT_UNKNOWN/);
    assert.equal(readFileSync(baseFile, 'utf8'), BASE);
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), MAIN);
  });

  void it('a valid edit goes to the base that holds the key and the answer names it', async () => {
    const r = await request('PUT', '/api/v1/settings/settings/remote/client/targets/tpl', {
      key: 'timeout',
      value: '25',
    });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { status: 'success', keys: 1, files: [baseFile] });
    assert.equal(readFileSync(baseFile, 'utf8'), BASE.replace('timeout = 20', 'timeout = 25'));
    assert.equal(readFileSync(agent.settingsFile, 'utf8'), MAIN);
  });
});
