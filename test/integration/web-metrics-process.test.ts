/**
 * /api/v1/metrics of a running agent carries the process metrics every
 * exporter has, with values that match what /proc says about the agent's
 * process, and the whole exposition passes Prometheus's own linter
 * (`promtool check metrics`, Debian package prometheus). The agent's work
 * is counted by channel (web, nrpe, agent), refusal, listener and script.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listenerPort, startAgent, webPort } from '../helpers/agent-process.js';
import { waitUntil } from '../helpers/wait-until.js';
import { webRequest } from '../helpers/web-client.js';
import { promtool } from '../helpers/promtool.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { certDir } from '../helpers/agent-certs.js';
import { runAgentCli } from '../helpers/run-cli.js';

function value(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${name} is exposed`);
  return Number(m[1]);
}

/**
 * A scrape whose lag gauges hold a measured figure: the monitor starts with the first scrape and
 * samples every 20 ms; before its first sample a scrape has no lag gauges at all.
 */
async function measured(
  get: () => Promise<{ status: number; body: string }>,
): Promise<{ status: number; body: string }> {
  let last = '';
  await waitUntil(
    async () => {
      last = (await get()).body;
      return /^nodejs_eventloop_lag_max_seconds \S+$/m.test(last);
    },
    10_000,
    'a scrape with measured lag gauges',
  );
  return { status: 200, body: last };
}

void test('process metrics: present, true to /proc, and clean for promtool', async () => {
  const before = Date.now() / 1000;
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\nCheckHelpers = enabled\n\n[/settings/default]\npassword = metrics-secret\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n`,
  });
  try {
    const port = (await agent.waitForLog(/web server listening on https:\/\/127\.0\.0\.1:(\d+)/))[1];
    const get = () =>
      webRequest(`https://127.0.0.1:${port}/api/v1/metrics`, { user: 'root', password: 'metrics-secret' });
    await get();
    // Some work between two scrapes, so that lag and CPU have something to show.
    for (let i = 0; i < 20; i++)
      await webRequest(`https://127.0.0.1:${port}/api/v1/queries/check_ok/commands/execute`, {
        user: 'root',
        password: 'metrics-secret',
      });
    const r = await get();
    assert.equal(r.status, 200);
    const text = r.body;
    const pid = agent.proc.pid as number;

    const lint = await promtool(text);
    assert.equal(lint.code, 0, lint.out);
    assert.equal(lint.out.trim(), '');

    assert.ok(value(text, 'process_cpu_seconds_total') > 0);
    assert.ok(
      Math.abs(
        value(text, 'process_cpu_seconds_total') -
          value(text, 'process_cpu_user_seconds_total') -
          value(text, 'process_cpu_system_seconds_total'),
      ) < 1e-6,
    );
    const start = value(text, 'process_start_time_seconds');
    assert.ok(start >= before - 1 && start <= Date.now() / 1000, `start time ${start}`);
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    const rss = value(text, 'process_resident_memory_bytes');
    assert.ok(Math.abs(rss - rssKb * 1024) < 32 * 1024 * 1024, `rss ${rss} vs /proc ${rssKb} kB`);
    const fds = value(text, 'process_open_fds');
    const procFds = readdirSync(`/proc/${pid}/fd`).length;
    assert.ok(Math.abs(fds - procFds) <= 3, `open fds ${fds} vs /proc ${procFds}`);
    assert.ok(value(text, 'process_max_fds') >= fds);
    assert.ok(value(text, 'process_virtual_memory_bytes') > rss);
    assert.ok(value(text, 'nodejs_heap_size_used_bytes') <= value(text, 'nodejs_heap_size_total_bytes'));
    assert.ok(value(text, 'nodejs_eventloop_lag_max_seconds') >= value(text, 'nodejs_eventloop_lag_min_seconds'));
    assert.ok(value(text, 'nodejs_eventloop_lag_p99_seconds') > 0);
    assert.match(text, /^nodejs_version_info\{version="v\d+\.\d+\.\d+",major="\d+",minor="\d+",patch="\d+"\} 1$/m);
    assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
  } finally {
    await agent.stop();
  }
});

