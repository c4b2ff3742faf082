// Part of `npm run build`: compiles the agent's Node-API addons (c-parts.mjs says which and what
// each does) into dist/bin/ against the Node-API headers of the node that runs the build (the
// runtime package's include/node, or the system's /usr/include/node). Each is optional: without
// a compiler or headers the build says so in one line and carries on, and the agent uses its
// fallback. Written beside their final names and renamed, like the spawner.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCompiler } from './c-compiler.mjs';
import { ADDONS, compileAddon } from './c-parts.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const headers = [join(dirname(dirname(process.execPath)), 'include/node'), '/usr/include/node'].find((d) =>
  existsSync(join(d, 'node_api.h')),
);
const compiler = findCompiler();
for (const addon of ADDONS) {
  const out = join(root, `dist/bin/${addon.name}.node`);
  if (compiler === undefined || headers === undefined) {
    rmSync(out, { force: true });
    const missing = compiler === undefined ? 'no C compiler (cc, gcc)' : 'no Node-API headers (node_api.h)';
    console.log(`build-addons: ${missing} found: the ${addon.name} addon is not built; ${addon.fallback}`);
    continue;
  }
  const failed = compileAddon(compiler, headers, addon, out);
  if (failed !== undefined)
    console.log(`build-addons: ${compiler} could not build the ${addon.name} addon:\n${failed}`);
}
