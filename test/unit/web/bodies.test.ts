import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import { BODY_AJV_OPTIONS, BODY_SCHEMAS, type BodyName } from '../../../src/web/body-schemas.js';
import * as bodies from '../../../src/web/bodies.js';
import { byName } from '../../../src/web/generated/body-validators.js';

// Bodies each schema must accept and refuse; the precompiled validator and one
// compiled from the schema at run time must agree on every one, errors included.
const samples: Record<BodyName, unknown[]> = {
  moduleUpdate: [{ name: 'CheckSystem', loaded: true }, { name: '', loaded: true }, { name: 'x' }, [], 'x'],
  moduleLoaded: [{ loaded: false }, { loaded: 'yes' }, {}],
  scriptContent: [{ content: 'echo' }, { content: 1 }, null],
  logPost: [
    {},
    { level: 'error', line: 3 },
    { level: 'loud' },
    { line: -1 },
    { line: 1.5 },
    { file: 'x'.repeat(1001) },
  ],
  settingsPut: [
    { key: 'a', value: 1 },
    [{ key: 'a' }, { path: '/p', key: 'b', value: true }],
    [],
    { value: 'x' },
    [{ key: '' }],
    { key: 'a', value: {} },
  ],
  settingsDelete: [{}, { path: '/p' }, [{ key: 'a' }], [], { path: '' }],
  settingsCommand: [{ command: 'reload' }, {}, { command: 'x'.repeat(101) }],
};

void describe('request-body validators', () => {
  void it('are the precompiled ones (generated/body-validators.js matches body-schemas.ts)', () => {
    assert.equal(bodies.bodiesPrecompiled, true);
    assert.deepEqual(Object.keys(byName).sort(), Object.keys(BODY_SCHEMAS).sort());
  });

  void it('answer like validators compiled from the schemas at run time', () => {
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as { Ajv: new (o: object) => Ajv };
    const ajv = new AjvClass(BODY_AJV_OPTIONS);
    let refused = 0;
    for (const [name, values] of Object.entries(samples) as [BodyName, unknown[]][]) {
      const compiled = ajv.compile(BODY_SCHEMAS[name]);
      const generated = byName[name];
      assert.ok(generated, name);
      for (const v of values) {
        const ok: boolean = generated(v);
        assert.equal(ok, compiled(v), `${name} ${JSON.stringify(v)}`);
        assert.deepEqual(generated.errors ?? null, compiled.errors ?? null, `${name} ${JSON.stringify(v)}`);
        if (!ok) refused++;
      }
    }
    assert.ok(refused >= 15, `only ${refused} samples refused`);
  });

  void it('refuse what a route must not take', () => {
    assert.equal(bodies.validateSettingsPut({ value: 'no key' }), false);
    assert.equal(bodies.validateModuleLoaded({ loaded: 'yes' }), false);
    assert.equal(bodies.validateLogPost({ level: 'loud' }), false);
    assert.equal(bodies.validateSettingsCommand({ command: 'reload' }), true);
  });
});
