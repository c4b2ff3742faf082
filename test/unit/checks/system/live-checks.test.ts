/**
 * The /proc and /sys checks against this machine as it is: loopback traffic
 * the test makes, listeners it opens, a file it writes and syncs, the mount
 * table. Each test has its own counter history with a short first sample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server } from 'node:net';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck, type CheckDefinition } from '../../../../src/checks/engine.js';
import { CounterHistory } from '../../../../src/checks/rates/counter-history.js';
import { realHost, runHostCommand, type CommandOptions } from '../../../../src/checks/host/host-sources.js';
import { osUpdatesCheck } from '../../../../src/checks/system/os-updates-check.js';
import { networkCheck } from '../../../../src/checks/system/network-check.js';
import { connectionsCheck, countSocketStates } from '../../../../src/checks/system/connections-check.js';
import { kernelStatsCheck } from '../../../../src/checks/system/kernel-stats-check.js';
import { swapIoCheck } from '../../../../src/checks/system/swap-io-check.js';
import { cpuUtilizationCheck } from '../../../../src/checks/system/cpu-utilization-check.js';
import { mountCheck } from '../../../../src/checks/disk/mount-check.js';
import { driveIoCheck } from '../../../../src/checks/disk/drive-io-check.js';
import type { Values } from '../../../../src/checks/expression/evaluate.js';
import { CheckArguments } from '../../../../src/checks/arguments.js';

const history = (): CounterHistory => new CounterHistory({ firstIntervalMs: 200, minBaseMs: 50 });

/** The items a check collects, as the engine would filter them (no filter). */
async function items(def: CheckDefinition, args: [string, string][] = []): Promise<Values[]> {
  return def.collect(new CheckArguments(args), { signal: new AbortController().signal, now: Date.now() / 1000 });
}

