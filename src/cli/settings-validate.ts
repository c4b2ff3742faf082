/**
 * `config-agent settings validate [FILE…] [--format text|json|github] [--strict]`:
 * print every problem of each file. Exit 0 valid, 1 invalid (or warnings
 * with --strict), 2 usage error or unreadable file.
 */
import { sep } from 'node:path';
import { relativeInside } from '../path-inside.js';
import { parseArgs, settingsPath, out, err } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { SettingsReader } from '../settings/store/includes.js';
import { sortProblems, type SettingsProblem } from '../settings/model/problem.js';
import { formatProblem } from './format-problem.js';
import { tlsFileProblems } from '../settings/store/tls-checks.js';
import { passwordsInGit } from '../settings/store/password-in-git.js';
import type { TlsFileProblem } from '../formats/tls-files.js';

export const VALIDATE_OPTIONS: readonly CliOption[] = [
  {
    name: 'format',
    arg: 'text|json|github',
    help: 'text: one line per problem (default); json: {"valid","files":[{"file","valid","errors","warnings"}]}; github: workflow annotations',
  },
  { name: 'strict', help: 'warnings fail the run too' },
  SETTINGS_OPTION,
  HELP_OPTION,
];

export const VALIDATE_HELP = helpText(
  `Usage: config-agent settings validate [FILE…] [--format text|json|github] [--strict] [--settings FILE]

Validates settings files against the schemas (default file: $AGENT_SETTINGS,
else settings/agent.ini) and prints every problem with file:line:col, section,
key, a stable code and a message. The TLS files of the enabled listeners are
read as they would load on this machine (certificate, key fitting it, ca).
A password written in plain text in a file git tracks is a warning
(AGENT_WARN_PASSWORD_IN_GIT, asked of git; only here, not when the agent
loads the file).
With --format json each problem is
{code,severity,message,file,line,col,section?,key?}; --format github prints
::error file=…,line=…,col=…::… annotations, each naming the file the problem
is in, relative to the working folder.
Files included by several of the FILEs are read and checked once per run; a
problem in such a file is printed once, at its own file and line (--format
json lists it for every file that includes it).
Exit: 0 valid, 1 invalid (or warnings with --strict), 2 usage or unreadable file.`,
  VALIDATE_OPTIONS,
);

export async function validateCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, VALIDATE_OPTIONS);
  if (options.help) {
    out(VALIDATE_HELP);
    return 0;
  }
  const format = String(options.format ?? 'text');
  if (!['text', 'json', 'github'].includes(format)) {
    err(`config-agent settings validate: unknown format "${format}" (text, json or github)`);
    return 2;
  }
  const files = positionals.length > 0 ? positionals : [settingsPath(options)];
  const reports: { file: string; valid: boolean; errors: SettingsProblem[]; warnings: SettingsProblem[] }[] = [];
  let unreadable = false;
  // One reader for the run: a base that every host file includes is read, parsed and checked once.
  const reader = new SettingsReader();
  // And each set of TLS files is read and checked once.
  const tlsChecked = new Map<string, TlsFileProblem[]>();
  for (const file of files) {
    const r = await loadSettingsFile(file, { reader });
    if (!r.ok && r.problems.some((p) => p.code === 'AGENT_ERR_SETTINGS_UNREADABLE')) unreadable = true;
    // The listeners' TLS files as they would load them here: readable, parsing, the key fitting the certificate.
    const tls = r.ok ? tlsFileProblems(r.snapshot, undefined, tlsChecked) : [];
    // Passwords in plain text in files git tracks: asked of git here, never in a load (the agent's reload runs no subprocess).
    const warnings = r.ok ? sortProblems([...r.warnings, ...passwordsInGit(r.snapshot)]) : r.warnings;
    reports.push({ file, valid: r.ok && tls.length === 0, errors: r.ok ? tls : r.problems, warnings });
  }
  const strict = options.strict === true;
  const failed = reports.some((r) => !r.valid || (strict && r.warnings.length > 0));
  if (format === 'json') {
    out(JSON.stringify({ valid: !failed, files: reports }));
  } else {
    // A problem in a shared file is the same for every file that includes it: printed once, where it is.
    const printed = new Set<string>();
    const lines: string[] = [];
    const once = (line: string): void => {
      if (printed.has(line)) return;
      printed.add(line);
      lines.push(line);
    };
    for (const r of reports) {
      for (const p of [...r.errors, ...r.warnings]) once(format === 'github' ? annotation(p) : formatProblem(p));
      if (format === 'text')
        lines.push(
          `${r.file}: ${r.valid ? 'valid' : 'invalid'} (${r.errors.length} error(s), ${r.warnings.length} warning(s))`,
        );
    }
    if (lines.length > 0) out(lines.join('\n'));
  }
  if (unreadable) return 2;
  return failed ? 1 : 0;
}

function annotation(p: SettingsProblem): string {
  const esc = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string): string => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const kind = p.severity === 'warning' ? 'warning' : 'error';
  return `::${kind} file=${prop(repoPath(p.file))},line=${p.line},col=${p.col},title=${prop(p.code)}::${esc(p.message)}`;
}

/** A file as GitHub expects it in an annotation: relative to the working folder (the checkout CI runs in) when below it. */
function repoPath(file: string): string {
  const rel = relativeInside(process.cwd(), file);
  return rel !== undefined && rel !== '' ? rel.split(sep).join('/') : file;
}
