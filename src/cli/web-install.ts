/**
 * `config-agent web install`: enable WEBServer and write [/settings/WEB/server]
 * (root's password, port, allowed hosts, NSClient++'s --https and the
 * certificate pair, each checked before anything is written). The password
 * is kept in ${state}/web-password, referenced with ${file:}, unless
 * --write-password (web-password-file.ts).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SettingsEdit } from '../core/control.js';
import { errorMessage } from '../errors.js';
import { parseAllowedHosts } from '../formats/allowed-hosts.js';
import { certificateProblem, pairProblem, privateKeyProblem } from '../formats/pem-check.js';
import { out } from './args.js';
import { readSettingsView, type SettingsView } from '../settings/store/edit-tree.js';
import { appliedWhen, keepPasswordInStateFolder, tellPasswordFile } from './web-password-file.js';
import { edit, strongPassword, usage, WEB, type WebTarget } from './web-edit.js';

/** NSClient++'s install switches: --https, the certificate pair, and the weak-password escape. */
export interface InstallTls {
  https: boolean;
  certificate: string | undefined;
  certificateKey: string | undefined;
  allowWeak: boolean;
  /** Write the password into the settings file instead of ${state}/web-password. */
  writePassword: boolean;
}

export async function install(
  target: WebTarget,
  pw: string | undefined,
  port: string | undefined,
  hosts: string | undefined,
  tls: InstallTls,
): Promise<number> {
  if (pw === '') return usage('--password must not be empty (leave it out to get a generated one)');
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- the minimum counts code points, not UTF-16 units or graphemes
  if (pw !== undefined && [...pw].length < MIN_PASSWORD && !tls.allowWeak)
    return usage(
      `--password is shorter than ${MIN_PASSWORD} characters; choose a longer one (or leave it out to get a generated one), or give --allow-weak-password`,
    );
  const edits: SettingsEdit[] = [{ op: 'set', section: '/modules', key: 'WEBServer', value: 'enabled' }];
  const pem = await certificateEdits(tls.certificate, tls.certificateKey);
  if (typeof pem === 'string') return usage(pem);
  edits.push(...pem);
  if (port !== undefined) {
    const m = /^(\d{1,5})s?$/.exec(port.trim());
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535)
      return usage(`--port "${port}" is not a port number (1-65535, optionally followed by s)`);
    edits.push({ op: 'set', section: WEB, key: 'port', value: `${Number(m[1])}s` });
  }
  if (hosts !== undefined) {
    const parsed = parseAllowedHosts(hosts);
    if (parsed.problems.length > 0) return usage(parsed.problems.join('\n'));
    // Host names are for the NRPE and agent servers (resolved at start); the web server matches addresses only.
    const names = parsed.matchers.filter((m) => m.kind === 'name').map((m) => m.text);
    if (names.length > 0)
      return usage(
        `--allowed-hosts: the web server takes addresses, masks, * ranges and localhost, not host names (${names.join(', ')})`,
      );
    if (parsed.matchers.length === 0) return usage('--allowed-hosts is empty: nobody could connect');
    edits.push({
      op: 'set',
      section: WEB,
      key: 'allowed hosts',
      value: hosts
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean)
        .join(', '),
    });
  }
  // Without --password an existing password stays (re-running install must not lock anyone out).
  // Unless --write-password, the password goes to ${state}/web-password and the settings read it with ${file:}.
  const existing = (view: SettingsView): string =>
    view.get(WEB, 'password') || view.get('/settings/default', 'password') || '';
  const needed = pw !== undefined || existing(await readSettingsView(target.file)) === '';
  const kept = needed && !tls.writePassword ? await keepPasswordInStateFolder(target.file, pw) : undefined;
  // Decided under the writer's lock, on the content being edited.
  let chosen: string | undefined;
  const written = await edit(target, (view) => {
    chosen = pw ?? (existing(view) !== '' ? undefined : (kept?.password ?? chosen ?? strongPassword()));
    const value = kept !== undefined && chosen === kept.password ? kept.reference : chosen;
    const all =
      value !== undefined ? [...edits, { op: 'set' as const, section: WEB, key: 'password', value }] : [...edits];
    // --https on a port written without its s: the s is what means TLS here.
    const current = view.get(WEB, 'port');
    if (tls.https && port === undefined && current !== undefined && /^\d+$/.test(current.trim()))
      all.push({ op: 'set', section: WEB, key: 'port', value: `${current.trim()}s` });
    return all;
  });
  out(
    `WEBServer enabled${written}${port !== undefined ? ` on port ${Number(/^\d+/.exec(port.trim())?.[0])} (TLS)` : ''}.`,
  );
  if (pw !== undefined) out('web password for user root set.');
  else if (chosen !== undefined) out(`web password for user root: ${chosen}`);
  else out('the existing web password stays (config-agent web password --display shows it).');
  if (kept !== undefined && chosen === kept.password) tellPasswordFile(kept);
  out(
    kept !== undefined && pw !== undefined
      ? appliedWhen(kept, written)
      : 'A running agent applies the change without a restart.',
  );
  return 0;
}

/** NSClient++'s minimum for the install password, unless --allow-weak-password. */
const MIN_PASSWORD = 8;

/** Edits for --certificate / --certificate-key after checking the files, or why they are refused. */
async function certificateEdits(
  certificate: string | undefined,
  key: string | undefined,
): Promise<SettingsEdit[] | string> {
  if (key !== undefined && certificate === undefined) return '--certificate-key needs --certificate';
  if (certificate === undefined) return [];
  const read = async (f: string): Promise<Buffer | string> =>
    readFile(f).catch((e: unknown) => `cannot read ${f}: ${errorMessage(e)}`);
  const cert = await read(certificate);
  if (typeof cert === 'string') return `--certificate ${cert}`;
  const certProblem = certificateProblem(cert);
  if (certProblem) return `--certificate ${certificate}: ${certProblem}`;
  const edits: SettingsEdit[] = [{ op: 'set', section: WEB, key: 'certificate', value: resolve(certificate) }];
  if (key === undefined) return edits;
  const keyText = await read(key);
  if (typeof keyText === 'string') return `--certificate-key ${keyText}`;
  const keyProblem = privateKeyProblem(keyText) ?? pairProblem(cert, keyText);
  if (keyProblem) return `--certificate-key ${key}: ${keyProblem}`;
  edits.push({ op: 'set', section: WEB, key: 'certificate key', value: resolve(key) });
  return edits;
}
