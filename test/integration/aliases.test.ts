/**
 * Query aliases and wrapped scripts in a real agent process: reachable
 * through Debian's check_nrpe (RemoteServer), the agent protocol (`agent
 * client agent_query` against AgentServer) and the web API
 * (`/api/v1/aliases` with privilege aliases.list, and execute); arguments
 * follow $ARG1$/$ARGS$ with allow arguments / allow nasty characters; an
 * edit of the file adds and removes aliases without a restart; an edit that
 * names a query that does not exist is refused with its line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listenerPort, MAIN, replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { webRequest } from '../helpers/web-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

let agent: AgentProcess;
let nrpePort: number;
let agentPort: number;
let base: string;
const made = new Teardown();

const ini = (extraAliases = ''): string => `[/modules]
CheckHelpers = enabled
CheckExternalScripts = enabled
RemoteServer = enabled
AgentServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-pw

[/settings/web/roles]
monitoring = aliases.list, queries.execute
blind = queries.list

[/settings/web/users/mon]
password = mon-pw
role = monitoring

[/settings/web/users/blind]
password = blind-pw
role = blind

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1

[/settings/agent/server]
port = 0
bind to = 127.0.0.1

[/settings/external scripts]
allow arguments = true

[/settings/external scripts/wrapped scripts]
check_wrapped = hello.sh fixed $ARG1$

[/settings/external scripts/alias]
alias_warn = check_warning "load is $ARG1$ of $ARG2$"
alias_fixed = check_critical "always this"
alias_wrapped = check_wrapped $ARGS$
${extraAliases}
[/settings/external scripts/alias/alias_strict]
command = check_ok $ARG1$
allow arguments = false
`;

before(async () => {
  agent = made.add(
    await startAgent({ ini: ini(), files: { 'scripts/hello.sh': 'echo "hello $1 $2|\'n\'=1"\nexit 1\n' } }),
    (a) => a.stop(),
  );
  chmodSync(join(agent.dir, 'scripts', 'hello.sh'), 0o755);
  base = inRange(await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/), 1);
  nrpePort = await listenerPort(agent, 'RemoteServer');
  agentPort = await listenerPort(agent, 'AgentServer');
});

after(() => made.close());

function agentQuery(command: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        MAIN,
        'client',
        '--settings',
        '/nonexistent/agent.ini',
        'agent_query',
        '--host',
        '127.0.0.1',
        '--port',
        String(agentPort),
        '--command',
        command,
        ...(args.length > 0 ? ['--arguments', ...args] : []),
      ],
      { timeout: 20_000, env: { ...process.env, AGENT_LOG_LEVEL: 'silent' } },
      (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout.trim() }),
    );
  });
}

void test('check_nrpe runs aliases: fixed arguments, $ARGn$ from the caller, a wrapped script behind an alias', async () => {
  assert.deepEqual(await checkNrpe(nrpePort, ['-c', 'alias_fixed']), { code: 2, out: 'always this' });
  assert.deepEqual(await checkNrpe(nrpePort, ['-c', 'alias_warn', '-a', '81', '100']), {
    code: 1,
    out: 'load is 81 of 100',
  });
  assert.deepEqual(await checkNrpe(nrpePort, ['-c', 'alias_wrapped', '-a', 'there']), {
    code: 1,
    out: "hello fixed there|'n'=1",
  });
  assert.deepEqual(await checkNrpe(nrpePort, ['-c', 'check_wrapped', '-a', 'direct']), {
    code: 1,
    out: "hello fixed direct|'n'=1",
  });
});

void test('alias arguments: refused when the alias does not allow them, nasty characters refused', async () => {
  const strict = await checkNrpe(nrpePort, ['-c', 'alias_strict', '-a', 'x']);
  assert.equal(strict.code, 3);
  assert.match(strict.out, /^alias_strict: Arguments not allowed/);
  const ok = await checkNrpe(nrpePort, ['-c', 'alias_strict']);
  assert.equal(ok.code, 0, ok.out);
});

void test('the agent protocol runs aliases', async () => {
  assert.deepEqual(await agentQuery('alias_warn', ['5', '9']), { code: 1, out: 'load is 5 of 9' });
  assert.deepEqual(await agentQuery('alias_fixed', []), { code: 2, out: 'always this' });
});

void test('GET /api/v1/aliases lists the aliases (privilege aliases.list); execute runs one', async () => {
  const list = await webRequest(`${base}/api/v1/aliases`, { user: 'mon', password: 'mon-pw' });
  assert.equal(list.status, 200, list.body);
  const items =
    list.json<
      { name: string; module: string; alias_of: string; description: string; query_url: string; execute_url: string }[]
    >();
  assert.deepEqual(
    items.map((i) => i.name),
    ['alias_fixed', 'alias_strict', 'alias_warn', 'alias_wrapped'],
  );
  const warn = items.find((i) => i.name === 'alias_warn')!;
  assert.equal(warn.alias_of, 'check_warning');
  assert.equal(warn.module, 'CheckExternalScripts');
  assert.equal(warn.description, 'Alias for: check_warning');
  assert.equal(warn.execute_url, `${base}/api/v1/queries/alias_warn/commands/execute`);
  const denied = await webRequest(`${base}/api/v1/aliases`, { user: 'blind', password: 'blind-pw' });
  assert.equal(denied.status, 403);
  const run = await webRequest(`${warn.execute_url}?7&8`, { user: 'mon', password: 'mon-pw' });
  assert.equal(run.status, 200, run.body);
  assert.deepEqual(run.json(), { command: 'alias_warn', result: 1, lines: [{ message: 'load is 7 of 8', perf: {} }] });
  const index = await webRequest(`${base}/api/v1`, { user: 'root', password: 'root-pw' });
  assert.equal(index.json<{ aliases_url: string }>().aliases_url, `${base}/api/v1/aliases`);
});

void test('aliases are hot-applied; an alias naming a missing query is refused at its line and the old ones stay', async () => {
  let mark = agent.mark();
  replaceFile(agent.settingsFile, ini('alias_new = check_ok "new one"\n'));
  await agent.waitForLog(/CheckExternalScripts: apply \(changed: .*alias_new/, 10_000, mark);
  assert.deepEqual(
    await poll(
      () => checkNrpe(nrpePort, ['-c', 'alias_new']),
      (r) => r.code === 0,
    ),
    { code: 0, out: 'new one' },
  );

  mark = agent.mark();
  replaceFile(agent.settingsFile, ini('alias_bad = check_nothing\n'));
  const refused = await agent.waitForLog(
    /alias "alias_bad" runs check_nothing, which is not a query here/,
    10_000,
    mark,
  );
  assert.ok(refused);
  const line = ini('alias_bad = check_nothing\n').split('\n').indexOf('alias_bad = check_nothing') + 1;
  assert.ok(agent.logs().slice(mark).includes(`agent.ini:${line})`), `the problem names line ${line}`);
  assert.deepEqual(
    await checkNrpe(nrpePort, ['-c', 'alias_new']),
    { code: 0, out: 'new one' },
    'the last good settings stay',
  );
  assert.match(readFileSync(agent.settingsFile, 'utf8'), /alias_bad/);

  replaceFile(agent.settingsFile, ini());
  const gone = await poll(
    () => checkNrpe(nrpePort, ['-c', 'alias_new']),
    (r) => r.code === 3,
  );
  assert.equal(gone.code, 3);
  assert.match(gone.out, /Unknown command\(s\): alias_new/);
});

/** Repeat probe until accept says yes, 10 s at most; the last answer either way (the caller asserts on it). */
async function poll<T>(probe: () => Promise<T>, accept: (v: T) => boolean): Promise<T> {
  let last = await probe();
  await waitUntil(async () => accept((last = await probe())), 10_000).catch(() => undefined);
  return last;
}
