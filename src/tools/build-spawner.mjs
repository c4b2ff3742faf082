// Part of `npm run build`: compiles the C script spawner (src/checks/scripts/spawner-c/) into
// dist/bin/script-spawner with the first of $CC, cc and gcc found in PATH. The spawner is the one
// way the agent starts scripts and host commands (docs/checks.md "How scripts are started"), so without a
// compiler, or when the compile fails, the build fails with what to install. The binary is
// written beside its final name and renamed, so an agent running the old one is not disturbed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCompiler } from './c-compiler.mjs';
import { compileSpawner } from './c-parts.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'dist/bin/script-spawner');

const compiler = findCompiler();
if (compiler === undefined) {
  // A spawner left from an earlier build would be run against sources it was not built from.
  rmSync(out, { force: true });
  console.error(
    'build-spawner: no C compiler (cc, gcc, or $CC) found: the script spawner, which starts every script and host command of the agent, cannot be built. Install one (Debian: apt-get install gcc libc6-dev) and run npm run build again',
  );
  process.exit(1);
} else {
  const failed = compileSpawner(compiler, out);
  if (failed !== undefined) {
    console.error(
      `build-spawner: ${compiler} could not build the script spawner, which starts every script and host command of the agent:\n${failed}`,
    );
    process.exit(1);
  }
}
