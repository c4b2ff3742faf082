/**
 * Issue 29, item 4: check results as Prometheus metrics. GET
 * /api/v1/metrics/checks?query=… of a running agent answers each check's
 * state and its perf data as gauges with unit-normalised names, clean for
 * `promtool check metrics`; a real Prometheus (Debian's package) scrapes it
 * over TLS with basic auth and answers the values through its query API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, freePort, webPort } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';
import { promtool } from '../helpers/promtool.js';
import { waitUntil } from '../helpers/wait-until.js';
import { inRange } from '../../src/in-range.js';

void test('check results as gauges: promtool clean, scraped by a real Prometheus', async () => {
  const promPort = await freePort(); // Prometheus, an external daemon, is told its port before it starts
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\nCheckHelpers = enabled\nCheckSystem = enabled\n\n[/settings/default]\npassword = checks-secret\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\nallowed hosts = 127.0.0.1\n`,
  });
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  let prometheus: ReturnType<typeof spawn> | undefined;
  try {
    const port = await webPort(agent);
    const base = `https://127.0.0.1:${port}/api/v1/metrics/checks`;
    const get = (search: string) =>
      webRequest(`${base}${search}`, { user: 'root', password: 'checks-secret', timeoutMs: 20_000 });
    assert.equal((await get('')).status, 400, 'no query named');
    const r = await get('?query=check_memory&query=check_uptime&query=check_warning&query=no_such_check');
    assert.equal(r.status, 200, r.body);
    const lint = await promtool(r.body);
    assert.equal(lint.code, 0, lint.out);
    assert.equal(lint.out.trim(), '');
    assert.match(r.body, /^agent_check_state\{query="check_memory"\} [0-3]$/m);
    assert.match(r.body, /^agent_check_state\{query="check_warning"\} 1$/m);
    assert.match(r.body, /^agent_check_state\{query="no_such_check"\} 3$/m);
    assert.match(r.body, /^# TYPE agent_check_perf_bytes gauge$/m);
    const used = /^agent_check_perf_bytes\{query="check_memory",label="physical"\} (\d+(\.\d+)?)$/m.exec(r.body);
    assert.ok(used && Number(used[1]) > 1024 * 1024, `physical memory in bytes: ${r.body}`);
    assert.match(
      r.body,
      /^agent_check_perf_ratio\{query="check_memory",label="physical %"\} 0(\.\d+)?$|^agent_check_perf_ratio\{query="check_memory",label="physical %"\} 1$/m,
    );
    assert.match(r.body, /^agent_check_perf_seconds\{query="check_uptime",label="uptime"\} \d+/m);

    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: agent-checks\n    scheme: https\n    metrics_path: /api/v1/metrics/checks\n    params:\n      query: [check_memory, check_uptime]\n    basic_auth:\n      username: root\n      password: checks-secret\n    tls_config:\n      insecure_skip_verify: true\n    static_configs:\n      - targets: ['127.0.0.1:${port}']\n`,
    );
    prometheus = spawn(
      '/usr/bin/prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
    let found: { metric: Record<string, string>; value: [number, string] }[] = [];
    await waitUntil(
      async () => {
        const q = await fetch(
          `http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent('agent_check_perf_seconds{label="uptime"}')}`,
        ).catch(() => undefined);
        if (!q?.ok) return false;
        found = ((await q.json()) as { data: { result: typeof found } }).data.result;
        return found.length > 0;
      },
      60_000,
      'Prometheus scraped the checks',
    );
    assert.equal(inRange(found, 0).metric.query, 'check_uptime');
    assert.equal(inRange(found, 0).metric.job, 'agent-checks');
    assert.ok(Number(inRange(found, 0).value[1]) > 0);
    const up = (await (await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=up`)).json()) as {
      data: { result: { value: [number, string] }[] };
    };
    assert.equal(up.data.result[0]?.value[1], '1', 'the scrape succeeded');
  } finally {
    prometheus?.kill('SIGTERM');
    if (prometheus && prometheus.exitCode === null) await new Promise((resolve) => prometheus?.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
    await agent.stop();
  }
});
