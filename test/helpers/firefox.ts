/**
 * A headless Debian Firefox (firefox-esr) driven by puppeteer-core over
 * WebDriver BiDi, for end-to-end tests of the web UI in a second engine.
 * Each call gets a fresh profile folder, accepts the agent's self-signed
 * certificate, keeps Firefox off the network (no updates, telemetry, safe
 * browsing, captive-portal or connectivity probes: the test machines reach
 * only loopback), and records what the page did wrong: uncaught exceptions
 * and every request that left the given origin. `close()` closes the
 * browser and removes the folder; it never throws.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CSP_MESSAGE, CSP_REPORTER } from './browser.js';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Preferences that stop Firefox's background traffic, first-run pages and prompts. */
export const FIREFOX_PREFS: Readonly<Record<string, unknown>> = {
  'app.update.enabled': false,
  'app.update.auto': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.startup.page': 0,
  'browser.aboutwelcome.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'browser.newtabpage.enabled': false,
  'browser.newtabpage.activity-stream.feeds.system.topstories': false,
  'browser.newtabpage.activity-stream.feeds.snippets': false,
  'browser.ping-centre.telemetry': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.search.update': false,
  'browser.topsites.contile.enabled': false,
  'captivedetect.canonicalURL': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'extensions.update.enabled': false,
  'extensions.getAddons.cache.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'extensions.blocklist.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.http.speculative-parallel-limit': 0,
  'network.prefetch-next': false,
  'security.OCSP.enabled': 0,
  'security.remote_settings.crlite_filters.enabled': false,
  'services.settings.server': 'https://127.0.0.1:9/',
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'toolkit.coverage.opt-out': true,
};

export interface FirefoxSession {
  browser: Browser;
  page: Page;
  /** Uncaught exceptions in the page, as messages. */
  pageErrors: string[];
  /** URLs the page requested outside `origin` (data: URLs are not requests to anywhere). */
  foreignRequests: string[];
  /** Content-Security-Policy violations the page reported (see browser.ts CSP_REPORTER). */
  cspViolations: string[];
  /** Every URL the page requested, in order (to show the request listener works). */
  requests: string[];
  close(): Promise<void>;
}

export interface FirefoxOptions {
  /** The only origin the page may talk to, e.g. https://127.0.0.1:8443. */
  origin: string;
  viewport?: { width: number; height: number };
  /** Time limit of each puppeteer wait and navigation (default 10 s). */
  timeoutMs?: number;
}

/** Launch Firefox (rejects within 30 s if it does not come up; the profile folder is removed then). */
export async function openFirefox(options: FirefoxOptions): Promise<FirefoxSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'agent-ui-firefox-'));
  const viewport = options.viewport ?? { width: 1200, height: 800 };
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      acceptInsecureCerts: true,
      userDataDir,
      args: ['--no-remote'],
      extraPrefsFirefox: { ...FIREFOX_PREFS },
      defaultViewport: viewport,
      env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1', TZ: 'UTC', LANG: 'en_GB.UTF-8' },
      timeout: 30_000,
      protocolTimeout: 30_000,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  const close = async (): Promise<void> => {
    await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
    rmSync(userDataDir, { recursive: true, force: true });
  };
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    // Firefox's first tab does not get defaultViewport (it opens at the window's size): set it here.
    await page.setViewport(viewport);
    page.setDefaultTimeout(options.timeoutMs ?? 10_000);
    page.setDefaultNavigationTimeout(options.timeoutMs ?? 10_000);
    const pageErrors: string[] = [];
    const foreignRequests: string[] = [];
    const requests: string[] = [];
    const cspViolations: string[] = [];
    page.on('pageerror', (err) => {
      const message = err instanceof Error ? err.message : String(err);
      // Firefox reports a CSP violation as a page error of its own: kept apart from uncaught exceptions.
      (CSP_MESSAGE.test(message) ? cspViolations : pageErrors).push(message);
    });
    page.on('console', (msg) => {
      if (CSP_MESSAGE.test(msg.text())) cspViolations.push(msg.text());
    });
    await page.evaluateOnNewDocument(CSP_REPORTER);
    page.on('request', (req) => {
      const url = req.url();
      requests.push(url);
      if (!url.startsWith('data:') && new URL(url).origin !== options.origin) foreignRequests.push(url);
    });
    return { browser, page, pageErrors, foreignRequests, cspViolations, requests, close };
  } catch (err) {
    await close();
    throw err;
  }
}
