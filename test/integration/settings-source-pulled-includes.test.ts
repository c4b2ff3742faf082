/**
 * `[/includes]` in pulled settings (settings/store/pulled-includes.ts), the
 * config-agent run as a process and asked through its API:
 * - git: docs/settings.md's fleet layout (settings/examples/fleet, as it
 *   stands: `hosts/web01.ini` includes `../shared/base.ini`) pulled from
 *   `git daemon` and from `git http-backend` behind nginx (commits signed
 *   there, `allowed signers` set): the base applied under the host file; a
 *   commit that changes only the base applied; an include leaving the
 *   repository or naming an absolute path refused with file and line, the
 *   last good settings kept; a `*.ini` pattern in the repository included
 *   and listed again at the next commit; with signatures, a base changed in an unsigned
 *   commit refused with the commit; the cache (pulled-files/) in force at a
 *   start with the server gone, verified again at start when signed;
 * - https (nginx over TLS): a relative include on the same origin pulled,
 *   a change of the included file alone applied, an escaping one refused;
 *   with allowed signers each included file verified with its own `.sig`,
 *   a bad one refused, the cached base verified again at a restart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { certDir, type CertDir } from '../helpers/agent-certs.js';
import { startGitDaemon } from '../helpers/git-daemon.js';
import { startGitHttp } from '../helpers/git-http.js';
import type { GitWork } from '../helpers/git-work.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { allowedSigners, sshKey, sshSign } from '../helpers/signing-keys.js';
import { bootIni, sourceClient, type SourceClient } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';

const PASSWORD = 'pulled-includes-password';
const HOST = 'web01.example.org';
const fleet = (rel: string): string => readFileSync(join(REPO, 'settings', 'examples', 'fleet', rel), 'utf8');
/** The fleet's own files, as docs/settings.md lays them out. */
const FLEET = {
  'shared/base.ini': fleet('shared/base.ini'),
  'hosts/web01.ini': fleet('hosts/web01.ini'),
  'hosts/db01.ini': fleet('hosts/db01.ini'),
};
const withLog = (n: number): string => `${FLEET['shared/base.ini']}\n[/settings/log]\nbuffer size = ${n}\n`;
const hostIncluding = (path: string): string => FLEET['hosts/web01.ini'].replace('../shared/base.ini', path);
/** What the local file adds: RemoteServer (enabled by the base) on a port the system picks. */
const LOCAL = ['[/settings/remote/server]', 'port = 0', 'bind to = 127.0.0.1'];

