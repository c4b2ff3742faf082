/**
 * End to end in a second engine: the agent runs as a process with
 * WEBServer on HTTPS (self-signed), and a headless Debian Firefox
 * (firefox-esr, driven by puppeteer-core over WebDriver BiDi) uses the web
 * UI: a wrong password and its 403 message, sign-in, the status view,
 * check_ok / check_critical with their states and colours, unloading and
 * loading a module, paging the logs, and the narrow (375 px) status view.
 * It finds things as the chromium test does (roles with names, labels, the
 * same classes), so both browsers test the same page. Screenshots go to
 * test-output/web-ui-firefox/. The page must never throw and never request
 * anything outside the agent's origin.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { REPO, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { openFirefox, type FirefoxSession } from '../helpers/firefox.js';
import { Teardown } from '../helpers/teardown.js';
import { inRange } from '../../src/in-range.js';

const OUT = join(REPO, 'test-output', 'web-ui-firefox');
const PASSWORD = 'ui-test-secret';

function iniFor(): string {
  return `; web UI end-to-end test in Firefox
[/modules]
WEBServer = enabled
CheckHelpers = enabled

[/settings/default]
password = ${PASSWORD}

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
allowed hosts = 127.0.0.1
`;
}

void describe('web UI in firefox (agent process)', () => {
  let agent: AgentProcess;
  let firefox: FirefoxSession;
  let page: Page;
  let base: string;
  const made = new Teardown();
  after(() => made.close());

  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  };
  /** Evaluate a browser expression (a string: this project's TypeScript has no DOM types). */
  const js = <T>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;
  const text = (selector: string): Promise<string> =>
    js(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? ''`);
  /** Wait (bounded by the page's default timeout) until some element matching selector is visible and its text matches re. */
  const waitText = async (selector: string, re: RegExp): Promise<void> => {
    await page.waitForFunction(
      `[...document.querySelectorAll(${JSON.stringify(selector)})].some((e) => e.checkVisibility() && new RegExp(${JSON.stringify(re.source)}).test(e.textContent))`,
    );
  };
  const signIn = async (user: string, password: string): Promise<void> => {
    await page.locator(byLabel('User')).fill(user);
    await page.locator(byLabel('Password')).fill(password);
    await page.locator(byRole('button', 'Sign in')).click();
  };
  const openView = async (label: string): Promise<void> => {
    await page.locator(`nav[aria-label="Views"] ${byRole('link', label)}`).click();
    await waitText('h1', new RegExp(`^${label}$`));
  };
  const runQuery = async (name: string, args = ''): Promise<string> => {
    await page.locator(byRole('button', name)).click();
    await waitText('h2', new RegExp(`^${name}$`));
    await page.locator(byLabel('Arguments')).fill(args);
    await page.locator(byRole('button', 'Run')).click();
    await waitText('.check-result code', new RegExp(`^${name}$`));
    return js(`document.querySelector('.check-result').getAttribute('data-status') ?? ''`);
  };

  before(async () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    agent = made.add(await startAgent({ ini: iniFor() }), (a) => a.stop());
    base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
    firefox = made.add(await openFirefox({ origin: base }), (f) => f.close());
    page = firefox.page;
  });

  void it('refuses a wrong password with a clear message, typed with the keyboard only', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector(byRole('heading', 'Sign in'), { visible: true });
    assert.equal(await js('document.activeElement?.id'), 'password');
    await page.keyboard.type('not-the-password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#sign-in-error', { visible: true });
    assert.match(await text('#sign-in-error'), /Sign-in refused \(403\)/);
    assert.equal(await js(`document.querySelector('#sign-in-error').getAttribute('role')`), 'alert');
    // The skip link comes before the form in the tab order, and it moves the focus to the content.
    await page.focus('#user');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    assert.equal(await js('document.activeElement?.className'), 'skip-link');
    await page.keyboard.press('Enter');
    assert.equal(await js('document.activeElement?.id'), 'main');
    await shot('01-wrong-password');
  });

  void it('signs in as root, keeps the credentials in sessionStorage only, and shows the status', async () => {
    await signIn('root', PASSWORD);
    await waitText('h1', /^Status$/);
    await page.waitForSelector('.result-ok', { visible: true });
    assert.match(await text('.result-ok .badge'), /Applied/);
    assert.match(await text('.facts'), /Settings file/);
    assert.equal(await text('#session-user'), 'root');
    const storage = await js<{ local: number; cookie: string; session: string | null }>(
      "({ local: localStorage.length, cookie: document.cookie, session: sessionStorage.getItem('agent-ui-session') })",
    );
    assert.equal(storage.local, 0);
    assert.equal(storage.cookie, '');
    assert.ok(storage.session?.includes('root'));
    await shot('02-status');
  });

  void it('runs check_ok and check_critical and shows their states and colours', async () => {
    await openView('Queries');
    assert.equal(await runQuery('check_ok', 'all is fine'), 'OK');
    assert.equal(await text('.check-result .message'), 'all is fine');
    const colour = "getComputedStyle(document.querySelector('.check-result')).borderLeftColor";
    const okColour = await js<string>(colour);
    await shot('03-query-ok');
    assert.equal(await runQuery('check_critical'), 'CRITICAL');
    assert.match(await text('.check-result .message'), /CRITICAL/);
    assert.equal(await text('.check-result .badge'), 'CRITICAL');
    assert.notEqual(await js<string>(colour), okColour);
    await shot('04-query-critical');
  });

  void it('unloads and loads a module', async () => {
    await openView('Modules');
    const card = 'article[data-module="CheckHelpers"]';
    await page.waitForSelector(card, { visible: true });
    await page.locator(`${card} ${byRole('button', 'Unload CheckHelpers')}`).click();
    await waitText('.view-message', /Success unload CheckHelpers/);
    await page.waitForSelector(`${card} ${byRole('button', 'Load CheckHelpers')}`, { visible: true });
    assert.match(await text(card), /Driftenabled in the file but not loaded/);
    // The keyboard stays on the card: the new button has the focus.
    assert.equal(await js("document.activeElement?.getAttribute('aria-label')"), 'Load CheckHelpers');
    await shot('05-module-unloaded');
    await page.locator(`${card} ${byRole('button', 'Load CheckHelpers')}`).click();
    await waitText('.view-message', /Success load CheckHelpers/);
    await page.waitForSelector(`${card} ${byRole('button', 'Unload CheckHelpers')}`, { visible: true });
    assert.doesNotMatch(await text(card), /Drift/);
  });

  void it('pages through the logs with Next and Previous', async () => {
    await openView('Logs');
    await page.select(byLabel('Entries per page'), '10');
    // Wait for the reload at 10 per page: the label of the previous page size may still show.
    await waitText('.pager-where', /^Page 1 of (?:[2-9]|\d{2,})\b/);
    const where = await text('.pager-where');
    const pages = Number(/of (\d+)/.exec(where)?.[1]);
    assert.ok(pages >= 2, `enough entries for two pages: ${where}`);
    const firstIndex = async (): Promise<number> => Number(await text('table.logs tbody tr td.num'));
    const page1 = await firstIndex();
    await page.locator(byRole('button', 'Next')).click();
    await waitText('.pager-where', /^Page 2 of/);
    const page2 = await firstIndex();
    assert.ok(page2 < page1, `newest first: page 2 starts at ${page2}, page 1 at ${page1}`);
    await shot('06-logs-page-2');
    await page.locator(byRole('button', 'Previous')).click();
    await waitText('.pager-where', /^Page 1 of/);
    assert.equal((await firstIndex()) >= page1, true);
  });

  void it('is readable at 375 px wide with no sideways scrolling', async () => {
    await page.setViewport({ width: 375, height: 740 });
    const overflow = (): Promise<number> =>
      js('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    await openView('Status');
    await page.waitForSelector('.result-ok', { visible: true });
    assert.equal(await overflow(), 0, 'status view');
    await shot('07-narrow-status');
    await openView('Queries');
    assert.equal(await runQuery('check_ok', 'narrow'), 'OK');
    assert.equal(await overflow(), 0, 'queries view');
    await shot('08-narrow-queries');
    await page.setViewport({ width: 1200, height: 800 });
  });

  void it('raised no page errors and asked nothing of any other origin', async () => {
    assert.deepEqual(firefox.pageErrors, []);
    assert.deepEqual(firefox.foreignRequests, []);
    assert.deepEqual(firefox.cspViolations, []);
    // The policy is in force and violations are seen: an inline style attribute is refused and reported (bounded wait).
    const styled = await js<string>(
      "(() => { const p = document.createElement('p'); p.setAttribute('style', 'color: rgb(1, 2, 3)'); document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; })()",
    );
    assert.notEqual(styled, 'rgb(1, 2, 3)', 'the inline style was not applied');
    for (let i = 0; i < 40 && firefox.cspViolations.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.equal(firefox.cspViolations.length > 0, true, 'the refused inline style was reported');
    // The listeners do work over BiDi: the API calls were seen, and a thrown error is caught (bounded wait).
    assert.ok(
      firefox.requests.some((url) => url.startsWith(`${base}/api`)),
      'API requests were recorded',
    );
    await js("setTimeout(() => { throw new Error('listener probe'); }, 0)");
    for (let i = 0; i < 40 && firefox.pageErrors.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    assert.equal(firefox.pageErrors.length, 1);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the deepEqual above narrowed pageErrors to [], and the page has added to it since
    assert.match(firefox.pageErrors[0] ?? '', /listener probe/);
  });
});

/** An element with this ARIA role and exactly this accessible name (like playwright's getByRole with exact names). */
function byRole(role: string, name: string): string {
  return `::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])`;
}

/**
 * The form control a <label for> with exactly this text points at (like
 * playwright's getByLabel). Firefox's accessibility tree gives the label
 * element itself the same name, so an ARIA name alone is ambiguous there.
 */
function byLabel(label: string): string {
  return `::-p-xpath(//*[@id = //label[normalize-space(.) = ${JSON.stringify(label)}]/@for])`;
}