void test('check_network: loopback traffic the test sends shows in totals and rates between calls', async () => {
  const check = networkCheck(realHost(), history());
  const [before] = await items(check, [['device', 'lo']]);
  assert.ok(before && before.loopback === true && before.name === 'lo', JSON.stringify(before));
  const bytes = 4 * 1024 * 1024;
  const server = createServer((s) => s.resume().on('end', () => s.end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve, reject) => {
    const c = connect(port, '127.0.0.1', () => c.end(Buffer.alloc(bytes)));
    c.on('error', reject)
      .on('close', () => resolve())
      .resume();
  });
  await new Promise<void>((r) => server.close(() => r()));
  const [after] = await items(check, [['device', 'lo']]);
  assert.ok(after);
  assert.ok(
    (after.total_received as number) - (before.total_received as number) >= bytes,
    'the counter grew by what we sent',
  );
  assert.equal(after.lookback !== undefined && (after.lookback as number) > 0.1, true);
  // The rate covers the send: at least what we sent over the time since the baseline.
  assert.ok(
    (after.received as number) * (after.lookback as number) >= bytes * 0.99,
    `received ${after.received} over ${after.lookback}s`,
  );
  const r = await runCheck(check, ['device=lo', 'warn=received > 1k', 'crit=none', 'lookback=60']);
  assert.equal(r.result, 1, r.message);
  assert.match(r.message, /^WARNING: lo >[\d.]+[KMG]?B\/s <[\d.]+[KMG]?B\/s$/);
  assert.deepEqual(
    r.perf.map((p) => p.alias),
    ['lo received', 'lo sent', 'lo errors', 'lo drops'],
  );
  const bad = await runCheck(check, ['device=nosuch0']);
  assert.equal(bad.result, 3);
  assert.match(bad.message, /no network interface named nosuch0 \(known: .*lo/);
  const excluded = await runCheck(check, ['exclude=lo', 'show-all']);
  assert.doesNotMatch(excluded.message, /\blo >/);
});

void test('check_connections: hex states (LISTEN is 0A), listeners the test opens, rows per protocol and family', async () => {
  const sample =
    '  sl  local_address rem_address   st\n   0: 00000000:07E8 00000000:0000 0A 0\n   1: 0100007F:8CCD 0100007F:B4B8 06 0\n   2: 0100007F:8CCD 0100007F:B4B9 0B 0\n';
  assert.deepEqual(
    Object.entries(countSocketStates(sample)).filter(([, n]) => n > 0),
    [
      ['time_wait', 1],
      ['listen', 1],
      ['closing', 1],
    ],
  );
  const servers: Server[] = [];
  for (let i = 0; i < 3; i++) {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
  }
  try {
    const rows = await items(connectionsCheck(realHost()));
    const tcp4 = rows.find((r) => r.protocol === 'tcp' && r.inet === 'ipv4');
    assert.ok(tcp4 && (tcp4.listen as number) >= 3, JSON.stringify(tcp4));
    assert.deepEqual(
      rows.map((r) => `${r.protocol}/${r.inet}`),
      ['tcp/ipv4', 'tcp/ipv6', 'tcp/all', 'udp/ipv4', 'udp/ipv6', 'udp/all', 'total/all'],
    );
    const total = rows.find((r) => r.protocol === 'total');
    assert.equal(
      total?.total,
      (rows.find((r) => r.protocol === 'tcp' && r.inet === 'all')?.total as number) +
        (rows.find((r) => r.protocol === 'udp' && r.inet === 'all')?.total as number),
    );
    const r = await runCheck(connectionsCheck(realHost()), [
      "filter=protocol = 'tcp' and inet = 'ipv4'",
      'warn=listen >= 3',
      'crit=none',
    ]);
    assert.equal(r.result, 1, r.message);
    assert.ok(r.perf.some((p) => p.alias === 'tcp_ipv4_listen' && Number(p.value) >= 3 && p.warning === 3));
  } finally {
    for (const s of servers) s.close();
  }
});

void test('check_kernel_stats: context switches and forks per second, threads and processes now', async () => {
  const check = kernelStatsCheck(realHost(), history());
  const list = await items(check, [['type', 'ctxt,processes,threads,procs']]);
  const by = Object.fromEntries(list.map((i) => [String(i.name), i] as const));
  assert.ok((by.ctxt?.rate as number) > 0, 'the machine switches contexts');
  const pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
  assert.ok(Math.abs((by.procs?.current as number) - pids) < 50, `procs ${by.procs?.current} vs ${pids}`);
  assert.ok((by.threads?.current as number) >= (by.procs?.current as number));
  const r = await runCheck(check, []);
  assert.match(r.message, /^OK: Context switches: [\d.]+\/s, Process creations: [\d.]+\/s, Threads: \d+$/);
  assert.deepEqual(
    r.perf.map((p) => [p.alias, p.warning, p.critical]),
    [
      ['ctxt', undefined, undefined],
      ['processes', undefined, undefined],
      ['threads', 8000, 10000],
    ],
  );
  assert.match(
    (await runCheck(check, ['type=nope'])).message,
    /type=nope is not one of ctxt, processes, threads, procs/,
  );
});

void test('check_swap_io: devices from /proc/swaps, rates between calls', async () => {
  const devices = readFileSync('/proc/swaps', 'utf8').trim().split('\n').length - 1;
  const r = await runCheck(swapIoCheck(realHost(), history()), ['show-all']);
  assert.equal(r.result, 0, r.message);
  assert.match(r.message, new RegExp(`^OK: ${devices} swap device\\(s\\), in [\\d.]+[KMG]?B/s, out [\\d.]+[KMG]?B/s$`));
  assert.deepEqual(
    r.perf.map((p) => p.alias),
    ['swap_in', 'swap_out'],
  );
});

void test('check_cpu_utilization: the modes add up to 100 %, total is everything but idle', async () => {
  const check = cpuUtilizationCheck(realHost(), history());
  const [u] = await items(check, [['range', '30s']]);
  assert.ok(u);
  const modes = ['user', 'nice', 'system', 'iowait', 'irq', 'softirq', 'steal', 'guest', 'idle'].reduce(
    (a, k) => a + (u[k] as number),
    0,
  );
  assert.ok(Math.abs(modes - 100) < 0.5, `modes add up to ${modes}`);
  assert.ok(Math.abs((u.total as number) + (u.idle as number) - 100) < 0.01);
  const r = await runCheck(check, ['warn=total >= 0', 'crit=none']);
  assert.equal(r.result, 1);
  assert.deepEqual(
    r.perf.map((p) => p.alias),
    ['total', 'user', 'system', 'iowait', 'steal', 'guest', 'idle'],
  );
  assert.ok(r.perf.every((p) => p.unit === '%'));
  assert.match((await runCheck(check, ['range=2h'])).message, /range=2h is not a duration between 1s and 900s/);
});

void test('check_mount: the root file system, options, type and a missing mount point', async () => {
  const root = (await items(mountCheck(realHost()), [['mount', '/']]))[0];
  assert.ok(root && root.mounted === true, JSON.stringify(root));
  const ro = root.readonly === true;
  const ok = await runCheck(mountCheck(realHost()), [
    'mount=/',
    `options=${ro ? 'ro' : 'rw'}`,
    `fstype=${root.fstype}`,
  ]);
  assert.deepEqual([ok.result, ok.message], [0, 'OK: 1 mount(s) ok']);
  const wrong = await runCheck(mountCheck(realHost()), ['mount=/', `options=${ro ? 'rw' : 'ro'}`, 'fstype=nosuchfs']);
  assert.deepEqual(
    [wrong.result, wrong.message],
    [1, `WARNING: / missing options: ${ro ? 'rw' : 'ro'}; fstype is ${root.fstype}, expected nosuchfs`],
  );
  const missing = await runCheck(mountCheck(realHost()), ['mount=/no/such/mount/']);
  assert.deepEqual([missing.result, missing.message], [2, 'CRITICAL: /no/such/mount not mounted']);
  const all = await runCheck(mountCheck(realHost()), ['show-all']);
  assert.doesNotMatch(all.message, /\/proc|\/sys\b/);
});

void test('check_drive_io: a file the test writes and syncs shows in the written bytes', async () => {
  const check = driveIoCheck(realHost(), history());
  const before = await items(check);
  assert.ok(before.length > 0, 'this machine has a disk');
  const dir = mkdtempSync(join(tmpdir(), 'driveio-'));
  try {
    const fd = openSync(join(dir, 'f'), 'w');
    writeSync(fd, Buffer.alloc(2 * 1024 * 1024, 1));
    fsyncSync(fd);
    closeSync(fd);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const after = await items(check);
  const grew = after.some(
    (a) =>
      (a.write_bytes as number) - ((before.find((b) => b.drive === a.drive)?.write_bytes ?? 0) as number) >=
      2 * 1024 * 1024,
  );
  assert.ok(grew, 'some disk wrote our 2 MiB');
  assert.ok(after.every((a) => (a.utilization as number) >= 0 && (a.utilization as number) <= 100));
  const r = await runCheck(check, [`drive=/dev/${after[0]?.drive}`, 'show-all']);
  assert.match(r.message, new RegExp(`^OK: ${after[0]?.drive} >[\\d.]+[KMG]?B/s <[\\d.]+[KMG]?B/s [\\d.]+%$`));
  assert.match((await runCheck(check, ['drive=nosuchdisk'])).message, /no drive named nosuchdisk/);
});

void test('check_os_updates on this machine: the real package manager, then the cached answer while nothing changed', async () => {
  let runs = 0;
  const host = {
    ...realHost(),
    run: (argv: readonly string[], o: CommandOptions) => ((runs += 1), runHostCommand(argv, o)),
  };
  const first = await runCheck(osUpdatesCheck(host), []);
  const hasManager = ['/usr/bin/apt-get', '/usr/bin/dnf', '/usr/bin/yum'].some((p) => existsSync(p));
  if (!hasManager) {
    assert.deepEqual(
      [first.result, first.message],
      [3, 'no supported package manager on this host (looked for apt-get, dnf, yum)'],
    );
    return;
  }
  assert.match(
    first.message,
    /^(OK: no updates available|(WARNING|CRITICAL): \d+ update\(s\) available, \d+ security: )/,
  );
  const before = runs;
  const second = await runCheck(osUpdatesCheck(host), []);
  assert.deepEqual(second, first);
  assert.equal(runs, before, 'the second answer comes from the cache, not a new simulated upgrade');
});
