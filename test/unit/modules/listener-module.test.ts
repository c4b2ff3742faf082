/**
 * The three TCP listener modules (RemoteServer: NRPE, NSClientServer:
 * check_nt, AgentServer: the agent protocol) share one skeleton
 * (src/modules/listener-module.ts), so each behaviour here is tested for
 * all three: a start given up (time limit, agent stopping) before it binds
 * opens nothing; one given up while it binds or looks up its allowed hosts
 * closes what it opened, registers no query and rejects (this check was
 * RemoteServer's alone before the skeleton); with its signal live, port 0
 * listens on the port the module reports, and stop closes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo } from 'node:net';
import { createCore } from '../../../src/core/core-impl.js';
import type { Core } from '../../../src/core/core.js';
import { sink, type Logger } from '../../../src/log.js';
import type { AgentModule, ModuleContext } from '../../../src/modules/module.js';
import { agentModule as remoteServer } from '../../../src/modules/remote-server/index.js';
import { agentModule as nsclientServer } from '../../../src/modules/nsclient-server/index.js';
import { agentModule as agentServer } from '../../../src/modules/agent-server/index.js';
import { MODULE_SECTIONS, type ModuleName } from '../../../src/settings/model/module-table.js';
import { moduleView } from '../../../src/settings/model/module-view.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';

sink.consoleLevel = 'silent';

interface Listener {
  module: AgentModule;
  name: ModuleName;
  section: string;
  /** The query the module registers once it listens (none for check_nt). */
  query?: string;
}

const LISTENERS: readonly Listener[] = [
  { module: remoteServer, name: 'RemoteServer', section: '/settings/remote/server', query: 'remote_submissions' },
  { module: nsclientServer, name: 'NSClientServer', section: '/settings/NSClient/server' },
  { module: agentServer, name: 'AgentServer', section: '/settings/agent/server', query: 'agent_submissions' },
];

/** True when something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  await new Promise((res) => server.close(res));
  return port;
}

/** The context of `l` on 127.0.0.1:`port`, plain, allowing a name that is looked up (localhost). */
function context(l: Listener, signal: AbortSignal, port: number, log?: Logger): { ctx: ModuleContext; core: Core } {
  const loaded = loadSettingsText(
    `[/modules]\n${l.name} = enabled\n\n[${l.section}]\nport = ${port}\nbind to = 127.0.0.1\nuse ssl = false\nallowed hosts = 127.0.0.1,localhost\n`,
    '/tmp/listener-module/agent.ini',
  );
  assert.ok(loaded.ok, JSON.stringify(loaded.problems));
  const snapshot = loaded.snapshot;
  const core = createCore({ settings: () => snapshot });
  const sections = MODULE_SECTIONS[l.name];
  // The view of this module's sections, as the runner hands it (typed by the module, not here).
  const ctx = {
    name: l.name,
    settings: moduleView(sections, snapshot, l.name),
    log: log ?? sink.logger(`test:${l.name}`),
    signal,
    core: core.forModule(sections),
  } as unknown as ModuleContext;
  return { ctx, core };
}

const start = (l: Listener, ctx: ModuleContext): ReturnType<AgentModule['start']> => l.module.start(ctx);

for (const l of LISTENERS) {
  void test(`${l.name}: a start whose signal is aborted opens no listener`, async () => {
    const abort = new AbortController();
    abort.abort(new Error(`module ${l.name} did not finish start within 15000 ms`));
    const port = await freePort();
    await assert.rejects(start(l, context(l, abort.signal, port).ctx), /did not finish start/);
    assert.equal(await listening(port), false, 'bound to nothing');
  });

  void test(`${l.name}: a start given up while it binds closes its listener, registers nothing and rejects`, async () => {
    const abort = new AbortController();
    const port = await freePort();
    const base = sink.logger(`test:${l.name}`);
    // The agent stops just as the listener is up: the lookup of allowed hosts is still to be waited for.
    const log: Logger = {
      ...base,
      info: (message, where) => {
        base.info(message, where);
        if (message.startsWith('listening on')) abort.abort(new Error('the agent is stopping'));
      },
    };
    const { ctx, core } = context(l, abort.signal, port, log);
    await assert.rejects(start(l, ctx), /the agent is stopping/);
    assert.equal(await listening(port), false, 'the listener it opened is closed');
    if (l.query) assert.equal(core.getQuery(l.query), undefined, `${l.query} is not registered`);
  });

  void test(`${l.name}: with its signal live, port 0 listens where the module says (and stop closes it)`, async () => {
    const { ctx, core } = context(l, new AbortController().signal, 0);
    const running = await start(l, ctx);
    const port = running.listening?.()?.port ?? 0;
    assert.ok(port > 0);
    assert.equal(await listening(port), true);
    if (l.query) assert.ok(core.getQuery(l.query), `${l.query} is registered`);
    await running.stop();
    assert.equal(await listening(port), false);
    if (l.query) assert.equal(core.getQuery(l.query), undefined, `${l.query} is gone`);
  });
}
