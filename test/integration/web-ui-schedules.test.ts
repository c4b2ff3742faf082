/**
 * The web UI's Schedules view in chromium (playwright-core), against the
 * agent as a process with the Scheduler: each schedule's row with its
 * query, interval, channel and target, its last run's status once it ran,
 * the counters, and a schedule whose command cannot be parsed shown with
 * its problem; a user whose role lacks schedules.list is told so. The page
 * must not throw nor request anything outside the agent's origin.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { Teardown } from '../helpers/teardown.js';

void describe('web UI: Schedules view', () => {
  let agent: AgentProcess;
  let browser: BrowserSession;
  let page: Page;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    agent = await startAgent({
      ini: `[/settings/scheduler/schedules/default]
interval = 1s
channel = drop

[/settings/scheduler/schedules/cpu]
command = check_critical "too busy"
alias = CPU Load
target = nagios

[/settings/scheduler/schedules/broken]
command = check_ok "unclosed

[/settings/web/roles]
viewer = public, info.get

[/settings/web/users/viewer]
password = viewer-pw
role = viewer

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ui-pw

[/modules]
WEBServer = enabled
CheckHelpers = enabled
Scheduler = enabled
`,
    });
    made.add(agent, (a) => a.stop());
    const origin = `https://127.0.0.1:${await webPort(agent)}`;
    browser = made.add(await openBrowser({ origin }), (b) => b.close());
    page = browser.page;
    await page.goto(`${origin}/`);
  });

  const signIn = async (user: string, password: string): Promise<void> => {
    await page.getByLabel('User').fill(user);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
  };
  const openSchedules = async (): Promise<void> => {
    await page
      .getByRole('navigation', { name: 'Views' })
      .getByRole('link', { name: /^Schedules/ })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
  };

  void it('lists each schedule with its query, interval, channel, target, last status and counters', async () => {
    await signIn('root', 'ui-pw');
    await openSchedules();
    const cpu = page.locator('tr[data-schedule="cpu"]');
    await cpu.waitFor();
    assert.match((await cpu.textContent()) ?? '', /cpu as CPU Load/);
    assert.match((await cpu.textContent()) ?? '', /check_critical too busy/);
    assert.match((await cpu.textContent()) ?? '', /1 s/);
    assert.match((await cpu.textContent()) ?? '', /drop → nagios/);
    // The view refreshes every 5 s: the first run's status shows up.
    await page
      .locator('tr[data-schedule="cpu"] .status-critical', { hasText: 'CRITICAL' })
      .waitFor({ timeout: 15_000 });
    assert.match((await page.locator('tr[data-schedule="broken"]').textContent()) ?? '', /unclosed "/);
    assert.deepEqual(browser.pageErrors, []);
    assert.deepEqual(browser.foreignRequests, []);
  });

  void it('a role without schedules.list is told which privilege it lacks', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn('viewer', 'viewer-pw');
    await openSchedules();
    await page.locator('.notice-locked', { hasText: 'schedules.list' }).waitFor();
    assert.match((await page.locator('.notice-locked').textContent()) ?? '', /privilege for the schedules/);
  });
});
