/**
 * The layer gate fails on an upward import (issue 42, item 6): a copy of
 * src/ with one file of the formats layer importing the web layer (a type
 * import, which counts too) is refused by `npm run check:layers`'s
 * dependency-cruiser run, naming the rule; the copy as it is passes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

function depcruise(cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      join(REPO, 'node_modules/.bin/depcruise'),
      ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
      { cwd, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

void test(
  'an upward import (formats -> web) fails the gate; the tree as it is passes',
  { timeout: 240_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-gate-'));
    try {
      for (const p of ['src', 'tsconfig.json', '.dependency-cruiser.cjs'])
        cpSync(join(REPO, p), join(dir, p), { recursive: true });
      const clean = await depcruise(dir);
      assert.equal(clean.code, 0, clean.out);
      writeFileSync(
        join(dir, 'src/formats/upward-probe.ts'),
        "import type { WebRequest } from '../web/respond.js';\nexport type Probe = WebRequest;\n",
      );
      const upward = await depcruise(dir);
      assert.notEqual(upward.code, 0, upward.out);
      assert.match(upward.out, /no-upward-from-formats: src\/formats\/upward-probe\.ts → src\/web\/respond\.ts/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
