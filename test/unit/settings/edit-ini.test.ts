import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, readdir, rm, stat, symlink, lstat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AgentError } from '../../../src/errors.js';
import { applyEdits, editSettingsFile, hashText } from '../../../src/settings/store/edit-ini.js';
import { parseIni } from '../../../src/settings/ini/read-ini.js';
import { defined } from '../../helpers/defined.js';

const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/settings/', import.meta.url));
const EDIT_INI_JS = fileURLToPath(new URL('../../../src/settings/store/edit-ini.js', import.meta.url));
const run = promisify(execFile);

function fixture(name: string): string {
  return readFileSync(FIXTURES + name, 'utf8');
}

/** Indexes where two line arrays of the same length differ. */
function changedIndexes(a: readonly string[], b: readonly string[]): number[] {
  assert.equal(b.length, a.length, 'same number of lines');
  return a.flatMap((line, i) => (line === b[i] ? [] : [i]));
}

function valuesOf(text: string): Record<string, Record<string, string>> {
  const doc = parseIni(text, 'x.ini');
  assert.deepEqual(doc.problems, []);
  return Object.fromEntries(
    doc.sections.map((s) => [s.path, Object.fromEntries(s.entries.map((e) => [e.key, e.value]))]),
  );
}

/** The pid of a process that has exited (for leftovers of a killed writer). */
async function deadPid(): Promise<number> {
  const child = execFile(process.execPath, ['-e', '0']);
  await new Promise((res) => child.once('exit', res));
  return child.pid as number;
}

function assertAgentError(code: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof AgentError, `AgentError expected, got ${String(err)}`);
    assert.equal(err.code, code);
    return true;
  };
}

