/** Which command lines run sudo, and the sudoers lines for the agent's user (formats/sudo-command.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sudoersLine, sudoUses } from '../../../src/formats/sudo-command.js';

void test('sudo at the start, after -c or a separator, with options; not as an argument', () => {
  assert.deepEqual(sudoUses('/usr/bin/sudo /usr/lib/nagios/plugins/check_procs -w 5'), [
    { program: '/usr/lib/nagios/plugins/check_procs', user: 'root' },
  ]);
  assert.deepEqual(sudoUses("/bin/sh -c 'sudo -n -u postgres /usr/bin/check_pg'"), [
    { program: '/usr/bin/check_pg', user: 'postgres' },
  ]);
  assert.deepEqual(sudoUses('true; sudo /bin/x && sudo -- /bin/y'), [
    { program: '/bin/x', user: 'root' },
    { program: '/bin/y', user: 'root' },
  ]);
  assert.deepEqual(sudoUses('/usr/bin/check_log -f sudo'), []);
});

void test('one sudoers line per user the commands run as', () => {
  assert.deepEqual(
    sudoersLine([
      { program: '/b', user: 'root' },
      { program: '/a', user: 'root' },
      { program: '/a', user: 'root' },
    ]),
    ['config-agent ALL=(root) NOPASSWD: /a, /b'],
  );
});
