// `npm run test:unit`: the fast inner loop. No root, no Debian packages, no C compiler: it compiles with
// tsc, bundles the agent (esbuild; the unit tests of the command line start it), and runs test/unit/ but
// the few files that need what only the C build makes (the script spawner, which every program a check
// starts goes through, and the rename-exchange addon). `npm test`, what CI runs, runs those too.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Unit test files left to `npm test`, with what they need of the C build. */
const NEEDS_C_BUILD = new Map([
  ['dist/test/unit/checks/scripts/spawner.test.js', 'the script spawner itself'],
  ['dist/test/unit/checks/scripts/script-query.test.js', 'scripts run through the script spawner'],
  ['dist/test/unit/checks/net/ping-check.test.js', 'ping run through the script spawner'],
  ['dist/test/unit/checks/system/recorded-checks.test.js', 'apt, postqueue and friends run through the script spawner'],
  ['dist/test/unit/checks/system/live-checks.test.js', 'apt (check_os_updates) run through the script spawner'],
  ['dist/test/unit/settings/checked-replace.test.js', 'the rename-exchange addon'],
  ['dist/test/unit/cli/heap-settle.test.js', 'the heap-settle addon'],
  [
    'dist/test/unit/settings/concurrent-writers.test.js',
    'the rename-exchange addon, which keeps concurrent edits apart',
  ],
]);

const step = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
step(['src/tools/prune-compiled.mjs']);
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
step(['src/tools/copy-generated.mjs']);
step(['src/tools/bundle.mjs']);

const files = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full);
    else if (e.name.endsWith('.test.js')) files.push(relative(root, full));
  }
};
walk(join(root, 'dist/test/unit'));
for (const [file, what] of NEEDS_C_BUILD)
  process.stdout.write(`test:unit leaves ${file} to npm test: it needs ${what}\n`);
const run = files.filter((f) => !NEEDS_C_BUILD.has(f)).sort();
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=60000', ...run], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
