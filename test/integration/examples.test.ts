/**
 * Every shipped example works as shipped: the agent starts on each file of
 * settings/examples/ (copied to a temp folder; only the ports and the
 * listening address moved, to free loopback ones; secrets given the way the
 * example asks, in the environment; files the example says to put in
 * place, put there) and each enabled listener answers its real client:
 * check_nrpe for RemoteServer, check_nscp_api and HTTPS for WEBServer, the
 * agent's own client for AgentServer, and the browser for the UI with each
 * user of the example. Each example also validates without a warning that
 * says a listener cannot be reached.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listenerPort, MAIN, REPO, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { openBrowser } from '../helpers/browser.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { CHECK_NSCP_API, runPlugin } from '../helpers/nscp-clients.js';
import { basic, webRequest } from '../helpers/web-client.js';
import { Teardown } from '../helpers/teardown.js';

const EXAMPLES = join(REPO, 'settings', 'examples');
const example = (rel: string): string => readFileSync(join(EXAMPLES, rel), 'utf8');
/** The example with `port = …` of `section` set to `port` (added when the example leaves the default) and the listener on 127.0.0.1. */
function moveListener(text: string, section: string, port: string): string {
  const head = `[${section}]\n`;
  const at = text.indexOf(head);
  assert.ok(at >= 0, `the example has a section [${section}]`);
  const start = at + head.length;
  const end = text.indexOf('\n[', start) < 0 ? text.length : text.indexOf('\n[', start) + 1;
  const body = text.slice(start, end).replace(/^port = .*\n/m, '');
  return `${text.slice(0, start)}port = ${port}\nbind to = 127.0.0.1\n${body}${text.slice(end)}`;
}
const WARNINGS_OF_REACH = /AGENT_WARN_(TLS_NO_SHARED_CIPHER|UI_SIGN_IN)/;

function validate(file: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'settings', 'validate', file],
      { timeout: 20_000, env: { ...process.env, ...env } },
      (_err, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}

async function nscpApi(port: string, password: string, query: string): Promise<string> {
  const r = await runPlugin(CHECK_NSCP_API, ['-H', '127.0.0.1', '-P', port, '--password', password, '-q', query]);
  return `${r.code} ${r.stdout}${r.stderr}`;
}

void describe('settings/examples/nrpe-server.ini', () => {
  let agent: AgentProcess;
  let port: number;
  const made = new Teardown();
  before(async () => {
    agent = made.add(
      await startAgent({ ini: moveListener(example('nrpe-server.ini'), '/settings/remote/server', '0') }),
      (a) => a.stop(),
    );
    port = await listenerPort(agent, 'RemoteServer');
  });
  after(() => made.close());

  void it('check_nrpe runs its scripts, arguments included', async () => {
    const hello = await checkNrpe(port, ['-c', 'check_hello', '-a', 'world']);
    assert.deepEqual(hello, { code: 0, out: 'OK: hello from world' });
    const tmp = await checkNrpe(port, ['-c', 'check_tmp_files']);
    assert.equal(tmp.code, 0, tmp.out);
    assert.match(tmp.out, /^OK: \d+ files in \/tmp\|'files'=\d+$/);
  });

  void it('validates without a warning that a listener is unreachable', async () => {
    assert.doesNotMatch(await validate(agent.settingsFile), WARNINGS_OF_REACH);
  });
});

void describe('settings/examples/web-users.ini', () => {
  const passwords = { root: 'example-root-pw', alice: 'example-alice-pw', nagios: 'example-nagios-pw' };
  const env = {
    AGENT_WEB_PASSWORD: passwords.root,
    AGENT_ALICE_PASSWORD: passwords.alice,
    AGENT_NAGIOS_PASSWORD: passwords.nagios,
  };
  let agent: AgentProcess;
  let base: string;
  let port: string;
  const made = new Teardown();
  before(async () => {
    agent = made.add(
      await startAgent({ ini: moveListener(example('web-users.ini'), '/settings/WEB/server', '0s'), env }),
      (a) => a.stop(),
    );
    const m = await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:(\d+))/);
    [, base = '', port = ''] = m;
  });
  after(() => made.close());

  void it('each user reaches what its role grants over HTTPS', async () => {
    const info = async (user: keyof typeof passwords): Promise<number> =>
      (
        await webRequest(`${base}/api/v1/info`, {
          headers: { authorization: basic(user, passwords[user]) },
          timeoutMs: 10_000,
        })
      ).status;
    assert.equal(await info('root'), 200);
    assert.equal(await info('alice'), 200);
    assert.equal(await info('nagios'), 403, 'monitoring has no info.get');
    const run = await webRequest(`${base}/api/v1/queries/check_ok/commands/execute`, {
      headers: { authorization: basic('nagios', passwords.nagios) },
      timeoutMs: 10_000,
    });
    assert.equal(run.status, 200, run.body);
  });

  void it('check_nscp_api runs a query as root', async () => {
    assert.match(await nscpApi(port, passwords.root, 'check_ok'), /^0 /);
  });

  void it('each user of the example signs in to the UI', async () => {
    const browser = await openBrowser({ origin: base });
    try {
      const { page } = browser;
      await page.goto(`${base}/`);
      for (const user of ['root', 'alice', 'nagios'] as const) {
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await page.getByLabel('User').fill(user);
        await page.getByLabel('Password').fill(passwords[user]);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Views' }).waitFor();
        assert.equal((await page.locator('#session-user').textContent())?.trim(), user);
        // Sign out the way a person does: the saved session goes with it.
        await page.getByRole('button', { name: 'Sign out' }).click();
      }
      assert.deepEqual(browser.pageErrors, []);
    } finally {
      await browser.close();
    }
  });

  void it('validates without a warning that a listener is unreachable', async () => {
    assert.doesNotMatch(await validate(agent.settingsFile, env), WARNINGS_OF_REACH);
  });
});

