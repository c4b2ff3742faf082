/**
 * A query's signal lets go of its module's signal when the query ends (src/abort-link.ts), for
 * every module whose queries combine the two: CheckExternalScripts (an alias), CheckHelpers
 * (check_timeout), CheckNet (check_tcp), RemoteClient (remote_query) and AgentClient
 * (agent_query). 200,000 queries in all run through the real modules and core, in this process;
 * afterwards no abort listener is left on any module's lifetime signal, and the heap after a
 * full collection is where it was after the first tenth of them (AbortSignal.any kept each
 * query's signal reachable from the module's: nodejs/node#55351).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCore } from '../../../src/core/core-impl.js';
import { sink } from '../../../src/log.js';
import { findModule } from '../../../src/modules/catalogue.js';
import type { RunningModule } from '../../../src/modules/module.js';
import { MODULE_SECTIONS, type ModuleName } from '../../../src/settings/model/module-table.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';

sink.consoleLevel = 'silent';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A loopback listener that accepts and closes at once (check_tcp's target; refused NRPE and agent peers). */
async function closingListener(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return { server, port: (server.address() as { port: number }).port };
}

const MODULES: readonly ModuleName[] = [
  'CheckHelpers',
  'CheckExternalScripts',
  'CheckNet',
  'RemoteClient',
  'AgentClient',
];

void test(
  "200,000 queries leave no listener on the modules' signals and a flat heap",
  { timeout: 170_000 },
  async () => {
    const { server, port } = await closingListener();
    const ini = `[/modules]
${MODULES.map((m) => `${m} = enabled`).join('\n')}
[/settings/external scripts/alias]
alias_ok = check_ok
`;
    const loaded = loadSettingsText(ini, '/tmp/query-signal/agent.ini');
    assert.ok(loaded.ok, JSON.stringify(loaded.problems));
    const snapshot = loaded.snapshot;
    const core = createCore({ settings: () => snapshot });
    const lifetimes = new Map<ModuleName, AbortController>();
    const started: RunningModule[] = [];
    try {
      for (const name of MODULES) {
        const entry = findModule(name);
        assert.ok(entry);
        const mod = (await entry.load()).agentModule;
        const life = new AbortController();
        lifetimes.set(name, life);
        const sections = MODULE_SECTIONS[name];
        const running = await mod.start({
          name,
          settings: moduleView(sections, snapshot, name),
          log: sink.logger(`test:${name}`),
          signal: life.signal,
          core: core.forModule(sections),
        } as never);
        started.push(running);
      }
      // Each round: the queries of every module, with a count that keeps the whole run to ~200,000.
      const round = async (): Promise<void> => {
        const answers = await Promise.all([
          ...Array.from({ length: 40 }, () => core.query('alias_ok')),
          ...Array.from({ length: 40 }, () => core.query('check_timeout', ['command=check_ok', 'timeout=5'])),
          ...Array.from({ length: 8 }, () => core.query('check_tcp', ['host=127.0.0.1', `port=${port}`, 'timeout=5'])),
          ...Array.from({ length: 6 }, () =>
            core.query('remote_query', [
              '--host',
              '127.0.0.1',
              '--port',
              String(port),
              '--command',
              'check_ok',
              '--timeout',
              '5',
              '--retries',
              '0',
            ]),
          ),
          ...Array.from({ length: 6 }, () =>
            core.query('agent_query', [
              '--host',
              '127.0.0.1',
              '--port',
              String(port),
              '--command',
              'check_ok',
              '--timeout',
              '5',
              '--retries',
              '0',
            ]),
          ),
        ]);
        assert.equal(answers.length, 100);
      };
      const rounds = 2000;
      for (let i = 0; i < rounds / 10; i++) await round();
      const early = heapAfterGc();
      for (let i = rounds / 10; i < rounds; i++) await round();
      const late = heapAfterGc();
      for (const [name, life] of lifetimes)
        assert.equal(
          getEventListeners(life.signal, 'abort').length,
          0,
          `${name}: no listener left on the module's signal`,
        );
      assert.ok(
        late - early < 4 * 1024 * 1024,
        `heap after GC grew by ${((late - early) / 1048576).toFixed(1)} MB over 180,000 queries (${early} -> ${late})`,
      );
    } finally {
      for (const running of started.reverse()) await running.stop();
      server.close();
    }
  },
);
