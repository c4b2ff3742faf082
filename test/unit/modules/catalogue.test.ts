/**
 * The catalogue's `queries` lists (what settings validation checks aliases
 * against) equal what each module really registers: every module that
 * registers queries is started in a real core on real settings and its
 * queries are compared with its entry. A module that adds a query must add
 * it to its catalogue entry too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogue } from '../../../src/modules/catalogue.js';
import { startLocalCore } from '../../../src/cli/local-core.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Modules whose queries come only from the file (scripts, aliases) or that register none. */
const NO_FIXED_QUERIES = new Set(['CheckExternalScripts', 'WEBServer']);

for (const entry of catalogue()) {
  if (NO_FIXED_QUERIES.has(entry.name)) {
    void test(`catalogue: ${entry.name} lists no fixed queries`, () => assert.deepEqual(entry.queries, []));
    continue;
  }
  void test(`catalogue: ${entry.name} lists exactly the queries it registers`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
    const loaded = loadSettingsText(
      `[/modules]
${entry.name} = enabled
[/settings/remote/server]
port = 0
bind to = 127.0.0.1
[/settings/agent/server]
port = 0
bind to = 127.0.0.1
`,
      join(dir, 'agent.ini'),
    );
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.problems));
    const local = await startLocalCore(loaded.snapshot, { modules: [entry.name] });
    try {
      assert.deepEqual(local.failed, []);
      const registered = local.core
        .listQueries()
        .filter((q) => q.module === entry.name)
        .map((q) => q.name)
        .sort();
      assert.deepEqual(registered, [...entry.queries].sort());
    } finally {
      await local.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