void describe('applyEdits', () => {
  const TARGET = '/settings/remote/client/targets/web.example.com';

  void it('changes only the value part of the edited lines of a commented file', () => {
    const text = fixture('comments.ini');
    const out = applyEdits(text, [
      { op: 'set', section: '/MODULES', key: 'remoteclient', value: 'enabled' },
      { op: 'set', section: TARGET, key: 'verify mode', value: 'none' },
      { op: 'set', section: '/settings/default', key: 'password', value: 's3cret;#' }, // same value: no change
    ]);
    const before = text.split('\n');
    const afterLines = out.split('\n');
    assert.deepEqual(changedIndexes(before, afterLines), [7, 14]);
    assert.equal(afterLines[7], 'RemoteClient = enabled');
    assert.equal(afterLines[14], '    verify mode = none');
    const values = valuesOf(out);
    assert.equal(defined(values['/modules'])['RemoteClient'], 'enabled');
    assert.equal(defined(values[TARGET])['verify mode'], 'none');
    assert.deepEqual(
      { ...values, '/modules': undefined, [TARGET]: undefined },
      { ...valuesOf(text), '/modules': undefined, [TARGET]: undefined },
    );
  });

  void it('inserts a new key after the last key line of its section, with its indentation', () => {
    const text = fixture('comments.ini');
    const before = text.split('\n');
    const inserted = applyEdits(text, [{ op: 'set', section: '/settings/default', key: 'timeout', value: '30' }]).split(
      '\n',
    );
    assert.deepEqual(inserted, [...before.slice(0, 20), 'timeout = 30', ...before.slice(20)]);
    const indented = applyEdits(text, [{ op: 'set', section: TARGET, key: 'timeout', value: '5' }]).split('\n');
    assert.deepEqual(indented, [...before.slice(0, 15), '    timeout = 5', ...before.slice(15)]);
    assert.equal(
      applyEdits('[/a]\n; no keys yet\n', [{ op: 'set', section: '/a', key: 'k', value: '1' }]),
      '[/a]\nk = 1\n; no keys yet\n',
    );
    assert.equal(applyEdits('[/a]\nk = 1', [{ op: 'set', section: '/a', key: 'j', value: '2' }]), '[/a]\nk = 1\nj = 2');
  });

  void it('keeps CRLF line endings, including on added lines', () => {
    const text = fixture('crlf.ini');
    const out = applyEdits(text, [
      { op: 'set', section: '/settings/web/server', key: 'port', value: '9443' },
      { op: 'set', section: '/modules', key: 'RemoteClient', value: 'enabled' },
      { op: 'set', section: '/settings/new', key: 'x', value: '1' },
    ]);
    assert.equal(
      out,
      '[/modules]\r\nWEBServer = enabled\r\nRemoteClient = enabled\r\n\r\n; a comment\r\n[/settings/web/server]\r\nport = 9443\r\nbad line\r\n\r\n[/settings/new]\r\nx = 1\r\n',
    );
  });

  void it('keeps a UTF-8 BOM', () => {
    const out = applyEdits(fixture('bom.ini'), [
      { op: 'set', section: '/settings/default', key: 'password', value: 'new' },
    ]);
    assert.equal(out, '\ufeff[/settings/default]\npassword = new\n');
  });

  void it('appends a missing section after one blank line, ending the file with a newline', () => {
    const edit = { op: 'set', section: '/b', key: 'x', value: '2' } as const;
    assert.equal(applyEdits('[/a]\nk = 1', [edit]), '[/a]\nk = 1\n\n[/b]\nx = 2\n');
    assert.equal(applyEdits('[/a]\nk = 1\n', [edit]), '[/a]\nk = 1\n\n[/b]\nx = 2\n');
    assert.equal(applyEdits('[/a]\nk = 1\n\n', [edit]), '[/a]\nk = 1\n\n[/b]\nx = 2\n');
    assert.equal(applyEdits('', [edit]), '[/b]\nx = 2\n');
  });

  void it('edits the key where it lives when a section appears twice, and adds new keys to the first occurrence', () => {
    const text = fixture('duplicate-section.ini');
    const lines = text.split('\n');
    const changed = applyEdits(text, [
      { op: 'set', section: '/settings/web/users/admin', key: 'comment', value: 'x' },
    ]).split('\n');
    assert.deepEqual(changedIndexes(lines, changed), [6]);
    assert.equal(changed[6], 'comment = x');
    const added = applyEdits(text, [
      { op: 'set', section: '/settings/web/users/admin', key: 'parent', value: 'default' },
    ]).split('\n');
    assert.deepEqual(added, [...lines.slice(0, 3), 'parent = default', ...lines.slice(3)]);
  });

  void it('quotes values that the reader would otherwise trim or unquote', () => {
    const text = '[/a]\nk = old\nempty =\n';
    const values = [' spaced ', '\tlead', 'trail ', '"quoted"', 'ab;cd#e=f', 'say "hi"', ''];
    for (const value of values) {
      const out = applyEdits(text, [
        { op: 'set', section: '/a', key: 'k', value },
        { op: 'set', section: '/a', key: 'empty', value },
        { op: 'set', section: '/a', key: 'new', value },
      ]);
      assert.deepEqual(valuesOf(out)['/a'], { k: value, empty: value, new: value }, JSON.stringify(value));
    }
    assert.equal(
      applyEdits(text, [{ op: 'set', section: '/a', key: 'k', value: ' x ' }]),
      '[/a]\nk = " x "\nempty =\n',
    );
    assert.equal(applyEdits(text, [{ op: 'set', section: '/a', key: 'k', value: '' }]), '[/a]\nk =\nempty =\n');
    assert.equal(
      applyEdits(text, [{ op: 'set', section: '/a', key: 'empty', value: 'v' }]),
      '[/a]\nk = old\nempty = v\n',
    );
    assert.equal(
      applyEdits(fixture('special-values.ini'), [
        { op: 'set', section: '/settings/remote/server', key: 'spaced', value: 'plain' },
      ]).split('\n')[3],
      'spaced = plain',
    );
  });

  void it('removes every line of a key and leaves the rest alone', () => {
    const text = fixture('comments.ini');
    const lines = text.split('\n');
    const out = applyEdits(text, [{ op: 'remove-key', section: '/modules', key: 'webserver' }]);
    assert.deepEqual(out.split('\n'), [...lines.slice(0, 5), ...lines.slice(6)]);
    assert.equal(
      applyEdits(fixture('duplicate-key.ini'), [{ op: 'remove-key', section: '/modules', key: 'WEBSERVER' }]),
      '[/modules]\nRemoteClient = enabled\n',
    );
    assert.equal(applyEdits(text, [{ op: 'remove-key', section: '/modules', key: 'nothing' }]), text);
    assert.equal(applyEdits(text, [{ op: 'remove-key', section: '/nothing', key: 'x' }]), text);
  });

  void it('removes a section body but keeps the comments above it and the lines after its last key', () => {
    const text = fixture('comments.ini');
    const lines = text.split('\n');
    assert.deepEqual(applyEdits(text, [{ op: 'remove-section', section: TARGET.toUpperCase() }]).split('\n'), [
      ...lines.slice(0, 10),
      ...lines.slice(15),
    ]);
    const abc = '[/a]\nx = 1\n\n[/b]\n; inside b\ny = 2\n; about c\n\n[/c]\nz = 3\n';
    assert.equal(
      applyEdits(abc, [{ op: 'remove-section', section: '/b' }]),
      '[/a]\nx = 1\n\n; about c\n\n[/c]\nz = 3\n',
    );
    assert.equal(
      applyEdits(abc, [{ op: 'remove-section', section: '/c' }]),
      '[/a]\nx = 1\n\n[/b]\n; inside b\ny = 2\n; about c\n',
    );
    assert.equal(
      applyEdits(abc, [{ op: 'remove-section', section: '/a' }]),
      '[/b]\n; inside b\ny = 2\n; about c\n\n[/c]\nz = 3\n',
    );
    assert.equal(
      applyEdits(fixture('duplicate-section.ini'), [{ op: 'remove-section', section: '/settings/web/users/ADMIN' }]),
      '',
    );
    assert.equal(applyEdits(abc, [{ op: 'remove-section', section: '/nothing' }]), abc);
  });

  void it('refuses line breaks and names that would read back differently, changing nothing', () => {
    const cases = [
      { op: 'set', section: '/a', key: 'k', value: 'two\nlines' },
      { op: 'set', section: '/a', key: 'k', value: 'cr\r' },
      { op: 'set', section: '/a', key: 'k=v', value: '1' },
      { op: 'set', section: '/a', key: '; comment', value: '1' },
      { op: 'set', section: '/a]', key: 'k', value: '1' },
      { op: 'set', section: '  ', key: 'k', value: '1' },
      { op: 'remove-key', section: '/a', key: '' },
      { op: 'rename', section: '/a' },
    ];
    for (const edit of cases) {
      assert.throws(
        () => applyEdits('[/a]\nk = 1\n', [edit as never]),
        assertAgentError('AGENT_ERR_VALUE_INVALID'),
        JSON.stringify(edit),
      );
    }
  });
});

