import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseIni, type IniDocument, type IniSection } from '../../../src/settings/ini/read-ini.js';
import { inRange } from '../../../src/in-range.js';

/** Compiled to dist/test/unit/settings/: the fixtures stay in the source tree. */
const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/settings/', import.meta.url));

function fixture(name: string): IniDocument {
  const file = FIXTURES + name;
  return parseIni(readFileSync(file, 'utf8'), file);
}

function section(doc: IniDocument, path: string): IniSection {
  const found = doc.sections.find((s) => s.path === path);
  assert.ok(found, `section ${path} in ${doc.sections.map((s) => s.path).join(', ')}`);
  return found;
}

void describe('parseIni', () => {
  void it('reads keys with spaces, trimming blanks and tabs around key and value', () => {
    const doc = fixture('keys-with-spaces.ini');
    assert.deepEqual(doc.problems, []);
    assert.equal(doc.file, FIXTURES + 'keys-with-spaces.ini');
    assert.deepEqual(doc.sections, [
      {
        path: '/settings/default',
        line: 1,
        col: 2,
        entries: [
          { key: 'allowed hosts', value: '127.0.0.1, ::1', line: 2, keyCol: 1, valueCol: 17 },
          { key: 'cache allowed hosts', value: 'true', line: 3, keyCol: 2, valueCol: 24 },
        ],
      },
    ]);
  });

  void it('keeps a section name with dots as one section', () => {
    const doc = fixture('dotted-section.ini');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(
      doc.sections.map((s) => [s.path, s.line, s.col, s.entries.map((e) => [e.key, e.value])]),
      [
        ['/settings/remote/client/targets/web.example.com', 1, 2, [['address', 'web.example.com:5666']]],
        ['/settings/remote/client/targets/db.internal.lan', 3, 3, [['address', '10.0.0.7']]],
      ],
    );
  });

  void it('keeps ; # = and spaces inside values and strips one pair of surrounding quotes', () => {
    const doc = fixture('special-values.ini');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(section(doc, '/settings/remote/server').entries, [
      { key: 'password', value: 'ab;cd#ef=gh', line: 2, keyCol: 1, valueCol: 12 },
      { key: 'allowed ciphers', value: 'ALL:!ADH:!LOW ; not a comment', line: 3, keyCol: 1, valueCol: 19 },
      { key: 'spaced', value: '  two spaces  ', line: 4, keyCol: 1, valueCol: 11 },
      { key: 'command', value: 'check_disk -w 10% -c 5% # keep', line: 5, keyCol: 1, valueCol: 11 },
      { key: 'quoted empty', value: '', line: 6, keyCol: 1, valueCol: 17 },
      { key: 'inner quotes', value: 'say "hi" there', line: 7, keyCol: 1, valueCol: 16 },
      { key: 'lone quote', value: '"', line: 8, keyCol: 1, valueCol: 14 },
    ]);
  });

  void it('reads empty values with the column just after "="', () => {
    const doc = fixture('empty-values.ini');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(section(doc, '/settings/default').entries, [
      { key: 'password', value: '', line: 2, keyCol: 1, valueCol: 11 },
      { key: 'allowed hosts', value: '', line: 3, keyCol: 1, valueCol: 16 },
      { key: 'timeout', value: '', line: 4, keyCol: 1, valueCol: 9 },
    ]);
  });

  void it('merges a duplicate section (case-insensitively) into the first and reports both lines', () => {
    const doc = fixture('duplicate-section.ini');
    assert.equal(doc.sections.length, 1);
    const users = section(doc, '/settings/web/users/admin');
    assert.equal(users.line, 1);
    assert.deepEqual(users.entries, [
      { key: 'password', value: 'two', line: 6, keyCol: 1, valueCol: 12 },
      { key: 'role', value: 'full', line: 3, keyCol: 1, valueCol: 8 },
      { key: 'comment', value: 'second block', line: 7, keyCol: 1, valueCol: 11 },
    ]);
    assert.deepEqual(doc.problems, [
      {
        code: 'AGENT_ERR_INI_DUPLICATE_SECTION',
        message: 'section [/settings/WEB/users/admin] appears twice (first at line 1)',
        line: 5,
        col: 2,
        section: '/settings/WEB/users/admin',
        firstLine: 1,
      },
      {
        code: 'AGENT_ERR_INI_DUPLICATE_KEY',
        message: 'key "password" appears twice in [/settings/web/users/admin] (first at line 2)',
        line: 6,
        col: 1,
        section: '/settings/web/users/admin',
        key: 'password',
        firstLine: 2,
      },
    ]);
  });

  void it('reports a duplicate key (case-insensitively) and keeps the last value in the first position', () => {
    const doc = fixture('duplicate-key.ini');
    assert.deepEqual(section(doc, '/modules').entries, [
      { key: 'webserver', value: 'disabled', line: 4, keyCol: 1, valueCol: 13 },
      { key: 'RemoteClient', value: 'enabled', line: 3, keyCol: 1, valueCol: 16 },
    ]);
    assert.deepEqual(doc.problems, [
      {
        code: 'AGENT_ERR_INI_DUPLICATE_KEY',
        message: 'key "webserver" appears twice in [/modules] (first at line 2)',
        line: 4,
        col: 1,
        section: '/modules',
        key: 'webserver',
        firstLine: 2,
      },
    ]);
  });

  void it('reads CRLF files without carriage returns in values or messages', () => {
    const raw = readFileSync(FIXTURES + 'crlf.ini', 'utf8');
    assert.ok(raw.includes('\r\n'), 'the fixture keeps its CRLF bytes');
    const doc = fixture('crlf.ini');
    assert.deepEqual(
      doc.sections.map((s) => [s.path, s.line, s.entries]),
      [
        ['/modules', 1, [{ key: 'WEBServer', value: 'enabled', line: 2, keyCol: 1, valueCol: 13 }]],
        ['/settings/web/server', 5, [{ key: 'port', value: '8443', line: 6, keyCol: 1, valueCol: 8 }]],
      ],
    );
    assert.equal(doc.problems.length, 1);
    assert.equal(inRange(doc.problems, 0).code, 'AGENT_ERR_INI_SYNTAX');
    assert.equal(inRange(doc.problems, 0).line, 7);
    assert.equal(inRange(doc.problems, 0).message.includes('\r'), false);
    assert.match(
      inRange(doc.problems, 0).message,
      /^cannot parse line: \(content not shown: it may hold a secret\) \(/,
    );
  });

  void it('skips a UTF-8 BOM without counting it in columns', () => {
    const raw = readFileSync(FIXTURES + 'bom.ini');
    assert.deepEqual([...raw.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const doc = fixture('bom.ini');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(doc.sections, [
      {
        path: '/settings/default',
        line: 1,
        col: 2,
        entries: [{ key: 'password', value: 'secret', line: 2, keyCol: 1, valueCol: 12 }],
      },
    ]);
  });

  void it('reports every syntax error at its line and column and drops keys after a broken header', () => {
    const doc = fixture('syntax-error.ini');
    assert.deepEqual(
      doc.problems.map((p) => [p.code, p.line, p.col, p.message]),
      [
        [
          'AGENT_ERR_INI_SYNTAX',
          3,
          1,
          'cannot parse line: (content not shown: it may hold a secret) (expected [section], key = value, or a comment starting with ; or #)',
        ],
        ['AGENT_ERR_INI_SYNTAX', 4, 1, 'cannot parse line: "[/settings/broken" (missing "]")'],
        [
          'AGENT_ERR_INI_SYNTAX',
          5,
          1,
          'cannot parse line: (content not shown: it may hold a secret) (missing key before "=")',
        ],
        ['AGENT_ERR_INI_SYNTAX', 6, 3, 'cannot parse line: "[/settings/trailing] junk" (text after "]")'],
        ['AGENT_ERR_INI_SYNTAX', 7, 1, 'cannot parse line: "[]" (empty section name)'],
      ],
    );
    assert.deepEqual(doc.sections, [
      {
        path: '/settings/default',
        line: 1,
        col: 2,
        entries: [{ key: 'password', value: 'ok', line: 2, keyCol: 1, valueCol: 12 }],
      },
    ]);
  });

  void it('reports a key before any section and keeps reading', () => {
    const doc = fixture('key-outside-section.ini');
    assert.deepEqual(doc.problems, [
      {
        code: 'AGENT_ERR_INI_KEY_OUTSIDE_SECTION',
        message: 'a key appears before any [section] (not shown: a file that is not INI may hold a secret there)',
        line: 2,
        col: 1,
      },
    ]);
    assert.deepEqual(doc.sections, [
      {
        path: '/settings/default',
        line: 4,
        col: 2,
        entries: [{ key: 'password', value: 'late', line: 5, keyCol: 1, valueCol: 12 }],
      },
    ]);
  });

  void it('ignores ; and # comment lines, indented or not, and blank lines', () => {
    const doc = fixture('comments.ini');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(
      doc.sections.map((s) => [s.path, s.line, s.entries.map((e) => [e.key, e.value, e.line, e.keyCol])]),
      [
        [
          '/modules',
          4,
          [
            ['WEBServer', 'enabled', 6, 1],
            ['RemoteClient', 'disabled', 8, 1],
          ],
        ],
        [
          '/settings/remote/client/targets/web.example.com',
          11,
          [
            ['address', 'web.example.com:5666', 12, 1],
            ['use ssl', 'true', 14, 1],
            ['verify mode', 'peer-cert', 15, 5],
          ],
        ],
        [
          '/settings/default',
          18,
          [
            ['password', 's3cret;#', 19, 1],
            ['allowed hosts', '127.0.0.1', 20, 1],
          ],
        ],
      ],
    );
  });

  void it('handles empty text, a missing final newline and a value with "=" in it', () => {
    assert.deepEqual(parseIni('', 'empty.ini'), { file: 'empty.ini', sections: [], problems: [] });
    assert.deepEqual(parseIni('\ufeff', 'bom-only.ini').sections, []);
    const doc = parseIni('[/a]\r\nk = x=y', 'x.ini');
    assert.deepEqual(doc.sections, [
      { path: '/a', line: 1, col: 2, entries: [{ key: 'k', value: 'x=y', line: 2, keyCol: 1, valueCol: 5 }] },
    ]);
  });
});
