/**
 * Debian's check_nrpe against a real agent process: check_cpu, check_memory
 * and external scripts (status, perf data, arguments, timeout) answered by
 * our RemoteServer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { startAgent, listenerPort, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

let agent: AgentProcess;
let port: number;
const made = new Teardown();

before(async () => {
  agent = made.add(
    await startAgent({
      ini: `[/modules]
CheckSystem = enabled
CheckExternalScripts = enabled
RemoteServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
allow arguments = 1

[/settings/external scripts]
timeout = 1
allow arguments = true

[/settings/external scripts/scripts]
check_said = said.sh $ARG1$ $ARG2$
check_hang = /bin/sleep 30
check_long = long.sh $ARG1$
`,
      files: {
        'scripts/said.sh': '#!/bin/sh\necho "said $1|\'n\'=$2;5;10"\nexit $2\n',
        // A plugin with perf data on its first line and $1 bytes of long text after it.
        'scripts/long.sh':
          '#!/bin/sh\necho "OK: long output|len=$1;;;0"\nhead -c "$1" /dev/zero | tr "\\\\0" x | fold -w 99\necho\n',
      },
    }),
    (a) => a.stop(),
  );
  chmodSync(join(agent.dir, 'scripts', 'said.sh'), 0o755);
  chmodSync(join(agent.dir, 'scripts', 'long.sh'), 0o755);
  await agent.waitForLog(/listening on 127\.0\.0\.1:\d+ \(TLS\)/);
  port = await listenerPort(agent, 'RemoteServer');
});

after(() => made.close());

void test('check_nrpe runs check_cpu with its default thresholds and perf data', async () => {
  const r = await checkNrpe(port, ['-c', 'check_cpu']);
  assert.ok([0, 1, 2].includes(r.code), r.out);
  // Within a second of the start the sampler has no history yet: one fresh 500 ms interval, labelled so.
  assert.match(
    r.out,
    /^(OK: CPU load is ok\.|(WARNING|CRITICAL): .*)\|('total 5s'=\d+(\.\d+)?%;80;90 'total 1m'=[\d.]+%;80;90 'total 5m'=[\d.]+%;80;90|'total 500ms'=\d+(\.\d+)?%;80;90)$/,
  );
  const forced = await checkNrpe(port, ['-c', 'check_cpu', '-a', 'warn=none', 'crit=load ge 0', 'time=5s']);
  assert.equal(forced.code, 2, forced.out);
  const bad = await checkNrpe(port, ['-c', 'check_cpu', '-a', 'crit=load gt gt 0']);
  assert.equal(bad.code, 3);
  assert.match(bad.out, /^invalid critical expression "load gt gt 0" at column 9: expected a value/);
});

void test('check_nrpe runs check_memory with word operators', async () => {
  const r = await checkNrpe(port, ['-c', 'check_memory', '-a', 'type=physical', 'warn=used gt 0%', 'crit=none']);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /^WARNING: physical = .*\|'physical'=[\d.]+[KMGT]?B;0;;0;[\d.]+ 'physical %'=[\d.]+%;0;;0;100$/);
});

void test('check_nrpe runs an external script: status, message, perf, arguments', async () => {
  for (const code of [0, 1, 2, 3]) {
    const r = await checkNrpe(port, ['-c', 'check_said', '-a', 'hello', String(code)]);
    assert.deepEqual(r, { code, out: `said hello|'n'=${code};5;10` });
  }
  const high = await checkNrpe(port, ['-c', 'check_said', '-a', 'hi', '7']);
  assert.equal(high.code, 3);
  const hang = await checkNrpe(port, ['-c', 'check_hang']);
  assert.deepEqual(hang, { code: 3, out: 'Script check_hang timed out after 1 s' });
});

void test('a long answer keeps the first line and its perf data over NRPE v2 and v4', async () => {
  for (const [size, version, limit] of [
    [3000, '-2', 1023],
    [3000, '', 65535],
    [70000, '-2', 1023],
    [70000, '', 65535],
  ] as const) {
    const r = await checkNrpe(port, [...(version ? [version] : []), '-c', 'check_long', '-a', String(size)]);
    const label = `${size} bytes ${version || 'v4'}`;
    assert.equal(r.code, 0, label);
    const lines = r.out.split('\n');
    assert.equal(lines[0], `OK: long output|'len'=${size};;;0`, label);
    assert.match(lines[1] ?? '', /^x+$/, label);
    const bytes = Buffer.byteLength(r.out);
    if (size + 100 < limit) assert.ok(bytes > size, `${label}: whole long text (${bytes} bytes)`);
    else assert.ok(bytes <= limit && bytes > limit - 200, `${label}: cut to the packet (${bytes} bytes)`);
  }
});
