/**
 * The web UI's Status view in chromium (playwright-core) with
 * `[/settings/source]` pulling from Debian's nginx on loopback: the
 * "Settings source" section shows the URL, the revision in force (nginx's
 * ETag) and the counts; root's "Pull now" (POST /api/v1/settings/pull)
 * applies a new file and shows the new revision, then shows a refused
 * pull's error; a role without settings.put sees the section but no button.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { openBrowser, signInAs, type BrowserSession } from '../helpers/browser.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';

void describe('web UI: the settings source in the Status view', () => {
  let nginx: Nginx;
  let state: string;
  let agent: AgentProcess;
  let browser: BrowserSession;
  let page: Page;
  let origin: string;
  const made = new Teardown();
  after(() => made.close());

  const signIn = (user: string, password: string): Promise<void> => signInAs(page, user, password);
  const sectionText = async (): Promise<string> =>
    (await page.getByRole('region', { name: 'Settings source' }).textContent()) ?? '';

  before(async () => {
    nginx = made.add(await startNginx(), (n) => n.close());
    serve(nginx, 'agent.ini', '[/settings/log]\nbuffer size = 1234\n');
    state = mkdtempSync(join(tmpdir(), 'ui-source-state-'));
    made.defer(() => rmSync(state, { recursive: true, force: true }));
    agent = made.add(
      await startAgent({
        ini: `[/modules]\nWEBServer = enabled\n\n[/paths]\nstate = ${state}\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\npassword = ui-pw\n\n[/settings/web/roles]\nviewer = public, info.get, settings.get\n\n[/settings/web/users/viewer]\npassword = viewer-pw\nrole = viewer\n\n[/settings/source]\nurl = ${nginx.base}/agent.ini\ninterval = 3600\n`,
      }),
      (a) => a.stop(),
    );
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

  void it('shows the source and its revision; Pull now applies a new file, then shows a refused pull', async () => {
    browser = made.add(await openBrowser({ origin }), (b) => b.close());
    page = browser.page;
    await page.goto(`${origin}/`);
    await signIn('root', 'ui-pw');
    const section = page.getByRole('region', { name: 'Settings source' });
    await section.waitFor();
    let text = await sectionText();
    assert.ok(text.includes(`${nginx.base}/agent.ini`), text);
    const first = /Revision("[0-9a-f]+-[0-9a-f]+")/.exec(text)?.[1] ?? '';
    assert.notEqual(first, '', text);
    assert.match(text, /1 applied, 0 unchanged, 0 failed/);

    // A longer file: nginx's ETag (mtime and size) differs even within the same second.
    serve(nginx, 'agent.ini', '[/settings/log]\nbuffer size = 5678\n; the second revision\n');
    const pullNow = section.getByRole('button', { name: 'Pull now' });
    await pullNow.click();
    const result = section.locator('.pull-result .notice-ok');
    await result.waitFor();
    const revision = /revision ("[0-9a-f]+-[0-9a-f]+") is in force/.exec((await result.textContent()) ?? '')?.[1];
    assert.ok(revision !== undefined && revision !== first, (await result.textContent()) ?? '');
    await waitUntil(
      async () => (await sectionText()).includes(`Revision${revision}`),
      10_000,
      'the new revision shown',
    );
    text = await sectionText();
    assert.match(text, /2 applied, 0 unchanged, 0 failed/);

    rmSync(join(nginx.www, 'agent.ini'));
    await pullNow.click();
    const refused = section.locator('.pull-result .notice-error');
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /Pull failed; the settings in force are kept: .*HTTP 404/);
    await section.locator('.source-error').waitFor();
    assert.match(await sectionText(), /HTTP 404/);
    assert.deepEqual([...browser.pageErrors, ...browser.foreignRequests, ...browser.cspViolations], []);
  });

  void it('a role without settings.put sees the source but no Pull now button', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn('viewer', 'viewer-pw');
    const section = page.getByRole('region', { name: 'Settings source' });
    await section.waitFor();
    assert.match(await sectionText(), /Revision/);
    assert.equal(await section.getByRole('button', { name: 'Pull now' }).count(), 0);
    assert.deepEqual([...browser.pageErrors, ...browser.foreignRequests, ...browser.cspViolations], []);
  });
});