void test('work metrics: queries by channel and query (web, nrpe), refusals by reason, connections by listener, script runs; clean for promtool', async () => {
  const certs = certDir();
  const ca = certs.ca('ca');
  const [server, client] = [certs.issue(ca, 'server', 'server'), certs.issue(ca, 'client', 'client')];
  const agent = await startAgent({
    ini: `[/modules]
WEBServer = enabled
CheckHelpers = enabled
CheckExternalScripts = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
password = metrics-secret
allowed hosts = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allowed queries = check_ok, check_said

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
allowed queries = check_ok
certificate = ${server.cert}
certificate key = ${server.key}
ca = ${ca.cert}
verify mode = peer-cert

[/settings/external scripts/scripts]
check_said = said.sh
`,
    files: { 'scripts/said.sh': '#!/bin/sh\necho "said"\nexit 1\n' },
  });
  try {
    chmodSync(join(agent.dir, 'scripts', 'said.sh'), 0o755);
    const [port, nrpePort, agentPort] = [
      await webPort(agent),
      await listenerPort(agent, 'RemoteServer'),
      await listenerPort(agent, 'AgentServer'),
    ];
    const api = (path: string) =>
      webRequest(`https://127.0.0.1:${port}${path}`, { user: 'root', password: 'metrics-secret' });
    for (let i = 0; i < 3; i++) assert.equal((await api('/api/v1/queries/check_ok/commands/execute')).status, 200);
    assert.equal((await checkNrpe(nrpePort, ['-c', 'check_ok'])).code, 0);
    assert.equal((await checkNrpe(nrpePort, ['-c', 'check_said'])).code, 1);
    const refused = await checkNrpe(nrpePort, ['-c', 'check_uptime']);
    assert.equal(refused.code, 3, refused.out);
    assert.equal(
      (await webRequest(`https://127.0.0.1:${port}/api/v1/info`, { user: 'root', password: 'wrong' })).status,
      403,
    );
    const viaAgent = await runAgentCli([
      'client',
      '--settings',
      '/nonexistent/agent.ini',
      'agent_query',
      '--host',
      '127.0.0.1',
      '--port',
      String(agentPort),
      '--certificate',
      client.cert,
      '--certificate-key',
      client.key,
      '--command',
      'check_ok',
    ]);
    assert.equal(viaAgent.code, 0, viaAgent.stdout + viaAgent.stderr);

    const r = await api('/api/v1/metrics');
    assert.equal(r.status, 200);
    const text = r.body;
    const lint = await promtool(text);
    assert.equal(lint.code, 0, lint.out);
    assert.equal(lint.out.trim(), '');
    assert.match(text, /^agent_query_duration_seconds_count\{channel="web",query="check_ok"\} 3$/m);
    assert.match(text, /^agent_query_results_total\{channel="web",query="check_ok",result="0"\} 3$/m);
    assert.match(text, /^agent_query_duration_seconds_count\{channel="nrpe",query="check_ok"\} 1$/m);
    assert.match(text, /^agent_query_results_total\{channel="nrpe",query="check_said",result="1"\} 1$/m);
    assert.match(text, /^agent_query_results_total\{channel="agent",query="check_ok",result="0"\} 1$/m);
    assert.match(text, /^agent_connections_total\{listener="agent"\} 1$/m);
    assert.match(text, /^agent_refused_total\{channel="nrpe",reason="allowed queries"\} 1$/m);
    assert.match(text, /^agent_refused_total\{channel="web",reason="[^"]+"\} 1$/m, 'the wrong password');
    assert.match(text, /^agent_connections_total\{listener="nrpe"\} 3$/m);
    assert.match(text, /^agent_connections_total\{listener="web"\} [1-9]\d*$/m);
    assert.match(text, /^agent_script_runs_total\{script="check_said",outcome="exited"\} 1$/m);
    assert.match(text, /^agent_script_duration_seconds_count\{script="check_said"\} 1$/m);
    assert.match(text, /^agent_settings_reloads_total\{result="[a-z]+"\} \d+$/m);
    // Two scrapes back to back: the lag gauges keep the last measured figures, never a false 0.
    await measured(() => api('/api/v1/metrics'));
    const again = (await api('/api/v1/metrics')).body;
    assert.ok(value(again, 'nodejs_eventloop_lag_max_seconds') > 0, 'lag max is a measured figure');
    assert.ok(value(again, 'nodejs_eventloop_lag_p99_seconds') > 0);
  } finally {
    await agent.stop();
    certs.remove();
  }
});
