// Part of `npm run build`: compiles the agent's Node-API addons into dist/bin/ against the
// Node-API headers of the node that runs the build (the runtime package's include/node, or the
// system's /usr/include/node). Each is optional: without a compiler or headers the build says so
// in one line and carries on, and the agent uses its fallback (named below). Written beside
// their final names and renamed, like the spawner.
//   sd-notify.node (src/cli/sd-notify-c/): tells systemd the agent's state from the agent's own
//     process; without it, `systemd-notify`, which a unit accepts only with NotifyAccess=all.
//   no-dump.node (src/cli/no-dump-c/): marks the agent non-dumpable, so that scripts of its own
//     user cannot read /proc/<agent>/environ; without it, they can (the agent says so at start).
//   rename-exchange.node (src/settings/rename-exchange-c/): the settings writer's checked
//     replace; without it, a plain rename, which can overwrite a hand save that lands in the
//     moment between the writer's last check and its rename.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileC, findCompiler } from './c-compiler.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const addons = [
  {
    name: 'sd-notify',
    source: 'src/cli/sd-notify-c/sd-notify.c',
    fallback: 'under systemd the agent falls back to systemd-notify',
  },
  {
    name: 'no-dump',
    source: 'src/cli/no-dump-c/no-dump.c',
    fallback: 'the agent stays dumpable: scripts of its user can read /proc/<agent>/environ',
  },
  {
    name: 'rename-exchange',
    source: 'src/settings/rename-exchange-c/rename-exchange.c',
    fallback: 'settings edits replace the file with a plain rename',
  },
];

const headers = [join(dirname(dirname(process.execPath)), 'include/node'), '/usr/include/node'].find((d) =>
  existsSync(join(d, 'node_api.h')),
);
const compiler = findCompiler();
for (const addon of addons) {
  const out = join(root, `dist/bin/${addon.name}.node`);
  if (compiler === undefined || headers === undefined) {
    rmSync(out, { force: true });
    const missing = compiler === undefined ? 'no C compiler (cc, gcc)' : 'no Node-API headers (node_api.h)';
    console.log(`build-addons: ${missing} found: the ${addon.name} addon is not built; ${addon.fallback}`);
    continue;
  }
  const failed = compileC(compiler, ['-shared', '-fPIC', '-I', headers], [join(root, addon.source)], out);
  if (failed !== undefined)
    console.log(`build-addons: ${compiler} could not build the ${addon.name} addon:\n${failed}`);
}
