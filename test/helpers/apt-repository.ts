/**
 * The apt repository that `npm run package` writes (src/tools/apt-repository.mjs), published in a
 * Debian root made by systemd-root.ts: Debian's nginx inside the root serves ROOT/srv/apt/<name>/
 * at http://127.0.0.1:8080/<name>/ on the root's own loopback, and a host trusts the repository
 * as the README says (the exported key in /usr/share/keyrings, `signed-by=` in sources.list.d).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GpgKey } from './signing-keys.js';

export const APT_PORT = 8080;
const KEYRING = 'config-agent-archive-keyring.gpg';

/**
 * Prepares a root before it boots: nginx serving ROOT/srv/apt on 127.0.0.1:APT_PORT, Debian's own
 * mirror left out of apt's sources (the root has no network), the public key of the repository
 * at `aptDir` in /usr/share/keyrings, and that repository published three times: as built
 * (`config-agent`), unsigned (`unsigned`) and signed by `otherKey` instead (`other-key`).
 */
export function prepareAptHost(rootDir: string, aptDir: string, otherKey: GpgKey): void {
  mkdirSync(join(rootDir, 'srv/apt'), { recursive: true });
  writeFileSync(
    join(rootDir, 'etc/nginx/conf.d/apt.conf'),
    `server {\n  listen 127.0.0.1:${APT_PORT};\n  root /srv/apt;\n}\n`,
  );
  writeFileSync(join(rootDir, 'etc/apt/sources.list'), '');
  copyFileSync(join(aptDir, KEYRING), join(rootDir, 'usr/share/keyrings', KEYRING));
  publish(rootDir, 'config-agent', aptDir);
  publish(rootDir, 'unsigned', aptDir);
  resign(rootDir, 'unsigned', undefined);
  publish(rootDir, 'other-key', aptDir);
  resign(rootDir, 'other-key', otherKey);
}

/** Publishes the repository at `aptDir` as http://127.0.0.1:APT_PORT/<name>/, replacing what was there. */
export function publish(rootDir: string, name: string, aptDir: string): void {
  const to = join(rootDir, 'srv/apt', name);
  rmSync(to, { recursive: true, force: true });
  cpSync(aptDir, to, { recursive: true });
}

/** Signs the published repository <name> with `key` instead (InRelease and Release.gpg), or leaves it unsigned (no key). */
export function resign(rootDir: string, name: string, key: GpgKey | undefined): void {
  const suite = join(rootDir, 'srv/apt', name, 'dists/stable');
  rmSync(join(suite, 'InRelease'));
  rmSync(join(suite, 'Release.gpg'));
  if (key === undefined) return;
  const gpg = (args: string[]): void => {
    execFileSync('gpg', ['--batch', '--quiet', '--homedir', key.gnupgHome, '--local-user', key.gpgKey, ...args], {
      cwd: suite,
      timeout: 30_000,
    });
  };
  gpg(['--clearsign', '--output', 'InRelease', 'Release']);
  gpg(['--armor', '--detach-sign', '--output', 'Release.gpg', 'Release']);
}

/** The sources.list.d line of repository <name>, as the README writes it. */
export function sourcesLine(name: string): string {
  return `deb [signed-by=/usr/share/keyrings/${KEYRING}] http://127.0.0.1:${APT_PORT}/${name}/ stable main`;
}
