/**
 * Insecure but legal choices, reported as warnings with codes:
 * - AGENT_WARN_ADH_CIPHERS: an explicitly set `allowed ciphers` that admits
 *   anonymous suites (ADH, AECDH, aNULL, or ALL without !aNULL), on a
 *   target defined in the file or on an enabled server module with use ssl on;
 * - AGENT_WARN_VERIFY_NONE: `verify mode = none` set explicitly while `use ssl` is on;
 * - AGENT_WARN_EMPTY_PASSWORD: WEBServer enabled and the effective web password empty;
 * - AGENT_WARN_NSCLIENT_NO_PASSWORD: NSClientServer enabled and its effective password empty;
 * - AGENT_WARN_ALLOWED_HOSTS_OPEN: an `allowed hosts` that admits every address;
 * - AGENT_WARN_NO_CA: AgentServer enabled without TLS, without a `ca`, or with
 *   a verify mode that makes the client certificate optional;
 * - AGENT_WARN_PLAIN_PASSWORD: a web user whose password is stored in plain text;
 * - AGENT_WARN_UNAUTHENTICATED_EXEC, AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS:
 *   see allow-list-warnings.ts;
 * - AGENT_WARN_SUDO_NO_NEW_PRIVILEGES: see sudo-warnings.ts;
 * - AGENT_WARN_WINDOWS_VALUE: see windows-value-warnings.ts.
 * Defaults alone never warn (an untouched file stays quiet), except where the
 * result is insecure whatever the defaults are (empty password, no CA).
 */
import type { Origin, ResolvedObject } from './snapshot.js';
import { sectionWithFallbacks } from './module-view.js';
import type { SettingsProblem } from './problem.js';
import { problem } from './problem.js';
import { allowListWarnings } from './allow-list-warnings.js';
import { sudoWarnings } from './sudo-warnings.js';
import { windowsValueWarnings } from './windows-value-warnings.js';

interface WarnInput {
  file: string;
  sections: Record<string, Record<string, unknown>>;
  origins: Record<string, Record<string, Origin>>;
  modules: Partial<Record<string, boolean>>;
  targets: Record<'agent' | 'remote', Map<string, ResolvedObject>>;
  users: Map<string, ResolvedObject>;
  aliases: Map<string, ResolvedObject>;
  schedules: Map<string, ResolvedObject>;
}

/** Verdicts by cipher string: a fleet of hosts repeats the same few strings thousands of times. */
const anonymousVerdicts = new Map<string, boolean>();

export function allowsAnonymous(ciphers: string): boolean {
  let verdict = anonymousVerdicts.get(ciphers);
  if (verdict === undefined) {
    verdict = judgeCiphers(ciphers);
    if (anonymousVerdicts.size < 10_000) anonymousVerdicts.set(ciphers, verdict);
  }
  return verdict;
}

/**
 * Our TLS code adds @SECLEVEL=0 to every list (nrpe/tls.ts), so anonymous
 * suites in the list are usable: `!ADH` removes the finite-field ones
 * only, and ALL still brings anonymous ECDH (AECDH), which a stock nrpe
 * without a certificate negotiates. Only `!aNULL`, or `!ADH` with
 * `!AECDH`, keeps them out.
 */
function judgeCiphers(ciphers: string): boolean {
  const parts = ciphers.split(/[:,\s]+/).filter(Boolean);
  const removed = (name: string): boolean => parts.some((p) => new RegExp(`^[!-]${name}$`, 'i').test(p));
  if (removed('aNULL')) return false;
  const all = parts.some((p) => /^(ALL|aNULL)$/i.test(p));
  const dh = !removed('ADH') && (all || parts.some((p) => /^ADH(\b|-)/i.test(p)));
  const ecdh = !removed('AECDH') && (all || parts.some((p) => /^AECDH(\b|-)/i.test(p)));
  return dh || ecdh;
}

export function allowsEveryone(list: string): boolean {
  return list
    .split(',')
    .map((s) => s.trim())
    .some((e) => ['*', '*.*.*.*', '0.0.0.0', '::'].includes(e) || /\/0$/.test(e));
}

