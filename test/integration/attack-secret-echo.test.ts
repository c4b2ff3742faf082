/**
 * Black box (issue 11, item 3): an admin's typo puts a password where the
 * parser cannot read it (`password: S3cret`) or a `${` in a password; an
 * attacker with read access to logs or to a low privilege (logs.list,
 * settings.get) must not learn it. The agent runs as a process; the bad file
 * is rejected, and neither its stdout/stderr, /api/v1/logs,
 * /api/v1/settings/status nor `config-agent settings validate` shows the values.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { inRange } from '../../src/in-range.js';

const SECRET_LINE = 'S3cret-On-A-Bad-Line';
const SECRET_VAR = 'Pa55${word';
const SECRET_UNKNOWN = 'Top${secretpart}Pw';

const GOOD = `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw
allowed hosts = 127.0.0.1

[/settings/web/roles]
reader = logs.list, settings.get

[/settings/web/users/eve]
password = eve-pw
role = reader
`;

const BAD = `${GOOD}
[/settings/default]
password: ${SECRET_LINE}
password = ${SECRET_VAR}

[/settings/web/users/mallory]
password = ${SECRET_UNKNOWN}
`;

void describe('no secret in any message (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  const made = new Teardown();

  before(async () => {
    agent = made.add(await startAgent({ ini: GOOD }), (a) => a.stop());
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  });
  after(() => made.close());

  const leaks = (text: string): string[] =>
    [SECRET_LINE, SECRET_VAR, 'Pa55', SECRET_UNKNOWN, 'secretpart'].filter((s) => text.includes(s));

  void it('a rejected file with secrets on bad lines shows positions, not values, in the log, the API and validate', async () => {
    const mark = agent.mark();
    writeFileSync(agent.settingsFile, BAD);
    await agent.waitForLog(/settings rejected|invalid/, 10_000, mark);
    const status = await webRequest(`${base}/api/v1/settings/status`, { user: 'eve', password: 'eve-pw' });
    assert.equal(status.status, 200);
    assert.match(status.body, /AGENT_ERR_INI_SYNTAX/);
    assert.match(status.body, /AGENT_ERR_VARIABLE_UNTERMINATED/);
    assert.match(status.body, /AGENT_ERR_VARIABLE_UNKNOWN/);
    assert.deepEqual(leaks(status.body), [], status.body);
    const logs = await webRequest(`${base}/api/v1/logs?per_page=500`, { user: 'eve', password: 'eve-pw' });
    assert.equal(logs.status, 200);
    assert.match(logs.body, /content not shown/);
    assert.deepEqual(leaks(logs.body), []);
    assert.deepEqual(leaks(agent.logs()), [], 'stdout and stderr of the agent');
    const validate = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [MAIN, 'settings', 'validate', agent.settingsFile],
        { timeout: 20_000 },
        (_err, stdout, stderr) => resolve(stdout + stderr),
      );
    });
    assert.match(validate, /AGENT_ERR_INI_SYNTAX/);
    assert.deepEqual(leaks(validate), [], validate);
    const json = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [MAIN, 'settings', 'validate', agent.settingsFile, '--format', 'json'],
        { timeout: 20_000 },
        (_err, stdout) => resolve(stdout),
      );
    });
    assert.deepEqual(leaks(json), []);
  });
});
