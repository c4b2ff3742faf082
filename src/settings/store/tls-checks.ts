/**
 * The TLS files of the listeners (WEBServer, RemoteServer, AgentServer,
 * NSClientServer), named from the settings the one way every user of them
 * shares: the modules load them from here (src/protocols/listener/server-tls.ts checks
 * them before a listener moves), `config-agent settings validate` and the
 * settings API report their problems.
 *
 * A problem is reported at the line of the setting it belongs to: a key
 * that does not belong to the certificate at the `certificate key` line,
 * or, when that key is not written (a default), at the `certificate` line;
 * a setting left at its default points at the module's line in
 * `[/modules]`. Codes: AGENT_ERR_TLS_KEY_MISMATCH for a key of another
 * certificate, AGENT_ERR_TLS_FILE for a file that cannot be read or parsed.
 * Files are read, never written; only enabled listeners with TLS on count.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { checkCa, checkPair, type PairFiles, type TlsFileProblem } from '../../formats/tls-files.js';
import { describeProblem, problem, sortProblems, type SettingsProblem } from '../model/problem.js';
import type { Origin, Snapshot } from '../model/snapshot.js';
import { expandVariables } from '../model/variables.js';
import { keyText, valueText } from '../model/value-text.js';
import { LISTENER_SECTIONS, type ListenerModule } from '../model/module-table.js';

// The listening modules and their sections are columns of the module table.
export { LISTENER_SECTIONS, type ListenerModule } from '../model/module-table.js';

/** What a listener's TLS loads: its certificate and key (undefined: anonymous, RemoteServer only) and its CA. */
export interface ListenerTlsFiles {
  pair?: PairFiles;
  ca?: string;
}

/** The whole snapshot (validate, the API), or a listener module's own view (settings/model/module-view.ts). */
export type TlsSettings = Pick<Snapshot, 'file' | 'origins' | 'variables'> & {
  readonly sections: Readonly<Partial<Record<string, Readonly<Record<string, unknown>>>>>;
  readonly modules?: Readonly<Record<string, unknown>>;
};

/** The listener's TLS files; undefined when it runs without TLS. */
export function listenerTlsFiles(s: TlsSettings, module: ListenerModule): ListenerTlsFiles | undefined {
  const section = LISTENER_SECTIONS[module];
  const v = s.sections[section] ?? {};
  const written = (key: string): boolean => s.origins[section]?.[key] !== undefined;
  const path = (value: unknown): string => filePath(s, value);
  if (module === 'WEBServer') {
    if (!keyText(v, section, 'port').endsWith('s')) return undefined;
    return {
      pair: {
        cert: path(v.certificate),
        key: path(v['certificate key']),
        keyExplicit: written('certificate key'),
        createsMissing: true,
      },
    };
  }
  if (v['use ssl'] === false) return undefined;
  const ca = valueText(v.ca) ? path(v.ca) : undefined;
  const certificate = valueText(v.certificate);
  const key = valueText(v['certificate key']);
  if (module === 'RemoteServer') {
    // Without a certificate NRPE runs anonymous DH, as check_nrpe expects by default.
    const pair = certificate
      ? { cert: path(certificate), key: key ? path(key) : '', keyExplicit: key !== '', createsMissing: false }
      : undefined;
    return { ...(pair ? { pair } : {}), ...(ca ? { ca } : {}) };
  }
  const certPath = s.variables['certificate-path'] ?? '.';
  // The self-signed certificate created when none is named: one per listener.
  const created = module === 'NSClientServer' ? 'nsclient-server' : 'agent-server';
  const pair = certificate
    ? { cert: path(certificate), key: key ? path(key) : '', keyExplicit: key !== '', createsMissing: true }
    : {
        cert: path(`${certPath}/${created}.pem`),
        key: path(`${certPath}/${created}.key`),
        keyExplicit: true,
        createsMissing: true,
      };
  return { pair, ...(ca ? { ca } : {}) };
}

/**
 * Problems of the TLS files of the enabled listeners (or of `only`, enabled
 * or not). `cache` (one per run of `config-agent settings validate`) keeps each
 * set of files' check, so 10,000 host files naming the same certificate
 * read and parse it once.
 */
export function tlsFileProblems(
  s: TlsSettings,
  only?: readonly ListenerModule[],
  cache?: Map<string, TlsFileProblem[]>,
): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const modules = only ?? (Object.keys(LISTENER_SECTIONS) as ListenerModule[]).filter((m) => s.modules?.[m] === true);
  for (const module of modules) {
    const files = listenerTlsFiles(s, module);
    if (!files) continue;
    const key = cache ? JSON.stringify(files) : '';
    let found = cache?.get(key);
    if (!found) {
      found = [];
      if (files.pair) {
        const pair = checkPair(files.pair);
        if (!pair.ok) found.push(pair.problem);
      }
      if (files.ca) {
        const ca = checkCa(files.ca);
        if (!ca.ok) found.push(ca.problem);
      }
      cache?.set(key, found);
    }
    for (const p of found) out.push(toProblem(s, module, p));
  }
  return sortProblems(out);
}

/** Thrown by a listener's TLS load (tlsFilesError): the same lines `config-agent settings validate` prints, one per problem. */
export class TlsFilesError extends Error {
  override readonly name = 'TlsFilesError';
  constructor(readonly problems: SettingsProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${describeProblem(p)}`).join('; '));
  }
}

/** The error of problems a listener met loading its TLS files (protocols/listener/server-tls.ts), at their lines. */
export function tlsFilesError(
  s: TlsSettings,
  module: ListenerModule,
  problems: readonly TlsFileProblem[],
): TlsFilesError {
  return new TlsFilesError(sortProblems(problems.map((p) => toProblem(s, module, p))));
}

// ---------------------------------------------------------------- helpers

/** `${…}` expanded (defaults may still hold them), relative paths taken from base-path. */
function filePath(s: TlsSettings, value: unknown): string {
  const expanded = expandVariables(valueText(value), s.variables).value;
  return isAbsolute(expanded) ? expanded : resolve(s.variables['base-path'] ?? dirname(s.file), expanded);
}

function toProblem(s: TlsSettings, module: ListenerModule, p: TlsFileProblem): SettingsProblem {
  const section = LISTENER_SECTIONS[module];
  const origins = s.origins[section] ?? {};
  // A key that does not fit is the key's fault when it is written, else the certificate's.
  const setting =
    p.setting === 'certificate key' && origins['certificate key'] === undefined && origins.certificate !== undefined
      ? 'certificate'
      : p.setting;
  const o: Origin | undefined = origins[setting] ?? s.origins['/modules']?.[module];
  const at = { file: o?.file ?? s.file, line: o?.line ?? 0, col: o?.col ?? 0, section, key: setting };
  if (p.mismatchOf !== undefined && /does not belong/.test(p.reason))
    return problem('AGENT_ERR_TLS_KEY_MISMATCH', [p.file, p.mismatchOf], at);
  return problem('AGENT_ERR_TLS_FILE', [p.setting, p.file, p.reason], at);
}
