import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientHelp } from '../../../src/protocols/client-help.js';
import { queryKindOf } from '../../../src/protocols/client-option-table.js';
import { parseClientOptions } from '../../../src/protocols/client-options.js';
import { mergeTarget, splitAddress } from '../../../src/protocols/target-options.js';
import type { ResolvedObject } from '../../../src/settings/model/snapshot.js';

void test('the option forms: --name=value, --name value, name=value, short aliases, flags', () => {
  const r = parseClientOptions(
    ['--host=h1', '--port', '15666', 'timeout=3', '-c', 'check_x', '--no-ssl', 'retry=0'],
    'query',
    'remote',
  );
  assert.ok(r.ok);
  assert.equal(r.options.host, 'h1');
  assert.equal(r.options.port, 15666);
  assert.equal(r.options.timeout, 3);
  assert.equal(r.options.command, 'check_x');
  assert.equal(r.options.ssl, false);
  assert.equal(r.options.retry, 0);
});

void test('arguments collect: repeated, and everything until the next --option', () => {
  const r = parseClientOptions(
    ['--arguments', '-w', '80', 'x=1', '--host', 'h', '-a', 'y', '--argument=z', 'q'],
    'query',
    'remote',
  );
  assert.ok(r.ok);
  assert.deepEqual(r.options.arguments, ['-w', '80', 'x=1', 'y', 'z', 'q']);
  assert.equal(r.options.host, 'h');
});

void test('submit options and forward positionals', () => {
  const s = parseClientOptions(['--alias', 'disk', '--result', 'WARN', '--message', 'low|x=1'], 'submit', 'remote');
  assert.ok(s.ok);
  assert.deepEqual([s.options.command, s.options.result, s.options.message], ['disk', 1, 'low|x=1']);
  const f = parseClientOptions(['--host', 'h', 'check_cpu', 'warn=80'], 'forward', 'remote');
  assert.ok(f.ok);
  assert.deepEqual(f.options.positional, ['check_cpu', 'warn=80']);
});

void test('bad options are problems naming them, never exceptions', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--port', 'abc'], /--port: "abc" is not a whole number/],
    [['--port', '70000'], /not a port number/],
    [['--bogus'], /unknown option "--bogus"/],
    [['--host'], /--host needs a value/],
    [['--ssl=maybe'], /takes true or false/],
    [['--version', '5'], /not 2, 3, 4 or auto/],
  ];
  for (const [args, re] of cases) {
    const r = parseClientOptions(args, 'query', 'remote');
    assert.equal(r.ok, false);
    assert.match((r as { problem: string }).problem, re);
  }
  const s = parseClientOptions(['--result', 'MAYBE'], 'submit', 'remote');
  assert.equal(s.ok, false);
  assert.equal(parseClientOptions(['--payload-length', '2048'], 'query', 'agent').ok, false);
});

void test('help texts come from the option table in three forms', () => {
  assert.match(
    clientHelp('remote_query', 'query', 'remote', 'full'),
    /--payload-length, -P, -l <number>\s+payload length/,
  );
  assert.match(clientHelp('remote_query', 'query', 'remote', 'csv'), /^option,aliases,takes,description\n/);
  assert.doesNotMatch(clientHelp('agent_query', 'query', 'agent', 'short'), /payload-length/);
  const h = parseClientOptions(['--help-csv'], 'exec', 'remote');
  assert.ok(h.ok && h.options.help === 'csv');
});

void test('query kinds follow the NSClient++ naming', () => {
  assert.deepEqual(
    ['remote_query', 'remote_exec', 'remote_submit', 'remote_forward', 'check_nrpe', 'other'].map(queryKindOf),
    ['query', 'exec', 'submit', 'forward', 'query', undefined],
  );
});

const target = (values: Record<string, unknown>, set: string[] = []): ResolvedObject => ({
  name: 't',
  path: '/settings/remote/client/targets/t',
  isTemplate: false,
  values,
  origins: Object.fromEntries(set.map((k) => [k, { file: 'f', line: 1, col: 1, section: 's', key: k }])),
  chain: ['t'],
});
const source = (t: ResolvedObject) => ({
  targets: new Map([
    ['t', t],
    ['default', target({ 'use ssl': true, timeout: 10 })],
  ]),
  container: '/settings/remote/client/targets',
  defaultPort: 5666,
});

void test('target merge: explicit options win, address host:port, port 0 means 5666, the target timeout (schema default 10)', () => {
  const t = target({
    address: 'mon:15666',
    timeout: 10,
    'use ssl': true,
    'payload length': 2048,
    'allowed ciphers': 'ADH',
  });
  const a = mergeTarget(source(t), { target: 't', arguments: [], positional: [] });
  assert.ok(a.ok);
  assert.deepEqual(
    [a.settings.host, a.settings.port, a.settings.timeout, a.settings.retry, a.settings.payloadLength],
    ['mon', 15666, 10, 2, 2048],
  );
  const b = mergeTarget(source(target({ host: 'h', port: 0, timeout: 7 }, ['timeout'])), {
    target: 't',
    port: 1234,
    ssl: false,
    arguments: [],
    positional: [],
  });
  assert.ok(b.ok);
  assert.deepEqual([b.settings.host, b.settings.port, b.settings.timeout, b.settings.ssl], ['h', 1234, 7, false]);
  const c = mergeTarget(source(t), { target: 't', address: '[::1]:99', arguments: [], positional: [] });
  assert.ok(c.ok && c.settings.host === '::1' && c.settings.port === 99);
  const d = mergeTarget(source(t), { host: 'x', arguments: [], positional: [] });
  assert.ok(d.ok && d.settings.port === 5666 && d.settings.target === 'default');
  assert.match(
    (mergeTarget(source(t), { target: 'nope', arguments: [], positional: [] }) as { problem: string }).problem,
    /target "nope" is not defined/,
  );
  assert.match(
    (mergeTarget(source(t), { arguments: [], positional: [] }) as { problem: string }).problem,
    /no host to connect to/,
  );
});

void test('splitAddress', () => {
  assert.deepEqual(splitAddress('h:1'), { host: 'h', port: 1 });
  assert.deepEqual(splitAddress('fe80::1'), { host: 'fe80::1', port: 0 });
  assert.deepEqual(splitAddress('[fe80::1]'), { host: 'fe80::1', port: 0 });
  assert.deepEqual(splitAddress('10.0.0.1'), { host: '10.0.0.1', port: 0 });
});
