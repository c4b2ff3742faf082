/**
 * Settings rules for aliases and wrapped scripts, through the real loader:
 * an alias naming a query that does not exist, another alias, a query of a
 * disabled module, or taking a query's name is an error at its line; a
 * wrapped script needs a template for its extension; valid files resolve
 * one-liner and long-form aliases with inheritance from the default object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { inRange } from '../../../src/in-range.js';

const HEAD = `[/modules]
CheckExternalScripts = enabled
CheckHelpers = enabled
CheckSystem = disabled
`;

function problemsOf(text: string): string[] {
  const r = loadSettingsText(text, '/tmp/agent.ini');
  return r.ok ? [] : r.problems.map((p) => `${p.code}@${p.line}:${p.col} ${p.message}`);
}

void test('valid aliases: one-liners and long form, templates and the default object', () => {
  const r = loadSettingsText(
    `${HEAD}
[/settings/external scripts/scripts]
check_foo = foo.sh

[/settings/external scripts/alias]
alias_ok = check_ok "all good"
alias_foo = check_foo $ARG1$

[/settings/external scripts/alias/default]
allow arguments = true

[/settings/external scripts/alias/alias_long]
command = check_warning "warn=load > $ARG1$"

[/settings/external scripts/alias/tpl]
is template = 1
`,
    '/tmp/agent.ini',
  );
  assert.ok(r.ok, JSON.stringify(!r.ok && r.problems));
  const real = [...r.snapshot.aliases.values()]
    .filter((a) => !a.isTemplate)
    .map((a) => a.name)
    .sort();
  assert.deepEqual(real, ['alias_foo', 'alias_long', 'alias_ok']);
  assert.equal(
    r.snapshot.aliases.get('alias_long')?.values['allow arguments'],
    true,
    'inherited from the default object',
  );
  assert.equal(r.snapshot.aliases.get('alias_long')?.values.command, 'check_warning "warn=load > $ARG1$"');
});

void test('an alias naming a query that does not exist is an error at its line, with a suggestion', () => {
  const problems = problemsOf(`${HEAD}
[/settings/external scripts/alias]
alias_ok = check_ok
alias_typo = check_okk warn=1
`);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(
    inRange(problems, 0),
    /^AGENT_ERR_ALIAS_INVALID@8:14 alias "alias_typo" runs check_okk, which is not a query here; did you mean "check_ok"\?/,
  );
});

void test('other alias rules: another alias, a disabled module, a query name, a bad quote, no command', () => {
  const problems = problemsOf(`${HEAD}
[/settings/external scripts/alias]
alias_ok = check_ok
alias_chain = alias_ok
alias_cpu = check_cpu
check_ok = check_warning
alias_quote = check_ok "open

[/settings/external scripts/alias/alias_empty]
parent = default
`);
  const text = problems.join('\n');
  assert.match(text, /@8:\d+ alias "alias_chain" runs alias_ok, which is another alias/);
  assert.match(
    text,
    /@9:\d+ alias "alias_cpu" runs check_cpu, a query of CheckSystem, which is not enabled in \[\/modules\]/,
  );
  assert.match(text, /@10:\d+ alias "check_ok" has the name of a query of CheckHelpers/);
  assert.match(text, /@11:\d+ alias "alias_quote" has a command that does not parse: unclosed "/);
  assert.match(text, /@14:\d+ alias "alias_empty" has no command/);
  assert.equal(problems.length, 5, text);
});

void test('wrapped scripts need a template for their extension; sh and py have defaults', () => {
  const ok = loadSettingsText(
    `${HEAD}
[/settings/external scripts/wrapped scripts]
check_a = a.sh 1
check_b = b.py
check_c = c.pl
[/settings/external scripts/wrappings]
pl = /usr/bin/perl %SCRIPT% %ARGS%
`,
    '/tmp/agent.ini',
  );
  assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.problems));
  assert.equal(ok.snapshot.sections['/settings/external scripts/wrappings']?.sh, '/bin/sh %SCRIPT% %ARGS%');
  const problems = problemsOf(`${HEAD}
[/settings/external scripts/scripts]
check_a = a.sh

[/settings/external scripts/wrapped scripts]
check_rb = thing.rb
check_a = a.sh
noext = thing
`);
  const text = problems.join('\n');
  assert.match(
    text,
    /AGENT_ERR_WRAPPED_SCRIPT_INVALID@10:\d+ wrapped script "check_rb" no wrapping found for extension: rb \(add rb = /,
  );
  assert.match(text, /@11:\d+ wrapped script "check_a" has the name of a script/);
  assert.match(text, /@12:\d+ wrapped script "noext" script thing has no extension/);
});
