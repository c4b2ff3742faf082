// Part of `npm run build`: compiles the C script spawner (src/checks/scripts/spawner-c/) into
// dist/bin/script-spawner with the first of $CC, cc and gcc found in PATH. Without a compiler,
// or when the compile fails, the build says so in one line and carries on: the agent then starts
// scripts through the Perl spawner (README "How scripts are started"). The binary is written
// beside its final name and renamed, so an agent running the old one is not disturbed.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileC, findCompiler } from './c-compiler.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sourceDir = join(root, 'src/checks/scripts/spawner-c');
const out = join(root, 'dist/bin/script-spawner');

const compiler = findCompiler();
if (compiler === undefined) {
  // A spawner left from an earlier build would be run against sources it was not built from.
  rmSync(out, { force: true });
  console.log('build-spawner: no C compiler (cc, gcc) found: the C script spawner is not built; scripts start through the Perl spawner');
} else {
  const sources = readdirSync(sourceDir).filter((f) => f.endsWith('.c')).sort().map((f) => join(sourceDir, f));
  const failed = compileC(compiler, ['-fPIE', '-pie'], sources, out);
  if (failed !== undefined) console.log(`build-spawner: ${compiler} could not build the C script spawner; scripts start through the Perl spawner:\n${failed}`);
}
