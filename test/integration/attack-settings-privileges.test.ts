/**
 * Privileges that mean what they say (issue 25, item 2), against a real
 * agent over HTTPS: a user holding only `settings.put` and `settings.delete`
 * tries every escalation of the report (grant itself `*`, write a script,
 * an alias reading /etc/shadow, open allowed hosts, add an include or a
 * [/paths] folder, delete a role to get the seeded `full = *` back) and is
 * refused, while an ordinary edit goes through; a role granting a
 * root-equivalent privilege is warned about.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebResponse } from '../helpers/web-client.js';

const INI = `[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret
allowed hosts = 127.0.0.1
auth rate limit max failures = 0

[/settings/web/roles]
setter = public, settings.get, settings.put, settings.delete
keeper = public, settings.get, settings.put, settings.delete, settings.put.access, settings.delete.access
full = public

[/settings/web/users/sam]
password = sam-pw
role = setter

[/settings/web/users/kim]
password = kim-pw
role = keeper
`;

void describe('settings edits split by what they can do (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();

  before(async () => {
    ({ agent, base, ca } = made.add(await startWebAgent({ ini: INI }), (w) => w.agent.stop()));
  });
  after(() => made.close());

  const send = (user: string, method: string, path: string, body?: unknown): Promise<WebResponse> =>
    webRequest(`${base}${path}`, {
      method,
      ca,
      user,
      password: `${user}-pw`,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
  const put = (user: string, path: string, key: string, value: string) =>
    send(user, 'PUT', '/api/v1/settings', { path, key, value });
  const file = (): string => readFileSync(agent.settingsFile, 'utf8');
  /** The error text of a refusal with this status and code. */
  const refusal = (res: WebResponse, status: number, code: string): string => {
    assert.equal(res.status, status, res.body);
    const body = JSON.parse(res.body) as { code: string; error: string };
    assert.equal(body.code, code);
    return body.error;
  };

  void it('refuses every escalation to a user with settings.put alone, naming the privilege, and writes nothing', async () => {
    const before = file();
    const attacks: [string, string, string, string][] = [
      ['/settings/web/roles', 'setter', '*', 'settings.put.access'],
      ['/settings/web/users/eve', 'password', 'x', 'settings.put.access'],
      ['/settings/WEB/server', 'password', 'mine', 'settings.put.access'],
      ['/settings/default', 'allowed hosts', '0.0.0.0/0', 'settings.put.access'],
      ['/settings/external scripts/scripts', 'pwn', '/bin/sh -c "id > /tmp/pwned"', 'settings.put.exec'],
      ['/settings/external scripts/alias', 'check_leak', 'check_ok "${file:/etc/shadow}"', 'settings.put.exec'],
      ['/settings/external scripts/wrapped scripts', 'w', 'x.sh', 'settings.put.exec'],
      ['/settings/external scripts', 'script root', '/tmp', 'settings.put.exec'],
      ['/includes', 'evil', '/tmp/evil.ini', 'settings.put.exec'],
      ['/paths', 'scripts', '/tmp', 'settings.put.exec'],
      ['/settings/log', 'level', '${file:/etc/hostname}', 'settings.put.secrets'],
      ['/settings/WEB/server', 'nsclient status codes', '${env:HOME}', 'settings.put.secrets'],
      ['/settings/WEB/server', 'auth rate limit max failures', '0', 'settings.put.access'],
      ['/settings/WEB/server', 'max body size', '2000000', 'settings.put.access'],
      ['/settings/log', 'buffer size', '1000000', 'settings.put.access'],
      ['/settings/NSCA/client/targets/default', 'address', '127.0.0.1:5667', 'settings.put.secrets'],
      ['/settings/NSCA/client/targets/default', 'encryption', 'xor', 'settings.put.secrets'],
      ['/settings/icinga/client/targets/default', 'server name', 'evil.example', 'settings.put.secrets'],
      ['/settings/remote/server', 'submit channel', 'NSCA', 'settings.put.secrets'],
      ['/settings/no/such/section', 'key', 'x', 'settings.put.access'],
    ];
    for (const [path, key, value, privilege] of attacks) {
      const res = await put('sam', path, key, value);
      const error = refusal(res, 403, 'AGENT_ERR_SETTINGS_PRIVILEGE');
      assert.ok(error.endsWith(`needs the privilege ${privilege} (docs/api.md "Privileges")`), error);
    }
    const del = await send('sam', 'DELETE', '/api/v1/settings/settings/web/roles?key=full');
    assert.equal(del.status, 403, del.body);
    const all = await send('sam', 'DELETE', '/api/v1/settings/settings/web');
    assert.equal(all.status, 403, all.body);
    assert.equal(file(), before, 'nothing written');
  });

  void it('lets the same user make an ordinary edit', async () => {
    const res = await put('sam', '/settings/log', 'level', 'debug');
    assert.equal(res.status, 200, res.body);
    assert.match(file(), /^level = debug$/m);
  });

  void it('never brings back a seeded role by removing its definition, even for a holder of settings.delete.access', async () => {
    for (const res of [
      await send('kim', 'DELETE', '/api/v1/settings/settings/web/roles?key=full'),
      await put('kim', '/settings/web/roles', 'full', ''),
      await send('kim', 'DELETE', '/api/v1/settings/settings/web/roles'),
    ]) {
      assert.match(
        refusal(res, 422, 'AGENT_ERR_SETTINGS_SEEDED_ROLE'),
        /^removing role "full" from the file would bring back its seeded definition \(\*\)/,
      );
    }
    assert.match(file(), /^full = public$/m);
    // Narrowing it is an ordinary access edit.
    const narrow = await put('kim', '/settings/web/roles', 'full', 'public, info.get');
    assert.equal(narrow.status, 200, narrow.body);
  });

  void it('warns about a role that grants a root-equivalent privilege', async () => {
    const res = await webRequest(`${base}/api/v1/settings/status`, { ca, user: 'root', password: 'root-secret' });
    const status = JSON.parse(res.body) as { warnings: { code: string; key?: string; message: string }[] };
    const warned = status.warnings.filter((w) => w.code === 'AGENT_WARN_ROLE_ROOT_EQUIVALENT');
    assert.deepEqual(
      warned.map((w) => w.message),
      [
        'role "keeper" grants settings.put.access, settings.delete.access, equivalent to root on this agent (docs/api.md "Privileges")',
      ],
    );
  });
});