/** Characters a web password needs not to be warned about (AGENT_WARN_WEAK_PASSWORD). */
export const STRONG_PASSWORD = 12;

/** Characters of a text as a person counts them (a surrogate pair is one). */
function codePoints(text: string): number {
  return text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;
}

// long function: a list of independent checks over one input, one after another
export function insecureWarnings(input: WarnInput): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const at = (o: Origin | undefined, section: string, key: string) => ({
    file: o?.file ?? input.file,
    line: o?.line ?? 0,
    col: o?.col ?? 0,
    section,
    key,
  });

  const servers: [string, string][] = [
    ['/settings/remote/server', 'RemoteServer'],
    ['/settings/agent/server', 'AgentServer'],
  ];
  for (const [path, module] of servers) {
    if (!input.modules[module]) continue;
    const s = input.sections[path] ?? {};
    const o = input.origins[path] ?? {};
    if (s['use ssl'] === true && o['allowed ciphers'] && allowsAnonymous(String(s['allowed ciphers']))) {
      out.push(problem('AGENT_WARN_ADH_CIPHERS', [module], at(o['allowed ciphers'], path, 'allowed ciphers')));
    }
    if (s['use ssl'] === true && o['verify mode'] && s['verify mode'] === 'none') {
      out.push(problem('AGENT_WARN_VERIFY_NONE', [module], at(o['verify mode'], path, 'verify mode')));
    }
  }
  // Anyone allowed by allowed hosts may query AgentServer unless TLS is on
  // with a CA and a verify mode that requires a client certificate.
  const agentServer = input.sections['/settings/agent/server'] ?? {};
  const optionalCert = ['peer', 'client-once'].includes(String(agentServer['verify mode']));
  if (input.modules.AgentServer && (!agentServer.ca || agentServer['use ssl'] === false || optionalCert)) {
    const o = input.origins['/settings/agent/server'] ?? {};
    out.push(
      problem(
        'AGENT_WARN_NO_CA',
        ['AgentServer'],
        at(o.ca ?? o['verify mode'] ?? o['use ssl'], '/settings/agent/server', 'ca'),
      ),
    );
  }

  for (const client of ['agent', 'remote'] as const) {
    const targets = [...input.targets[client].values()].filter((t) => !t.isTemplate && t.values['use ssl'] === true);
    const adh = targets.filter(
      (t) => t.origins['allowed ciphers'] && allowsAnonymous(String(t.values['allowed ciphers'])),
    );
    out.push(...perOrigin('AGENT_WARN_ADH_CIPHERS', client, 'allowed ciphers', adh, at));
    const none = targets.filter((t) => t.origins['verify mode'] && t.values['verify mode'] === 'none');
    out.push(...perOrigin('AGENT_WARN_VERIFY_NONE', client, 'verify mode', none, at));
  }

  if (input.modules.WEBServer) {
    const pw = sectionWithFallbacks(input, '/settings/WEB/server').password;
    // Named where the value comes from: the web server's own key, else the [/settings/default] fallback it reads.
    const own = input.origins['/settings/WEB/server']?.password;
    const fallback = input.origins['/settings/default']?.password;
    const where = at(own ?? fallback, own || !fallback ? '/settings/WEB/server' : '/settings/default', 'password');
    if (pw === '' || pw === undefined) out.push(problem('AGENT_WARN_EMPTY_PASSWORD', [], where));
    // A short password (an imported nsclient.ini's `password = test`): named, never shown.
    else if (typeof pw === 'string' && codePoints(pw) < STRONG_PASSWORD && !pw.startsWith('pbkdf2-sha256$'))
      out.push(problem('AGENT_WARN_WEAK_PASSWORD', [codePoints(pw), STRONG_PASSWORD], where));
  }

  if (input.modules.NSClientServer) {
    const pw = sectionWithFallbacks(input, '/settings/NSClient/server').password;
    if (pw === '' || pw === undefined) {
      const o =
        input.origins['/settings/NSClient/server']?.password ??
        input.origins['/settings/default']?.password ??
        input.origins['/modules']?.NSClientServer;
      out.push(problem('AGENT_WARN_NSCLIENT_NO_PASSWORD', [], at(o, '/settings/NSClient/server', 'password')));
    }
  }

  for (const path of [
    '/settings/default',
    '/settings/WEB/server',
    '/settings/remote/server',
    '/settings/agent/server',
    '/settings/NSClient/server',
  ]) {
    const v = input.sections[path]?.['allowed hosts'];
    const o = input.origins[path]?.['allowed hosts'];
    const whose = path === '/settings/default' ? ' (for every server module without an allowed hosts of its own)' : '';
    if (typeof v === 'string' && o && allowsEveryone(v))
      out.push(problem('AGENT_WARN_ALLOWED_HOSTS_OPEN', [whose], at(o, path, 'allowed hosts')));
  }

  out.push(...allowListWarnings(input));
  out.push(...sudoWarnings(input), ...windowsValueWarnings(input));

  for (const u of input.users.values()) {
    const pw = u.values.password;
    const o = u.origins.password;
    // A password from ${env:} or ${file:} is not stored in the settings: only a literal one warns.
    if (
      !u.isTemplate &&
      o &&
      o.secret !== true &&
      typeof pw === 'string' &&
      pw !== '' &&
      !pw.startsWith('pbkdf2-sha256$')
    ) {
      out.push(problem('AGENT_WARN_PLAIN_PASSWORD', [`user ${u.name}`], at(o, u.path, 'password')));
    }
  }
  return out;
}

