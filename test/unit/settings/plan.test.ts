import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleInfo, moduleTable, type ModuleInfo } from '../../../src/settings/model/module-table.js';
import { computePlan, moduleSlice, planStep, wantsLoaded } from '../../../src/settings/model/plan.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import type { Snapshot } from '../../../src/settings/model/snapshot.js';
import { loadSchemaSet, packageRoot, type SchemaSet } from '../../../src/settings/model/schema-set.js';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defined } from '../../helpers/defined.js';

/** Load settings text (relative to a fixed folder) or fail the test with the problems. */
function load(text: string): Snapshot {
  const r = loadSettingsText(text, '/tmp/plan-test/agent.ini');
  assert.ok(r.ok, r.ok ? '' : r.problems.map((p) => p.message).join('\n'));
  return r.snapshot;
}

const helpersEntry = moduleInfo('CheckHelpers') as ModuleInfo;
/** CheckHelpers as if it read [/settings/log] (no catalogue module does). */
const logReader: ModuleInfo = { ...helpersEntry, settings: ['/settings/log'] };

const ENABLED = '[/modules]\nCheckHelpers = enabled\n';
const DISABLED = '[/modules]\nCheckHelpers = disabled\n';

void test('computePlan gives one step per catalogue module, in catalogue order', () => {
  const plan = computePlan({ applied: undefined, desired: load(ENABLED), loaded: new Set() });
  assert.deepEqual(
    plan.map((s) => s.module),
    moduleTable().map((e) => e.name),
  );
  for (const s of plan) {
    if (s.module === 'CheckHelpers')
      assert.deepEqual(s, { module: 'CheckHelpers', action: 'load', reason: 'enabled in [/modules]' });
    else assert.deepEqual(s, { module: s.module, action: 'unchanged', reason: 'not loaded' });
  }
});

void test('load: enabled in the file and not live', () => {
  const s = load(ENABLED);
  assert.deepEqual(planStep(helpersEntry, { applied: s, desired: s, loaded: new Set() }), {
    module: 'CheckHelpers',
    action: 'load',
    reason: 'enabled in [/modules]',
  });
});

void test('unload: disabled in the file and live', () => {
  const a = load(ENABLED);
  const b = load(DISABLED);
  assert.deepEqual(planStep(helpersEntry, { applied: a, desired: b, loaded: new Set(['CheckHelpers']) }), {
    module: 'CheckHelpers',
    action: 'unload',
    reason: 'disabled in [/modules]',
  });
  const plan = computePlan({ applied: a, desired: b, loaded: new Set(['CheckHelpers']) });
  assert.deepEqual(
    plan.filter((p) => p.action !== 'unchanged').map((p) => [p.module, p.action]),
    [['CheckHelpers', 'unload']],
  );
});

void test('apply: a changed key without x-restart goes to apply() and is named', () => {
  const a = load(`${ENABLED}[/settings/log]\nlevel = info\n`);
  const b = load(`${ENABLED}[/settings/log]\nlevel = debug\n`);
  assert.deepEqual(planStep(logReader, { applied: a, desired: b, loaded: new Set(['CheckHelpers']) }), {
    module: 'CheckHelpers',
    action: 'apply',
    reason: 'changed: [/settings/log] level (agent.ini:4)',
  });
});

/**
 * The schemas of schema/ with `[/settings/log] buffer size` marked x-restart
 * (no key of the real schemas needs it: every module takes every key in place).
 */
