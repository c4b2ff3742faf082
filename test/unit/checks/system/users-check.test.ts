/**
 * check_users: utmp records written in glibc's layout, and this host's
 * own utmp against Debian's check_users (the same count of sessions).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck } from '../../../../src/checks/engine.js';
import { usersCheck } from '../../../../src/checks/system/users-check.js';
import { toNagios } from '../../../../src/core/result.js';

const dir = mkdtempSync(join(tmpdir(), 'utmp-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function record(type: number, pid: number, line: string, user: string, host: string, login: number): Buffer {
  const b = Buffer.alloc(384);
  b.writeInt32LE(type, 0);
  b.writeInt32LE(pid, 4);
  b.write(line, 8, 32, 'utf8');
  b.write(user, 44, 32, 'utf8');
  b.write(host, 76, 256, 'utf8');
  b.writeInt32LE(login, 340);
  return b;
}

void test('check_users counts the USER_PROCESS records of utmp', async () => {
  const file = join(dir, 'utmp');
  writeFileSync(
    file,
    Buffer.concat([
      record(2, 0, '~', 'reboot', '6.1.0', 1_700_000_000),
      record(7, 1234, 'pts/0', 'alice', '192.0.2.7', 1_700_000_100),
      record(6, 99, 'tty1', 'LOGIN', '', 0),
      record(7, 1300, 'tty2', 'bob', '', 1_700_000_200),
      record(8, 1400, 'pts/1', '', '', 0),
    ]),
  );
  const r = await runCheck(usersCheck(file), ['show-all', 'warn=count > 1']);
  assert.equal(r.result, 1, r.message);
  assert.equal(r.message, 'WARNING: 2 user(s) logged in');
  assert.match(toNagios(r), /\|'users'=2;1;;0$/);
  const list = await runCheck(usersCheck(file), [
    'top-syntax=${list}',
    "filter=host != ''",
    'detail-syntax=${user}@${host} ${line}',
  ]);
  assert.equal(list.message, 'alice@192.0.2.7 pts/0');
});

void test('a host without utmp has no sessions; this host agrees with Debian check_users', async () => {
  const none = await runCheck(usersCheck(join(dir, 'missing')), []);
  assert.deepEqual([none.result, none.message], [0, 'OK: 0 user(s) logged in']);
  const theirs = await new Promise<string>((resolve) =>
    execFile('/usr/lib/nagios/plugins/check_users', ['-w', '100', '-c', '200'], (_e, out) => resolve(out)),
  );
  const count = Number(/(\d+) users currently logged in/.exec(theirs)?.[1]);
  const ours = await runCheck(usersCheck(), []);
  assert.match(ours.message, new RegExp(`^OK: ${count} user\\(s\\) logged in$`), `${ours.message} vs ${theirs}`);
});
