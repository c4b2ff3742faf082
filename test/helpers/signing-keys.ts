/**
 * Real keys for the signature tests, made in the test by Debian's
 * ssh-keygen and gpg: ssh keys with an allowed-signers file, detached ssh
 * signatures (ssh-keygen -Y sign), and an OpenPGP key in its own GNUPGHOME
 * (never the user's) with its public key exported. `closeGpg` stops the
 * gpg-agent that signing started.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const run = (file: string, args: string[], env: Record<string, string> = {}): string =>
  execFileSync(file, args, { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });

/** A new ed25519 key without passphrase at dir/name (and name.pub); returns the private key's path. */
export function sshKey(dir: string, name: string): string {
  const key = join(dir, name);
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return key;
}

/** Write an allowed-signers file trusting these keys (principal = the key's name). */
export function allowedSigners(file: string, keys: Record<string, string>): string {
  const lines = Object.entries(keys).map(([who, key]) => `${who} ${readFileSync(`${key}.pub`, 'utf8').trim()}\n`);
  writeFileSync(file, lines.join(''));
  return file;
}

/** The detached ssh signature of `data` (ssh-keygen -Y sign -n namespace). */
export function sshSign(key: string, data: string | Buffer, namespace: string): string {
  return execFileSync('ssh-keygen', ['-q', '-Y', 'sign', '-f', key, '-n', namespace], {
    input: data,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

export interface GpgKey {
  gnupgHome: string;
  gpgKey: string;
  /** The public key, exported (binary), for `gpg keyring`. */
  publicKeyring: string;
}

/** A new OpenPGP signing key (ed25519, no passphrase) in its own GNUPGHOME under dir/name. */
export function gpgKey(dir: string, name: string): GpgKey {
  const gnupgHome = join(dir, `${name}-gnupg`);
  mkdirSync(gnupgHome);
  chmodSync(gnupgHome, 0o700);
  const env = { GNUPGHOME: gnupgHome };
  const uid = `${name} <${name}@example.invalid>`;
  run('gpg', ['--batch', '--quiet', '--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', 'never'], env);
  const listed = run('gpg', ['--batch', '--with-colons', '--list-secret-keys', uid], env);
  const gpgKey = /^fpr:+([0-9A-F]+):/m.exec(listed)?.[1] ?? '';
  const publicKeyring = join(dir, `${name}.gpg`);
  writeFileSync(
    publicKeyring,
    execFileSync('gpg', ['--batch', '--export', gpgKey], { env: { ...process.env, ...env } }),
  );
  return { gnupgHome, gpgKey, publicKeyring };
}

export function closeGpg(key: GpgKey | undefined): void {
  if (key) run('gpgconf', ['--kill', 'all'], { GNUPGHOME: key.gnupgHome });
}
