/**
 * Files the settings name that are not regular files, or too large: a
 * `${file:}` secret, an included file, the settings file itself and a TLS
 * file that is a FIFO (reading it would wait for a writer forever) or
 * `/dev/zero` (reading it would fill the memory), and a secret over 64 KiB.
 * `config-agent settings validate` reports each at its line and column and ends;
 * a running agent refuses them from the settings API and from a file edit,
 * and keeps answering.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { webRequest, type WebResponse } from '../helpers/web-client.js';

void describe('special files (config-agent settings validate)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-special-'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'big'), 'x'.repeat(64 * 1024 + 1));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const validate = async (ini: string): Promise<string> => {
    const file = join(dir, 'agent.ini');
    writeFileSync(file, ini);
    const r = await runAgentCli(['settings', 'validate', file]);
    assert.equal(r.code, 1, `invalid, and the command ended: ${r.stdout}${r.stderr}`);
    return r.stdout + r.stderr;
  };

  void it('a ${file:} secret that is a FIFO or /dev/zero is an error at its line and column', async () => {
    assert.match(
      await validate('[/settings/default]\npassword = ${file:fifo}\n'),
      /agent\.ini:2:12: error AGENT_ERR_SECRET_FILE .*cannot read the secret file fifo: not a regular file: it is a FIFO/,
    );
    assert.match(
      await validate('[/settings/default]\npassword = ${file:/dev/zero}\n'),
      /agent\.ini:2:12: error AGENT_ERR_SECRET_FILE .*\/dev\/zero: not a regular file: it is a character device/,
    );
  });

  void it('a ${file:} secret over 64 KiB is an error naming the limit', async () => {
    assert.match(
      await validate('[/settings/default]\npassword = ${file:big}\n'),
      /agent\.ini:2:12: error AGENT_ERR_SECRET_FILE .*big: larger than 64 KiB/,
    );
  });

  void it('an included FIFO or /dev/zero is an error at the include', async () => {
    assert.match(
      await validate('[/includes]\nbase = fifo\n'),
      /agent\.ini:2:8: error AGENT_ERR_INCLUDE_MISSING .*cannot include fifo: not a regular file: it is a FIFO/,
    );
    assert.match(
      await validate('[/includes]\nbase = /dev/zero\n'),
      /agent\.ini:2:8: error AGENT_ERR_INCLUDE_MISSING .*not a regular file: it is a character device/,
    );
  });

  void it('a TLS file that is a FIFO or /dev/zero is an error at its setting', async () => {
    const web = (cert: string): string =>
      `[/modules]\nWEBServer = enabled\n[/settings/WEB/server]\npassword = x-secret-1\ncertificate = ${cert}\n`;
    assert.match(
      await validate(web('fifo')),
      /agent\.ini:5:15: error AGENT_ERR_TLS_FILE .*certificate file .*fifo: not a regular file: it is a FIFO/,
    );
    assert.match(
      await validate(web('/dev/zero')),
      /agent\.ini:5:15: error AGENT_ERR_TLS_FILE .*not a regular file: it is a character device/,
    );
  });

  void it('a settings file that is a FIFO is unreadable, not waited for', async () => {
    const r = await runAgentCli(['settings', 'validate', join(dir, 'fifo')]);
    assert.match(
      r.stdout + r.stderr,
      /AGENT_ERR_SETTINGS_UNREADABLE: cannot read settings file .*fifo: not a regular file: it is a FIFO/,
    );
    assert.notEqual(r.code, 0);
    assert.notEqual(r.code, 99, 'the command ended by itself');
  });
});

void describe('special files (a running agent)', () => {
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
  const ini = `[/modules]
CheckHelpers = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret
`;
  const answers = async (): Promise<void> => {
    const res = await root('/api/v1/queries/check_ok/commands/execute?message=alive');
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /alive/);
  };

  before(async () => {
    ({ agent, base, ca } = made.add(await startWebAgent({ ini }), (w) => w.agent.stop()));
    execFileSync('mkfifo', [join(agent.dir, 'fifo')]);
  });
  after(() => made.close());

  void it('PUT of a ${file:} secret that is a FIFO or /dev/zero answers 422 and the agent keeps answering', async () => {
    for (const path of ['fifo', '/dev/zero']) {
      const res = await root('/api/v1/settings', 'PUT', {
        path: '/settings/default',
        key: 'password',
        value: `\${file:${path}}`,
      });
      assert.equal(res.status, 422, res.body);
      assert.match(res.body, /AGENT_ERR_SECRET_FILE|not a regular file/);
      await answers();
    }
  });

  void it('PUT of an include that is a FIFO or /dev/zero answers 422 and the agent keeps answering', async () => {
    for (const path of ['fifo', '/dev/zero']) {
      const res = await root('/api/v1/settings', 'PUT', { path: '/includes', key: 'base', value: path });
      assert.equal(res.status, 422, res.body);
      assert.match(res.body, /not a regular file/);
      await answers();
    }
  });

  void it('PUT of a web certificate that is a FIFO or /dev/zero answers 422 and the agent keeps answering', async () => {
    for (const path of ['fifo', '/dev/zero']) {
      const res = await root('/api/v1/settings', 'PUT', {
        path: '/settings/WEB/server',
        key: 'certificate',
        value: path,
      });
      assert.equal(res.status, 422, res.body);
      assert.match(res.body, /AGENT_ERR_TLS_FILE.*not a regular file/);
      await answers();
    }
  });

  void it('a settings file edited to read a FIFO is rejected, the last good settings stay, and the agent answers', async () => {
    const m = agent.mark();
    writeFileSync(agent.settingsFile, `${ini}\n[/settings/default]\nallowed hosts = \${file:fifo}\n`);
    await agent.waitForLog(/settings rejected/, 20_000, m);
    await agent.waitForLog(/AGENT_ERR_SECRET_FILE.*not a regular file: it is a FIFO/, 20_000, m);
    await answers();
  });
});
