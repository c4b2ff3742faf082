/**
 * Listener failures in words that name the fix, with the agent as a
 * process: a busy port and an address that is not local name the key, the
 * file and line that set it and the `config-agent settings set` command that
 * changes it; a failed TLS handshake on the NRPE port (Debian's check_nrpe
 * sending plain packets with -n, or offering no cipher the server accepts)
 * is one warning in words with OpenSSL's text at debug only; a move to a
 * narrower address on the same port, which succeeds, logs no error; plain
 * HTTP to the web server's HTTPS port is one info line in words, and ten
 * of them in a row one line (the rest counted into the next).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

const lineOf = (ini: string, text: string): number => ini.split('\n').indexOf(text) + 1;
const linesSince = (agent: AgentProcess, from: number, level: string): string[] =>
  agent
    .logs()
    .slice(from)
    .split('\n')
    .filter((l) => l.includes(` ${level} `));

void describe('bind failures name the setting and the command', () => {
  let holder: Server;
  let held = 0;
  let agent: AgentProcess;
  let ini = '';
  const made = new Teardown();
  before(async () => {
    holder = made.add(createServer(), (h) => h.close());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    held = (holder.address() as AddressInfo).port;
    ini = [
      '[/modules]',
      'CheckHelpers = enabled',
      'RemoteServer = enabled',
      'AgentServer = enabled',
      '[/settings/remote/server]',
      `port = ${held}`,
      'bind to = 127.0.0.1',
      '[/settings/agent/server]',
      'port = 0',
      'bind to = 192.0.2.77',
      'use ssl = 0',
      '',
    ].join('\n');
    agent = made.add(await startAgent({ ini }), (a) => a.stop());
  });
  after(() => made.close());

  void it('a port in use: the port key, its line, who holds it (this test, by pid), the command', async () => {
    const m = await agent.waitForLog(/module RemoteServer failed to start: .*/);
    assert.match(
      m[0],
      new RegExp(
        `EADDRINUSE.*port ${held} is in use by \\S+ \\(pid ${process.pid}, user \\S+\\): set \\[/settings/remote/server\\] port \\(agent\\.ini:${lineOf(ini, `port = ${held}`)}\\) to a free port: config-agent settings set --path /settings/remote/server --key 'port' --value N`,
      ),
    );
  });

  void it('an address that is not local: the bind to key, its line, the command', async () => {
    const m = await agent.waitForLog(/module AgentServer failed to start: .*/);
    assert.match(
      m[0],
      new RegExp(
        `EADDRNOTAVAIL.*192\\.0\\.2\\.77 is not an address of this host .*: set \\[/settings/agent/server\\] bind to \\(agent\\.ini:${lineOf(ini, 'bind to = 192.0.2.77')}\\) .*config-agent settings set --path /settings/agent/server --key 'bind to' --value ADDRESS`,
      ),
    );
    // Said once per try: the NRPE listener's own error handler does not repeat the bind failure.
    assert.equal(linesSince(agent, 0, 'error').filter((l) => l.includes('listener error')).length, 0);
  });
});

