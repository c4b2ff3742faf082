// The tree of one package of `npm run package` (package.mjs), for one architecture: what goes
// under /usr/lib/config-agent (the agent as `npm run build` made it, with that architecture's
// runtime, C parts and code cache), the command, the settings, the service and the documentation,
// then DEBIAN/ and the .deb and .tar.gz of it. The parts that differ per architecture come from
// the target: { arch, runtime (a folder holding bin/node and LICENSE), strip (the strip program
// for its binaries), putCParts(lib), putCodeCache(lib) }.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { C_PARTS } from './c-parts.mjs';
import { bundleFiles } from './code-cache.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packaging = join(root, 'src/packaging');

/** Copies `from` (a file) to `to` under the stage with `mode`, making its folder. */
export function put(from, to, mode = 0o644) {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  chmodSync(to, mode);
}

/** Writes `text` to `to` under the stage with `mode`. */
export function write(to, text, mode = 0o644) {
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, text);
  chmodSync(to, mode);
}

/**
 * Lays out /usr/lib/config-agent of `target` in `stage`: the agent as in a checkout, so that the
 * same code finds its files (package-root.ts looks for the nearest package.json), the runtime,
 * the C parts, stripped, the dependencies the bundle loads from node_modules, then the code cache
 * (last: the arm64 one is made by starting this very tree).
 */
export async function layOutLib({ stage, name, version, pkg, target }) {
  const lib = join(stage, 'usr/lib', name);
  write(
    join(lib, 'package.json'),
    `${JSON.stringify({ name, version, private: true, description: pkg.description, license: pkg.license }, null, 2)}\n`,
  );
  // The launcher is run by the package's own runtime (/usr/bin/config-agent), never as a script of
  // its own: no #! line, not executable.
  write(join(lib, 'dist/agent.cjs'), readFileSync(join(root, 'dist/agent.cjs'), 'utf8').replace(/^#!.*\n/, ''));
  // Every bundle file (main.cjs, on-demand.cjs: src/tools/bundle-split.mjs); their caches come from putCodeCache.
  for (const bundle of bundleFiles(join(root, 'dist/agent'))) put(bundle, join(lib, 'dist/agent', basename(bundle)));
  cpSync(join(root, 'src/web/ui'), join(lib, 'src/web/ui'), { recursive: true });
  cpSync(join(root, 'schema'), join(lib, 'schema'), { recursive: true });
  put(join(target.runtime, 'bin/node'), join(lib, 'bin/node'), 0o755);
  target.putCParts(lib);
  for (const part of C_PARTS) chmodSync(join(lib, part.path), part.mode);
  // Symbols and debug information (a fifth of the runtime's size) are no use on a host.
  for (const binary of ['bin/node', ...C_PARTS.map((p) => p.path)])
    execFileSync(target.strip, [
      '--strip-unneeded',
      '--remove-section=.comment',
      '--remove-section=.note',
      join(lib, binary),
    ]);
  await bundleDependencies(lib);
  await target.putCodeCache(lib);
  return lib;
}

/**
 * The packages the bundle loads from node_modules when first needed (src/tools/bundle.mjs keeps
 * them out): selfsigned (creates a missing certificate) and re2js (the linear-time pattern
 * engine), each bundled here into one file with what it depends on.
 */
async function bundleDependencies(lib) {
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
}

/** The command, the settings, the service and the documentation (the man page, `manPageGz`, made once for all). */
export function layOutRest({ stage, name, version, target, manPageGz, date }) {
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
  // The drop-in folder (settings/store/drop-ins.ts): a configuration tool or `config-agent settings import` writes here.
  mkdirSync(join(stage, 'etc/config-agent/conf.d'), { recursive: true });
  chmodSync(join(stage, 'etc/config-agent/conf.d'), 0o750);
  put(join(packaging, 'config-agent.service'), join(stage, 'lib/systemd/system/config-agent.service'));
  put(join(packaging, 'sysusers.conf'), join(stage, 'usr/lib/sysusers.d/config-agent.conf'));
  put(join(packaging, 'tmpfiles.conf'), join(stage, 'usr/lib/tmpfiles.d/config-agent.conf'));
  // Not active as shipped: the drop-in an admin copies to /etc/systemd/system/config-agent.service.d/
  // so that scripts may run sudo (docs/operations.md, "Running as a service"; docs/migration.md).
  put(join(packaging, 'allow-sudo.conf'), join(stage, 'usr/share/config-agent/allow-sudo.conf'));

  // Documentation: the man page, the copyright file, the changelog, node's licence.
  write(join(stage, 'usr/share/man/man1/config-agent.1.gz'), manPageGz);
  const doc = join(stage, 'usr/share/doc', name);
  put(join(packaging, 'debian/copyright'), join(doc, 'copyright'));
  // Every key with its default and meaning, made from the schemas by npm run gen (config-agent settings defaults).
  put(join(root, 'settings/agent.ini.reference'), join(doc, 'agent.ini.reference'));
  put(join(target.runtime, 'LICENSE'), join(doc, 'node-LICENSE'));
  const changelog = `${name} (${version}) unstable; urgency=medium\n\n  * Release ${version}; see the README for what it holds.\n\n -- config-agent developers <config-agent@users.noreply.github.com>  ${date.toUTCString().replace(/GMT$/, '+0000')}\n`;
  write(join(doc, 'changelog.gz'), gzipSync(changelog, { level: 9 }));
  put(join(packaging, 'debian/lintian-overrides'), join(stage, 'usr/share/lintian/overrides', name));
}

/** DEBIAN/ of the stage (control, conffiles, maintainer scripts, md5sums); returns the installed size in KiB. */
export function writeDebian({ stage, name, version, arch }) {
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
  return installedKb;
}

/** The .deb of the stage (dpkg-deb, xz at `level`) and a .tar.gz of its tree without DEBIAN/, beside it in `outDir`. */
export function writeArchives({ stage, outDir, base, level }) {
  const deb = join(outDir, `${base}.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', `-z${level}`, '--build', stage, deb], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = join(outDir, `${base}.tar.gz`);
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
  return [deb, tarball];
}
