/**
 * Query aliases against a real core: words split at blanks with double
 * quotes grouping (single quotes and backslashes kept), $ARGn$ / %ARGn% /
 * $ARGS$ filled from the caller's arguments, allow arguments and allow nasty
 * characters enforced before the target runs, the alias's name on the result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCore } from '../../../../src/core/core-impl.js';
import type { Snapshot } from '../../../../src/settings/model/snapshot.js';
import { runAlias } from '../../../../src/checks/scripts/alias.js';
import { parseAlias, splitAliasCommand } from '../../../../src/formats/alias-command.js';

void test('splitAliasCommand: double quotes group, nothing else is special', () => {
  assert.deepEqual(splitAliasCommand(`check_cpu "warn=load > $ARG1$"  crit=load>90 time=5m`), [
    'check_cpu',
    'warn=load > $ARG1$',
    'crit=load>90',
    'time=5m',
  ]);
  assert.deepEqual(splitAliasCommand(`check_process "crit=state != 'started'" drive=C:\\ x""y`), [
    'check_process',
    "crit=state != 'started'",
    'drive=C:\\',
    'xy',
  ]);
  assert.throws(() => splitAliasCommand('check_ok "open'), /unclosed "/);
});

function coreWithEcho() {
  const core = createCore({ settings: () => ({}) as Snapshot });
  const seen: string[][] = [];
  core.registerSimpleQuery({ name: 'check_echo', module: 'Test', title: 'echo', description: 'echo' }, async (args) => {
    seen.push(args);
    return { result: 1, message: `got ${args.join('|')}`, perf: [{ alias: 'n', value: args.length }] };
  });
  return { core, seen };
}

void test('arguments fill $ARGn$, %ARGn% and $ARGS$; the result carries the alias name', async () => {
  const { core, seen } = coreWithEcho();
  const q = (c: string, w: readonly string[], o: { signal: AbortSignal }) => core.query(c, w, o);
  const signal = new AbortController().signal;
  const alias = parseAlias('alias_x', 'check_echo "warn=load > $ARG1$" crit=%ARG2% $ARGS$ $ARG9$', {
    allowArguments: true,
    allowNasty: false,
  });
  const r = await runAlias(alias, ['80', '90'], q, signal);
  assert.deepEqual(seen.at(-1), ['warn=load > 80', 'crit=90', '80', '90']);
  assert.equal(r.command, 'alias_x');
  assert.equal(r.result, 1);
  assert.equal(r.message, 'got warn=load > 80|crit=90|80|90');
  assert.equal(r.perf[0]?.value, 4);
  const none = await runAlias(
    parseAlias('alias_y', 'check_echo fixed', { allowArguments: false, allowNasty: false }),
    [],
    q,
    signal,
  );
  assert.equal(none.message, 'got fixed');
});

void test('arguments refused when not allowed, nasty characters refused unless allowed; the target does not run', async () => {
  const { core, seen } = coreWithEcho();
  const q = (c: string, w: readonly string[], o: { signal: AbortSignal }) => core.query(c, w, o);
  const signal = new AbortController().signal;
  const strict = parseAlias('alias_s', 'check_echo $ARG1$', { allowArguments: false, allowNasty: false });
  const refused = await runAlias(strict, ['1'], q, signal);
  assert.equal(refused.result, 3);
  assert.match(refused.message, /^alias_s: Arguments not allowed/);
  const loose = parseAlias('alias_l', 'check_echo $ARG1$', { allowArguments: true, allowNasty: false });
  const nasty = await runAlias(loose, ['a;rm -rf /'], q, signal);
  assert.equal(nasty.result, 3);
  assert.match(nasty.message, /refused character ";"/);
  assert.equal(seen.length, 0);
  const allowed = await runAlias(
    parseAlias('alias_n', 'check_echo $ARG1$', { allowArguments: true, allowNasty: true }),
    ['a;b'],
    q,
    signal,
  );
  assert.equal(allowed.message, 'got a;b');
});
