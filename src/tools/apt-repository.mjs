// The signed apt repository that `npm run package` writes beside the .deb (dist/package/apt/),
// made with Debian's own tools: apt-ftparchive (apt-utils) for the indexes and the Release file,
// gpg for InRelease and Release.gpg. Publish the folder with any web server; hosts add
//   deb [signed-by=/usr/share/keyrings/config-agent-archive-keyring.gpg] http://HOST/PATH stable main
// after copying config-agent-archive-keyring.gpg (the public key, binary) to that path.
//
// The signing key: AGENT_APT_GNUPGHOME names the GnuPG home that holds it (default dist/apt-key/,
// beside dist/package/ so that a rebuild keeps it), AGENT_APT_KEY_ID which key of it signs. With
// neither key id nor a secret key in the home, the first build makes one (ed25519, no passphrase):
// keep that folder, since hosts trust that key alone.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

export const SUITE = 'stable';
export const COMPONENT = 'main';
export const KEYRING = 'config-agent-archive-keyring.gpg';

/**
 * Writes the repository for the .deb files in `outDir` into `outDir/apt` (pool/, dists/SUITE/,
 * the exported public key) and signs its Release; returns the signing key's fingerprint.
 * Throws when a tool fails or AGENT_APT_GNUPGHOME holds several secret keys and no key id picks one.
 */
export function writeAptRepository({ name, outDir, defaultGnupgHome }) {
  const given = process.env.AGENT_APT_GNUPGHOME;
  const gnupgHome = given || defaultGnupgHome;
  const gpg = (args, options = {}) =>
    execFileSync('gpg', ['--batch', '--quiet', '--homedir', gnupgHome, ...args], { timeout: 60_000, ...options });
  const fingerprint = signingKey(gnupgHome, gpg, name);

  const apt = join(outDir, 'apt');
  const pool = join(apt, 'pool', COMPONENT, name[0], name);
  mkdirSync(pool, { recursive: true });
  const debs = readdirSync(outDir).filter((f) => f.endsWith('.deb'));
  for (const deb of debs) copyFileSync(join(outDir, deb), join(pool, deb));
  // One index per architecture (config-agent_<version>_<arch>.deb).
  const arches = [...new Set(debs.map((d) => /_([a-z0-9]+)\.deb$/.exec(d)?.[1] ?? 'amd64'))].sort();
  const suite = join(apt, 'dists', SUITE);
  for (const arch of arches) {
    const dir = join(suite, COMPONENT, `binary-${arch}`);
    mkdirSync(dir, { recursive: true });
    const packages = execFileSync('apt-ftparchive', ['--arch', arch, 'packages', `pool/${COMPONENT}`], {
      cwd: apt,
      timeout: 120_000,
    });
    writeFileSync(join(dir, 'Packages'), packages);
    writeFileSync(join(dir, 'Packages.gz'), gzipSync(packages, { level: 9 }));
  }
  const field = (key, value) => ['-o', `APT::FTPArchive::Release::${key}=${value}`];
  const release = execFileSync(
    'apt-ftparchive',
    [
      ...field('Origin', name),
      ...field('Label', name),
      ...field('Suite', SUITE),
      ...field('Codename', SUITE),
      ...field('Architectures', arches.join(' ')),
      ...field('Components', COMPONENT),
      ...field('Description', `${name} packages`),
      'release',
      '.',
    ],
    { cwd: suite, timeout: 60_000 },
  );
  writeFileSync(join(suite, 'Release'), release);
  // InRelease (the Release file clear-signed) is what apt reads first; Release.gpg for older clients.
  const sign = (how, output) =>
    gpg(['--yes', '--local-user', fingerprint, '--digest-algo', 'SHA512', ...how, '--output', output, 'Release'], {
      cwd: suite,
    });
  sign(['--clearsign'], 'InRelease');
  sign(['--armor', '--detach-sign'], 'Release.gpg');
  writeFileSync(join(apt, KEYRING), gpg(['--export', fingerprint]));
  // The agent that signing started holds no cached passphrase worth keeping in the folder made
  // here; a builder's own home keeps its agent.
  if (!given) execFileSync('gpgconf', ['--homedir', gnupgHome, '--kill', 'gpg-agent'], { timeout: 30_000 });
  return fingerprint;
}

/** The fingerprint of the key that signs: AGENT_APT_KEY_ID's, the home's only secret key, or a new one. */
function signingKey(gnupgHome, gpg, name) {
  if (!existsSync(gnupgHome)) mkdirSync(gnupgHome, { recursive: true });
  chmodSync(gnupgHome, 0o700);
  const secret = (id) => {
    let listed = '';
    try {
      listed = gpg(['--with-colons', '--list-secret-keys', ...(id ? [id] : [])], { encoding: 'utf8' });
    } catch {
      // gpg exits 2 when no secret key matches.
    }
    return [...listed.matchAll(/^sec:(?:.*\n)+?fpr:+([0-9A-F]+):/gm)].map((m) => m[1]);
  };
  const id = process.env.AGENT_APT_KEY_ID;
  if (id) {
    const found = secret(id);
    if (found.length !== 1) throw new Error(`AGENT_APT_KEY_ID ${id}: no single secret key in ${gnupgHome}`);
    return found[0];
  }
  let keys = secret();
  if (keys.length === 0) {
    const uid = `${name} archive signing key <${name}@users.noreply.github.com>`;
    gpg(['--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', 'never']);
    console.log(`package: made the apt signing key in ${gnupgHome} (keep it: hosts trust this key alone)`);
    keys = secret();
  }
  if (keys.length !== 1)
    throw new Error(`${gnupgHome} holds ${keys.length} secret keys: name the one that signs with AGENT_APT_KEY_ID`);
  return keys[0];
}
