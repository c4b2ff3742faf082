/**
 * Settings fallbacks are visible (issue 18, item 6), with the CLI and the
 * config-agent run as processes: a warning about a value read from
 * [/settings/default] names that section and its line; `settings show`
 * lists each server's effective password (******) and allowed hosts with
 * their origin; the shipped agent.ini plus one target raises no warning of
 * its own, and a stock nrpe (anonymous DH only) gets a handshake error that
 * says so and names the setting; reload log lines name only the keys that
 * changed, and a refusal names where the allowed hosts come from.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../helpers/run-cli.js';
import { listenerPort, replaceFile, REPO, startAgent } from '../helpers/agent-process.js';
import { startNrpeDaemon } from '../helpers/nrpe-daemon.js';

const dir = mkdtempSync(join(tmpdir(), 'settings-fallbacks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SHIPPED = readFileSync(join(REPO, 'settings', 'agent.ini'), 'utf8');

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

void test('a warning about a value from [/settings/default] names that section and its line', async () => {
  const file = write(
    'fallback-warnings.ini',
    '[/modules]\nWEBServer = enabled\nRemoteServer = enabled\n\n[/settings/default]\npassword =\nallowed hosts = 0.0.0.0/0\n',
  );
  const r = await runAgentCli(['settings', 'validate', file]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const empty = lines.find((l) => l.includes('AGENT_WARN_EMPTY_PASSWORD'));
  assert.ok(empty?.startsWith(`${file}:6:`), `the password line of [/settings/default]: ${empty}`);
  assert.match(empty ?? '', /warning AGENT_WARN_EMPTY_PASSWORD \[\/settings\/default\] password: /);
  const open = lines.find((l) => l.includes('AGENT_WARN_ALLOWED_HOSTS_OPEN'));
  assert.ok(open?.startsWith(`${file}:7:`), String(open));
  assert.match(
    open ?? '',
    /\[\/settings\/default\]: allowed hosts lets every address connect \(for every server module without an allowed hosts of its own\)$/,
  );
  // No section twice in one line.
  for (const l of lines) assert.doesNotMatch(l, /(\[\/settings\/[^\]]+\]).*\1/, l);

  // The web server's own key: the warning names the web server's section.
  const own = write(
    'own-password.ini',
    '[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = shared-secret\n\n[/settings/WEB/server]\npassword =\n',
  );
  const o = await runAgentCli(['settings', 'validate', own]);
  assert.match(
    o.stdout,
    new RegExp(
      `^${own.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:8:\\d+: warning AGENT_WARN_EMPTY_PASSWORD \\[/settings/WEB/server\\] password`,
      'm',
    ),
  );
});

void test("settings show lists each server's effective password and allowed hosts with their origin", async () => {
  const file = write(
    'show.ini',
    '[/modules]\nWEBServer = enabled\n\n[/settings/default]\npassword = shared-secret\n\n[/settings/agent/server]\nallowed hosts = 10.0.0.1\n',
  );
  const r = await runAgentCli(['settings', 'show', file]);
  assert.equal(r.code, 0, r.stderr);
  const section = (path: string): string => r.stdout.split(`\n[${path}]\n`)[1]?.split('\n[')[0] ?? '';
  const web = section('/settings/WEB/server');
  assert.match(web, /^password = \*{6}\s+; show\.ini:5 \[\/settings\/default\]$/m);
  assert.match(web, /^allowed hosts = 127\.0\.0\.1\s+; default \[\/settings\/default\]$/m);
  assert.match(
    section('/settings/remote/server'),
    /^allowed hosts = 127\.0\.0\.1\s+; default \[\/settings\/default\]$/m,
  );
  // A server's own value is its own.
  assert.match(section('/settings/agent/server'), /^allowed hosts = 10\.0\.0\.1\s+; show\.ini:8$/m);
  assert.doesNotMatch(r.stdout, /shared-secret/);
  const json = JSON.parse((await runAgentCli(['settings', 'show', file, '--json'])).stdout) as {
    sections: Record<string, Record<string, { value: unknown; origin: string; from?: string; description?: string }>>;
  };
  assert.deepEqual(json.sections['/settings/WEB/server']?.password, {
    value: '******',
    origin: 'show.ini:5 [/settings/default]',
    from: '/settings/default',
    description: json.sections['/settings/WEB/server']?.password?.description,
  });
});

void test('the shipped agent.ini with one target added raises no warning of its own', async () => {
  const warnings = async (text: string, name: string): Promise<string[]> => {
    const r = await runAgentCli(['settings', 'validate', '--format', 'json', write(name, text)]);
    const report = JSON.parse(r.stdout) as {
      files: { warnings: { code: string; section?: string; line: number }[] }[];
    };
    return (report.files[0]?.warnings ?? []).map((w) => `${w.code} ${w.section ?? ''}:${w.line}`);
  };
  const shipped = await warnings(SHIPPED, 'shipped.ini');
  const enabled = SHIPPED.replace('RemoteClient = disabled', 'RemoteClient = enabled').replace(
    'AgentClient = disabled',
    'AgentClient = enabled',
  );
  for (const target of [
    '[/settings/remote/client/targets/nagios]\naddress = 192.0.2.10:5666\n',
    '[/settings/agent/client/targets/peer]\naddress = 192.0.2.11:5669\n',
  ]) {
    const added = await warnings(`${enabled}\n${target}`, 'with-target.ini');
    assert.deepEqual(added, shipped, target);
  }
});

void test('a stock nrpe offers only anonymous DH: the handshake error says so and names the setting; allowing ADH in the target works', async () => {
  const daemon = await startNrpeDaemon();
  try {
    const enabled = SHIPPED.replace('RemoteClient = disabled', 'RemoteClient = enabled');
    const file = write(
      'stock-nrpe.ini',
      `${enabled}\n[/settings/remote/client/targets/stock]\naddress = 127.0.0.1:${daemon.port}\n`,
    );
    const refused = await runAgentCli([
      'client',
      '--settings',
      file,
      'remote_query',
      '--target',
      'stock',
      '--command',
      'check_ok',
    ]);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stdout,
      /^remote_query: TLS with 127\.0\.0\.1:\d+ failed: .*handshake failure.*: the server offers only anonymous DH \(ADH\/AECDH\) ciphers, which our allowed ciphers exclude: it has no certificate \(a stock nrpe: "NRPE v4\.\d+\.\d+"\)\. Give it one \(nrpe\.cfg ssl_cert_file/,
    );
    assert.match(
      refused.stdout,
      /allowed ciphers = ALL:!MD5:@STRENGTH:@SECLEVEL=0 in the target's section of \[\/settings\/remote\/client\/targets\]/,
    );

    // The admin's choice, in the target's own section: it works, and the warning names that line.
    const adh = write(
      'stock-nrpe-adh.ini',
      `${enabled}\n[/settings/remote/client/targets/stock]\naddress = 127.0.0.1:${daemon.port}\nallowed ciphers = ALL:!MD5:@STRENGTH:@SECLEVEL=0\n`,
    );
    const ok = await runAgentCli([
      'client',
      '--settings',
      adh,
      'remote_query',
      '--target',
      'stock',
      '--command',
      'check_ok',
    ]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^OK: fine/);
    const line = enabled.split('\n').length + 3;
    const v = await runAgentCli(['settings', 'validate', adh]);
    assert.match(
      v.stdout,
      new RegExp(
        `stock-nrpe-adh\\.ini:${line}:\\d+: warning AGENT_WARN_ADH_CIPHERS \\[/settings/remote/client/targets/stock\\] allowed ciphers: target stock of the remote client allows anonymous DH`,
      ),
    );
  } finally {
    await daemon.stop();
  }
});

void test("the shipped client against an agent's RemoteServer without a certificate: the advice names [/settings/remote/server], not nrpe.cfg", async () => {
  const server = await startAgent({
    ini: `[/modules]\nCheckHelpers = enabled\nRemoteServer = enabled\n[/settings/remote/server]\nport = 0\nbind to = 127.0.0.1\nallowed hosts = 127.0.0.1\n`,
  });
  try {
    const port = await listenerPort(server, 'RemoteServer');
    const enabled = SHIPPED.replace('RemoteClient = disabled', 'RemoteClient = enabled');
    const file = write(
      'own-agent.ini',
      `${enabled}\n[/settings/remote/client/targets/peer]\naddress = 127.0.0.1:${port}\n`,
    );
    const refused = await runAgentCli([
      'client',
      '--settings',
      file,
      'remote_query',
      '--target',
      'peer',
      '--command',
      'check_ok',
    ]);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stdout,
      /it has no certificate \(another agent: "I \(agent [^"]+"\)\. Give its RemoteServer one \(certificate and certificate key in its \[\/settings\/remote\/server\]\)/,
    );
    assert.doesNotMatch(refused.stdout, /nrpe\.cfg/);
  } finally {
    await server.stop();
  }
});

void test('reload log lines name only the keys that changed', async () => {
  const ini = (timeout: number, hosts: string): string =>
    [
      '[/modules]',
      'WEBServer = enabled',
      'RemoteServer = enabled',
      'RemoteClient = enabled',
      '[/settings/default]',
      'password = a-long-enough-password',
      `allowed hosts = ${hosts}`,
      '[/settings/WEB/server]',
      'port = 0s',
      'bind to = 127.0.0.1',
      'allowed hosts = 127.0.0.1',
      '[/settings/remote/server]',
      'port = 0',
      'bind to = 127.0.0.1',
      'use ssl = 0',
      '[/settings/remote/client/targets/default]',
      `timeout = ${timeout}`,
      '[/settings/remote/client/targets/a]',
      'address = 127.0.0.1:5666',
      '[/settings/remote/client/targets/b]',
      'address = 127.0.0.1:5667',
      '',
    ].join('\n');
  const agent = await startAgent({ ini: ini(20, '127.0.0.1'), env: { AGENT_LOG_LEVEL: 'info' } });
  try {
    const remotePort = await listenerPort(agent, 'RemoteServer');
    // One key of the default target, which a and b (and sample) inherit.
    let mark = agent.mark();
    replaceFile(agent.settingsFile, ini(21, '127.0.0.1'));
    const [line] = await agent.waitForLog(/RemoteClient: apply \(.*\)\n/, 15_000, mark);
    assert.match(
      line,
      /RemoteClient: apply \(changed: \[\/settings\/remote\/client\/targets\/default\] timeout \(agent\.ini:17\)\)\n$/,
    );
    // [/settings/default] allowed hosts: RemoteServer reads it; WEBServer has its own and is not named.
    mark = agent.mark();
    replaceFile(agent.settingsFile, ini(21, '127.0.0.1, ::1'));
    const [remote] = await agent.waitForLog(/RemoteServer: apply \(.*\)\n/, 15_000, mark);
    assert.match(remote, /RemoteServer: apply \(changed: \[\/settings\/default\] allowed hosts \(agent\.ini:7\)\)\n$/);
    // The reload is done once RemoteServer's line is out (modules reconcile in catalogue order, WEBServer first).
    assert.doesNotMatch(agent.logs().slice(mark), /WEBServer: apply|RemoteClient: apply/);
    // A refusal names where the allowed hosts it applied come from.
    mark = agent.mark();
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: remotePort, localAddress: '127.0.0.2' });
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    await agent.waitForLog(
      /refused connection from 127\.0\.0\.2: not in allowed hosts \[\/settings\/default\] allowed hosts \(agent\.ini:7\)/,
      10_000,
      mark,
    );
  } finally {
    await agent.stop();
  }
});
