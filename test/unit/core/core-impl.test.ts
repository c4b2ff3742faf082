import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCore } from '../../../src/core/core-impl.js';
import type { Core } from '../../../src/core/core.js';
import { sink } from '../../../src/log.js';
import { agentModule } from '../../../src/modules/check-helpers/index.js';
import type { RunningModule } from '../../../src/modules/module.js';
import { decode, encode, header } from '../../../src/core/plugin/codec.js';
import { Plugin } from '../../../src/core/plugin/generated/plugin.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../../src/settings/model/module-table.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import { plainMessage } from '../../helpers/plain-message.js';
import { inRange } from '../../../src/in-range.js';

sink.consoleLevel = 'silent';

const loaded = loadSettingsText(
  '[/modules]\nCheckHelpers = enabled\n\n[/settings/log]\nlevel = debug\n',
  '/tmp/x/agent.ini',
);
assert.ok(loaded.ok, 'the test settings are valid');
const snapshot: Snapshot = loaded.snapshot;

let core: Core;
let helpers: RunningModule;
const abort = new AbortController();

before(async () => {
  core = createCore({ settings: () => snapshot });
  helpers = await agentModule.start({
    name: 'CheckHelpers',
    settings: moduleView(MODULE_SECTIONS.CheckHelpers, snapshot),
    log: sink.logger('agent:module:CheckHelpers'),
    signal: abort.signal,
    core,
  });
});

after(async () => {
  abort.abort();
  await helpers.stop();
});

void test('CheckHelpers queries answer through the core', async () => {
  assert.deepEqual(await core.query('check_ok'), { command: 'check_ok', result: 0, message: 'OK: check_ok', perf: [] });
  const warn = await core.query('CHECK_WARNING', ['disk', 'is', 'slow']);
  assert.equal(warn.result, 1);
  assert.equal(warn.message, 'disk is slow');
  assert.deepEqual(warn.arguments, ['disk', 'is', 'slow']);
  assert.equal((await core.query('check_critical')).result, 2);
  const names = core.listQueries().map((q) => q.name);
  for (const n of ['check_critical', 'check_ok', 'check_version', 'check_warning'])
    assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
  assert.deepEqual(names, [...names].sort(), 'listQueries is sorted');
  assert.equal(core.getQuery('Check_OK')?.module, 'CheckHelpers');
});

void test('a query crosses the protobuf boundary: the handler gets a valid QueryRequestMessage', async () => {
  const seen: Plugin.QueryRequestMessage[] = [];
  const off = core.registerQuery({ name: 'raw_probe', module: 'test', title: 't', description: 'd' }, async (bytes) => {
    assert.ok(bytes instanceof Uint8Array);
    const request = decode('QueryRequestMessage', bytes);
    seen.push(request);
    const p = inRange(request.payload, 0);
    return encode('QueryResponseMessage', {
      header: { type: Plugin.Header.Type.QUERY_RESPONSE, version: 1 },
      payload: [
        {
          ...(p.id != null ? { id: p.id } : {}),
          command: p.command,
          result: 1,
          message: `got ${(p.arguments ?? []).join('|')}`,
          perf: [{ alias: 'n', type: 1, int_value: { value: 3, warning: 5 } }],
        },
      ],
    });
  });
  try {
    const r = await core.query('raw_probe', ['a b', 'c']);
    assert.deepEqual(r, {
      command: 'raw_probe',
      result: 1,
      message: 'got a b|c',
      perf: [{ alias: 'n', value: 3, warning: 5 }],
    });
    assert.equal(seen.length, 1);
    const request = inRange(seen, 0);
    assert.equal(request.header.type, Plugin.Header.Type.QUERY_REQUEST);
    assert.equal(request.header.version, Plugin.Version.VERSION_1);
    assert.equal(request.payload.length, 1);
    assert.equal(request.payload[0]?.command, 'raw_probe');
    assert.deepEqual(request.payload[0].arguments, ['a b', 'c']);
  } finally {
    off();
  }
  assert.equal(core.getQuery('raw_probe'), undefined, 'unregistered');
});

