/**
 * The web UI's Status view in chromium (playwright-core) with
 * `[/settings/source]` pulling from Debian's nginx on loopback: the
 * "Settings source" section shows the URL, the revision in force (nginx's
 * ETag) and the counts; after a refused pull, the error.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';

void describe('web UI: the settings source in the Status view', () => {
  let nginx: Nginx;
  let state: string;
  let agent: AgentProcess;
  let browser: BrowserSession;
  let page: Page;
  let origin: string;

  before(async () => {
    nginx = await startNginx();
    serve(nginx, 'agent.ini', '[/settings/log]\nbuffer size = 1234\n');
    state = mkdtempSync(join(tmpdir(), 'ui-source-state-'));
    agent = await startAgent({
      ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${state}\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\npassword = ui-pw\n\n[/settings/source]\nurl = ${nginx.base}/agent.ini\ninterval = 3600\n`,
    });
    origin = `https://127.0.0.1:${await webPort(agent)}`;
    await waitUntil(
      async () =>
        (await webRequest(`${origin}/api/v1/settings/status`, { user: 'root', password: 'ui-pw' })).json<{
          source?: { revision: string | null };
        }>().source?.revision != null,
      15_000,
      'the first pull',
    );
  });

  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when before() failed
    await Promise.all([browser?.close(), agent?.stop()]);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when before() failed
    await nginx?.close();
    rmSync(state, { recursive: true, force: true });
  });

  void it('shows the source, its revision and, after a refused pull, the error', async () => {
    browser = await openBrowser({ origin });
    page = browser.page;
    await page.goto(`${origin}/`);
    await page.getByLabel('User').fill('root');
    await page.getByLabel('Password').fill('ui-pw');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Status' }).waitFor();
    const section = page.getByRole('region', { name: 'Settings source' });
    await section.waitFor();
    const text = (await section.textContent()) ?? '';
    assert.ok(text.includes(`${nginx.base}/agent.ini`), text);
    assert.match(text, /Revision"[0-9a-f]+-[0-9a-f]+"/);
    assert.match(text, /1 applied, 0 unchanged, 0 failed/);
    rmSync(join(nginx.www, 'agent.ini'));
    const pulled = await webRequest(`${origin}/api/v1/settings/pull`, {
      method: 'POST',
      user: 'root',
      password: 'ui-pw',
    });
    assert.equal(pulled.status, 200);
    await page.reload();
    await page.getByRole('region', { name: 'Settings source' }).locator('.source-error').waitFor();
    assert.match((await page.getByRole('region', { name: 'Settings source' }).textContent()) ?? '', /HTTP 404/);
    assert.deepEqual([...browser.pageErrors, ...browser.foreignRequests, ...browser.cspViolations], []);
  });
});
