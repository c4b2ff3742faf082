/**
 * The script spawner the agent starts (docs/checks.md "How scripts are started"):
 * the C program of spawner-c/, which `npm run build` compiles into
 * dist/bin/script-spawner (the build fails with a clear error where there
 * is no C compiler) and the package installs. It is the only way the agent
 * starts programs: measured on Node 24, a script over NRPE cost about half
 * the CPU through it than forked by the agent itself (README).
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/** Where the build puts the C spawner. */
export const C_SPAWNER = join(PACKAGE_ROOT, 'dist/bin/script-spawner');

/** The spawner to start (`program` replaces the built one: tests), or why there is none. */
export function spawnerProgram(program?: string): string | { none: string } {
  const file = program ?? C_SPAWNER;
  if (program !== undefined || executable(file)) return file;
  return {
    none: `no script spawner at ${C_SPAWNER}: npm run build builds it (it needs a C compiler: apt-get install gcc); the package ships it`,
  };
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
