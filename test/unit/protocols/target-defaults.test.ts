/**
 * The defaults of a client connection come from the target schemas alone
 * (schema/modules/*-target.schema.json): for every key of each target
 * schema, the connection built for a target that sets nothing equals the
 * schema's default, both from a source without targets (defaults read from
 * the schema) and from settings loaded from no file at all, as `agent
 * client remote_query --host …` does without a settings file. A key added
 * to the schema must be mapped below (or listed as not a connection
 * setting), and a default written a second time in code that drifts from
 * the schema fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { loadSchemaSet, type JsonSchema } from '../../../src/settings/model/schema-set.js';
import { expandVariables } from '../../../src/settings/model/variables.js';
import { mergeTarget, DEFAULT_QUERY_RETRY, type ConnectionSettings } from '../../../src/protocols/target-options.js';

/** Target key -> the connection setting it becomes. */
const FIELDS: Readonly<Record<string, keyof ConnectionSettings>> = {
  'verify mode': 'verifyMode',
  'certificate format': 'certificateFormat',
  dh: 'dh',
  certificate: 'certificate',
  ca: 'ca',
  'certificate key': 'certificateKey',
  alias: 'alias',
  'allowed ciphers': 'allowedCiphers',
  timeout: 'timeout',
  'use ssl': 'ssl',
  'payload length': 'payloadLength',
};
/** Keys that are not settings of the connection itself (where to connect, the object model). */
const NOT_CONNECTION = new Set(['parent', 'is template', 'address', 'host', 'port']);

const CLIENTS = [
  { container: '/settings/remote/client/targets', port: 5666, resolved: 'remote' },
  { container: '/settings/agent/client/targets', port: 5668, resolved: 'agent' },
] as const;

for (const client of CLIENTS) {
  void test(`${client.container}: a target that sets nothing connects with the schema's defaults`, () => {
    const props: Record<string, JsonSchema> =
      loadSchemaSet().find(`${client.container}/default`)?.section.schema.properties ?? {};
    assert.ok(Object.keys(props).length > 0);
    const loaded = loadSettingsText('', '/tmp/no-such-dir/agent.ini');
    assert.ok(loaded.ok);
    const sources = {
      'no targets': new Map(),
      'settings from no file': loaded.snapshot.targets[client.resolved],
    };
    for (const [label, targets] of Object.entries(sources)) {
      const merged = mergeTarget(
        { targets, container: client.container, defaultPort: client.port },
        { host: 'h', arguments: [], positional: [] },
      );
      assert.ok(merged.ok, label);
      const got = merged.settings;
      assert.equal(got.port, client.port, `${label}: port 0 (the schema default) is the protocol's port`);
      assert.equal(got.retry, DEFAULT_QUERY_RETRY);
      for (const [key, prop] of Object.entries(props)) {
        if (NOT_CONNECTION.has(key)) continue;
        const field: keyof ConnectionSettings | undefined = FIELDS[key];
        assert.ok(field, `target key "${key}" is mapped to a connection setting (or listed in NOT_CONNECTION)`);
        let want: unknown = prop.default;
        // Loaded settings expand ${certificate-path} and the like; the schema alone leaves them as written.
        if (label !== 'no targets' && typeof want === 'string')
          want = expandVariables(want, loaded.snapshot.variables).value;
        assert.deepEqual(got[field], want, `${label}: ${key}`);
      }
      if (!('payload length' in props))
        assert.equal(got.payloadLength, 0, `${label}: no payload length for a target schema without one`);
    }
  });
}