void describe('editSettingsFile', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edit-ini-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function newFile(name: string, text: string): Promise<string> {
    const folder = await mkdtemp(join(dir, `${name}-`));
    const file = join(folder, 'agent.ini');
    await writeFile(file, text);
    return file;
  }

  void it('writes the edit atomically, keeps the mode, BOM and CRLF, and leaves no temp file', async () => {
    const original = `\ufeff${fixture('crlf.ini')}`;
    const file = await newFile('basic', original);
    await chmod(file, 0o666); // wider than the usual umask allows
    const result = await editSettingsFile(
      file,
      [{ op: 'set', section: '/settings/web/server', key: 'port', value: '9443' }],
      { expectedHash: hashText(original) },
    );
    const bytes = await readFile(file);
    assert.deepEqual(result, { hash: hashText(bytes), changed: true });
    assert.equal(bytes.toString('utf8'), original.replace('port = 8443', 'port = 9443'));
    assert.equal((await stat(file)).mode & 0o777, 0o666);
    assert.deepEqual(await readdir(join(file, '..')), ['agent.ini']);
  });

  void it('does not write when nothing changes', async () => {
    const text = fixture('comments.ini');
    const file = await newFile('same', text);
    const inode = (await stat(file)).ino;
    const result = await editSettingsFile(file, [
      { op: 'set', section: '/modules', key: 'WEBServer', value: 'enabled' },
    ]);
    assert.deepEqual(result, { hash: hashText(text), changed: false });
    assert.equal((await stat(file)).ino, inode);
  });

  void it('refuses with AGENT_ERR_SETTINGS_CONFLICT when the file differs from expectedHash', async () => {
    const file = await newFile('expected', '[/a]\nk = 1\n');
    const stale = hashText('[/a]\nk = 0\n');
    await assert.rejects(
      editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: '2' }], { expectedHash: stale }),
      assertAgentError('AGENT_ERR_SETTINGS_CONFLICT'),
    );
    assert.equal(await readFile(file, 'utf8'), '[/a]\nk = 1\n');
  });

  void it('re-applies the edit on top of a change made by a writer that ignores the lock (an editor, git)', async () => {
    const file = await newFile('race', '[/a]\nk = 1\n');
    let calls = 0;
    const beforeRename = async (): Promise<void> => {
      if (calls++ === 0) await writeFile(file, '[/a]\nk = 1\nother = writer\n');
    };
    const result = await editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: '2' }], { beforeRename });
    assert.equal(result.changed, true);
    assert.equal(calls, 2);
    assert.equal(await readFile(file, 'utf8'), '[/a]\nk = 2\nother = writer\n');
    assert.deepEqual(await readdir(join(file, '..')), ['agent.ini']);
  });

  void it('gives up with AGENT_ERR_SETTINGS_CONFLICT when the file keeps changing for retryForMs, writing nothing', async () => {
    const file = await newFile('churn', '[/a]\nk = 1\n');
    let calls = 0;
    const beforeRename = async (): Promise<void> => {
      calls++;
      await writeFile(file, `[/a]\nk = other ${calls}\n`);
    };
    const started = performance.now();
    await assert.rejects(
      editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: '2' }], { beforeRename, retryForMs: 300 }),
      assertAgentError('AGENT_ERR_SETTINGS_CONFLICT'),
    );
    assert.ok(calls >= 2, `read again after a conflict (${calls} attempts)`);
    assert.ok(performance.now() - started >= 300, 'tried for retryForMs');
    assert.equal(await readFile(file, 'utf8'), `[/a]\nk = other ${calls}\n`);
    assert.deepEqual(await readdir(join(file, '..')), ['agent.ini']);
  });

  void it('computes read-modify-write edits from the content being edited', async () => {
    const file = await newFile('rmw', '[/r]\nops = a\n');
    const append = (p: string) => (text: string) => [
      { op: 'set' as const, section: '/r', key: 'ops', value: `${defined(valuesOf(text)['/r'])['ops']}, ${p}` },
    ];
    await Promise.all(['b', 'c', 'd'].map((p) => editSettingsFile(file, append(p))));
    assert.equal(defined(valuesOf(await readFile(file, 'utf8'))['/r'])['ops'], 'a, b, c, d');
  });

  void it('removes the temp files of a killed writer of the same file and the lock file an older version left, and no other file', async () => {
    const file = await newFile('leftovers', '[/a]\nk = 1\n');
    const folder = join(file, '..');
    const dead = await deadPid();
    await writeFile(join(folder, `.agent.ini.${dead}.0123456789ab.tmp`), '[/a]\nk = half');
    await writeFile(join(folder, '.agent.ini.lock'), `${dead}\n${hostname()}\nfeedc0de\n`);
    await writeFile(join(folder, `.agent.ini.lock.stale.${dead}.0123456789ab`), `${dead}\n${hostname()}\nfeedc0de\n`);
    await writeFile(join(folder, `.other.ini.${dead}.0123456789ab.tmp`), 'not ours');
    await writeFile(join(folder, `.agent.ini.${process.pid}.0123456789ab.tmp`), 'a live writer');
    await editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: '2' }], { retryForMs: 2000 });
    assert.equal(await readFile(file, 'utf8'), '[/a]\nk = 2\n');
    assert.deepEqual(
      (await readdir(folder)).sort(),
      [`.agent.ini.${process.pid}.0123456789ab.tmp`, `.other.ini.${dead}.0123456789ab.tmp`, 'agent.ini'].sort(),
    );
  });

  void it('reports AGENT_ERR_SETTINGS_WRITE when the write fails, leaving the original and no temp file', async () => {
    // A real failure even as root: a child process whose file-size limit (ulimit -f) is below the new file's size.
    const original = `[/a]\n${'; padding\n'.repeat(2000)}k = 1\n`;
    const file = await newFile('efbig', original);
    const script = `import(${JSON.stringify(EDIT_INI_JS)}).then(m => m.editSettingsFile(${JSON.stringify(file)}, [{ op: 'set', section: '/a', key: 'k', value: '2' }]))
      .then(() => console.log('{"code":"none"}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`;
    const { stdout } = await run(
      'sh',
      ['-c', 'ulimit -f 8 && exec "$0" --input-type=module -e "$1"', process.execPath, script],
      { timeout: 20_000 },
    );
    const outcome = JSON.parse(stdout) as { code: string; message: string };
    assert.equal(outcome.code, 'AGENT_ERR_SETTINGS_WRITE');
    assert.match(outcome.message, /^cannot write settings file .*agent\.ini: .*EFBIG/);
    assert.doesNotMatch(outcome.message, /\.tmp/, 'no temp file name in the message');
    assert.equal(await readFile(file, 'utf8'), original);
    assert.deepEqual(await readdir(join(file, '..')), ['agent.ini']);
  });

  void it('lets two concurrent edits of the same file both land', async () => {
    const file = await newFile('concurrent', '[/a]\nk = 1\n');
    const edits = Array.from({ length: 10 }, (_, i) =>
      editSettingsFile(file, [{ op: 'set', section: '/a', key: `key${i}`, value: String(i) }]),
    );
    const results = await Promise.all(edits);
    assert.ok(results.every((r) => r.changed));
    const values = defined(valuesOf(await readFile(file, 'utf8'))['/a']);
    assert.deepEqual(values, {
      k: '1',
      ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key${i}`, String(i)])),
    });
    // Two callers that read the same version: the second is told, not silently overwritten.
    const hash = hashText(await readFile(file));
    const [first, second] = await Promise.allSettled([
      editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: 'first' }], { expectedHash: hash }),
      editSettingsFile(file, [{ op: 'set', section: '/a', key: 'k', value: 'second' }], { expectedHash: hash }),
    ]);
    assert.equal(first.status, 'fulfilled');
    assert.equal(second.status, 'rejected');
    assertAgentError('AGENT_ERR_SETTINGS_CONFLICT')(second.reason);
    assert.equal(defined(valuesOf(await readFile(file, 'utf8'))['/a'])['k'], 'first');
  });

  void it('refuses a missing file with AGENT_ERR_SETTINGS_NOT_FOUND; creates one only with create and set edits', async () => {
    const folder = await mkdtemp(join(dir, 'missing-'));
    const file = join(folder, 'agent.ini');
    const set = { op: 'set', section: '/settings/web/server', key: 'password', value: 'p w' } as const;
    await assert.rejects(editSettingsFile(file, [set]), assertAgentError('AGENT_ERR_SETTINGS_NOT_FOUND'));
    await assert.rejects(
      editSettingsFile(file, [{ op: 'remove-key', section: '/a', key: 'k' }], { create: true }),
      assertAgentError('AGENT_ERR_SETTINGS_UNREADABLE'),
    );
    assert.deepEqual(await readdir(folder), []);
    const result = await editSettingsFile(file, [set], { create: true });
    assert.equal(await readFile(file, 'utf8'), '[/settings/web/server]\npassword = p w\n');
    assert.deepEqual(result, { hash: hashText('[/settings/web/server]\npassword = p w\n'), changed: true });
    assert.deepEqual(await readdir(folder), ['agent.ini']);
  });

  void it('replaces the target of a symlink and keeps the link', async () => {
    const file = await newFile('link', '[/a]\nk = 1\n');
    const link = join(dir, 'link.ini');
    await symlink(file, link);
    await editSettingsFile(link, [{ op: 'set', section: '/a', key: 'k', value: '2' }]);
    assert.ok((await lstat(link)).isSymbolicLink());
    assert.equal(await readFile(file, 'utf8'), '[/a]\nk = 2\n');
  });

  void it('refuses to rewrite a file that is not UTF-8', async () => {
    const folder = await mkdtemp(join(dir, 'latin1-'));
    const file = join(folder, 'agent.ini');
    const bytes = Buffer.from('[/a]\nk = caf\xe9\n', 'latin1');
    await writeFile(file, bytes);
    await assert.rejects(
      editSettingsFile(file, [{ op: 'set', section: '/a', key: 'j', value: '1' }]),
      assertAgentError('AGENT_ERR_SETTINGS_WRITE'),
    );
    assert.deepEqual(await readFile(file), bytes);
  });
});
