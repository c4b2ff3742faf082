/**
 * Module settings views (src/settings/model/module-view.ts) and the schema
 * keywords that drive them: each module sees its own sections only, every
 * value comes complete from the schema's defaults, `x-fallback` fills a key
 * from [/settings/default], `x-secret` masks a value wherever it could show.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MODULE_SECTIONS, moduleInfo, moduleTable, type ModuleInfo } from '../../../src/settings/model/module-table.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { moduleView, sectionWithFallbacks } from '../../../src/settings/model/module-view.js';
import { loadSchemaSet } from '../../../src/settings/model/schema-set.js';
import { expandVariables } from '../../../src/settings/model/variables.js';
import { agentStep, planStep } from '../../../src/settings/model/plan.js';
import { effectiveEntries } from '../../../src/settings/model/effective.js';
import { createCore } from '../../../src/core/core-impl.js';
import { decode, encode } from '../../../src/core/plugin/codec.js';
import { Plugin } from '../../../src/core/plugin/generated/plugin.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import type { Core } from '../../../src/core/core.js';
import type { CatalogueEntry } from '../../../src/modules/catalogue.js';
import { ModuleRunner } from '../../../src/reconciler/module-runner.js';
import { plainMessage } from '../../helpers/plain-message.js';

function load(text: string): Snapshot {
  const r = loadSettingsText(text, '/tmp/module-view-test/agent.ini');
  assert.ok(r.ok, r.ok ? '' : r.problems.map((p) => p.message).join('\n'));
  return r.snapshot;
}

const FULL = `[/settings/default]
password = shared-secret-1
allowed hosts = 10.0.0.1

[/settings/web/users/ann]
password = ann-password-1
role = client

[/settings/agent/client/targets/peer]
address = 127.0.0.1:5668

[/settings/remote/client/targets/nrpe]
address = 127.0.0.1:5666

[/settings/external scripts/alias]
alias_ok = check_ok
`;

void test('each module view holds exactly the sections its catalogue entry names, and only its own objects', () => {
  const s = load(FULL);
  for (const entry of moduleTable()) {
    const view = moduleView(entry.settings, s);
    assert.deepEqual(
      Object.keys(view.sections).sort(),
      [...MODULE_SECTIONS[entry.name as keyof typeof MODULE_SECTIONS]].sort(),
      entry.name,
    );
    assert.equal('/settings/default' in view.sections, false, `${entry.name} cannot read [/settings/default]`);
    // The users (and their password hashes) and roles reach WEBServer only.
    assert.equal(view.users.size > 0, entry.name === 'WEBServer', `${entry.name} users`);
    assert.equal(view.roles.size > 0, entry.name === 'WEBServer', `${entry.name} roles`);
    assert.equal(view.aliases.size > 0, entry.name === 'CheckExternalScripts', `${entry.name} aliases`);
    const targets = [...view.targets.keys()].filter((n) => n === 'peer' || n === 'nrpe');
    assert.deepEqual(
      targets,
      entry.name === 'AgentClient' ? ['peer'] : entry.name === 'RemoteClient' ? ['nrpe'] : [],
      `${entry.name} targets`,
    );
    assert.ok(Object.isFrozen(view) && Object.isFrozen(view.sections));
  }
  // A section a module does not name is not there at run time either, whatever the type says.
  const web = moduleView(MODULE_SECTIONS.WEBServer, s) as unknown as { sections: Record<string, unknown> };
  assert.equal(web.sections['/settings/agent/server'], undefined);
});

void test('every value comes from the schema: an empty file gives each section exactly its schema defaults', () => {
  const s = load('');
  const set = loadSchemaSet();
  for (const section of set.sections) {
    if (section.container !== undefined) continue;
    const expected: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(section.schema.properties ?? {})) {
      if (prop.default === undefined) continue;
      expected[key] =
        typeof prop.default === 'string' ? expandVariables(prop.default, s.variables).value : prop.default;
    }
    assert.deepEqual({ ...s.sections[section.pattern] }, expected, section.pattern);
  }
  // And the typed views carry them: no default in module code is needed.
  const remote = moduleView(MODULE_SECTIONS.RemoteServer, s).sections['/settings/remote/server'];
  assert.equal(remote.port, 5666);
  assert.equal(remote['payload length'], 1024);
});

void test('x-fallback: a key the file leaves out takes [/settings/default]; its own value wins', () => {
  const fallen = load(FULL);
  const web = moduleView(MODULE_SECTIONS.WEBServer, fallen).sections['/settings/WEB/server'];
  assert.equal(web.password, 'shared-secret-1');
  assert.equal(web['allowed hosts'], '10.0.0.1');
  assert.equal(web.timeout, 30);
  assert.equal(
    moduleView(MODULE_SECTIONS.AgentServer, fallen).sections['/settings/agent/server']['allowed hosts'],
    '10.0.0.1',
  );
  // The snapshot itself keeps what the file says (show and the API list the key as unset).
  assert.equal(fallen.sections['/settings/WEB/server']?.password, undefined);
  const own = load(`${FULL}\n[/settings/WEB/server]\npassword = web-only-1\ntimeout = 5\n`);
  assert.equal(sectionWithFallbacks(own, '/settings/WEB/server').password, 'web-only-1');
  assert.equal(moduleView(MODULE_SECTIONS.WEBServer, own).sections['/settings/WEB/server'].timeout, 5);
});

void test('x-fallback in the plan: a change of [/settings/default] reaches the modules that fall back to it, not the agent step', () => {
  const enabled = '[/modules]\nWEBServer = enabled\nRemoteServer = enabled\nCheckNet = enabled\n';
  const a = load(`${enabled}[/settings/default]\nallowed hosts = 10.0.0.1\n`);
  const b = load(`${enabled}[/settings/default]\nallowed hosts = 10.0.0.2\n`);
  const web = moduleInfo('WEBServer') as ModuleInfo;
  const step = planStep(web, { applied: a, desired: b, loaded: new Set(['WEBServer']) });
  assert.equal(step.action, 'apply');
  assert.equal(step.reason, 'changed: [/settings/default] allowed hosts (agent.ini:6)');
  assert.equal(
    planStep(moduleInfo('RemoteServer') as ModuleInfo, { applied: a, desired: b, loaded: new Set(['RemoteServer']) })
      .action,
    'apply',
  );
  assert.equal(
    planStep(moduleInfo('CheckNet') as ModuleInfo, { applied: a, desired: b, loaded: new Set(['CheckNet']) }).action,
    'unchanged',
  );
  assert.equal(agentStep(a, b).action, 'unchanged');
  // A module with its own value does not see the default's change.
  const ownA = load(
    `${enabled}[/settings/default]\nallowed hosts = 10.0.0.1\n[/settings/WEB/server]\nallowed hosts = 127.0.0.1\n`,
  );
  const ownB = load(
    `${enabled}[/settings/default]\nallowed hosts = 10.0.0.2\n[/settings/WEB/server]\nallowed hosts = 127.0.0.1\n`,
  );
  assert.equal(planStep(web, { applied: ownA, desired: ownB, loaded: new Set(['WEBServer']) }).action, 'unchanged');
});

void test('x-secret: values of marked keys are masked in the effective list, settings queries and (through secretValues) log lines', () => {
  const s = load(FULL);
  const shown = effectiveEntries(s);
  assert.deepEqual(shown.find((e) => e.path === '/settings/default' && e.key === 'password')?.value, '******');
  assert.deepEqual(shown.find((e) => e.path === '/settings/web/users/ann' && e.key === 'password')?.value, '******');
  assert.ok(s.secretValues.includes('shared-secret-1'), 'a plain x-secret value is masked in log lines');
  assert.ok(s.secretValues.includes('ann-password-1'), 'a user password is masked in log lines');
  assert.equal(s.secretValues.includes('10.0.0.1'), false, 'values of unmarked keys are not');
  const core = createCore({ settings: () => s });
  const request = encode('QuerySettingsRequestMessage', {
    header: { type: Plugin.Header.Type.QUERY_REQUEST, version: Plugin.Version.VERSION_1 },
    payload: [
      { id: 1, node: { node: { path: { path: '/settings/default', key: 'password' } } } },
      { id: 2, node: { node: { path: { path: '/settings/default', key: 'allowed hosts' } } } },
    ],
  });
  const answer = decode('QuerySettingsResponseMessage', core.settingsRaw(request));
  assert.deepEqual(
    answer.payload.map((p) => p.value?.string_data),
    ['******', '10.0.0.1'],
  );
});

void test("settings lookups through the core a module receives answer its own sections only, never another module's or the web users", async () => {
  const s = load(FULL);
  const core = createCore({ settings: () => s });
  let seen: Core | undefined;
  const peek: CatalogueEntry = {
    ...(moduleInfo('RemoteServer') as ModuleInfo),
    load: () =>
      Promise.resolve({
        agentModule: {
          name: 'RemoteServer',
          start: (ctx: { core: Core }) => {
            seen = ctx.core;
            return Promise.resolve({ stop: () => Promise.resolve() });
          },
        },
      }),
  };
  const runner = new ModuleRunner(peek, core);
  assert.equal(await runner.start(s), true);
  assert.ok(seen);
  const ask = (c: Core, ...paths: [string, string | undefined][]): (string | string[] | undefined)[] => {
    const request = encode('QuerySettingsRequestMessage', {
      header: { type: Plugin.Header.Type.QUERY_REQUEST, version: Plugin.Version.VERSION_1 },
      payload: paths.map(([path, key], id) => ({ id, node: { node: { path: { path, ...(key ? { key } : {}) } } } })),
    });
    return decode('QuerySettingsResponseMessage', c.settingsRaw(request)).payload.map((p) => {
      const plain = plainMessage(p) as { keys?: { key?: string[] }; value?: { string_data?: string } };
      return plain.keys ? (plain.keys.key ?? []) : plain.value?.string_data;
    });
  };
  const paths: [string, string | undefined][] = [
    ['/settings/remote/server', 'port'],
    ['/settings/REMOTE/server', 'port'],
    ['/paths', 'scripts'],
    ['/settings/web/users/ann', 'password'],
    ['/settings/web/users/ann', undefined],
    ['/settings/remote/client/targets/nrpe', 'address'],
    ['/settings/default', 'allowed hosts'],
  ];
  const mine = ask(seen, ...paths);
  assert.equal(mine[0], '5666');
  assert.equal(mine[1], '5666', 'paths match without regard to case, as in the file');
  assert.ok(typeof mine[2] === 'string' && mine[2].length > 0);
  assert.deepEqual(mine.slice(3), [undefined, [], undefined, undefined]);
  // Nor can the module widen its scope by asking its core for another module's.
  const widened = ask(
    seen.forModule([...MODULE_SECTIONS.WEBServer]),
    ['/settings/WEB/server', 'port'],
    ['/settings/web/users/ann', 'password'],
    ['/paths', 'scripts'],
  );
  assert.deepEqual(widened.slice(0, 2), [undefined, undefined]);
  assert.equal(widened[2], mine[2], 'a section both share stays visible');
  // The whole core (the CLI, the web API with its privileges) still answers everything, secrets masked.
  const whole = ask(core, ...paths);
  assert.deepEqual(whole.slice(3), [
    '******',
    ['password', 'role', 'parent', 'is template'],
    '127.0.0.1:5666',
    '10.0.0.1',
  ]);
  await runner.stop();
});
