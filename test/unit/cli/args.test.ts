import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs as nodeParseArgs } from 'node:util';
import { parseArgs, plainArgs, takeSettingsOption } from '../../../src/cli/args.js';
import { HELP_OPTION, SETTINGS_OPTION, parseArgsOptions, type CliOption } from '../../../src/cli/options.js';
import { AgentError } from '../../../src/errors.js';

const TABLE: readonly CliOption[] = [
  SETTINGS_OPTION,
  { name: 'format', arg: 'FORMAT', help: 'text or json' },
  { name: 'strict', help: 'warnings fail too' },
  { name: 'section', arg: 'PATH', help: 'one section', repeat: true },
  HELP_OPTION,
];

function usage(argv: string[]): string {
  try {
    parseArgs(argv, TABLE);
  } catch (err) {
    assert.ok(err instanceof AgentError && err.code === 'AGENT_ERR_USAGE', `a usage error: ${String(err)}`);
    return err.message;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
}

void test('parseArgs: values, flags, repeats and positionals in any order', () => {
  const r = parseArgs(
    ['a.ini', '--format', 'json', '--strict', '--section=/a', 'b.ini', '--section', '/b', '--', '--not-an-option'],
    TABLE,
  );
  assert.deepEqual(r.options, { format: 'json', strict: true, section: ['/a', '/b'] });
  assert.deepEqual(r.positionals, ['a.ini', 'b.ini', '--not-an-option']);
  assert.deepEqual(parseArgs(['--format=-x', '-'], TABLE), { options: { format: '-x' }, positionals: ['-'] });
});

void test('parseArgs: unknown, missing and superfluous values are usage errors in our words', () => {
  assert.match(usage(['--formt', 'json']), /^unknown option --formt; did you mean "format"\?$/);
  assert.match(usage(['--bogus']), /^unknown option --bogus$/);
  assert.match(usage(['-x']), /^unknown option -x$/);
  assert.match(usage(['--constructor']), /^unknown option --constructor/);
  assert.match(usage(['--format']), /^option --format needs a value$/);
  assert.match(
    usage(['--format', '--strict']),
    /^option --format needs a value \(for a value that starts with a dash write --format=--strict\)$/,
  );
  assert.match(usage(['--strict=yes']), /^option --strict takes no value$/);
  // The first problem is the one reported.
  assert.match(usage(['--strict=1', '--bogus']), /^option --strict takes no value$/);
});

void test('takeSettingsOption: --settings anywhere, the other words as they stand', () => {
  assert.deepEqual(takeSettingsOption(['remote_query', '-H', 'h', '--settings', 'x.ini', '-a', '1', '--', 'y']), {
    settings: 'x.ini',
    rest: ['remote_query', '-H', 'h', '-a', '1', '--', 'y'],
  });
  assert.deepEqual(takeSettingsOption(['--settings=a.ini', 'check_ok', 'warn=1']), {
    settings: 'a.ini',
    rest: ['check_ok', 'warn=1'],
  });
  assert.deepEqual(takeSettingsOption(['check_ok', '--settings']), {
    settings: undefined,
    rest: ['check_ok', '--settings'],
  });
});

void test('plainArgs reads what it takes exactly as util.parseArgs does, and leaves the rest to it', () => {
  const words = ['a.ini', '-', '--', '--format', '--format=', '--format=json', 'json', '--strict', '--strict=1'];
  const more = ['--section', '/a', '--section=/b', '-x', '--bogus', '--help', '--constructor', '--=x', '-5', ''];
  const pool = [...words, ...more];
  // Every argument list of up to three words from the pool, and a few longer ones.
  const lists: string[][] = [[]];
  for (const a of pool) {
    lists.push([a]);
    for (const b of pool) {
      lists.push([a, b]);
      for (const c of ['json', '--strict', '--', '-']) lists.push([a, b, c]);
    }
  }
  lists.push(
    ['run', '--settings', 'agent.ini'],
    ['--settings=/etc/a.ini', 'run', '--help', '--section', 'x', '--section', 'y'],
  );
  let taken = 0;
  for (const argv of lists) {
    const plain = plainArgs(argv, TABLE);
    if (plain === undefined) continue;
    taken++;
    const node = nodeParseArgs({ args: argv, options: parseArgsOptions(TABLE), strict: true, allowPositionals: true });
    assert.deepEqual(plain, { options: { ...node.values }, positionals: node.positionals }, argv.join(' '));
  }
  assert.ok(taken > 500, `plainArgs took ${taken} of ${lists.length} lists`);
  for (const argv of [['-x'], ['--bogus'], ['--format'], ['--format', '-'], ['--strict=1'], ['--constructor']])
    assert.equal(plainArgs(argv, TABLE), undefined, argv.join(' '));
});
