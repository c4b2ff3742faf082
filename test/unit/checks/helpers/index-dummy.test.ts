import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDummy } from '../../../../src/checks/helpers/dummy-check.js';
import { indexCheck } from '../../../../src/checks/helpers/index-check.js';
import { runCheck } from '../../../../src/checks/engine.js';

void test('check_dummy answers the given state and text', () => {
  assert.deepEqual(checkDummy([]), { result: 0, message: 'Dummy Check', perf: [] });
  assert.deepEqual(checkDummy(['2', 'disk', 'on', 'fire']), { result: 2, message: 'disk on fire', perf: [] });
  assert.deepEqual(checkDummy(['warning']), { result: 1, message: 'Dummy Check', perf: [] });
  assert.deepEqual(checkDummy(['1', "x|'a'=1"]), { result: 1, message: "x|'a'=1", perf: [] });
  assert.equal(checkDummy(['7']).result, 3);
  assert.equal(
    checkDummy(['7']).message,
    "check_dummy: cannot read the state '7' (use 0-3, OK, WARNING, CRITICAL or UNKNOWN)",
  );
  assert.match(checkDummy(['help']).message, /STATE .*\n.*TEXT/);
});

void test('check_index lists queries sorted, one a line, and filters by module', async () => {
  const list = [
    { name: 'check_tcp', module: 'CheckNet', title: 'TCP', description: 'tcp' },
    { name: 'check_cpu', module: 'CheckSystem', title: 'CPU', description: 'cpu' },
    { name: 'check_dns', module: 'CheckNet', title: 'DNS', description: 'dns' },
  ];
  const def = indexCheck(() => list);
  assert.deepEqual(await runCheck(def, ["filter=enabled = 'enabled'"]), {
    command: 'check_index',
    result: 0,
    message: 'check_cpu (CheckSystem, enabled)\ncheck_dns (CheckNet, enabled)\ncheck_tcp (CheckNet, enabled)',
    perf: [],
  });
  // The queries of modules that are not running are listed too, as disabled.
  assert.match((await runCheck(def, [])).message, /^check_drivesize \(CheckDisk, disabled\)$/m);
  const net = await runCheck(def, [
    "filter=module = 'CheckNet' and enabled = 'enabled'",
    'detail-syntax=${name}: ${title}',
    'list-separator=; ',
  ]);
  assert.equal(net.message, 'check_dns: DNS; check_tcp: TCP');
  const netAll = await runCheck(def, ["filter=module = 'CheckNet'", 'detail-syntax=${name}', 'list-separator=; ']);
  assert.equal(netAll.message, 'check_dns; check_http; check_ntp_offset; check_ping; check_tcp');
  const none = await runCheck(def, ["filter=module = 'Nope'"]);
  assert.deepEqual([none.result, none.message], [3, 'UNKNOWN: No queries found']);
  assert.match((await runCheck(def, ['help'])).message, /list-separator="\\n"/);
});
