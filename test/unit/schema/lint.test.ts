/**
 * Lint the hand-written schemas themselves: every property has a
 * one-sentence description, `additionalProperties` is stated wherever
 * `properties` appears, each node has one type, defaults match their type,
 * a `pattern` comes with an `x-pattern-hint` that says it in words,
 * and every section schema is registered in settings.schema.json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSchemaSet, packageRoot, type JsonSchema } from '../../../src/settings/model/schema-set.js';

const set = loadSchemaSet();

function walk(node: JsonSchema, path: string, visit: (n: JsonSchema, p: string) => void): void {
  visit(node, path);
  for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, `${path}.properties["${k}"]`, visit);
  if (typeof node.additionalProperties === 'object')
    walk(node.additionalProperties, `${path}.additionalProperties`, visit);
}

for (const [id, schema] of set.files) {
  void test(`schema ${id} passes the lint`, () => {
    assert.equal(typeof schema.title, 'string', `${id}: title`);
    assert.ok((schema.description ?? '').length > 10, `${id}: description`);
    walk(schema, id, (n, p) => {
      assert.equal(typeof n.type, 'string', `${p}: exactly one type`);
      if (n.properties) assert.ok('additionalProperties' in n, `${p}: additionalProperties stated`);
      if (p !== id) assert.match(n.description ?? '', /^[A-Z0-9$[(].{8,}[.?!)]$/s, `${p}: one-sentence description`);
      const hint = (n as Record<string, unknown>)['x-pattern-hint'];
      if (n.pattern !== undefined)
        assert.match(
          typeof hint === 'string' ? hint : '',
          /^must .{8,}/,
          `${p}: a pattern needs an x-pattern-hint for its message`,
        );
      if (n.default !== undefined) {
        const t = n.type === 'integer' ? 'number' : n.type;
        assert.equal(typeof n.default, t, `${p}: default has the node's type`);
      }
    });
  });
}

void test('every schema file under schema/modules is registered', () => {
  const files = readdirSync(join(packageRoot(), 'schema/modules')).map((f) => `modules/${f}`);
  for (const f of files) assert.ok(set.files.has(f), `${f} is not referenced by schema/settings.schema.json`);
});
