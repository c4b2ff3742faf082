/**
 * `--help` of every command lists every option its parser accepts: for each
 * command main.ts dispatches (src/cli/commands.ts), the options come from
 * the table the parser is built from, and the help is read from the CLI
 * run as a process; NSClient++'s bare forms help, help-short and help-csv
 * answer wherever --help does. The client queries (remote_*, agent_*) take
 * NSClient++'s client options (protocols/client-options.ts), checked the
 * same way against `config-agent client <query> --help`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../src/cli/commands.js';
import { optionsFor, queryKindOf, type ClientProtocol } from '../../src/protocols/client-option-table.js';
import { REMOTE_QUERIES } from '../../src/modules/remote-client/remote-query.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { inRange } from '../../src/in-range.js';

/** Runs the jobs two at a time (a 2-core machine shared with others), in order of the results. */
async function pooled<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results = new Array<T>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await inRange(jobs, i)();
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

void test('every command is dispatched from the table, and its --help lists every option its parser accepts', async () => {
  const words = COMMANDS.map((c) => c.words.join(' '));
  for (const expected of [
    'run',
    'query',
    'client',
    'settings validate',
    'settings show',
    'settings schema',
    'settings plan',
    'settings import',
    'settings fmt',
    'web install',
    'web password',
    'web add-user',
    'web add-role',
  ]) {
    assert.ok(words.includes(expected), `${expected} in src/cli/commands.ts`);
  }
  const tables = await Promise.all(
    COMMANDS.map(async (c) => ({ words: [...c.words], options: (await c.load()).options })),
  );
  const helps = await pooled(tables.map((t) => () => runAgentCli([...t.words, '--help'])));
  tables.forEach((t, i) => {
    const help = inRange(helps, i);
    const name = t.words.join(' ');
    assert.equal(help.code, 0, `${name} --help: ${help.stderr}`);
    assert.ok(
      t.options.some((o) => o.name === 'help'),
      `${name} accepts --help`,
    );
    for (const o of t.options) {
      // Listed with its argument and its description, as the options block prints it.
      const line = help.stdout.split('\n').find((l) => new RegExp(`^\\s+--${o.name}(\\s|$)`).test(l));
      assert.ok(line, `${name} --help lists --${o.name}:\n${help.stdout}`);
      if (o.arg) assert.ok(line.includes(`--${o.name} ${o.arg}`), `${name}: --${o.name} ${o.arg} in "${line}"`);
      assert.ok(line.includes(o.help), `${name}: the description of --${o.name} in "${line}"`);
    }
  });
});

void test('help, help-short and help-csv answer wherever --help does, with every option in help-csv', async () => {
  const tables = await Promise.all(
    COMMANDS.map(async (c) => ({ words: [...c.words], options: (await c.load()).options })),
  );
  const runs = await pooled(
    tables.flatMap((t) => [
      () => runAgentCli([...t.words, '--help']),
      () => runAgentCli([...t.words, 'help']),
      () => runAgentCli([...t.words, 'help-short']),
      () => runAgentCli([...t.words, 'help-csv']),
    ]),
  );
  tables.forEach((t, i) => {
    const [full, bare, short, csv] = runs.slice(i * 4, i * 4 + 4);
    const name = t.words.join(' ');
    for (const [form, r] of [
      ['help', bare],
      ['help-short', short],
      ['help-csv', csv],
    ] as const)
      assert.equal(r?.code, full?.code, `${name} ${form}: ${r?.stderr}`);
    assert.equal(bare?.stdout, full?.stdout, `${name} help`);
    assert.equal(short?.stdout.trim(), full?.stdout.split('\n')[0], `${name} help-short`);
    const rows = (csv?.stdout ?? '').trim().split('\n');
    assert.equal(rows[0], 'option,argument,description', name);
    // RFC 4180 cells: quoted when they hold a comma or a quote.
    const cell = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    for (const o of t.options)
      assert.ok(
        rows.some((r) => r.startsWith(`--${o.name},${cell(o.arg ?? '')},`)),
        `${name} help-csv: --${o.name}\n${csv?.stdout}`,
      );
  });
});

void test('every client query lists its client options in --help, help-csv and help-short, and bare help works', async () => {
  const queries: [string, ClientProtocol][] = [
    ...REMOTE_QUERIES.map((q) => [q.name, 'remote'] as [string, ClientProtocol]),
    ...['agent_query', 'agent_exec', 'agent_submit'].map((n) => [n, 'agent'] as [string, ClientProtocol]),
  ];
  const runs = await pooled(
    queries.flatMap(([q]) => [
      () => runAgentCli(['client', q, '--help']),
      () => runAgentCli(['client', q, 'help']),
      () => runAgentCli(['client', q, 'help-csv']),
      () => runAgentCli(['client', q, '--help-short']),
    ]),
  );
  queries.forEach(([q, protocol], i) => {
    const [full, bare, csv, short] = runs.slice(i * 4, i * 4 + 4);
    assert.equal(full?.code, 0, `${q} --help: ${full?.stdout}${full?.stderr}`);
    assert.equal(bare?.stdout, full.stdout, `${q} help`);
    const kind = queryKindOf(q);
    assert.ok(kind, q);
    for (const o of optionsFor(kind, protocol)) {
      for (const alias of [o.name, ...(o.aliases ?? [])]) {
        const spelled = alias.length === 1 ? `-${alias}` : `--${alias}`;
        assert.ok(new RegExp(`(^|[\\s,])${spelled}([\\s,<]|$)`, 'm').test(full.stdout), `${q} --help lists ${spelled}`);
      }
      assert.match(csv?.stdout ?? '', new RegExp(`^${o.name},`, 'm'), `${q} help-csv: ${o.name}`);
      assert.match(short?.stdout ?? '', new RegExp(`--${o.name}( |$)`, 'm'), `${q} --help-short: ${o.name}`);
    }
  });
});
