/**
 * A path variable expanded in a command line stays one word: the loader
 * quotes `${scripts}` and the other variables in values whose schema says
 * `x-command-line`, by that line's grammar, so the splitter used at run
 * time reads back the path as it is, whatever its blanks, quotes,
 * backslashes or non-ASCII characters, outside quotes, inside double
 * quotes and inside single quotes (an alias command, whose grammar knows
 * only double quotes, cannot hold a double quote). Other values are not quoted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { quoteInCommandLine, splitCommandLine } from '../../../src/formats/script-command-line.js';
import { quoteInAliasCommand, splitAliasCommand } from '../../../src/formats/alias-command.js';
import { defined } from '../../helpers/defined.js';

const BASE = `/tmp/x/in'st "ü" 監\\視`;
const SCRIPTS = `${BASE}/scripts`;

void test('quoteInCommandLine: the splitter reads the text back in every quoting context', () => {
  const text = `a b'c"d\\e ü`;
  for (const [before, after] of [
    ['', ''],
    ['x"', '"'],
    ["x'", "'"],
    ['pre/', '/post'],
  ] as const) {
    const line = `prog ${before}${quoteInCommandLine(text, `prog ${before}`)}${after} tail`;
    assert.deepEqual(
      splitCommandLine(line),
      ['prog', `${before.replace(/['"]/, '')}${text}${after.replace(/['"]/, '')}`, 'tail'],
      line,
    );
  }
});

void test('quoteInAliasCommand: blanks outside double quotes are grouped, inside left alone', () => {
  assert.deepEqual(splitAliasCommand(`check_files path=${quoteInAliasCommand('/a b/c', 'check_files path=')} x`), [
    'check_files',
    'path=/a b/c',
    'x',
  ]);
  assert.deepEqual(splitAliasCommand(`check_files "path=${quoteInAliasCommand('/a b/c', 'check_files "path=')}" x`), [
    'check_files',
    'path=/a b/c',
    'x',
  ]);
});

void test('settings from a folder with blanks and quotes: ${scripts} in script lines, wrappings stays one word', () => {
  const ini = `[/modules]
CheckExternalScripts = enabled
CheckDisk = enabled

[/settings/external scripts/scripts]
abs = \${scripts}/hello.sh
args = \${scripts}/hello.sh "in \${scripts}" 'and \${scripts}' $ARG1$

[/settings/external scripts/wrappings]
sh = /bin/sh \${scripts}/wrap.sh %SCRIPT% %ARGS%

[/settings/logfile]
allowed paths = \${scripts}
`;
  const loaded = loadSettingsText(ini, `${BASE}/agent.ini`);
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems));
  const s = loaded.snapshot;
  const scripts = s.sections['/settings/external scripts/scripts'] as Record<string, string>;
  assert.deepEqual(splitCommandLine(defined(scripts.abs)), [`${SCRIPTS}/hello.sh`]);
  assert.deepEqual(splitCommandLine(defined(scripts.args)), [
    `${SCRIPTS}/hello.sh`,
    `in ${SCRIPTS}`,
    `and ${SCRIPTS}`,
    '$ARG1$',
  ]);
  const wrappings = s.sections['/settings/external scripts/wrappings'] as Record<string, string>;
  assert.deepEqual(splitCommandLine(defined(wrappings.sh)), ['/bin/sh', `${SCRIPTS}/wrap.sh`, '%SCRIPT%', '%ARGS%']);
  // Not a command line: the path as it is.
  assert.equal((s.sections['/settings/logfile'] as Record<string, string>)['allowed paths'], SCRIPTS);
});

void test('an alias command from a folder with blanks: ${scripts} stays one word (its grammar has no way to write a double quote)', () => {
  const base = '/tmp/x/inst ü 監視';
  const ini = `[/modules]
CheckExternalScripts = enabled
CheckDisk = enabled

[/settings/external scripts/alias]
alias_files = check_files path=\${scripts} "pattern=*.sh in \${scripts}"
`;
  const loaded = loadSettingsText(ini, `${base}/agent.ini`);
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems));
  const alias = loaded.snapshot.aliases.get('alias_files');
  assert.ok(alias);
  assert.deepEqual(splitAliasCommand(String(alias.values.command)), [
    'check_files',
    `path=${base}/scripts`,
    `pattern=*.sh in ${base}/scripts`,
  ]);
});