void test('an unknown query answers UNKNOWN naming it', async () => {
  assert.deepEqual(await core.query('x'), { command: 'x', result: 3, message: 'Unknown command(s): x', perf: [] });
});

void test('a handler that throws, answers garbage or answers nothing gives UNKNOWN naming the problem', async () => {
  const info = (name: string) => ({ name, module: 'test', title: name, description: name });
  const offs = [
    core.registerQuery(info('q_throws'), async () => {
      throw new Error('boom in handler');
    }),
    core.registerQuery(info('q_garbage'), async () =>
      Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ),
    core.registerQuery(info('q_empty'), async () =>
      encode('QueryResponseMessage', { header: header(Plugin.Header.Type.QUERY_RESPONSE), payload: [] }),
    ),
    core.registerSimpleQuery(info('q_simple_throws'), async () => {
      throw new Error('simple boom');
    }),
  ];
  try {
    const t = await core.query('q_throws');
    assert.equal(t.result, 3);
    assert.equal(t.message, 'query q_throws failed: boom in handler');
    const g = await core.query('q_garbage');
    assert.equal(g.result, 3);
    assert.match(g.message, /^query q_garbage failed: invalid QueryResponseMessage message: /);
    const e = await core.query('q_empty');
    assert.equal(e.result, 3);
    assert.match(e.message, /q_empty failed: the handler answered no payload/);
    const s = await core.query('q_simple_throws');
    assert.equal(s.result, 3);
    assert.equal(s.message, 'q_simple_throws failed: simple boom');
  } finally {
    for (const off of offs) off();
  }
});

void test('queryRaw answers every payload in order with its id, known and unknown mixed', async () => {
  const request = encode('QueryRequestMessage', {
    header: { type: Plugin.Header.Type.QUERY_REQUEST, version: 1, id: 77, sender: 'client', recipient: 'agent' },
    payload: [
      { id: 10, command: 'check_ok' },
      { id: 11, command: 'nope' },
      { id: 12, command: 'check_critical', arguments: ['down'] },
      { id: 13, command: 'check_warning' },
    ],
  });
  const response = decode('QueryResponseMessage', await core.queryRaw(request));
  assert.equal(response.header.type, Plugin.Header.Type.QUERY_RESPONSE);
  assert.equal(Number(response.header.id), 77);
  assert.equal(response.header.sender, 'agent');
  assert.equal(response.header.recipient, 'client');
  assert.deepEqual(
    response.payload.map((p) => [p.id, p.command, p.result, p.message]),
    [
      [10, 'check_ok', 0, 'OK: check_ok'],
      [11, 'nope', 3, 'Unknown command(s): nope'],
      [12, 'check_critical', 2, 'down'],
      [13, 'check_warning', 1, 'WARNING: check_warning'],
    ],
  );
});

void test('queryRaw rejects bytes that are not a QueryRequestMessage with AGENT_ERR_PROTOBUF', async () => {
  await assert.rejects(
    core.queryRaw(Uint8Array.from([1, 2, 3])),
    (err: Error & { code?: string }) => err.code === 'AGENT_ERR_PROTOBUF',
  );
});

