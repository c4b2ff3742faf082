/**
 * Who holds a busy port, for the bind advice: this process's own listening
 * socket is found by its inode (this process may read its own fds); a
 * socket of another user whose fds cannot be read is named by that user's
 * processes when they agree (a /proc tree written here with nrpe under
 * nagios-nrpe-server.service); and the advice for nrpe points at the
 * takeover section of docs/migration.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holderText, isNrpe, portHolder } from '../../../src/modules/port-holder.js';
import { bindAdvice, type BindSetting } from '../../../src/modules/bind-advice.js';

const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use :::5666'), { code: 'EADDRINUSE' });
const where: BindSetting = {
  section: '/settings/remote/server',
  file: '/etc/config-agent/agent.ini',
  port: 5666,
  host: '',
  portOrigin: {
    file: '/etc/config-agent/conf.d/50-nrpe.ini',
    line: 10,
    col: 1,
    section: '/settings/remote/server',
    key: 'port',
  },
  hostOrigin: undefined,
  tlsSuffix: false,
};

void test('a port this process listens on names this process', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const h = portHolder(port);
    assert.ok(h !== undefined);
    assert.deepEqual(
      h.processes.map((q) => q.pid),
      [process.pid],
    );
    assert.match(holderText(h), new RegExp(`\\(pid ${process.pid}, user \\S+`));
    assert.equal(isNrpe(h), false);
  } finally {
    server.close();
  }
});

void test('a free port has no holder', () => {
  // Port 1 (tcpmux) is not listened on in a test environment.
  assert.equal(portHolder(1), undefined);
});

void test("another user's socket: named by that user's processes, nrpe's advice points at the takeover", () => {
  const proc = mkdtempSync(join(tmpdir(), 'port-holder-'));
  try {
    mkdirSync(join(proc, 'net'));
    const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
    // 0x1622 = 5666, state 0A = LISTEN, uid 65533 (no /etc/passwd name: the number stands), inode 4242.
    writeFileSync(
      join(proc, 'net/tcp6'),
      `${header}   0: 00000000000000000000000000000000:1622 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 65533        0 4242 1 0000000000000000 100 0 0 10 0\n`,
    );
    writeFileSync(join(proc, 'net/tcp'), header);
    for (const pid of [57, 58]) {
      // No fd folder: as for a process of another user, whose fds cannot be read.
      mkdirSync(join(proc, String(pid)));
      writeFileSync(join(proc, String(pid), 'status'), `Name:\tnrpe\nUid:\t65533\t65533\t65533\t65533\n`);
      writeFileSync(join(proc, String(pid), 'cgroup'), '0::/system.slice/nagios-nrpe-server.service\n');
    }
    mkdirSync(join(proc, '99'));
    writeFileSync(join(proc, '99', 'status'), `Name:\tcron\nUid:\t0\t0\t0\t0\n`);
    const h = portHolder(5666, proc);
    assert.ok(h !== undefined);
    assert.equal(holderText(h), 'nrpe (pid 57, 58, user 65533, nagios-nrpe-server.service)');
    assert.ok(isNrpe(h));
    const advice = bindAdvice(inUse, where, () => h) ?? '';
    assert.match(advice, /^port 5666 is held by nrpe \(pid 57, 58, user 65533, nagios-nrpe-server\.service\)/);
    assert.match(advice, /systemctl disable --now nagios-nrpe-server/);
    assert.match(advice, /docs\/migration\.md, "Taking over from nagios-nrpe-server"/);
    assert.match(advice, /set \[\/settings\/remote\/server\] port \(.*50-nrpe\.ini:10\) to a free port/);

    // Processes of that user that disagree (two programs) name the user alone.
    writeFileSync(join(proc, '58', 'status'), `Name:\tother\nUid:\t65533\t65533\t65533\t65533\n`);
    const mixed = portHolder(5666, proc);
    assert.ok(mixed !== undefined);
    assert.equal(holderText(mixed), 'a program of user 65533');
    assert.match(bindAdvice(inUse, where, () => mixed) ?? '', /^port 5666 is in use by a program of user 65533: set/);
  } finally {
    rmSync(proc, { recursive: true, force: true });
  }
});

void test('no holder found: the advice names ss as before', () => {
  assert.match(
    bindAdvice(inUse, where, () => undefined) ?? '',
    /^port 5666 is in use by another program \(ss -ltnp 'sport = :5666' names it\): set/,
  );
});
