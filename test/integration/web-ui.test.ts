/**
 * End to end: the agent runs as a process with WEBServer on HTTPS, and a
 * headless Debian chromium (playwright-core) uses the web UI the way a
 * person does: a wrong password and its message, sign-in, the status
 * view, check_ok / check_critical / check_memory with their colours and
 * perf bars, the query list against /api/v1/queries (every host and
 * network check of the loaded modules) with check_dummy and
 * check_kernel_stats run from it, unloading and loading a module, paging the logs through the
 * Link header, a rejected settings edit shown with its line, a user whose
 * role hides views, and the narrow (375 px) layout. Screenshots go to
 * test-output/web-ui/ for a person to look at. The page must never throw
 * and never request anything outside the agent's origin.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

const OUT = join(REPO, 'test-output', 'web-ui');
const PASSWORD = 'ui-test-secret';

function iniFor(): string {
  return `; web UI end-to-end test
[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckSystem = enabled
CheckExternalScripts = enabled
CheckDisk = enabled
CheckLogFile = enabled
CheckNet = enabled

[/settings/external scripts/scripts]
check_zero = zero.sh

[/settings/default]
password = ${PASSWORD}

[/settings/web/roles]
viewer = public, info.get, logs.list

[/settings/web/users/viewer]
password = viewer-pw
role = viewer

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
allowed hosts = 127.0.0.1
`;
}

void describe('web UI in chromium (agent process)', () => {
  let agent: AgentProcess;
  let browser: BrowserSession;
  let page: Page;
  let base: string;
  let ini: string;
  const made = new Teardown();
  after(() => made.close());

  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  const text = async (selector: string): Promise<string> => (await page.locator(selector).first().textContent()) ?? '';
  /** Evaluate a browser expression (a string: this project's TypeScript has no DOM types). */
  const js = <T>(expression: string): Promise<T> => page.evaluate<T>(expression);
  const signIn = async (user: string, password: string): Promise<void> => {
    await page.getByLabel('User').fill(user);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const openView = async (label: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: label }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  };
  const runQuery = async (name: string, args = ''): Promise<string> => {
    await page.getByRole('button', { name, exact: true }).click();
    await page.getByRole('heading', { level: 2, name }).waitFor();
    await page.getByLabel('Arguments').fill(args);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const result = page.locator('.check-result');
    await page.locator(`.check-result code:text-is("${name}")`).waitFor();
    return (await result.getAttribute('data-status')) ?? '';
  };

  before(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    ini = iniFor();
    // A check whose perf data has no range (max 0, as swap on a host without swap).
    agent = made.add(
      await startAgent({
        ini,
        files: { 'scripts/zero.sh': "#!/bin/sh\necho \"OK: no swap|'swap'=0B;80;90;0;0 'used'=5;8;9;0;10\"\n" },
      }),
      (a) => a.stop(),
    );
    chmodSync(join(agent.dir, 'scripts', 'zero.sh'), 0o755);
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    browser = made.add(await openBrowser({ origin: base }), (b) => b.close());
    page = browser.page;
  });

  void it('refuses a wrong password with a clear message, typed with the keyboard only', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Before sign-in the header's dot knows nothing: grey.
    assert.equal(await page.locator('#health').getAttribute('data-state'), 'unknown');
    // The page puts the cursor into the password field (the user is prefilled with root).
    assert.equal(await js('document.activeElement?.id'), 'password');
    await page.keyboard.type('not-the-password');
    await page.keyboard.press('Enter');
    const error = page.locator('#sign-in-error');
    await error.waitFor({ state: 'visible' });
    assert.match((await error.textContent()) ?? '', /Sign-in refused \(403\)/);
    assert.equal(await error.getAttribute('role'), 'alert');
    // The skip link comes before the form in the tab order, and it moves the focus to the content.
    await page.getByLabel('User').focus();
    await page.keyboard.press('Shift+Tab');
    assert.equal(await js('document.activeElement?.className'), 'skip-link');
    await page.keyboard.press('Enter');
    assert.equal(await js('document.activeElement?.id'), 'main');
    await shot('01-wrong-password');
  });

  void it('signs in, keeps the credentials in sessionStorage only, and shows the status', async () => {
    await signIn('root', PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
    await page.locator('.result-ok').waitFor();
    assert.match(await text('.result-ok .badge'), /Applied/);
    assert.match(await text('.facts'), /Settings file/);
    assert.match(await text('#session-user'), /^root$/);
    await page.locator('#health[data-state="ok"], #health[data-state="none"]').waitFor();
    assert.match((await page.locator('#health').getAttribute('aria-label')) ?? '', /^Settings applied/);
    const storage = await js<{ local: number; cookie: string; session: string | null }>(
      "({ local: localStorage.length, cookie: document.cookie, session: sessionStorage.getItem('agent-ui-session') })",
    );
    assert.equal(storage.local, 0);
    assert.equal(storage.cookie, '');
    assert.ok(storage.session?.includes('root'));
    // A reload of the tab keeps the session.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
    await page.locator('.result-ok').waitFor();
    await shot('02-status');
  });

  void it('runs check_ok and check_critical and shows their states and colours', async () => {
    await openView('Queries');
    assert.equal(await runQuery('check_ok', 'all is fine'), 'OK');
    assert.equal(await text('.check-result .message'), 'all is fine');
    const okColour = await js<string>("getComputedStyle(document.querySelector('.check-result')).borderLeftColor");
    await shot('03-query-ok');
    assert.equal(await runQuery('check_critical'), 'CRITICAL');
    assert.match(await text('.check-result .message'), /CRITICAL/);
    assert.match(await text('.check-result .badge'), /^CRITICAL$/);
    const criticalColour = await js<string>(
      "getComputedStyle(document.querySelector('.check-result')).borderLeftColor",
    );
    assert.notEqual(criticalColour, okColour);
    await shot('04-query-critical');
  });

  void it('draws performance data as bars', async () => {
    await page.getByLabel('Filter queries').fill('memory');
    await runQuery('check_memory');
    const rows = page.locator('.perf-row');
    assert.ok((await rows.count()) >= 1, 'check_memory has perf data');
    assert.match((await rows.first().locator('.perf-text').textContent()) ?? '', /\d/);
    const width = await js<string>("document.querySelector('.perf-row .perf-fill').style.width");
    assert.match(width, /^\d+(\.\d+)?%$/);
    await shot('05-query-perf');
    // max 0: no range, so no threshold ticks and an empty bar; the row beside it keeps its ticks.
    await page.getByLabel('Filter queries').fill('zero');
    await runQuery('check_zero');
    const swap = page.locator('.perf-row', { hasText: 'swap' });
    assert.equal(await swap.locator('.perf-mark').count(), 0);
    assert.equal(
      await swap.locator('.perf-fill').evaluate((el) => (el as unknown as { style: { width: string } }).style.width),
      '0%',
    );
    assert.equal(await page.locator('.perf-row', { hasText: 'used' }).locator('.perf-mark').count(), 2);
    await page.getByLabel('Filter queries').fill('');
  });

  void it('lists every query of the loaded modules, the host and network checks among them, and runs one', async () => {
    await openView('Queries');
    await page.locator('li[data-query="check_ok"]').waitFor();
    const shown = await js<string[]>("[...document.querySelectorAll('li[data-query]')].map((li) => li.dataset.query)");
    const api = (await webRequest(`${base}/api/v1/queries`, { user: 'root', password: PASSWORD })).json<
      { name: string; module: string }[]
    >();
    assert.deepEqual([...shown].sort(), api.map((q) => q.name).sort(), 'the list is what the API lists');
    const checks = [
      'check_service',
      'check_logfile',
      'check_network',
      'check_mount',
      'check_connections',
      'check_drive_io',
      'check_swap_io',
      'check_kernel_stats',
      'check_temperature',
      'check_cpu_utilization',
      'check_tcp',
      'check_http',
      'check_dns',
      'check_ping',
      'check_ntp_offset',
      'check_os_updates',
      'check_mailq',
      'check_index',
      'check_dummy',
    ];
    for (const name of checks) {
      const row = page.locator(`li[data-query="${name}"]`);
      assert.equal(await row.count(), 1, `${name} is listed`);
      const module = api.find((q) => q.name === name)?.module ?? '';
      assert.match(
        (await row.locator('.hint').textContent()) ?? '',
        new RegExp(`${module}$`),
        `${name} names its module`,
      );
    }
    await page.getByLabel('Filter queries').fill('dummy');
    assert.equal(await runQuery('check_dummy', '1\ndisk almost full'), 'WARNING');
    assert.equal(await text('.check-result .message'), 'disk almost full');
    await page.getByLabel('Filter queries').fill('kernel');
    assert.equal(await runQuery('check_kernel_stats'), 'OK');
    assert.ok((await page.locator('.perf-row').count()) >= 2, 'kernel stats draw their perf data');
    await shot('05b-query-kernel-stats');
    await page.getByLabel('Filter queries').fill('');
  });

  void it('unloads and loads a module', async () => {
    await openView('Modules');
    const card = page.locator('article[data-module="CheckHelpers"]');
    await card.waitFor();
    await card.getByRole('button', { name: 'Unload CheckHelpers' }).click();
    await page.locator('.view-message', { hasText: 'Success unload CheckHelpers' }).waitFor();
    await card.getByRole('button', { name: 'Load CheckHelpers' }).waitFor();
    assert.match((await card.textContent()) ?? '', /Driftenabled in the file but not loaded/);
    // The keyboard stays on the card: the new button has the focus.
    assert.equal(await js("document.activeElement?.getAttribute('aria-label')"), 'Load CheckHelpers');
    await shot('06-module-unloaded');
    await card.getByRole('button', { name: 'Load CheckHelpers' }).click();
    await page.locator('.view-message', { hasText: 'Success load CheckHelpers' }).waitFor();
    await card.getByRole('button', { name: 'Unload CheckHelpers' }).waitFor();
    assert.doesNotMatch((await card.textContent()) ?? '', /Drift/);
  });

  void it('pages through the logs by the Link header and filters by level', async () => {
    await openView('Logs');
    await page.getByLabel('Entries per page').selectOption('10');
    // Wait for the reload at 10 per page: the label of the previous page size may still show.
    await page.locator('.pager-where', { hasText: /^Page 1 of (?:[2-9]|\d{2,})\b/ }).waitFor();
    const where = await text('.pager-where');
    const pages = Number(/of (\d+)/.exec(where)?.[1]);
    assert.ok(pages >= 2, `enough entries for two pages: ${where}`);
    const firstIndex = async (): Promise<number> =>
      Number(await page.locator('table.logs tbody tr td.num').first().textContent());
    const page1 = await firstIndex();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator('.pager-where', { hasText: /^Page 2 of/ }).waitFor();
    const page2 = await firstIndex();
    assert.ok(page2 < page1, `newest first: page 2 starts at ${page2}, page 1 at ${page1}`);
    await shot('07-logs-page-2');
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.locator('.pager-where', { hasText: /^Page 1 of/ }).waitFor();
    await page.getByRole('button', { name: 'Last' }).click();
    // The last page (its number may have grown if the agent logged something meanwhile).
    await page.locator('.pager-where', { hasText: /^Page (\d+) of \1\b/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Next' }).isDisabled(), true);
    // Only errors and warnings: every row shown has one of those levels.
    for (const level of ['critical', 'info', 'debug']) await page.getByRole('checkbox', { name: level }).uncheck();
    await page.locator('.pager-where', { hasText: /^Page 1 of/ }).waitFor();
    // Each uncheck reloads the table: wait for the one after the last (the first reloads also
    // show page 1), bounded; then every row shown has one of the two levels.
    let levels: string[] = [];
    await waitUntil(
      async () => {
        levels = await page.locator('table.logs tbody .level').allTextContents();
        return levels.length > 0 && levels.every((l) => l === 'warning' || l === 'error');
      },
      10_000,
      'a table of warnings and errors only',
    ).catch(() => undefined);
    assert.ok(levels.length > 0, 'there are warnings or errors (the refused sign-in)');
    assert.ok(
      levels.every((l) => l === 'warning' || l === 'error'),
      levels.join(','),
    );
    await shot('08-logs-filtered');
  });

  void it('shows a rejected settings edit with its line, and the recovery', async () => {
    const line = ini.split('\n').length; // the appended line's number (ini ends with a newline)
    const mark = agent.mark();
    appendFileSync(agent.settingsFile, 'port = notanumber\n');
    await agent.waitForLog(/settings rejected/, 10_000, mark);
    await openView('Status');
    await page.locator('.result-invalid').waitFor();
    // The header's dot turns red with the status view, and back to green with the fix below.
    assert.equal(await page.locator('#health').getAttribute('data-state'), 'invalid');
    const problems = page.locator('.problems-problems .problem');
    assert.ok((await problems.count()) >= 1);
    assert.match((await problems.allTextContents()).join('\n'), new RegExp(`Line ${line}, col \\d+.*port`));
    assert.match(await text('section:has(#reconciler-heading) .facts'), /differs: the file on disk is not in force/);
    await shot('09-settings-rejected');
    const again = agent.mark();
    replaceFile(agent.settingsFile, ini);
    await agent.waitForLog(/settings (unchanged|changed) .*reconciling/, 10_000, again);
    // The reconciler finishes a moment after that line: refresh until the view shows it (bounded).
    for (let i = 0; i < 40 && (await page.locator('.result-ok').count()) === 0; i++) {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.waitForTimeout(250);
    }
    await page.locator('.result-ok').waitFor();
    assert.equal(await page.locator('.problems-problems').count(), 0);
    assert.equal(await page.locator('#health').getAttribute('data-state'), 'ok');
  });

  void it('is readable at 375 px wide with no sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    const overflow = (): Promise<number> =>
      js('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await page.locator('.result-ok').waitFor();
    assert.equal(await overflow(), 0, 'status view');
    await shot('10-narrow-status');
    await openView('Queries');
    assert.match(await runQuery('check_memory'), /^(OK|WARNING|CRITICAL)$/);
    assert.equal(await overflow(), 0, 'queries view');
    await shot('11-narrow-queries');
    await openView('Logs');
    await page.locator('table.logs').waitFor();
    assert.equal(await overflow(), 0, 'logs view');
    await shot('12-narrow-logs');
    await openView('Modules');
    await page.locator('article.module').first().waitFor();
    assert.equal(await overflow(), 0, 'modules view');
    await shot('13-narrow-modules');
    await page.setViewportSize({ width: 1200, height: 800 });
  });

  void it('tells a restricted user which views the role does not allow, without signing out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await js("sessionStorage.getItem('agent-ui-session')"), null);
    await signIn('viewer', 'viewer-pw');
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
    // info.get is granted, settings.get is not: the info shows, the settings part says why it is hidden.
    await page.locator('.notice-locked', { hasText: 'settings.get' }).waitFor();
    // Without settings.get the dot cannot know: grey, and it says why.
    await page.locator('#health[aria-label="Settings status unknown (this user may not read it)"]').waitFor();
    assert.equal(await page.locator('#health').getAttribute('data-state'), 'unknown');
    assert.match(await text('.facts'), /Process id/);
    assert.match(await text('.nav'), /Modules \(no access\)/);
    await openView('Modules');
    await page.locator('.notice-locked', { hasText: 'modules.list' }).waitFor();
    assert.match(await text('.notice-locked'), /your role does not have the privilege for the module list/);
    await shot('14-viewer-modules-hidden');
    await openView('Logs');
    await page.locator('table.logs').waitFor();
    assert.match(await text('#session-user'), /^viewer$/);
  });

  void it('raised no page errors, broke no Content-Security-Policy rule and asked nothing of any other origin', async () => {
    assert.deepEqual(browser.pageErrors, []);
    assert.deepEqual(browser.foreignRequests, []);
    assert.deepEqual(browser.cspViolations, []);
    // The policy is in force and violations are seen: an inline style attribute is refused and reported (bounded wait).
    const styled = await js<string>(
      "(() => { const p = document.createElement('p'); p.setAttribute('style', 'color: rgb(1, 2, 3)'); document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; })()",
    );
    assert.notEqual(styled, 'rgb(1, 2, 3)', 'the inline style was not applied');
    for (let i = 0; i < 40 && browser.cspViolations.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.equal(browser.cspViolations.length > 0, true, 'the refused inline style was reported');
  });
});