void test('exec and execRaw: known, unknown, failing commands; order and ids kept', async () => {
  const info = (name: string) => ({ name, module: 'test', title: name, description: name });
  const offs = [
    core.registerSimpleExec(info('echo'), async (args) => ({ result: 0, message: args.join(',') })),
    core.registerSimpleExec(info('fail'), async () => {
      throw new Error('exec boom');
    }),
    core.registerExec(info('raw_garbage'), async () => Uint8Array.from([0x0a, 0x50])),
  ];
  try {
    assert.deepEqual(await core.exec('echo', ['a', 'b']), { command: 'echo', result: 0, message: 'a,b' });
    assert.deepEqual(await core.exec('missing'), {
      command: 'missing',
      result: 3,
      message: 'Unknown command(s): missing',
    });
    assert.deepEqual(await core.exec('fail'), { command: 'fail', result: 3, message: 'fail failed: exec boom' });
    const g = await core.exec('raw_garbage');
    assert.equal(g.result, 3);
    assert.match(g.message, /^exec raw_garbage failed: invalid ExecuteResponseMessage message: /);
    assert.deepEqual(
      core
        .listExecs()
        .map((e) => e.name)
        .sort(),
      ['echo', 'fail', 'raw_garbage'],
    );

    const request = encode('ExecuteRequestMessage', {
      header: { type: Plugin.Header.Type.EXEC_REQUEST, version: 1, id: 5 },
      payload: [
        { id: 1, command: 'ECHO', arguments: ['x'] },
        { id: 2, command: 'missing' },
        { id: 3, command: 'echo', arguments: ['y'] },
      ],
    });
    const response = decode('ExecuteResponseMessage', await core.execRaw(request));
    assert.equal(response.header.type, Plugin.Header.Type.EXEC_RESPONSE);
    assert.equal(Number(response.header.id), 5);
    assert.deepEqual(
      response.payload.map((p) => [p.id, p.command, p.result, p.message]),
      [
        [1, 'ECHO', 0, 'x'],
        [2, 'missing', 3, 'Unknown command(s): missing'],
        [3, 'echo', 0, 'y'],
      ],
    );
  } finally {
    for (const off of offs) off();
  }
});

void test('submit reaches every subscriber; one that throws does not stop the other', async () => {
  const got: Plugin.SubmitResponseMessage[] = [];
  const offA = core.subscribe('Passive', 'ModA', async () => {
    throw new Error('listener A broke');
  });
  const offB = core.subscribe('passive', 'ModB', async (bytes) => {
    got.push(decode('SubmitResponseMessage', bytes));
  });
  try {
    assert.deepEqual(core.listChannels(), [{ name: 'Passive', modules: ['ModA', 'ModB'] }]);
    const before = sink.entries().length;
    const taken = await core.submit(
      'PASSIVE',
      [{ command: 'svc', result: 2, message: 'CRITICAL: down', perf: [{ alias: 'x', value: 1.5 }] }],
      'host1',
    );
    assert.equal(taken, 1);
    assert.equal(got.length, 1);
    const message = inRange(got, 0);
    assert.equal(message.header.sender, 'host1');
    assert.equal(message.payload[0]?.command, 'svc');
    assert.equal(message.payload[0].result, Plugin.ResultCode.CRITCAL);
    assert.equal(message.payload[0].perf?.[0]?.float_value?.value, 1.5);
    const logged = sink
      .entries()
      .slice(before)
      .map((r) => r.message);
    assert.ok(
      logged.some((m) => m.includes('ModA failed to take a submission: listener A broke')),
      logged.join('\n'),
    );
    assert.equal(await core.submit('nobody-listens', []), 0);
  } finally {
    offA();
    offB();
  }
  assert.equal(await core.submit('passive', []), 0, 'unsubscribed');
  await assert.rejects(
    core.submitRaw('passive', Uint8Array.from([9, 9, 9])),
    (err: Error & { code?: string }) => err.code === 'AGENT_ERR_PROTOBUF',
  );
});

