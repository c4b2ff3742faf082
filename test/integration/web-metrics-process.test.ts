/**
 * /api/v1/metrics of a running agent carries the process metrics every
 * exporter has, with values that match what /proc says about the agent's
 * process, and the whole exposition passes Prometheus's own linter
 * (`promtool check metrics`, Debian package prometheus).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startAgent } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';

const PROMTOOL = '/usr/bin/promtool';

function promtool(text: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(text);
  });
}

function value(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${name} is exposed`);
  return Number(m[1]);
}

test('process metrics: present, true to /proc, and clean for promtool', async () => {
  const before = Date.now() / 1000;
  const agent = await startAgent({
    ini: `[/modules]\nWEBServer = enabled\nCheckHelpers = enabled\n\n[/settings/default]\npassword = metrics-secret\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\n`,
  });
  try {
    const port = (await agent.waitForLog(/web server listening on https:\/\/127\.0\.0\.1:(\d+)/))[1];
    const get = () => webRequest(`https://127.0.0.1:${port}/api/v1/metrics`, { user: 'root', password: 'metrics-secret' });
    await get();
    // Some work between two scrapes, so that lag and CPU have something to show.
    for (let i = 0; i < 20; i++) await webRequest(`https://127.0.0.1:${port}/api/v1/queries/check_ok/commands/execute`, { user: 'root', password: 'metrics-secret' });
    const r = await get();
    assert.equal(r.status, 200);
    const text = r.body;
    const pid = agent.proc.pid as number;

    const lint = await promtool(text);
    assert.equal(lint.code, 0, lint.out);
    assert.equal(lint.out.trim(), '');

    assert.ok(value(text, 'process_cpu_seconds_total') > 0);
    assert.ok(Math.abs(value(text, 'process_cpu_seconds_total') - value(text, 'process_cpu_user_seconds_total') - value(text, 'process_cpu_system_seconds_total')) < 1e-6);
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
