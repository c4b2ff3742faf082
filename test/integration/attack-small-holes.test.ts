/**
 * The smaller holes of issue 25 (item 6), against a real agent: bad values,
 * keys and paths in a PUT answer 422 (never 500); a [/paths] folder built
 * from ${env:} is masked wherever a value shows it; scripts do not inherit
 * a variable ${env:} reads; an included file that is not INI (a private
 * key) is reported by position only; check_logfile and check_files answer
 * the same for a missing and a forbidden path, and check_files lists only
 * folders under its allowed paths.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { webRequest, type WebResponse } from '../helpers/web-client.js';

const VAULT = 'vault-4f9c2e7a';

void describe('smaller holes (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();
  const root = (path: string, method = 'GET', body?: unknown): Promise<WebResponse> =>
    webRequest(`${base}${path}`, {
      ca,
      method,
      user: 'root',
      password: 'root-secret',
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
  const query = async (name: string, args: string[]): Promise<{ result: number; message: string }> => {
    const res = await root(
      `/api/v1/queries/${name}/commands/execute?${args.map((a) => a.split('=').map(encodeURIComponent).join('=')).join('&')}`,
    );
    assert.equal(res.status, 200, res.body);
    const body = JSON.parse(res.body) as { result: number; lines: { message: string }[] };
    return { result: body.result, message: body.lines.map((l) => l.message).join('\n') };
  };

  before(async () => {
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: `[/modules]
CheckHelpers = enabled
CheckDisk = enabled
CheckLogFile = enabled
CheckExternalScripts = enabled
WEBServer = enabled

[/paths]
temp = /tmp/\${env:AGENT_TEST_VAULT}

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret

[/settings/logfile]
allowed paths = \${temp}/logs

[/settings/external scripts/scripts]
check_env = env.sh
`,
        env: { AGENT_TEST_VAULT: VAULT },
        files: { 'scripts/env.sh': '#!/bin/sh\necho "environment:"\nenv\n' },
      }),
      (w) => w.agent.stop(),
    ));
    chmodSync(join(agent.dir, 'scripts', 'env.sh'), 0o755);
  });
  after(() => made.close());

  void it('a PUT with a line break in a value, = in a key or ] in a path answers 422 with the reason', async () => {
    for (const [body, code] of [
      [
        { path: '/settings/WEB/server', key: 'timeout', value: '30\n[/settings/web/roles]\nx = *' },
        'AGENT_ERR_VALUE_INVALID',
      ],
      [{ path: '/settings/WEB/server', key: 'a=b', value: '1' }, 'AGENT_ERR_VALUE_INVALID'],
      // A line break in a path is refused at the edge, before anything looks the path up.
      [{ path: '/settings/WEB/server]\n[/x', key: 'timeout', value: '30' }, 'AGENT_ERR_SETTINGS_NOT_CANONICAL'],
    ] as const) {
      const res = await root('/api/v1/settings', 'PUT', body);
      assert.equal(res.status, 422, res.body);
      assert.equal((JSON.parse(res.body) as { code: string }).code, code);
    }
  });

  void it('a [/paths] folder built from ${env:} is masked wherever a value shows it', async () => {
    const res = await root('/api/v1/settings');
    assert.equal(res.status, 200);
    assert.ok(!res.body.includes(VAULT), 'the secret is not shown');
    assert.ok(
      res.body.includes(`"key":"allowed paths","value":"******/logs"`),
      'the value built from it is masked where the secret appears',
    );
  });

  void it('a script does not inherit a variable that ${env:} reads', async () => {
    const r = await query('check_env', []);
    assert.match(r.message, /environment:/);
    assert.match(r.message, /PATH=/, 'the usual variables stay');
    assert.ok(!r.message.includes('AGENT_TEST_VAULT') && !r.message.includes(VAULT), r.message);
  });

  void it('check_logfile and check_files answer the same for a missing and a forbidden path', async () => {
    const forbidden = await query('check_logfile', ['file=/etc/passwd']);
    const missing = await query('check_logfile', ['file=/etc/no-such-file-here.log']);
    assert.equal(forbidden.result, 3);
    assert.equal(missing.result, 3);
    assert.equal(
      forbidden.message.replace('/etc/passwd', 'X'),
      missing.message.replace('/etc/no-such-file-here.log', 'X'),
    );
    const root_ = await query('check_files', ['path=/root']);
    const nowhere = await query('check_files', ['path=/no-such-folder-here']);
    assert.equal(root_.result, 3);
    assert.match(
      root_.message,
      /^\/root is not under an allowed path \(\/var\/log, \/var\/spool, \/var\/backups, \/tmp, \/var\/tmp\); see \[\/settings\/disk\] allowed paths/,
    );
    assert.equal(root_.message.replace('/root', 'X'), nowhere.message.replace('/no-such-folder-here', 'X'));
    const allowed = await query('check_files', [`path=${join(agent.dir, 'scripts')}`]);
    assert.match(allowed.message, /1 files|env\.sh/);
  });
});

void it('an included file that is not INI (a private key) is reported by position only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-non-ini-'));
  try {
    const secret = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
    writeFileSync(
      join(dir, 'key.pem'),
      `-----BEGIN PRIVATE KEY-----\n${secret}==\nAbCd${secret}=\n-----END PRIVATE KEY-----\n`,
    );
    writeFileSync(join(dir, 'agent.ini'), '[/modules]\nCheckHelpers = enabled\n\n[/includes]\nkey = key.pem\n');
    const r = await runAgentCli(['settings', 'validate', '--settings', join(dir, 'agent.ini')]);
    assert.notEqual(r.code, 0);
    const out = `${r.stdout}${r.stderr}`;
    assert.match(out, /key\.pem:2:1: error AGENT_ERR_INI_KEY_OUTSIDE_SECTION/);
    assert.ok(!out.includes(secret.slice(0, 16)) && !out.includes('BEGIN PRIVATE'), out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