void test('logRaw writes every entry into the log sink with its level, sender and place', () => {
  const before = sink.entries().length;
  const L = Plugin.LogEntry.Entry.Level;
  core.logRaw(
    encode('LogEntry', {
      entry: [
        { level: L.LOG_DEBUG, sender: 'mod:x', message: 'dbg' },
        { level: L.LOG_INFO, sender: 'mod:x', message: 'inf', file: 'a.ts', line: 3 },
        { level: L.LOG_WARNING, sender: 'mod:x', message: 'wrn' },
        { level: L.LOG_ERROR, message: 'err' },
        { level: L.LOG_CRITICAL, sender: 'mod:y', message: 'crit' },
      ],
    }),
  );
  const added = sink
    .entries()
    .slice(before)
    .map((r) => ({ level: r.level, namespace: r.namespace, message: r.message, file: r.file, line: r.line }));
  assert.deepEqual(added, [
    { level: 'debug', namespace: 'mod:x', message: 'dbg', file: undefined, line: undefined },
    { level: 'info', namespace: 'mod:x', message: 'inf', file: 'a.ts', line: 3 },
    { level: 'warning', namespace: 'mod:x', message: 'wrn', file: undefined, line: undefined },
    { level: 'error', namespace: 'agent:module', message: 'err', file: undefined, line: undefined },
    { level: 'critical', namespace: 'mod:y', message: 'crit', file: undefined, line: undefined },
  ]);
  assert.throws(
    () => core.logRaw(Uint8Array.from([8])),
    (err: Error & { code?: string }) => err.code === 'AGENT_ERR_PROTOBUF',
  );
});

void test("settingsRaw answers a value, a section's keys, and titles and descriptions from the schema", () => {
  const path = (p: string, key?: string): Plugin.Settings.$Properties => ({
    node: { path: { path: p, ...(key !== undefined ? { key } : {}) } },
  });
  const request = encode('QuerySettingsRequestMessage', {
    header: { type: Plugin.Header.Type.QUERY_REQUEST, version: 1, id: 9 },
    payload: [
      { id: 1, node: path('/settings/log', 'level') },
      { id: 2, node: path('/settings/log', 'buffer size'), fetch_descriptions: true },
      { id: 3, node: path('/settings/log') },
      { id: 4, node: path('/settings/log'), fetch_descriptions: true },
      { id: 5, node: path('/settings/log', 'no such key'), default: 'fallback' },
      { id: 6, node: path('/modules', 'CheckHelpers') },
    ],
  });
  const response = decode('QuerySettingsResponseMessage', core.settingsRaw(request));
  assert.equal(Number(response.header.id), 9);
  const [value, described, keys, section, fallback, moduleFlag] = response.payload.map(
    (p) => plainMessage(p) as Record<string, unknown>,
  );
  assert.deepEqual(value, { id: 1, node: path('/settings/log', 'level'), value: { type: 1, string_data: 'debug' } });
  assert.deepEqual(described, {
    id: 2,
    node: path('/settings/log', 'buffer size'),
    value: { type: 1, string_data: '5000' },
    title: 'buffer size',
    description:
      'How many log entries the agent keeps in memory for the API; at most 16 Mi characters of them whatever this says, the oldest going first.',
  });
  assert.deepEqual(keys?.keys, { key: ['level', 'buffer size'] });
  assert.equal(keys.title, undefined);
  assert.equal(section?.title, 'LogSection');
  assert.equal(section.description, 'Logging of the agent process.');
  assert.deepEqual(fallback?.value, { type: 1, string_data: 'fallback' });
  // [/modules] values are coerced to booleans in the snapshot.
  assert.deepEqual(moduleFlag?.value, { type: 1, string_data: 'true' });
});

void test('the core gives modules neither the whole settings file nor the control interface (load, unload, edit settings)', () => {
  assert.equal('settings' in core, false);
  assert.equal('control' in core, false);
});

void test('after CheckHelpers stops, its queries are gone', async () => {
  const local = createCore({ settings: () => snapshot });
  const ac = new AbortController();
  const mod = await agentModule.start({
    name: 'CheckHelpers',
    settings: moduleView(MODULE_SECTIONS.CheckHelpers, snapshot),
    log: sink.logger('t'),
    signal: ac.signal,
    core: local,
  });
  assert.equal((await local.query('check_ok')).result, 0);
  ac.abort();
  await mod.stop();
  assert.deepEqual(await local.query('check_ok'), {
    command: 'check_ok',
    result: 3,
    message: 'Unknown command(s): check_ok',
    perf: [],
  });
  assert.deepEqual(local.listQueries(), []);
});
