/**
 * A crash is a crash (issue 12, item 6): an uncaught exception or an
 * unhandled rejection in a running agent is logged as critical with its
 * stack, the modules stop in reverse start order, and the process exits 70.
 * The fault is injected by a preloaded script (test/fixtures/crash) on
 * SIGUSR2, from outside every module's own error handling.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, startAgent } from '../helpers/agent-process.js';
import { inRange } from '../../src/in-range.js';

const INJECT = pathToFileURL(join(REPO, 'test/fixtures/crash/inject-crash.mjs')).href;

async function crashWith(kind: 'exception' | 'rejection'): Promise<{ code: number | null; logs: string }> {
  const agent = await startAgent({
    env: { NODE_OPTIONS: `--import ${INJECT}`, AGENT_TEST_CRASH: kind },
    ini: `[/modules]
CheckHelpers = enabled
RemoteServer = enabled
AgentServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1
use ssl = 0

[/settings/agent/server]
port = 0
bind to = 127.0.0.1
use ssl = 0
`,
  });
  agent.proc.kill('SIGUSR2');
  const code = await Promise.race([
    agent.exited,
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
  ]);
  const logs = agent.logs();
  await agent.stop();
  assert.notEqual(code, 'timeout', `the agent did not exit after the crash:\n${logs}`);
  return { code: code as number | null, logs };
}

function order(logs: string, what: 'started' | 'stopped'): string[] {
  return [...logs.matchAll(new RegExp(`module (\\w+) ${what}`, 'g'))].map((m) => inRange(m, 1));
}

void describe('crash of a running agent (agent process)', () => {
  for (const kind of ['exception', 'rejection'] as const) {
    void it(`an unhandled ${kind}: logged with its stack, modules stopped in reverse order, exit 70`, async () => {
      const { code, logs } = await crashWith(kind);
      assert.equal(code, 70, logs);
      const label = kind === 'exception' ? 'uncaughtException' : 'unhandledRejection';
      assert.match(
        logs,
        new RegExp(`critical\\s+agent:crash: ${label}: Error: injected ${kind} for the crash test\\n\\s+at `),
      );
      const started = order(logs, 'started');
      assert.deepEqual(started.slice().sort(), ['AgentServer', 'CheckHelpers', 'RemoteServer']);
      assert.deepEqual(order(logs, 'stopped'), started.slice().reverse());
      assert.match(logs, /agent stopped after a crash/);
    });
  }
});
