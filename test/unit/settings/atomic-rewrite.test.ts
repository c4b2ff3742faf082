/**
 * The writer's temporary file never has a wider mode than the file it
 * replaces, and a file it creates is 0600, whatever the umask: observed on
 * the real temp file (the writer's beforeRename hook runs while it exists).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editSettingsFile } from '../../../src/settings/store/edit-ini.js';

let dir: string;
let umask: number;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-rewrite-'));
  // The loosest umask: the modes below come from the writer, not from the umask.
  umask = process.umask(0);
});
after(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

/** Mode of every .tmp file in `dir` now. */
function tempModes(): number[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.tmp'))
    .map((n) => statSync(join(dir, n)).mode & 0o777);
}

const hash = 'pbkdf2-sha256$600000$c2FsdA$aGFzaA';

void test('editing a 0640 file: the temp file and the result are 0640', async () => {
  const file = join(dir, 'kept.ini');
  writeFileSync(file, '[/settings/WEB/server]\nport = 8443s\n');
  chmodSync(file, 0o640);
  let seen: number[] = [];
  await editSettingsFile(file, [{ op: 'set', section: '/settings/web/users/ann', key: 'password', value: hash }], {
    beforeRename: async () => {
      seen = tempModes();
    },
  });
  assert.deepEqual(seen, [0o640]);
  assert.equal(statSync(file).mode & 0o777, 0o640);
  assert.deepEqual(tempModes(), [], 'no temp file left');
});

void test('creating a file that holds a password: the temp file and the result are 0600', async () => {
  const file = join(dir, 'created.ini');
  let seen: number[] = [];
  await editSettingsFile(file, [{ op: 'set', section: '/settings/web/users/ann', key: 'password', value: hash }], {
    create: true,
    beforeRename: async () => {
      seen = tempModes();
    },
  });
  assert.deepEqual(seen, [0o600]);
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

void test('a hand edit saved by rename before ours, even with the same bytes, is noticed: the edit is applied again on it', async () => {
  const file = join(dir, 'raced.ini');
  const text = '[/settings/WEB/server]\nport = 8443s\n';
  writeFileSync(file, text);
  let rounds = 0;
  await editSettingsFile(file, [{ op: 'set', section: '/settings/WEB/server', key: 'timeout', value: '40' }], {
    beforeRename: async () => {
      // An editor saving by rename between our read and our rename (a new inode; here the same bytes,
      // which the content check alone cannot tell from the file read).
      if (rounds++ === 0) {
        writeFileSync(`${file}.editor`, text);
        renameSync(`${file}.editor`, file);
      }
    },
  });
  assert.equal(rounds, 2, 'read again after the editor');
  assert.match(readFileSync(file, 'utf8'), /^timeout = 40$/m);
});

void test('a write through a descriptor opened before our rename and landing after it is put back, and the edit applied on top', async () => {
  const file = join(dir, 'appended.ini');
  writeFileSync(file, '[/settings/external scripts/alias]\nfirst = check_ok\n');
  // `echo >> file` that opened the file before our rename and writes after it: its text goes to the replaced copy.
  const late = openSync(file, 'a');
  let rounds = 0;
  let renamed: () => void = () => undefined;
  const atRename = new Promise<void>((res) => (renamed = res));
  const editing = editSettingsFile(
    file,
    [{ op: 'set', section: '/settings/external scripts/alias', key: 'api', value: 'check_ok' }],
    {
      beforeRename: async () => {
        if (rounds++ === 0) renamed();
      },
    },
  );
  await atRename;
  // The edit renames right after its hook, then waits for this descriptor (open for writing) to close.
  setTimeout(() => {
    writeSync(late, 'hand = check_ok\n');
    closeSync(late);
  }, 50);
  await editing;
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^hand = check_ok$/m, 'the late write is kept');
  assert.match(text, /^api = check_ok$/m, 'the edit is applied on top of it');
  assert.equal(rounds, 2, 'read again after the late write');
  assert.deepEqual(tempModes(), [], 'no temp file left');
});
