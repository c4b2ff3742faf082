/**
 * Every file of src/ belongs to exactly one layer (issue 42, item 6): the
 * list of src/tools/layers.cjs, which .dependency-cruiser.cjs builds its
 * rules from, so a new file outside every layer cannot slip past the gate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

const layers = createRequire(import.meta.url)(join(REPO, 'src/tools/layers.cjs')) as [string, string][];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [relative(REPO, join(dir, e.name))],
  );
}

void test('every file of src/ is in exactly one layer', () => {
  const files = filesUnder(join(REPO, 'src'));
  assert.ok(files.length > 300, `${files.length} files`);
  const wrong = files
    .map((f) => ({ f, in: layers.filter(([, p]) => new RegExp(p).test(f)).map(([n]) => n) }))
    .filter((x) => x.in.length !== 1);
  assert.deepEqual(
    wrong.map((x) => `${x.f}: ${x.in.join(', ') || 'no layer'}`),
    [],
  );
});
