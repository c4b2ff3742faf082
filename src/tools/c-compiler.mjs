// Compiling C in the build (build-spawner.mjs, build-addons.mjs) and for the arm64 package
// (package-arm64.mjs): finding the compiler (for the build the first of $CC, cc and gcc found in
// PATH; an absolute $CC as is), Debian's hardening flags, and one compile written beside its
// final name and renamed, so a running agent's copy is never half written.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** The first of $CC, cc and gcc found in PATH (an absolute $CC as is); undefined when there is none. */
export function findCompiler() {
  return findProgram([process.env.CC, 'cc', 'gcc']);
}

/** The first of `names` (skipping undefined and empty ones) that is an executable in PATH, or absolute and executable. */
export function findProgram(names) {
  for (const name of names.filter((n) => n !== undefined && n !== '')) {
    const candidates = isAbsolute(name)
      ? [name]
      : (process.env.PATH ?? '')
          .split(delimiter)
          .filter((d) => d !== '')
          .map((d) => join(d, name));
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

/**
 * Compiles `sources` with `flags` into `out`. Returns undefined when it worked; otherwise removes
 * `out` (a binary left from an earlier build would not match its sources) and returns the first
 * lines of what the compiler said.
 */
export function compileC(compiler, flags, sources, out) {
  const tmp = `${out}.${process.pid}.tmp`;
  mkdirSync(dirname(out), { recursive: true });
  try {
    execFileSync(
      compiler,
      ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', ...HARDENING_FLAGS, ...flags, '-o', tmp, ...sources],
      { stdio: ['ignore', 'inherit', 'pipe'] },
    );
    renameSync(tmp, out);
    return undefined;
  } catch (err) {
    rmSync(tmp, { force: true });
    rmSync(out, { force: true });
    return String(err.stderr ?? err.message)
      .trim()
      .split('\n')
      .slice(0, 20)
      .join('\n');
  }
}
