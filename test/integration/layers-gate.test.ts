/**
 * The layer gate fails on an upward import (issue 42, item 6): a copy of
 * src/ with one file of the formats layer importing the web layer (a type
 * import, which counts too) is refused by `npm run check:layers`'s
 * dependency-cruiser run, naming the rule; the copy as it is passes. So is
 * the settings source importing core (its status types live beside it), the
 * store importing the source above it, and the reconciler importing the
 * source (issue 42, item 1: the reconciler touches no settings file).
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

// Each probe is a file written into the copy, with the violation the gate must report for it.
const probes: { file: string; text: string; reported: RegExp }[] = [
  {
    file: 'src/formats/upward-probe.ts',
    text: "import type { WebRequest } from '../web/respond.js';\nexport type Probe = WebRequest;\n",
    reported: /no-upward-from-formats: src\/formats\/upward-probe\.ts → src\/web\/respond\.ts/,
  },
  {
    file: 'src/settings/source/upward-probe.ts',
    text: "import type { ReconcilerStatus } from '../../core/control.js';\nexport type Probe = ReconcilerStatus;\n",
    reported: /no-upward-from-settings-source: src\/settings\/source\/upward-probe\.ts → src\/core\/control\.ts/,
  },
  {
    file: 'src/settings/store/upward-probe.ts',
    text: "import type { SourceConfig } from '../source/source-config.js';\nexport type Probe = SourceConfig;\n",
    reported:
      /no-upward-from-settings-store: src\/settings\/store\/upward-probe\.ts → src\/settings\/source\/source-config\.ts/,
  },
  {
    file: 'src/reconciler/files-probe.ts',
    text: "import type { CachedPull } from '../settings/source/source-cache.js';\nexport type Probe = CachedPull;\n",
    reported:
      /reconciler-reads-no-settings-files: src\/reconciler\/files-probe\.ts → src\/settings\/source\/source-cache\.ts/,
  },
];

void test(
  'an upward import (formats -> web, settings source -> core, store -> source) or the reconciler reaching the settings source fails the gate; the tree as it is passes',
  { timeout: 240_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-gate-'));
    try {
      for (const p of ['src', 'tsconfig.json', '.dependency-cruiser.cjs'])
        cpSync(join(REPO, p), join(dir, p), { recursive: true });
      const clean = await depcruise(dir);
      assert.equal(clean.code, 0, clean.out);
      for (const probe of probes) writeFileSync(join(dir, probe.file), probe.text);
      const upward = await depcruise(dir);
      assert.notEqual(upward.code, 0, upward.out);
      for (const probe of probes) assert.match(upward.out, probe.reported);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
