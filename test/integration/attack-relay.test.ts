/**
 * No relay into the agent's own network by default (issue 25, item 3): an
 * NRPE peer with the default `allowed queries` tries to reach a service on
 * the agent's loopback with check_tcp and check_http, directly, through an
 * alias and through an alias of an alias, and to reach a refused script or
 * remote_query through an alias; every one is refused. When the admin opens
 * the network checks, validation names the exposure and the request's
 * max-size= and timeout= stay within [/settings/net].
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, freePort, replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { httpPeer, tcpPeer, type Peer } from '../helpers/net-peers.js';
import { Teardown } from '../helpers/teardown.js';

let agent: AgentProcess;
let port: number;
let internal: Peer;
let web: Peer;
const made = new Teardown();

const ini = (allowed: string): string => `[/modules]
Scheduler = enabled
NSCAClient = enabled
CheckNet = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled
RemoteServer = enabled
RemoteClient = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = ${port}
bind to = 127.0.0.1
allow arguments = 1
${allowed}

[/settings/external scripts/scripts]
check_args = args.sh $ARG1$

[/settings/external scripts/alias]
alias_tcp = check_tcp host=127.0.0.1 port=${internal.port}
alias_outer = check_negate command=alias_tcp
alias_http = check_http url=http://127.0.0.1:${web.port}/admin method=DELETE
alias_args = check_args secret
alias_relay = remote_query host=127.0.0.1 port=${port} command=check_ok
`;

before(async () => {
  port = await freePort(); // needed twice before start: the listener and alias_relay, which points back at it
  internal = made.add(await tcpPeer('INTERNAL-BANNER'), (p) => p.close());
  web = made.add(await httpPeer(), (p) => p.close());
  agent = made.add(
    await startAgent({ ini: ini(''), files: { 'scripts/args.sh': '#!/bin/sh\necho "ran with $1"\n' } }),
    (a) => a.stop(),
  );
  chmodSync(join(agent.dir, 'scripts', 'args.sh'), 0o755);
  await agent.waitForLog(/listening on 127\.0\.0\.1:\d+ \(TLS\)/);
});

after(() => made.close());

const refusedOver = (query: string): RegExp => new RegExp(`^query ${query} is not allowed over RemoteServer`);

void test('the default allowed queries refuse the network checks, directly and through (nested) aliases', async () => {
  for (const [args, refused] of [
    [['-c', 'check_tcp', '-a', 'host=127.0.0.1', `port=${internal.port}`], 'check_tcp'],
    [['-c', 'check_http', '-a', `url=http://127.0.0.1:${web.port}/`], 'check_http'],
    [['-c', 'check_dns', '-a', 'host=localhost', 'server=127.0.0.1'], 'check_dns'],
    [['-c', 'check_ping', '-a', 'host=127.0.0.1'], 'check_ping'],
    [['-c', 'check_ntp_offset', '-a', 'host=127.0.0.1'], 'check_ntp_offset'],
    [['-c', 'alias_tcp'], 'check_tcp'],
    [['-c', 'alias_outer'], 'check_tcp'],
    [['-c', 'alias_http'], 'check_http'],
    [['-c', 'alias_relay'], 'remote_query'],
    // The passive-check listings show schedule commands and target addresses.
    [['-c', 'scheduler_list'], 'scheduler_list'],
    [['-c', 'nsca_queue'], 'nsca_queue'],
  ] as const) {
    const r = await checkNrpe(port, [...args]);
    assert.equal(r.code, 3, `${args.join(' ')}: ${r.out}`);
    assert.match(r.out, refusedOver(refused), args.join(' '));
    assert.doesNotMatch(r.out, /INTERNAL-BANNER/);
  }
  const ok = await checkNrpe(port, ['-c', 'check_ok', '-a', 'fine']);
  assert.deepEqual(ok, { code: 0, out: 'fine' });
});

void test('an allowed alias does not run a query the list refuses', async () => {
  const m = agent.mark();
  replaceFile(agent.settingsFile, ini('allowed queries = check_ok, alias_args'));
  await agent.waitForLog(/RemoteServer: apply \(changed: \[\/settings\/remote\/server\] allowed queries/, 10_000, m);
  const direct = await checkNrpe(port, ['-c', 'check_args', '-a', 'x']);
  assert.match(direct.out, refusedOver('check_args'));
  const viaAlias = await checkNrpe(port, ['-c', 'alias_args']);
  assert.equal(viaAlias.code, 3, viaAlias.out);
  assert.match(viaAlias.out, refusedOver('check_args'));
});

void test('opening the network checks warns, and max-size= and timeout= stay within [/settings/net]', async () => {
  const m = agent.mark();
  replaceFile(
    agent.settingsFile,
    `${ini('allowed queries = *, !remote_*, !agent_*')}\n[/settings/net]\nmax body size = 4096\nmax timeout = 2000\n`,
  );
  await agent.waitForLog(
    /AGENT_WARN_NET_RELAY \[\/settings\/remote\/server\]: allowed queries lets peers run check_tcp, check_http, check_dns, check_ping, check_ntp_offset: they reach any address/,
    10_000,
    m,
  );
  await agent.waitForLog(/CheckNet: apply \(changed: \[\/settings\/net\] max body size/, 10_000, m);
  await agent.waitForLog(/RemoteServer: apply \(changed: \[\/settings\/remote\/server\] allowed queries/, 10_000, m);
  const big = await checkNrpe(port, [
    '-c',
    'check_http',
    '-a',
    `url=http://127.0.0.1:${web.port}/`,
    'max-size=104857600',
  ]);
  assert.equal(big.code, 3, big.out);
  assert.match(big.out, /max-size=104857600 is more than 4096 bytes \(\[\/settings\/net\] max body size\)/);
  const slow = await checkNrpe(port, [
    '-c',
    'check_tcp',
    '-a',
    'host=127.0.0.1',
    `port=${internal.port}`,
    'timeout=600000',
  ]);
  assert.equal(slow.code, 3, slow.out);
  assert.match(slow.out, /timeout=600000 is more than 2000 ms \(\[\/settings\/net\] max timeout\)/);
  // Opened on purpose, the check works.
  const banner = await checkNrpe(port, [
    '-c',
    'check_tcp',
    '-a',
    'host=127.0.0.1',
    `port=${internal.port}`,
    'expect=INTERNAL',
  ]);
  assert.equal(banner.code, 0, banner.out);
});
