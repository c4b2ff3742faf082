/**
 * Which script spawner the agent starts (README "How scripts are started"):
 * the C one (spawner-c/, built into dist/bin/script-spawner by `npm run
 * build` when a compiler is found), else the Perl one (spawner-source.ts),
 * else none: the agent forks the scripts itself (runner.ts).
 * AGENT_SCRIPT_SPAWNER=c|perl|agent in the agent's environment forces one;
 * a forced spawner that is not there means the agent forks them itself.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

export type SpawnerKind = 'c' | 'perl' | 'agent';

/** A spawner to start: its kind and its executable. */
export interface SpawnerProgram {
  kind: 'c' | 'perl';
  file: string;
}

/** Where the build puts the C spawner. */
export const C_SPAWNER = join(PACKAGE_ROOT, 'dist/bin/script-spawner');

/** The kind AGENT_SCRIPT_SPAWNER asks for: undefined when unset or empty, the value itself when it is none of the kinds. */
export function spawnerKindOf(value: string | undefined): SpawnerKind | undefined | { unknown: string } {
  if (value === undefined || value === '') return undefined;
  return value === 'c' || value === 'perl' || value === 'agent' ? value : { unknown: value };
}

/**
 * The spawners to try, best first (the next is tried when one cannot
 * start), or why there is none. `program` and `perl` replace the built C
 * spawner and the perl found in PATH, `/usr/bin` or `/bin` (tests).
 */
export function spawnerCandidates(kind: SpawnerKind | undefined, paths: { program?: string; perl?: string } = {}): SpawnerProgram[] | { none: string } {
  if (kind === 'agent') return { none: 'AGENT_SCRIPT_SPAWNER=agent' };
  const out: SpawnerProgram[] = [];
  const c = paths.program ?? (executable(C_SPAWNER) ? C_SPAWNER : undefined);
  if (kind !== 'perl' && c !== undefined) out.push({ kind: 'c', file: c });
  const perl = paths.perl ?? findPerl();
  if (kind !== 'c' && perl !== undefined) out.push({ kind: 'perl', file: perl });
  if (out.length > 0) return out;
  const noC = `no C script spawner at ${C_SPAWNER} (built by npm run build when a C compiler is found)`;
  const noPerl = 'no perl found in PATH, /usr/bin or /bin';
  if (kind === 'c') return { none: `AGENT_SCRIPT_SPAWNER=c, but ${noC}` };
  if (kind === 'perl') return { none: `AGENT_SCRIPT_SPAWNER=perl, but ${noPerl}` };
  return { none: `${noC} and ${noPerl}` };
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let perlPath: string | null | undefined;

function findPerl(): string | undefined {
  if (perlPath === undefined) {
    const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d.startsWith('/')), '/usr/bin', '/bin'];
    perlPath = dirs.map((d) => join(d, 'perl')).find(executable) ?? null;
  }
  return perlPath ?? undefined;
}
