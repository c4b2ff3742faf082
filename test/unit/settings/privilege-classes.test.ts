/**
 * Every settings key declares its privilege class in the schema (issue 37,
 * item 2): on its own property or through its section's mark. A key
 * without one fails here, so a new key cannot be added unclassified. Also
 * the classes the threat model names for keys that send secrets or loosen
 * limits, and deny by default for names the schema does not know.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editClasses, PRIVILEGE_MARKS } from '../../../src/settings/model/edit-privileges.js';
import { loadSchemaSet, uniqueSectionSchemas, type JsonSchema } from '../../../src/settings/model/schema-set.js';

const set = loadSchemaSet();

void test('every key of every section schema declares a privilege class', () => {
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const section of uniqueSectionSchemas(set)) {
    const own = section.schema['x-privilege'];
    if (own !== undefined && !PRIVILEGE_MARKS.includes(own as string))
      wrong.push(`${section.ref}: ${JSON.stringify(own)}`);
    const props: [string, JsonSchema][] = Object.entries(section.schema.properties ?? {});
    const extra = section.schema.additionalProperties;
    if (typeof extra === 'object') props.push(['<any key>', extra]);
    for (const [key, prop] of props) {
      const mark = prop['x-privilege'];
      if (mark === undefined && own === undefined) missing.push(`${section.ref}: ${key}`);
      if (mark !== undefined && !PRIVILEGE_MARKS.includes(mark as string))
        wrong.push(`${section.ref}: ${key} ${JSON.stringify(mark)}`);
    }
  }
  assert.deepEqual(missing, [], 'keys without "x-privilege"');
  assert.deepEqual(wrong, [], `marks other than ${PRIVILEGE_MARKS.join(', ')}`);
});

void test('keys that decide where a secret goes or how it is protected are class secrets', () => {
  const cases: [string, string][] = [
    ['/settings/NSCA/client/targets/default', 'address'],
    ['/settings/NSCA/client/targets/default', 'encryption'],
    ['/settings/NSCA/client/targets/default', 'password'],
    ['/settings/icinga/client/targets/default', 'address'],
    ['/settings/icinga/client/targets/default', 'server name'],
    ['/settings/icinga/client/targets/default', 'ca'],
    ['/settings/remote/client/targets/x', 'address'],
    ['/settings/agent/client/targets/x', 'verify mode'],
    ['/settings/remote/server', 'submit channel'],
    ['/settings/source', 'url'],
    ['/includes', 'base'],
    ['/settings/NSCA/client/targets', 'mine'],
  ];
  for (const [path, key] of cases) assert.ok(editClasses(path, key).includes('secrets'), `[${path}] ${key}`);
});

void test('keys that loosen a limit are class access', () => {
  const cases: [string, string][] = [
    ['/settings/WEB/server', 'auth rate limit max failures'],
    ['/settings/WEB/server', 'max body size'],
    ['/settings/WEB/server', 'timeout'],
    ['/settings/log', 'buffer size'],
    ['/settings/NSCA/client', 'queue size'],
    ['/settings/remote/server', 'max connections'],
    ['/settings/external scripts', 'max queued'],
    ['/settings/default', 'timeout'],
  ];
  for (const [path, key] of cases) assert.ok(editClasses(path, key).includes('access'), `[${path}] ${key}`);
});

void test('an ordinary key needs nothing more; a name the schema does not know needs every class', () => {
  assert.deepEqual(editClasses('/settings/log', 'level'), []);
  assert.deepEqual(editClasses('/settings/log', 'level', '${env:HOME}'), ['secrets']);
  assert.deepEqual(editClasses('/settings/log', 'no such key').sort(), ['access', 'exec', 'secrets']);
  assert.deepEqual(editClasses('/settings/nothing/here', 'x').sort(), ['access', 'exec', 'secrets']);
  assert.deepEqual(editClasses('/settings/nothing/here', undefined).sort(), ['access', 'exec', 'secrets']);
});