/**
 * One warning per place a target key is written: targets that inherit it
 * from a parent (the default target, a template) are named in the warning
 * of the parent's line instead of each getting a copy of it.
 */
function perOrigin(...args: PerOriginArgs): SettingsProblem[] {
  const [code, client, , targets] = args;
  // The same resolved targets (a shared base's, in a fleet run) give the same warnings: made once, copied per load.
  const first = targets[0];
  if (first === undefined) return [];
  const known = perOriginMemo.get(first) ?? [];
  const hit = known.find(
    (k) =>
      k.code === code &&
      k.client === client &&
      k.targets.length === targets.length &&
      k.targets.every((t, i) => t === targets[i]),
  );
  if (hit) return hit.problems.map((p) => ({ ...p }));
  const problems = perOriginUncached(...args);
  if (known.length < 8) {
    known.push({ code, client, targets: [...targets], problems: problems.map((p) => ({ ...p })) });
    perOriginMemo.set(first, known);
  }
  return problems;
}

/** The warning code, the client, the target key, the targets that break the rule and where a problem is. */
type PerOriginArgs = [
  code: 'AGENT_WARN_ADH_CIPHERS' | 'AGENT_WARN_VERIFY_NONE',
  client: 'agent' | 'remote',
  key: string,
  targets: readonly ResolvedObject[],
  at: (
    o: Origin | undefined,
    section: string,
    key: string,
  ) => { file: string; line: number; col: number; section: string; key: string },
];

/** perOrigin's results by the first target of the list (then the whole list compared by identity). */
const perOriginMemo = new WeakMap<
  ResolvedObject,
  { code: string; client: string; targets: readonly ResolvedObject[]; problems: SettingsProblem[] }[]
>();

function perOriginUncached(...[code, client, key, targets, at]: PerOriginArgs): SettingsProblem[] {
  const groups = new Map<string, { origin: Origin; section: string; owner: string; users: string[] }>();
  for (const t of targets) {
    const o = t.origins[key];
    // The callers pass only targets with an origin for `key` (they filter on it).
    if (o === undefined) continue;
    const owner = o.object ?? t.name;
    const id = `${o.file}:${o.line}:${owner}`;
    const g = groups.get(id) ?? { origin: o, section: owner === t.name ? t.path : o.section, owner, users: [] };
    g.users.push(t.name);
    groups.set(id, g);
  }
  return [...groups.values()].map((g) => {
    const others = g.users.filter((u) => u !== g.owner);
    const subject = `target ${g.owner} of the ${client} client${others.length > 0 ? ` (used by ${others.join(', ')})` : ''}`;
    return problem(code, [subject], at(g.origin, g.section, key));
  });
}
