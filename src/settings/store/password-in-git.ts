/**
 * AGENT_WARN_PASSWORD_IN_GIT: a password written in plain text (the value of a key the schema
 * marks x-secret, neither `${file:}`/`${env:}` nor a pbkdf2-sha256 hash) in a settings file
 * that git tracks. Whether git tracks a file is asked of git itself (`git ls-files
 * --error-unmatch`), only for a file that holds such a password and lies in a git work tree
 * (a `.git` above it); without git, or when git refuses to answer, nothing is reported. The
 * verdict is kept per file until the file changes (a fleet of hosts that share a base asks once).
 *
 * It runs git, a subprocess that blocks the thread, so it is no part of a load (the model's
 * compile runs no subprocess, and a reload must not stall the agent): `config-agent settings
 * validate` asks it of each valid file (passwordsInGit), where CI and admins look.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Origin, ResolvedObject, Snapshot } from '../model/snapshot.js';
import { problem, type SettingsProblem } from '../model/problem.js';
import { loadSchemaSet } from '../model/schema-set.js';
import { maskSecrets, secretKeyTest } from '../model/secrets.js';

export interface PasswordInGitInput {
  sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  origins: Readonly<Record<string, Readonly<Record<string, Origin>>>>;
  /** Users and client targets: objects whose keys may be secret. */
  objects: readonly ReadonlyMap<string, ResolvedObject>[];
  /** Which keys of the section or object at a path are x-secret (settings/model/secrets.ts secretKeyTest). */
  secretKeys: (path: string) => ((key: string) => boolean) | undefined;
}

/** The warnings of a loaded snapshot's files: its passwords, its web users' and its client targets'. */
export function passwordsInGit(snapshot: Snapshot): SettingsProblem[] {
  const set = loadSchemaSet();
  const { targets } = snapshot;
  const found = passwordInGitWarnings({
    sections: snapshot.sections,
    origins: snapshot.origins,
    objects: [snapshot.users, targets.agent, targets.remote, targets.nsca, targets.icinga],
    secretKeys: (path) => secretKeyTest(set.find(path)?.section.schema),
  });
  // As a load masks its problems: no message shows a secret value.
  for (const p of found) p.message = maskSecrets(p.message, snapshot.secretValues);
  return found;
}

/** One warning per line that writes a plain-text password in a file git tracks. */
export function passwordInGitWarnings(input: PasswordInGitInput): SettingsProblem[] {
  const found = new Map<string, Origin>();
  const consider = (o: Origin | undefined, value: unknown): void => {
    if (
      o === undefined ||
      o.secret === true ||
      typeof value !== 'string' ||
      value === '' ||
      value.startsWith('pbkdf2-sha256$')
    )
      return;
    found.set(`${o.file}:${o.line}:${o.col}`, o);
  };
  for (const [path, byKey] of Object.entries(input.origins)) {
    const test = input.secretKeys(path);
    if (test) for (const [key, o] of Object.entries(byKey)) if (test(key)) consider(o, input.sections[path]?.[key]);
  }
  for (const map of input.objects) {
    // Every object of a container has the same schema: its test is looked up once (a fleet has thousands of targets).
    const tests = new Map<string, ((key: string) => boolean) | undefined>();
    for (const obj of map.values()) {
      const path = obj.path.endsWith(`/${obj.name}`) ? obj.path : `${obj.path}/${obj.name}`;
      const container = path.slice(0, path.length - obj.name.length - 1);
      if (!tests.has(container)) tests.set(container, input.secretKeys(path));
      const test = tests.get(container);
      if (test) for (const [key, o] of Object.entries(obj.origins)) if (test(key)) consider(o, obj.values[key]);
    }
  }
  const out: SettingsProblem[] = [];
  for (const o of found.values()) {
    if (!trackedByGit(o.file)) continue;
    out.push(
      problem('AGENT_WARN_PASSWORD_IN_GIT', [o.key, basename(o.file)], {
        file: o.file,
        line: o.line,
        col: o.col,
        section: o.section,
        key: o.key,
      }),
    );
  }
  return out;
}

/** Verdicts by file, with the file's mtime and size when asked. */
const verdicts = new Map<string, { stamp: string; tracked: boolean }>();

/** True when `file` lies in a git work tree and git tracks it. */
function trackedByGit(file: string): boolean {
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${st.mtimeMs}:${st.size}`;
  } catch {
    return false;
  }
  const known = verdicts.get(file);
  if (known?.stamp === stamp) return known.tracked;
  const tracked = inWorkTree(dirname(file)) && gitLists(file);
  if (verdicts.size >= 1000) verdicts.clear();
  verdicts.set(file, { stamp, tracked });
  return tracked;
}

/**
 * True when `file` lies in a git work tree where git would not ignore it (`git check-ignore`):
 * a secret kept there could be committed by `git add .`.
 */
export function gitMayCommit(file: string): boolean {
  if (!inWorkTree(dirname(file))) return false;
  try {
    execFileSync('git', ['-C', dirname(file), 'check-ignore', '-q', '--', basename(file)], {
      stdio: 'ignore',
      timeout: 5000,
    });
    return false;
  } catch (err) {
    // exit 1: not ignored; anything else (no git, a refused folder): nothing known
    return (err as { status?: number }).status === 1;
  }
}

/** A `.git` (folder, or file of a linked work tree) in `dir` or a folder above it. */
function inWorkTree(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

function gitLists(file: string): boolean {
  try {
    execFileSync('git', ['-C', dirname(file), 'ls-files', '--error-unmatch', '--', basename(file)], {
      stdio: 'ignore',
      timeout: 5000,
    });
    return true;
  } catch {
    // not tracked, git not installed, or git refuses this folder (safe.directory): no warning
    return false;
  }
}