interface Server extends GitWork {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** The agent's side of one test: its API, its state folder, how to start it again. */
function agentOn(made: Teardown, state: string, lines: readonly string[]) {
  const box: { agent?: AgentProcess; client?: SourceClient } = {};
  return {
    async start(): Promise<void> {
      box.agent = made.add(
        await startAgent({
          ini: bootIni(state, PASSWORD, [...LOCAL, ...lines]),
          env: { AGENT_HOSTNAME: HOST, AGENT_WEB_PASSWORD: PASSWORD },
        }),
        (a) => a.stop(),
      );
      box.client = sourceClient(await webPort(box.agent), PASSWORD);
    },
    get agent(): AgentProcess {
      return box.agent as AgentProcess;
    },
    get client(): SourceClient {
      return box.client as SourceClient;
    },
    size: () => (box.client as SourceClient).value('/settings/log', 'buffer size'),
    /** From the host file. */
    hostAllowed: () => (box.client as SourceClient).value('/settings/WEB/server', 'allowed hosts'),
    /** From the base. */
    viewer: () => (box.client as SourceClient).value('/settings/web/roles', 'viewer'),
  };
}

function gitSuite(name: string, open: (made: Teardown, dir: string) => Promise<{ server: Server; lines: string[] }>) {
  void describe(`[/includes] in a file pulled from git: ${name} (agent as a process)`, () => {
    let server: Server;
    let dir: string;
    let key: string | undefined;
    let a: ReturnType<typeof agentOn>;
    let last: string;
    const made = new Teardown();
    after(() => made.close());

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'pulled-includes-'));
      made.defer(() => rmSync(dir, { recursive: true, force: true }));
      const opened = await open(made, dir);
      server = opened.server;
      key = opened.lines.some((l) => l.startsWith('allowed signers')) ? join(dir, 'fleet') : undefined;
      last = server.commit(FLEET, 'the fleet as docs/settings.md lays it out', key);
      a = agentOn(made, join(dir, 'state'), [
        '[/settings/source]',
        `url = ${server.url}`,
        'ref = main',
        'path = hosts/${host_lc}.ini',
        'interval = 3600',
        'timeout = 10',
        ...opened.lines,
      ]);
      await a.start();
    });

    void it('pulls the host file with the base it includes, the base under the host file, cached 0600', async () => {
      const s = await a.client.firstPull();
      assert.equal(s.lastError, null);
      assert.equal(s.revision, last);
      assert.match((await a.viewer()) ?? '', /queries\.execute/, 'from shared/base.ini');
      assert.equal(await a.hostAllowed(), '127.0.0.1, 10.20.1.0/24', 'from hosts/web01.ini');
      const cached = join(dir, 'state', 'settings-source', 'pulled-files', 'shared', 'base.ini');
      assert.equal(readFileSync(cached, 'utf8'), FLEET['shared/base.ini']);
      assert.equal(statSync(cached).mode & 0o777, 0o600);
    });

    void it('a commit that changes only the base file is applied (and settings plan --source shows it first)', async () => {
      last = server.commit({ 'shared/base.ini': withLog(4321) }, 'the base alone', key);
      // The CLI is the same host as the agent: the same ${host_lc}, the same environment.
      Object.assign(process.env, { AGENT_HOSTNAME: HOST, AGENT_WEB_PASSWORD: PASSWORD });
      const plan = await runAgentCli(['settings', 'plan', '--source', '--settings', a.agent.settingsFile]).finally(
        () => delete process.env.AGENT_HOSTNAME,
      );
      assert.equal(plan.code, 0, plan.stdout + plan.stderr);
      assert.ok(plan.stdout.includes(`revision ${last}`), plan.stdout);
      assert.match(plan.stdout, /^agent\s+apply\b.*\[\/settings\/log\]/m);
      const s = await a.client.pull();
      assert.equal(s.lastError, null);
      assert.equal(s.revision, last);
      assert.equal(await a.size(), '4321');
    });

    for (const [what, path, why] of [
      ['leaving the repository', '../../../etc/base.ini', /it leaves the repository/],
      ['naming an absolute path', '/etc/config-agent/agent.ini', /an absolute path/],
    ] as const) {
      void it(`an include ${what} is refused with file and line; the last good settings stay`, async () => {
        server.commit({ 'hosts/web01.ini': hostIncluding(path) }, what, key);
        const from = a.agent.mark();
        const s = await a.client.pull();
        assert.match(s.lastError ?? '', /AGENT_ERR_SOURCE_INCLUDE/);
        assert.match(s.lastError ?? '', /the pulled file hosts\/web01\.ini \(line 3\) cannot include/);
        assert.match(s.lastError ?? '', why);
        await a.agent.waitForLog(/AGENT_ERR_SOURCE_INVALID: .*AGENT_ERR_SOURCE_INCLUDE/, 5_000, from);
        assert.equal(s.revision, last);
        assert.equal(await a.size(), '4321');
        assert.match((await a.viewer()) ?? '', /queries\.execute/);
      });
    }

    if (name.includes('signed'))
      void it('an include changed in an unsigned commit is refused with the commit', async () => {
        server.commit({ 'hosts/web01.ini': FLEET['hosts/web01.ini'] }, 'fixed', key);
        assert.equal((await a.client.pull()).lastError, null);
        const unsigned = server.commit({ 'shared/base.ini': withLog(9999) }, 'the base, unsigned');
        const s = await a.client.pull();
        assert.match(s.lastError ?? '', new RegExp(`AGENT_ERR_SOURCE_SIGNATURE|commit ${unsigned} is not signed`));
        assert.match(s.lastError ?? '', new RegExp(`commit ${unsigned}`));
        assert.equal(await a.size(), '4321');
      });

    void it('a pattern of files in the repository is included, in name order, and listed again at each commit', async () => {
      const host = FLEET['hosts/web01.ini'].replace(
        'base = ../shared/base.ini',
        'base = ../shared/base.ini\nroles = ../roles/*.ini',
      );
      const timeout = (): Promise<string | undefined> => a.client.value('/settings/default', 'timeout');
      const roles = {
        'roles/a.ini': '[/settings/default]\ntimeout = 41\n',
        'roles/b.ini': '[/settings/default]\ntimeout = 42\n',
      };
      // The base as in force (a refused commit before may have changed it in the work tree).
      server.commit({ 'hosts/web01.ini': host, 'shared/base.ini': withLog(4321), ...roles }, 'roles by pattern', key);
      assert.equal((await a.client.pull()).lastError, null);
      assert.equal(await timeout(), '42');
      server.commit({ 'roles/c.ini': '[/settings/default]\ntimeout = 43\n' }, 'one more role', key);
      assert.equal((await a.client.pull()).lastError, null);
      assert.equal(await timeout(), '43', 'a new file matching the pattern');
      assert.equal(await a.size(), '4321');
    });

    void it('a restart with the server gone runs on the cache, the base included', async () => {
      await a.agent.stop();
      await server.stop();
      await a.start();
      const s = await a.client.status();
      assert.equal(s.fromCache, true, a.agent.logs());
      assert.equal(await a.size(), '4321');
      assert.equal(await a.client.value('/settings/default', 'timeout'), '43', 'the pattern, from the cache');
      assert.match((await a.viewer()) ?? '', /queries\.execute/);
      assert.doesNotMatch(a.agent.logs(), /AGENT_ERR_SOURCE_CACHE_UNVERIFIED/);
      await server.start();
    });

    if (name.includes('signed'))
      void it('a cache description edited to move the file in its repository is not used at start', async () => {
        await a.agent.stop();
        await server.stop();
        const meta = join(dir, 'state', 'settings-source', 'pulled.json');
        writeFileSync(
          meta,
          readFileSync(meta, 'utf8').replace('"location": "hosts/web01.ini"', '"location": "x/y.ini"'),
        );
        await a.start();
        await a.agent.waitForLog(/AGENT_ERR_SOURCE_CACHE_UNVERIFIED: .*describes itself as x\/y\.ini/, 10_000);
        await server.start();
      });
  });
}

