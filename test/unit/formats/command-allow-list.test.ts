import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllowList } from '../../../src/formats/command-allow-list.js';
import { commandGuard } from '../../../src/protocols/command-guard.js';
import { LogSink } from '../../../src/log.js';

void describe('command allow-lists', () => {
  void it('matches glob patterns without regard to case; negations subtract', () => {
    const l = parseAllowList('*, !remote_*, !agent_*');
    assert.equal(l.allows('check_cpu'), true);
    assert.equal(l.allows('Check_Hello'), true);
    assert.equal(l.allows('remote_query'), false);
    assert.equal(l.allows('AGENT_EXEC'), false);
    assert.equal(l.everything, false);
    const some = parseAllowList(' check_{cpu,memory} , CheckExternal* ');
    assert.equal(some.allows('check_memory'), true);
    assert.equal(some.allows('checkexternalscripts'), true);
    assert.equal(some.allows('check_disk'), false);
  });

  void it('an empty list or one with only negations allows nothing; a bare * allows everything', () => {
    for (const text of ['', ' , ', '!remote_*']) {
      assert.equal(parseAllowList(text).nothing, true, text);
      assert.equal(parseAllowList(text).allows('check_ok'), false, text);
    }
    assert.equal(parseAllowList('*').everything, true);
  });

  void it('the guard answers undefined for allowed names, else a message naming the setting, and logs the refusal escaped', () => {
    const sink = new LogSink(100, 'silent');
    const guard = commandGuard(
      {
        server: 'AgentServer',
        section: '/settings/agent/server',
        queries: parseAllowList('*'),
        execs: parseAllowList(''),
        log: sink.logger('t'),
      },
      '10.0.0.1',
    );
    assert.ok(guard);
    assert.equal(guard('query', 'check_ok'), undefined);
    assert.equal(
      guard('exec', 'Evil\nforged line'),
      'exec command Evil\nforged line is not allowed over AgentServer: add it to allowed exec commands in [/settings/agent/server]',
    );
    assert.deepEqual(
      sink.entries().map((e) => e.message),
      [
        'refused exec command Evil\\nforged line from 10.0.0.1: not in allowed exec commands of [/settings/agent/server]',
      ],
    );
    assert.equal(
      commandGuard(
        { server: 'X', section: '/x', queries: parseAllowList('*'), execs: parseAllowList('*'), log: sink.logger('t') },
        'a',
      ),
      undefined,
      'nothing to check',
    );
  });
});
