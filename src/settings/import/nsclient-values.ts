/**
 * Values of an nsclient.ini as they are written here: NSClient++'s path
 * variables and Windows separators, `${name}` placeholders of check
 * syntaxes (which would read as settings variables here), allowed hosts
 * (a damaged list never turns into a wider one), and script command lines
 * (Windows-only ones are recognised so that the report lists them apart),
 * and the passive clients' addresses, NSCA encryption and hostnames.
 */
import { windowsOnlyValues } from '../../formats/windows-values.js';
import { parseAllowedHosts } from '../../formats/allowed-hosts.js';
import { VARIABLE_NAMES } from '../model/variables.js';
import { nscaMethod } from '../../formats/nsca-encryption.js';
import { HOSTNAME_MACROS, NSCA_UNSUPPORTED_ENCRYPTION, PATH_VARIABLES } from './nsclient-map.js';
import { inRange } from '../../in-range.js';

type Note = (detail: string) => void;

/**
 * `${shared-path}` and the other NSClient++ installation folders become
 * `${base-path}`; a Windows separator after a variable becomes `/`
 * (`${shared-path}\security` is `${base-path}/security`, not a file named
 * with a backslash).
 */
export function pathVariables(value: string, changed: Note): string {
  if (!value.includes('${')) return value;
  let out = value;
  for (const v of PATH_VARIABLES) {
    if (out.toLowerCase().includes(`\${${v}}`)) {
      out = out.replace(new RegExp(`\\$\\{${v}\\}`, 'gi'), '${base-path}');
      changed(`\${${v}} became \${base-path} (the settings file's folder)`);
    }
  }
  const known = VARIABLE_NAMES.map((n) => `\${${n}}`);
  if (known.some((k) => out.includes(`${k}\\`))) {
    const before = out;
    // Every backslash of a path that starts at a variable is a separator.
    out = out.replace(/(\$\{[a-z-]+\}\\[^\s"]*)/g, (m) => m.replace(/\\/g, '/'));
    if (out !== before) changed(`Windows separators became /: ${out}`);
  }
  return out;
}

/** A Windows drive path (`C:\…`, `D:/…`) or UNC path (`\\server\share`) with no counterpart on this host. */
export function isWindowsPath(value: string): boolean {
  return /^\s*"?([A-Za-z]:[\\/]|\\\\[^\\])/.test(value);
}

/**
 * `${name}` placeholders that are not settings variables (`${list}`,
 * `${status}` of a check syntax in an alias or a key) are written `%(name)`,
 * which checks read the same and settings leave alone.
 */
const SETTINGS_NAMES = new Set<string>([...VARIABLE_NAMES, ...PATH_VARIABLES]);

export function checkPlaceholders(value: string, changed: Note): string {
  if (!value.includes('${')) return value;
  const settingsNames = SETTINGS_NAMES;
  const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g, (m, name: string) =>
    settingsNames.has(name.toLowerCase()) ? m : `%(${name})`,
  );
  if (out !== value)
    changed('check placeholders ${…} became %(…), which checks read the same (here ${…} names a settings variable)');
  return out;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/**
 * Keep the entries of an allowed hosts list that parse here, and report the
 * others. A list holding control characters is damaged as a whole (a NUL
 * can join or split entries): it is written empty, which allows nobody,
 * rather than leaving entries whose meaning the damage may have changed.
 */
export function allowedHosts(value: string, changed: Note): string {
  if (CONTROL.test(value)) {
    changed(
      'the list holds control characters (a damaged file?): written empty, which allows nobody; write the hosts again',
    );
    return '';
  }
  const kept: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const p = parseAllowedHosts(entry);
    const [problem] = p.problems;
    if (problem !== undefined)
      changed(`entry ${entry} left out: ${problem.replace(/^allowed hosts entry "[^"]*": /, '')}`);
    else kept.push(entry);
  }
  return kept.join(',');
}

/** What makes a script Windows-only, by its program or extension; undefined for others. */
export function windowsScript(value: string): string | undefined {
  const words = value.trim().split(/\s+/);
  const program = (words[0] ?? '').replace(/^"|"$/g, '').toLowerCase();
  const base = program.split(/[\\/]/).pop() ?? '';
  if (/^cmd(\.exe)?$/.test(base)) return 'cmd';
  if (/^(powershell|pwsh)(\.exe)?$/.test(base)) return 'powershell';
  if (/^[cw]script(\.exe)?$/.test(base)) return 'cscript';
  const ext = /\.(bat|cmd|ps1|vbs|wsf|exe)$/.exec(base)?.[1];
  if (ext) return `.${ext}`;
  return undefined;
}

/** Script command lines: Windows separators in the program become `/`, and `scripts/` (relative to NSClient++'s folder) is dropped, as scripts start at the script root here. */
export function scriptLine(value: string, changed: Note): string {
  const m = /^(\s*)(\S+)(.*)$/s.exec(value);
  if (!m) return value;
  const written = inRange(m, 2);
  let program = written;
  if (program.startsWith('"')) return value;
  if (program.includes('\\')) program = program.replace(/\\+/g, '/');
  const rel = /^(?:\.\/)?scripts\/(.+)$/i.exec(program);
  if (rel) program = inRange(rel, 1);
  if (program === written) return value;
  changed(`program ${written} became ${program} (relative to the script root, / as separator)`);
  return `${inRange(m, 1)}${program}${inRange(m, 3)}`;
}

/** NSCA's encryption and the passive clients' hostname: kept, rewritten in our words, or dropped (undefined: not such a key). */
export function passiveValue(
  canonical: string,
  container: string | undefined,
  key: string,
  value: string,
): { value: string } | { drop: string } | undefined {
  // NSClient++ takes a URL as address (nsca://host:port, https://host:port); here it is host:port.
  const scheme = /^\s*(nsca|https?|tcp):\/\//i;
  if (
    (container === '/settings/NSCA/client/targets' || container === '/settings/icinga/client/targets') &&
    key === 'address' &&
    scheme.test(value)
  )
    return {
      value: value
        .replace(scheme, '')
        .replace(/\/+\s*$/, '')
        .trim(),
    };
  if (container === '/settings/NSCA/client/targets' && key === 'encryption') {
    const v = value.trim().toLowerCase();
    return nscaMethod(v) === undefined ? { drop: `encryption ${value}: ${NSCA_UNSUPPORTED_ENCRYPTION}` } : { value: v };
  }
  if ((canonical === '/settings/NSCA/client' || canonical === '/settings/icinga/client') && key === 'hostname') {
    const v = value.trim();
    const mapped = HOSTNAME_MACROS[v.toLowerCase()];
    if (mapped !== undefined) return { value: mapped };
    if (v.includes('${'))
      return {
        drop: `${value}: only \${host}, \${host_lc} and \${host_uc} (auto, auto-lc, auto-uc here) or a literal name are supported; the default auto is this machine's name`,
      };
  }
  return undefined;
}

/**
 * Notes on a value kept as written: a certificate file to copy over, and each Windows-only
 * value of a query command (an alias, a schedule's command: formats/windows-values.ts),
 * which `windowsOnly` also receives for the report's Windows-only list.
 */
export function keptNotes(section: string, key: string, value: string, windowsOnly: (what: string) => void): string[] {
  const notes: string[] = [];
  if (/^(certificate|certificate key|ca|dh)$/.test(key) && value.trim() !== '')
    notes.push(
      `kept: copy ${value} from the NSClient++ installation, or the module cannot start (a missing web or agent server certificate is generated)`,
    );
  const oneLiner = /\/alias$/i.test(section);
  if (!oneLiner && !(key === 'command' && /\/(alias|scheduler\/schedules)\/[^/]+$/i.test(section))) return notes;
  for (const v of windowsOnlyValues(value)) {
    windowsOnly(v);
    const fix = v === 'is_hung' ? 'leave is_hung out' : 'name a mount point, such as drive=/';
    notes.push(`${v} is Windows-only: kept as written, it answers UNKNOWN here; ${fix}`);
  }
  return notes;
}
