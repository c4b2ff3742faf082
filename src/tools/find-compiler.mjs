// The C compiler of the build: the first of $CC, cc and gcc found in PATH (an absolute $CC as is),
// or undefined. Shared by the build steps that compile C (build-spawner.mjs, build-sd-notify.mjs).
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export function findCompiler() {
  const names = [process.env.CC, 'cc', 'gcc'].filter((n) => n !== undefined && n !== '');
  for (const name of names) {
    const candidates = isAbsolute(name) ? [name] : (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, name));
    for (const file of candidates) {
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** Debian's hardening flags, for what the package ships (fortified libc calls, stack protector, read-only relocations). */
export const HARDENING_FLAGS = ['-D_FORTIFY_SOURCE=2', '-fstack-protector-strong', '-Wl,-z,relro,-z,now'];
