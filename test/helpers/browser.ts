/**
 * A headless Debian chromium driven by playwright-core, for end-to-end tests
 * of the web UI. Each call gets a fresh user-data folder (no profile, no
 * cache carried between tests), accepts the agent's self-signed
 * certificate, and records what the page did wrong: uncaught exceptions and
 * every request that left the given origin (the UI must work offline), and
 * every Content-Security-Policy violation (the UI must work under the
 * agent's policy, with no inline script or style).
 * `close()` closes the browser and removes the folder; it never throws.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep chromium quiet and off the network (no updates, sync, QUIC, first-run). */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Console text of a CSP violation (Chromium's own message, or the one of CSP_REPORTER). */
export const CSP_MESSAGE = /Content.Security.Policy/i;

/** Page script run before the UI's own (browser tools inject it past the CSP): reports every violation on the console. */
export const CSP_REPORTER = `document.addEventListener('securitypolicyviolation', (e) => console.error('Content Security Policy violation: ' + e.violatedDirective + ' ' + e.blockedURI));`;

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Uncaught exceptions in the page, as messages. */
  pageErrors: string[];
  /** URLs the page requested outside `origin` (data: URLs are not requests to anywhere). */
  foreignRequests: string[];
  /** Content-Security-Policy violations the page reported (directive and blocked URI, or the console message). */
  cspViolations: string[];
  close(): Promise<void>;
}

export interface BrowserOptions {
  /** The only origin the page may talk to, e.g. https://127.0.0.1:8443. */
  origin: string;
  viewport?: { width: number; height: number };
  /** Time limit of each playwright action and wait (default 10 s). */
  timeoutMs?: number;
}

export async function openBrowser(options: BrowserOptions): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'agent-ui-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS],
      ignoreHTTPSErrors: true,
      viewport: options.viewport ?? { width: 1200, height: 800 },
      locale: 'en-GB',
      timezoneId: 'UTC',
      timeout: 30_000,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(options.timeoutMs ?? 10_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  const foreignRequests: string[] = [];
  const cspViolations: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  // The browser reports each violation as a console message, and the init script as a console error too.
  page.on('console', (msg) => {
    if (CSP_MESSAGE.test(msg.text())) cspViolations.push(msg.text());
  });
  await context.addInitScript(CSP_REPORTER);
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('data:') && new URL(url).origin !== options.origin) foreignRequests.push(url);
  });
  return {
    context,
    page,
    pageErrors,
    foreignRequests,
    cspViolations,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Sign in on the sign-in form the page shows, and wait for the Status view that follows. */
export async function signInAs(page: Page, user: string, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('User').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
}
