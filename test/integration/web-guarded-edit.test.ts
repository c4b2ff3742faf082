/**
 * Module enable/disable through the API edit the settings file, so they are
 * refused (409, nothing written, nothing unloaded) while the file is missing
 * or invalid; once the file is good again they work.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { basic, webRequest } from '../helpers/web-client.js';

let agent: AgentProcess;
let base: string;
const auth = { authorization: basic('root', 'guard-secret') };
let ini = '';
const made = new Teardown();
after(() => made.close());

before(async () => {
  ini = `[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckDisk = disabled

[/settings/default]
password = guard-secret

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
`;
  agent = made.add(await startAgent({ ini }), (a) => a.stop());
  base = `https://127.0.0.1:${await webPort(agent)}/api/v1`;
});

const modules = async (): Promise<Record<string, boolean>> => {
  const r = await webRequest(`${base}/modules`, { headers: auth });
  return Object.fromEntries((JSON.parse(r.body) as { name: string; loaded: boolean }[]).map((m) => [m.name, m.loaded]));
};

void test('enable while the settings file is missing: 409, no file created, nothing unloaded', async () => {
  const moved = `${agent.settingsFile}.moved`;
  renameSync(agent.settingsFile, moved);
  try {
    await agent.waitForLog(/settings file .* was removed/, 10_000);
    const r = await webRequest(`${base}/modules/CheckDisk/commands/enable`, { headers: auth });
    assert.equal(r.status, 409, r.body);
    assert.match(r.body, /AGENT_ERR_SETTINGS_UNREADABLE.*the file is missing/);
    assert.equal(existsSync(agent.settingsFile), false, 'no settings file was created');
    const m = await modules();
    assert.equal(m.WEBServer, true);
    assert.equal(m.CheckHelpers, true);
  } finally {
    renameSync(moved, agent.settingsFile);
  }
});

void test('disable while the settings file is invalid: 409 naming the problem, file untouched', async () => {
  const broken = `${ini}[/settings/bogus]\n`;
  writeFileSync(agent.settingsFile, broken);
  await agent.waitForLog(/settings rejected/, 10_000, 0);
  const r = await webRequest(`${base}/modules/CheckHelpers/commands/disable`, { headers: auth });
  assert.equal(r.status, 409, r.body);
  assert.match(r.body, /AGENT_ERR_SETTINGS_INVALID.*unknown section \[\/settings\/bogus\]/);
  assert.equal(readFileSync(agent.settingsFile, 'utf8'), broken);
  assert.equal((await modules()).CheckHelpers, true);
});

void test('with the file good again, enable edits it and applies', async () => {
  writeFileSync(agent.settingsFile, ini);
  const m = agent.mark();
  await agent.waitForLog(/reconciling/, 10_000, m);
  const r = await webRequest(`${base}/modules/CheckDisk/commands/enable`, { headers: auth });
  assert.equal(r.status, 200, r.body);
  assert.match(readFileSync(agent.settingsFile, 'utf8'), /CheckDisk = enabled/);
  assert.equal((await modules()).CheckDisk, true);
});
