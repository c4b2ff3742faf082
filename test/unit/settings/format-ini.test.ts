/**
 * The canonical layout of `config-agent settings fmt`: what it changes, what it
 * keeps, that it is idempotent, and that the minimal-edit writer's output
 * on a canonical file stays canonical (so `config-agent web add-user` never makes
 * `fmt --check` fail).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIni } from '../../../src/settings/ini/format-ini.js';
import { applyEdits } from '../../../src/settings/store/edit-ini.js';
import { parseIni } from '../../../src/settings/ini/read-ini.js';

const MESSY =
  '\n\n  ; head comment  \n  [ /modules ]  \nCheckHelpers=enabled   \n; about web\n[/settings/WEB/server]\n  port   =   9443s\n\n\n\nbind to =\npassword = "  spaced  "\n[/settings/log]\nlevel=debug\n\n';
const CANONICAL =
  '; head comment\n[/modules]\nCheckHelpers = enabled\n\n; about web\n[/settings/WEB/server]\nport = 9443s\n\nbind to =\npassword = "  spaced  "\n\n[/settings/log]\nlevel = debug\n';

void test('formats to the canonical layout, keeping comments, order and values', () => {
  const r = formatIni(MESSY);
  assert.equal(r.text, CANONICAL);
  const values = (t: string) =>
    parseIni(t, 'x.ini').sections.map((s) => [s.path, s.entries.map((e) => [e.key, e.value])]);
  assert.deepEqual(values(r.text), values(MESSY));
  assert.ok(r.changes.length > 0);
  assert.ok(r.changes.some((c) => c.before === 'CheckHelpers=enabled   ' && c.after === 'CheckHelpers = enabled'));
});

void test('is idempotent and reports nothing for a canonical file', () => {
  assert.deepEqual(formatIni(CANONICAL), { text: CANONICAL, changes: [] });
  assert.equal(formatIni(formatIni(MESSY).text).text, formatIni(MESSY).text);
});

void test('keeps CRLF and a BOM, adds the final line ending, leaves unparsable lines but their trailing blanks', () => {
  assert.equal(
    formatIni('\ufeff[/a]\r\nk=1\r\nnot a line   \r\n[/b]\r\nj = 2').text,
    '\ufeff[/a]\r\nk = 1\r\nnot a line\r\n\r\n[/b]\r\nj = 2\r\n',
  );
  assert.deepEqual(formatIni('[/a]\nk = 1').changes.length, 1);
});

void test('what the minimal-edit writer does to a canonical file stays canonical', () => {
  const edits = [
    [
      { op: 'set', section: '/settings/web/users/ann', key: 'password', value: 'pbkdf2-sha256$1$aa$bb' },
      { op: 'set', section: '/settings/web/users/ann', key: 'role', value: 'viewer' },
    ],
    [{ op: 'set', section: '/settings/WEB/server', key: 'allowed hosts', value: '10.0.0.1' }],
    [{ op: 'set', section: '/modules', key: 'CheckHelpers', value: 'disabled' }],
    [{ op: 'remove-section', section: '/settings/WEB/server' }],
    [{ op: 'remove-section', section: '/settings/log' }],
    [{ op: 'remove-key', section: '/settings/WEB/server', key: 'bind to' }],
    [{ op: 'set', section: '/settings/new', key: 'x', value: ' edge ' }],
  ] as const;
  for (const e of edits) {
    const out = applyEdits(CANONICAL, e);
    assert.equal(formatIni(out).text, out, JSON.stringify(e));
  }
  assert.equal(formatIni(applyEdits('', [{ op: 'set', section: '/a', key: 'k', value: 'v' }])).changes.length, 0);
});