void describe('settings/examples/fleet (hosts/web01.ini and hosts/db01.ini on shared/base.ini)', () => {
  const env = { AGENT_WEB_PASSWORD: 'example-fleet-pw' };
  const hosts: Record<string, { agent: AgentProcess; nrpe: number }> = {};
  before(async () => {
    for (const host of ['web01', 'db01']) {
      const baseIni = moveListener(
        moveListener(example('fleet/shared/base.ini'), '/settings/WEB/server', '0s'),
        '/settings/remote/server',
        '0',
      );
      const agent = await startAgent({
        ini: example(`fleet/hosts/${host}.ini`),
        settingsPath: `hosts/${host}.ini`,
        files: { 'shared/base.ini': baseIni },
        env,
      });
      hosts[host] = { agent, nrpe: await listenerPort(agent, 'RemoteServer') };
    }
  });
  after(async () => {
    for (const h of Object.values(hosts)) await h.agent.stop();
  });

  void it('check_nrpe reaches both hosts with its default (anonymous DH) handshake', async () => {
    for (const h of Object.values(hosts)) {
      const r = await checkNrpe(h.nrpe, ['-c', 'check_ok']);
      assert.equal(r.code, 0, r.out);
    }
  });

  void it('web01 serves the web API and check_nscp_api; db01 has it disabled', async () => {
    const web01 = hosts.web01?.agent;
    assert.ok(web01);
    const m = await web01.waitForLog(/web server listening on https:\/\/127\.0\.0\.1:(\d+)/);
    assert.match(await nscpApi(m[1] ?? '', env.AGENT_WEB_PASSWORD, 'check_ok'), /^0 /);
    assert.doesNotMatch(hosts.db01?.agent.logs() ?? '', /web server listening/);
  });

  void it('both validate without a warning that a listener is unreachable', async () => {
    for (const h of Object.values(hosts))
      assert.doesNotMatch(await validate(h.agent.settingsFile, env), WARNINGS_OF_REACH);
  });
});

void describe('settings/examples/agent-pair.ini', () => {
  let certs: CertDir;
  let agent: AgentProcess;
  let port: number;
  let client: { cert: string; key: string };
  let ca: string;
  const made = new Teardown();
  before(async () => {
    certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('site-ca');
    const site = certs.issue(authority, 'site', 'server');
    client = certs.issue(authority, 'poller', 'client');
    ca = authority.cert;
    // The files the example names, where it names them (${certificate-path} is security/ beside the settings).
    agent = made.add(
      await startAgent({
        ini: moveListener(example('agent-pair.ini'), '/settings/agent/server', '0'),
        files: {
          'security/site.pem': readFileSync(site.cert, 'utf8'),
          'security/site.key': readFileSync(site.key, 'utf8'),
          'security/ca.pem': readFileSync(ca, 'utf8'),
        },
      }),
      (a) => a.stop(),
    );
    port = await listenerPort(agent, 'AgentServer');
  });
  after(() => made.close());

  void it('the config-agent client with a certificate of the same CA runs a query on it', async () => {
    const out = await new Promise<string>((resolve) => {
      const args = [
        'client',
        '--settings',
        '/nonexistent/agent.ini',
        'agent_query',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--certificate',
        client.cert,
        '--certificate-key',
        client.key,
        '--ca',
        ca,
        '--verify',
        'peer-cert',
        '--command',
        'check_ok',
      ];
      execFile(
        process.execPath,
        [MAIN, ...args],
        { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
        (err, stdout, stderr) => resolve(`${err ? 'failed ' : ''}${stdout}${stderr}`.trim()),
      );
    });
    assert.match(out, /^OK/);
  });

  void it('validates without a warning that a listener is unreachable', async () => {
    assert.doesNotMatch(await validate(agent.settingsFile), WARNINGS_OF_REACH);
  });
});
