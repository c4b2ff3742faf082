/**
 * The web UI for users with different roles, in chromium against the
 * agent as a process: the host name in the header and the page title; a
 * role without modules.load/unload/enable/disable is offered none of those
 * buttons and one without queries.execute no Run button, while root gets
 * them all; the Settings view lists the effective settings with each
 * value's origin (file:line or default) and secrets masked; perf values
 * without a maximum or thresholds get no bar. The API side is checked too:
 * the index names the caller's privileges, the settings list its origins.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { openBrowser, signInAs, type BrowserSession } from '../helpers/browser.js';
import { Teardown } from '../helpers/teardown.js';
import { basic, webRequest } from '../helpers/web-client.js';

const ROOT_PW = 'roles-root-pw';
const LOOKER_PW = 'roles-looker-pw';
const INI = [
  '[/modules]',
  'WEBServer = enabled',
  'CheckHelpers = enabled',
  'CheckExternalScripts = enabled',
  '[/settings/default]',
  `password = ${ROOT_PW}`,
  '[/settings/WEB/server]',
  'port = 0s',
  'bind to = 127.0.0.1',
  '[/settings/web/roles]',
  'looker = public, info.get, modules.list, modules.get, queries.list, queries.get, settings.get',
  '[/settings/web/users/looker]',
  `password = ${LOOKER_PW}`,
  'role = looker',
  '[/settings/external scripts/scripts]',
  'check_plain_perf = plain.sh',
  '',
].join('\n');
const lineOf = (text: string): number => INI.split('\n').indexOf(text) + 1;

void describe('web UI by role (chromium, agent process)', () => {
  let agent: AgentProcess;
  let browser: BrowserSession;
  let page: Page;
  let base: string;
  const made = new Teardown();
  after(() => made.close());

  /** Signs in on the sign-in form the page shows. */
  const signIn = (user: string, password: string): Promise<void> => signInAs(page, user, password);
  const openView = async (label: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: label }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  };

  before(async () => {
    // One value without max or thresholds (no scale: no bar), one with thresholds (a bar).
    agent = await startAgent({
      ini: INI,
      files: { 'scripts/plain.sh': "#!/bin/sh\necho \"OK: two values|'count'=5 'load'=2.98;3;5\"\n" },
    });
    made.add(agent, (a) => a.stop());
    chmodSync(join(agent.dir, 'scripts', 'plain.sh'), 0o755);
    base = (await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    browser = made.add(await openBrowser({ origin: base }), (b) => b.close());
    page = browser.page;
  });

  void it('the API index names the caller and its privileges; the settings list carries origins', async () => {
    const ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
    const index = await webRequest(`${base}/api/v1`, { headers: { authorization: basic('looker', LOOKER_PW) }, ca });
    assert.equal(index.status, 200, index.body);
    const body = index.json<{ user: string; privileges: string[]; settings_url: string }>();
    assert.equal(body.user, 'looker');
    assert.deepEqual(body.privileges, [
      'public',
      'info.get',
      'modules.list',
      'modules.get',
      'queries.list',
      'queries.get',
      'settings.get',
    ]);
    const list = await webRequest(`${body.settings_url}/settings/WEB/server?origins=true`, {
      headers: { authorization: basic('root', ROOT_PW) },
      ca,
    });
    assert.equal(list.status, 200, list.body);
    const entries = list.json<{ path: string; key: string; value: string; origin: string }[]>();
    assert.deepEqual(
      entries.find((e) => e.key === 'port'),
      { path: '/settings/WEB/server', key: 'port', value: '0s', origin: `agent.ini:${lineOf('port = 0s')}` },
    );
    assert.equal(entries.find((e) => e.key === 'max connections')?.origin, 'default');
  });

  void it('root: the host name in header and title, every module action, Run, and the settings with their origins', async () => {
    await page.goto(`${base}/`);
    await signIn('root', ROOT_PW);
    assert.equal((await page.locator('#brand-name').textContent())?.trim(), `${hostname()} · Monitoring agent`);
    assert.equal(await page.title(), `Status · ${hostname()} · Monitoring agent`);
    await openView('Modules');
    await page.getByRole('button', { name: 'Unload CheckHelpers' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Disable CheckHelpers' }).count(), 1);
    await openView('Settings');
    const port = page.locator('section[aria-label="/settings/WEB/server"] tr', { hasText: 'port' }).first();
    await port.waitFor();
    assert.equal((await port.locator('.setting-origin').textContent())?.trim(), `agent.ini:${lineOf('port = 0s')}`);
    const password = page.locator('section[aria-label="/settings/default"] tr', { hasText: 'password' }).first();
    assert.equal((await password.locator('.setting-value').textContent())?.trim(), '******');
    assert.equal(await page.getByText(ROOT_PW).count(), 0, 'the password is not on the page');
    await page.getByLabel('Filter settings').fill('allowed hosts');
    assert.ok((await page.locator('table.settings tbody tr').count()) >= 1);
    assert.equal(await page.locator('table.settings code', { hasText: 'port' }).count(), 0, 'filtered out');
  });

  void it('root: a perf value with neither maximum nor thresholds gets no bar, one with thresholds does', async () => {
    await openView('Queries');
    await page.getByRole('button', { name: 'check_plain_perf', exact: true }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('.check-result').waitFor();
    const count = page.locator('.perf-row', { hasText: 'count' });
    assert.equal(await count.getAttribute('class'), 'perf-row perf-unscaled');
    assert.equal(await count.locator('.perf-track').count(), 0);
    assert.equal(await page.locator('.perf-row', { hasText: 'load' }).locator('.perf-fill').count(), 1);
  });

  void it('a role without the action privileges is not offered the actions', async () => {
    // Signed in as root from the tests before: sign out the way a person does (the saved session goes too).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn('looker', LOOKER_PW);
    await openView('Modules');
    await page.locator('#module-CheckHelpers').waitFor();
    for (const action of ['Load', 'Unload', 'Enable', 'Disable']) {
      assert.equal(
        await page.getByRole('button', { name: new RegExp(`^${action} `) }).count(),
        0,
        `${action} is not offered`,
      );
    }
    await openView('Queries');
    await page.getByRole('button', { name: 'check_ok', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'check_ok' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run', exact: true }).count(), 0);
    assert.match((await page.locator('.runner .notice-locked').textContent()) ?? '', /queries\.execute/);
    assert.deepEqual(browser.pageErrors, []);
    assert.deepEqual(browser.cspViolations, []);
  });
});
