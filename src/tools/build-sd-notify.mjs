// Part of `npm run build`: compiles the agent's sd_notify addon (src/cli/sd-notify-c/) into
// dist/bin/sd-notify.node against the Node-API headers of the node that runs the build (the
// runtime package's include/node, or the system's /usr/include/node). Without a compiler or
// headers the build says so in one line and carries on: under systemd the agent then tells its
// state through `systemd-notify`, which a unit accepts only with NotifyAccess=all (README
// "Running as a service"). Written beside its final name and renamed, like the spawner.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileC, findCompiler } from './c-compiler.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const source = join(root, 'src/cli/sd-notify-c/sd-notify.c');
const out = join(root, 'dist/bin/sd-notify.node');

const headers = [join(dirname(dirname(process.execPath)), 'include/node'), '/usr/include/node'].find((d) =>
  existsSync(join(d, 'node_api.h')),
);
const compiler = findCompiler();
if (compiler === undefined || headers === undefined) {
  rmSync(out, { force: true });
  const missing = compiler === undefined ? 'no C compiler (cc, gcc)' : 'no Node-API headers (node_api.h)';
  console.log(
    `build-sd-notify: ${missing} found: the sd_notify addon is not built; under systemd the agent falls back to systemd-notify`,
  );
} else {
  const failed = compileC(compiler, ['-shared', '-fPIC', '-I', headers], [source], out);
  if (failed !== undefined) console.log(`build-sd-notify: ${compiler} could not build the sd_notify addon:\n${failed}`);
}