void describe('failed handshakes on the NRPE port, in words', () => {
  let agent: AgentProcess;
  let port = 0;
  let ini = '';
  const made = new Teardown();
  const nrpeSection = (lines: string[]): string =>
    [
      '[/modules]',
      'CheckHelpers = enabled',
      'RemoteServer = enabled',
      '[/settings/remote/server]',
      'port = 0',
      ...lines,
      '',
    ].join('\n');
  before(async () => {
    ini = nrpeSection(['bind to = 127.0.0.1']);
    agent = made.add(await startAgent({ ini }), (a) => a.stop());
    port = Number((await agent.waitForLog(/RemoteServer: listening on 127\.0\.0\.1:(\d+)/))[1]);
  });
  after(() => made.close());

  void it('check_nrpe -n on the TLS port: one warning naming -n and use ssl, OpenSSL text at debug only', async () => {
    const from = agent.mark();
    const r = await checkNrpe(port, ['-n', '-c', 'check_ok']);
    assert.notEqual(r.code, 0);
    const m = await agent.waitForLog(/warning .*TLS handshake with 127\.0\.0\.1 failed: .*/, 10_000, from);
    assert.match(
      m[0],
      /the client sent a plain NRPE packet to this TLS port: the client needs TLS \(check_nrpe without -n\), or set \[\/settings\/remote\/server\] use ssl = false/,
    );
    assert.doesNotMatch(m[0], /SSL routines|ERR_SSL/);
    const debug = await agent.waitForLog(/debug .*TLS handshake with 127\.0\.0\.1 failed: .*(SSL|ssl).*/, 10_000, from);
    assert.ok(debug[0].length > 0);
  });

  void it('no cipher in common: one warning naming allowed ciphers', async () => {
    // Only anonymous suites can be agreed without a certificate, and this list keeps them out.
    const from = agent.mark();
    replaceFile(
      agent.settingsFile,
      nrpeSection(['bind to = 127.0.0.1', 'allowed ciphers = ALL:!aNULL:@SECLEVEL=0']).replace(
        'port = 0',
        `port = ${port}`,
      ),
    );
    await agent.waitForLog(/RemoteServer: (applied|reconcil|.*allowed ciphers)/, 10_000, from);
    const tried = agent.mark();
    const r = await checkNrpe(port, ['-c', 'check_ok']);
    assert.notEqual(r.code, 0);
    const m = await agent.waitForLog(/warning .*TLS handshake with 127\.0\.0\.1 failed: .*/, 10_000, tried);
    assert.match(
      m[0],
      /the client offered no cipher this server accepts: .*\[\/settings\/remote\/server\] allowed ciphers/,
    );
  });

  void it('a move to a narrower address on the same port succeeds and logs no error', async () => {
    const wide = nrpeSection(['bind to =']).replace('port = 0', `port = ${port}`);
    replaceFile(agent.settingsFile, wide);
    const moved = agent.mark();
    await agent.waitForLog(
      new RegExp(`RemoteServer: listening on \\*?:?${port}|RemoteServer: listening on .*:${port}`),
      10_000,
      moved,
    );
    const narrow = agent.mark();
    replaceFile(agent.settingsFile, nrpeSection(['bind to = 127.0.0.1']).replace('port = 0', `port = ${port}`));
    await agent.waitForLog(new RegExp(`RemoteServer: listening on 127\\.0\\.0\\.1:${port}`), 10_000, narrow);
    assert.deepEqual(linesSince(agent, narrow, 'error'), []);
    const r = await checkNrpe(port, ['-c', 'check_ok']);
    assert.equal(r.code, 0, r.out);
  });
});

void describe('plain HTTP to the HTTPS port, in words', () => {
  let agent: AgentProcess;
  const made = new Teardown();
  before(async () => {
    agent = made.add(
      await startAgent({
        ini: [
          '[/modules]',
          'WEBServer = enabled',
          '[/settings/default]',
          'password = messages-pw',
          '[/settings/WEB/server]',
          'port = 0s',
          'bind to = 127.0.0.1',
          '',
        ].join('\n'),
      }),
      (a) => a.stop(),
    );
  });
  after(() => made.close());

  void it('one info line naming https:// and the trailing s; a burst is one line', async () => {
    const port = Number((await agent.waitForLog(/web server listening on https:\/\/127\.0\.0\.1:(\d+)/))[1]);
    const from = agent.mark();
    const plain = (): Promise<void> =>
      new Promise((resolve) => {
        const req = get({ host: '127.0.0.1', port, path: '/', timeout: 5000 }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', () => resolve());
        req.on('timeout', () => req.destroy());
      });
    for (let i = 0; i < 10; i++) await plain();
    const m = await agent.waitForLog(/info .*TLS handshake with 127\.0\.0\.1 failed: .*/, 10_000, from);
    assert.match(
      m[0],
      /the client spoke plain HTTP to this HTTPS port: use https:\/\/, or write \[\/settings\/WEB\/server\] port without its trailing s/,
    );
    await agent.waitForLog(
      new RegExp(`debug .*TLS handshake with 127\\.0\\.0\\.1 failed: (.|\\n)*debug .*TLS handshake`),
      10_000,
      from,
    );
    assert.equal(
      linesSince(agent, from, 'info').filter((l) => l.includes('spoke plain HTTP')).length,
      1,
      'ten in a row make one line',
    );
  });
});
