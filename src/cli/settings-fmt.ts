/**
 * `config-agent settings fmt [FILE…] [--check] [--diff]`: rewrite settings files in
 * the canonical layout (settings/ini/format-ini.ts) through the settings writer
 * (locked, atomic, mode kept; a file already canonical is not touched).
 * `--check` writes nothing: it prints each file that is not canonical (and
 * with `--diff` the lines that would change) and exits 1, for CI.
 * Exit: 0 done or all canonical, 1 some file not canonical (--check) or not
 * writable, 2 usage or a file that cannot be read.
 */
import { readFile } from 'node:fs/promises';
import { AgentError, errorMessage } from '../errors.js';
import { rewriteSettingsFile } from '../settings/store/edit-ini.js';
import { formatIni, type FormatChange } from '../settings/ini/format-ini.js';
import { err, out, parseArgs, settingsPath } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';

export const FMT_OPTIONS: readonly CliOption[] = [
  { name: 'check', help: 'write nothing; list the files that are not canonical and exit 1' },
  { name: 'diff', help: 'also print each line that differs (file:line: - before / + after)' },
  SETTINGS_OPTION,
  HELP_OPTION,
];

export const FMT_HELP = helpText(
  `Usage: config-agent settings fmt [FILE…] [--check] [--diff] [--settings FILE]

Rewrites settings files in place in one canonical layout: "key = value",
one blank line before each section, no trailing blanks, a final line
ending; comments and the order of everything are kept. Files that are
already canonical are not touched. Default file: $AGENT_SETTINGS, else
settings/agent.ini.
Exit: 0 done or all canonical, 1 not canonical (--check) or not writable,
2 usage or a file that cannot be read.`,
  FMT_OPTIONS,
);

export async function fmtCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, FMT_OPTIONS);
  if (options.help) {
    out(FMT_HELP);
    return 0;
  }
  const files = positionals.length > 0 ? positionals : [settingsPath(options)];
  const check = options.check === true;
  let differ = 0;
  let failed = false;
  let unreadable = false;
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      err(
        `config-agent settings fmt: cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : errorMessage(e)}`,
      );
      unreadable = true;
      continue;
    }
    const formatted = formatIni(text);
    if (formatted.text === text) continue;
    differ++;
    if (check)
      out(
        `${file}: not in the canonical layout (${formatted.changes.length} line(s); run config-agent settings fmt ${file})`,
      );
    if (options.diff) for (const c of formatted.changes) printChange(file, c);
    if (check) continue;
    try {
      // Formatted again under the writer's lock, on the content it replaces.
      await rewriteSettingsFile(file, (current) => formatIni(current).text);
      out(`${file}: formatted`);
    } catch (e) {
      failed = true;
      err(`config-agent settings fmt: ${e instanceof AgentError ? e.message : errorMessage(e)}`);
    }
  }
  if (unreadable) return 2;
  if (failed || (check && differ > 0)) return 1;
  return 0;
}

function printChange(file: string, c: FormatChange): void {
  if (c.before !== undefined) out(`${file}:${c.line}: - ${c.before}`);
  if (c.after !== undefined) out(`${file}:${c.line}: + ${c.after}`);
}