function schemasWithRestartMark(): SchemaSet {
  const root = mkdtempSync(join(tmpdir(), 'plan-x-restart-'));
  try {
    cpSync(join(packageRoot(), 'schema'), join(root, 'schema'), { recursive: true });
    const file = join(root, 'schema/modules/log.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, Record<string, unknown>> };
    defined(schema.properties['buffer size'])['x-restart'] = true;
    writeFileSync(file, JSON.stringify(schema));
    const set = loadSchemaSet(root);
    loadSchemaSet(); // back to the real schemas for the loader
    return set;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void test('restart: a changed key marked x-restart forces a restart, naming only that key; unmarked it is applied', () => {
  const a = load(`${ENABLED}[/settings/log]\nlevel = info\nbuffer size = 5000\n`);
  const b = load(`${ENABLED}[/settings/log]\nlevel = debug\nbuffer size = 200\n`);
  assert.deepEqual(planStep(logReader, { applied: a, desired: b, loaded: new Set(['CheckHelpers']) }).action, 'apply');
  assert.deepEqual(
    planStep(logReader, {
      applied: a,
      desired: b,
      loaded: new Set(['CheckHelpers']),
      schemas: schemasWithRestartMark(),
    }),
    {
      module: 'CheckHelpers',
      action: 'restart',
      reason: 'changed: [/settings/log] buffer size (agent.ini:5) (needs a restart)',
    },
  );
  // Setting a key to its default value changes nothing.
  const c = load(`${ENABLED}[/settings/log]\nlevel = info\n`);
  assert.equal(
    planStep(logReader, {
      applied: a,
      desired: c,
      loaded: new Set(['CheckHelpers']),
      schemas: schemasWithRestartMark(),
    }).action,
    'unchanged',
  );
});

void test('restart when there are no applied settings to compare with', () => {
  const s = load(ENABLED);
  assert.deepEqual(planStep(helpersEntry, { applied: undefined, desired: s, loaded: new Set(['CheckHelpers']) }), {
    module: 'CheckHelpers',
    action: 'restart',
    reason: 'no applied settings',
  });
});

void test("unchanged: identical settings, or changes outside the module's sections", () => {
  const a = load(`${ENABLED}[/settings/log]\nlevel = info\n`);
  const b = load(`${ENABLED}[/settings/log]\nlevel = debug\nbuffer size = 200\n`);
  assert.deepEqual(planStep(logReader, { applied: a, desired: a, loaded: new Set(['CheckHelpers']) }), {
    module: 'CheckHelpers',
    action: 'unchanged',
    reason: 'its settings did not change',
  });
  // The real CheckHelpers reads no section: a log change leaves it alone.
  assert.deepEqual(planStep(helpersEntry, { applied: a, desired: b, loaded: new Set(['CheckHelpers']) }), {
    module: 'CheckHelpers',
    action: 'unchanged',
    reason: 'its settings did not change',
  });
  // A disabled module that is not live stays unchanged whatever changed.
  assert.deepEqual(planStep(moduleInfo('CheckSystem') as ModuleInfo, { applied: a, desired: b, loaded: new Set() }), {
    module: 'CheckSystem',
    action: 'unchanged',
    reason: 'not loaded',
  });
});

void test('the slice of a module is its sections; [/paths] changes reach modules that read /paths', () => {
  const web = moduleInfo('WEBServer') as ModuleInfo;
  const enabled = '[/modules]\nWEBServer = enabled\n';
  const a = load(`${enabled}[/paths]\nscripts = /opt/a\n`);
  const b = load(`${enabled}[/paths]\nscripts = /opt/b\n`);
  const step = planStep(web, { applied: a, desired: b, loaded: new Set(['WEBServer']) });
  assert.equal(step.action, 'apply');
  // Named as written; the variable's resolved value is the same change and is not listed twice.
  assert.equal(step.reason, 'changed: [/paths] scripts (agent.ini:4)');
  const logReader: ModuleInfo = { ...helpersEntry, settings: ['/settings/log'] };
  assert.ok(moduleSlice(logReader, a).has('/settings/log'));
});

void test('run-time overrides win over the file', () => {
  const off = load(DISABLED);
  const on = load(ENABLED);
  assert.deepEqual(
    planStep(helpersEntry, {
      applied: off,
      desired: off,
      loaded: new Set(),
      overrides: new Map([['CheckHelpers', true]]),
    }),
    {
      module: 'CheckHelpers',
      action: 'load',
      reason: 'loaded at run time',
    },
  );
  assert.deepEqual(
    planStep(helpersEntry, {
      applied: on,
      desired: on,
      loaded: new Set(['CheckHelpers']),
      overrides: new Map([['CheckHelpers', false]]),
    }),
    {
      module: 'CheckHelpers',
      action: 'unload',
      reason: 'unloaded at run time',
    },
  );
  // An override that matches what is live changes nothing.
  assert.equal(
    planStep(helpersEntry, {
      applied: on,
      desired: on,
      loaded: new Set(),
      overrides: new Map([['CheckHelpers', false]]),
    }).action,
    'unchanged',
  );
  assert.equal(
    planStep(helpersEntry, {
      applied: off,
      desired: off,
      loaded: new Set(['CheckHelpers']),
      overrides: new Map([['CheckHelpers', true]]),
    }).action,
    'unchanged',
  );
  assert.equal(wantsLoaded('CheckHelpers', off, new Map([['CheckHelpers', true]])), true);
  assert.equal(wantsLoaded('CheckHelpers', on, new Map([['CheckHelpers', false]])), false);
  assert.equal(wantsLoaded('CheckHelpers', on), true);
  assert.equal(wantsLoaded('CheckSystem', on), false);
});

void test('an edited parent target is named once, not again for each target that inherits the key', () => {
  const remote = moduleInfo('RemoteClient') as ModuleInfo;
  const base =
    '[/modules]\nRemoteClient = enabled\n[/settings/remote/client/targets/default]\ntimeout = %T%\n[/settings/remote/client/targets/a]\naddress = 127.0.0.1:1\n[/settings/remote/client/targets/b]\naddress = 127.0.0.1:2\ntimeout = 9\n';
  const a = load(base.replace('%T%', '20'));
  const b = load(base.replace('%T%', '21'));
  assert.deepEqual(planStep(remote, { applied: a, desired: b, loaded: new Set(['RemoteClient']) }), {
    module: 'RemoteClient',
    action: 'apply',
    reason: 'changed: [/settings/remote/client/targets/default] timeout (agent.ini:4)',
  });
});

void test('a [/settings/default] key reaches only the modules that fall back to it', () => {
  const web = moduleInfo('WEBServer') as ModuleInfo;
  const remote = moduleInfo('RemoteServer') as ModuleInfo;
  const text = (hosts: string) =>
    `[/modules]\nWEBServer = enabled\nRemoteServer = enabled\n[/settings/default]\nallowed hosts = ${hosts}\n[/settings/WEB/server]\nallowed hosts = 127.0.0.1\n`;
  const a = load(text('127.0.0.1'));
  const b = load(text('127.0.0.1, 10.0.0.1'));
  const loaded = new Set(['WEBServer', 'RemoteServer']);
  // WEBServer has its own allowed hosts: nothing changed for it.
  assert.equal(planStep(web, { applied: a, desired: b, loaded }).action, 'unchanged');
  assert.deepEqual(planStep(remote, { applied: a, desired: b, loaded }), {
    module: 'RemoteServer',
    action: 'apply',
    reason: 'changed: [/settings/default] allowed hosts (agent.ini:5)',
  });
  // A [/settings/default] key that no section of the module falls back to (RemoteServer has no password).
  const pa = load('[/modules]\nRemoteServer = enabled\n[/settings/default]\npassword = one-password\n');
  const pb = load('[/modules]\nRemoteServer = enabled\n[/settings/default]\npassword = another-password\n');
  assert.equal(planStep(remote, { applied: pa, desired: pb, loaded }).action, 'unchanged');
});

void test('a [/paths] variable is named once, not again for each value that expands it', () => {
  const web = moduleInfo('WEBServer') as ModuleInfo;
  const a = load('[/modules]\nWEBServer = enabled\n[/paths]\ncertificate-path = /srv/a\n');
  const b = load('[/modules]\nWEBServer = enabled\n[/paths]\ncertificate-path = /srv/b\n');
  // certificate and certificate key (defaults under ${certificate-path}) change with it: they count, unnamed.
  assert.notEqual(a.sections['/settings/WEB/server']?.certificate, b.sections['/settings/WEB/server']?.certificate);
  assert.deepEqual(planStep(web, { applied: a, desired: b, loaded: new Set(['WEBServer']) }), {
    module: 'WEBServer',
    action: 'apply',
    reason: 'changed: [/paths] certificate-path (agent.ini:4)',
  });
});
