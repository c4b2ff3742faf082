// The agent's C parts, what each is built from and how: the script spawner and the Node-API
// addons. `npm run build` builds them for this machine into dist/bin/ (build-spawner.mjs,
// build-addons.mjs); `npm run package` ships them, and builds them again for the arm64 package
// (package-arm64.mjs).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileC } from './c-compiler.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The addons, each optional in a checkout (the agent has a fallback, named here) and shipped by
 * the package:
 *   sd-notify (src/cli/sd-notify-c/): tells systemd the agent's state from the agent's own
 *     process; without it, `systemd-notify`, which a unit accepts only with NotifyAccess=all.
 *   no-dump (src/cli/no-dump-c/): marks the agent non-dumpable, so that scripts of its own user
 *     cannot read /proc/<agent>/environ; without it, they can (the agent says so at start).
 *   rename-exchange (src/settings/store/rename-exchange-c/): the settings writer's checked replace;
 *     without it, a plain rename, which can overwrite a hand save that lands in the moment between
 *     the writer's last check and its rename.
 *   heap-settle (src/cli/heap-settle-c/): malloc's large blocks mapped on their own from the
 *     launcher's first line, and malloc_trim after the start's garbage collection; without it,
 *     glibc's sliding threshold, and about 1.5 MB more resident memory at idle.
 *   bundle-read (src/cli/bundle-read-c/): the launcher's read of the bundle (its source kept
 *     outside V8's heap, not copied into it) and of its code cache (mapped); without it, fs.
 */
export const ADDONS = [
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
    source: 'src/settings/store/rename-exchange-c/rename-exchange.c',
    fallback: 'settings edits replace the file with a plain rename',
  },
  {
    name: 'heap-settle',
    source: 'src/cli/heap-settle-c/heap-settle.c',
    fallback: "malloc keeps glibc's sliding mmap threshold and is not trimmed after the start",
  },
  {
    name: 'bundle-read',
    source: 'src/cli/bundle-read-c/bundle-read.c',
    fallback: 'the launcher reads the bundle and its code cache with fs (about 1 ms more per start)',
  },
];

/** Compiles the script spawner (src/checks/scripts/spawner-c/*.c) into `out`; undefined, or what the compiler said. */
export function compileSpawner(compiler, out) {
  const dir = join(root, 'src/checks/scripts/spawner-c');
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => join(dir, f));
  return compileC(compiler, ['-fPIE', '-pie'], sources, out);
}

/**
 * Compiles `addon` (one of ADDONS) into `out` against the Node-API headers in `headers` (a folder
 * holding node_api.h); undefined, or what the compiler said. An addon links against nothing:
 * node resolves its napi_* calls when it loads it.
 */
export function compileAddon(compiler, headers, addon, out) {
  return compileC(compiler, ['-shared', '-fPIC', '-I', headers], [join(root, addon.source)], out);
}

/**
 * Every C part by its path under the package root, as the agent looks for it (the spawner, then
 * the addons), with its mode in a package (a program, or a library node loads) and how to build
 * it: compile(compiler, headers, out) returns undefined when it worked, or what the compiler said.
 */
export const C_PARTS = [
  { path: 'dist/bin/script-spawner', mode: 0o755, compile: (compiler, _headers, out) => compileSpawner(compiler, out) },
  ...ADDONS.map((addon) => ({
    path: `dist/bin/${addon.name}.node`,
    mode: 0o644,
    compile: (compiler, headers, out) => compileAddon(compiler, headers, addon, out),
  })),
];