gitSuite('git daemon', async (made) => {
  const server = made.add(await startGitDaemon(), (r) => r.close());
  return { server, lines: [] };
});

gitSuite('git http-backend behind nginx, signed commits', async (made, dir) => {
  const certs: CertDir = made.add(certDir(), (c) => c.remove());
  const authority = certs.ca('pulled-includes-ca');
  const server = made.add(await startGitHttp(certs.issue(authority, 'git-http-server', 'server')), (g) => g.close());
  const key = sshKey(dir, 'fleet');
  const signers = allowedSigners(join(dir, 'allowed_signers'), { 'fleet@example.invalid': key });
  return { server, lines: [`ca = ${authority.cert}`, `allowed signers = ${signers}`] };
});

void describe('[/includes] in a file pulled over https: a relative URL on the same origin (nginx, agent as a process)', () => {
  let nginx: Nginx;
  let a: ReturnType<typeof agentOn>;
  const made = new Teardown();
  after(() => made.close());

  before(async () => {
    const certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('pulled-includes-https-ca');
    nginx = made.add(await startNginx({ tls: certs.issue(authority, 'includes-server', 'server') }), (n) => n.close());
    for (const [rel, text] of Object.entries(FLEET)) serve(nginx, `agent/${rel}`, text);
    const state = mkdtempSync(join(tmpdir(), 'pulled-includes-https-'));
    made.defer(() => rmSync(state, { recursive: true, force: true }));
    a = agentOn(made, state, [
      '[/settings/source]',
      `url = ${nginx.httpsBase}/agent/hosts/\${host_lc}.ini`,
      `ca = ${authority.cert}`,
      'interval = 3600',
      'timeout = 10',
    ]);
    await a.start();
  });

  void it('pulls the host file and the base it names by a relative URL', async () => {
    const s = await a.client.firstPull();
    assert.equal(s.lastError, null);
    assert.match(s.revision ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.match((await a.viewer()) ?? '', /queries\.execute/);
    assert.equal(await a.hostAllowed(), '127.0.0.1, 10.20.1.0/24');
    assert.ok(nginx.accessLines().some((l) => l.startsWith('200 GET /agent/shared/base.ini')));
  });

  void it('a change of the base alone is applied at the next pull', async () => {
    serve(nginx, 'agent/shared/base.ini', withLog(2468));
    const s = await a.client.pull();
    assert.equal(s.lastError, null);
    assert.equal(await a.size(), '2468');
  });

  void it('an include the server does not have (404) is refused as the text that names it', async () => {
    serve(nginx, 'agent/hosts/web01.ini', hostIncluding('../shared/none.ini'));
    const s = await a.client.pull();
    assert.match(
      s.lastError ?? '',
      /are not applied: agent\/hosts\/web01\.ini line 3 includes \S+\/agent\/shared\/none\.ini: HTTP 404/,
    );
    assert.equal(await a.size(), '2468');
  });

  void it('an include leaving the origin root, or an absolute path, is refused with file and line', async () => {
    for (const path of ['../../../shared/base.ini', '/etc/passwd']) {
      serve(nginx, 'agent/hosts/web01.ini', hostIncluding(path));
      const s = await a.client.pull();
      assert.match(s.lastError ?? '', /the pulled file agent\/hosts\/web01\.ini \(line 3\) cannot include/);
      assert.equal(await a.size(), '2468');
    }
  });
});

void describe('[/includes] in a file pulled over https with allowed signers (nginx, agent as a process)', () => {
  let nginx: Nginx;
  let a: ReturnType<typeof agentOn>;
  let key: string;
  let state: string;
  const made = new Teardown();
  after(() => made.close());
  /** Publish a file with its detached signature (by `by`, or none). */
  const publish = (rel: string, text: string, by: string | null = key): void => {
    serve(nginx, `agent/${rel}`, text);
    serve(nginx, `agent/${rel}.sig`, by === null ? 'no signature\n' : sshSign(by, text, 'agent-settings'));
  };

  before(async () => {
    const certs = made.add(certDir(), (c) => c.remove());
    const authority = certs.ca('pulled-includes-signed-ca');
    nginx = made.add(await startNginx({ tls: certs.issue(authority, 'signed-server', 'server') }), (n) => n.close());
    state = mkdtempSync(join(tmpdir(), 'pulled-includes-signed-'));
    made.defer(() => rmSync(state, { recursive: true, force: true }));
    key = sshKey(state, 'fleet');
    const signers = allowedSigners(join(state, 'allowed_signers'), { 'fleet@example.invalid': key });
    for (const [rel, text] of Object.entries(FLEET)) publish(rel, text);
    a = agentOn(made, join(state, 'state'), [
      '[/settings/source]',
      `url = ${nginx.httpsBase}/agent/hosts/\${host_lc}.ini`,
      `ca = ${authority.cert}`,
      `allowed signers = ${signers}`,
      'interval = 3600',
      'timeout = 10',
    ]);
    await a.start();
  });

  void it('each included file is verified with its own signature', async () => {
    const s = await a.client.firstPull();
    assert.equal(s.lastError, null);
    assert.match((await a.viewer()) ?? '', /queries\.execute/);
    assert.ok(nginx.accessLines().some((l) => l.startsWith('200 GET /agent/shared/base.ini.sig')));
  });

  void it('a base whose signature does not hold is refused, the settings kept', async () => {
    publish('shared/base.ini', withLog(1357));
    assert.equal((await a.client.pull()).lastError, null);
    assert.equal(await a.size(), '1357');
    publish('shared/base.ini', withLog(9753), null);
    const s = await a.client.pull();
    assert.match(s.lastError ?? '', /AGENT_ERR_SOURCE_SIGNATURE|signature/);
    assert.match(s.lastError ?? '', /shared\/base\.ini\.sig/);
    assert.equal(await a.size(), '1357');
  });

  void it('at a restart with nginx gone, the cached base verifies again and is in force', async () => {
    publish('shared/base.ini', withLog(1357));
    assert.equal((await a.client.pull()).lastError, null);
    await a.agent.stop();
    await nginx.stop();
    await a.start();
    assert.equal(await a.size(), '1357');
    assert.doesNotMatch(a.agent.logs(), /AGENT_ERR_SOURCE_CACHE_UNVERIFIED/);
    await nginx.start();
  });

  void it('a cache description edited to leave out an included file is not used at start', async () => {
    await a.agent.stop();
    const meta = join(state, 'state', 'settings-source', 'pulled.json');
    const described = JSON.parse(readFileSync(meta, 'utf8')) as { files: unknown[] };
    writeFileSync(meta, JSON.stringify({ ...described, files: [] }));
    await nginx.stop();
    await a.start();
    await a.agent.waitForLog(
      /AGENT_ERR_SOURCE_CACHE_UNVERIFIED: .*shared\/base\.ini, which was not verified with it/,
      10_000,
    );
    await nginx.start();
  });
});
