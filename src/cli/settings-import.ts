/**
 * `config-agent settings import NSCLIENT.INI [--output FILE] [--force] [--format
 * text|json]`: translate an NSClient++ settings file into one of ours (see
 * src/settings/import/). The result is validated before anything is
 * written. Exit 0 translated (valid), 1 the translation does not validate
 * (nothing written), 2 usage, unreadable input or an existing --output
 * without --force.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { errorMessage } from '../errors.js';
import { formatChanges, importNsclient } from '../settings/import/import.js';
import { looksLikeNscIni } from '../settings/import/nsclient-source.js';
import { err, out, parseArgs, settingsPath } from './args.js';
import { writeImportFile } from './import-write.js';
import { dropInFolder } from '../settings/store/drop-ins.js';
import { looksLikeNrpeCfg } from '../settings/store/nrpe-cfg-read.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { formatProblem } from './format-problem.js';

export const IMPORT_OPTIONS: readonly CliOption[] = [
  { name: 'output', arg: 'FILE', help: 'write the result there (default: print it on stdout, the report on stderr)' },
  { name: 'force', help: 'replace an existing --output file' },
  {
    name: 'drop-in',
    help: 'write the result to conf.d/50-nrpe-import.ini (50-nsclient-import.ini) beside the settings file: a layer above it that leaves it as it is',
  },
  {
    name: 'format',
    arg: 'text|json',
    help: 'json: print {valid, output, settings?, source, totals?, changes, unsupportedModules, problems, warnings}',
  },
  { ...SETTINGS_OPTION, help: 'accepted for symmetry with the other commands; the file to translate is NSCLIENT.INI' },
  HELP_OPTION,
];

export const IMPORT_HELP = helpText(
  `Usage: config-agent settings import NSCLIENT.INI|NRPE.CFG [--output FILE] [--force] [--format text|json]

Translates an NSClient++ settings file, or an NRPE daemon's nrpe.cfg (told
apart by content; its include and include_dir files are read in place),
into a settings file of this agent:
module names (NRPEServer -> RemoteServer, NSCPClient -> AgentClient, ...),
section paths (/settings/NRPE/... -> /settings/remote/..., /settings/WEB/server/users
-> /settings/web/users, ...) and the keys whose meaning carries over, with the
comments that stand above them. Every key dropped or changed is reported as
file:line: [section] key: action: reason. The result is validated as
config-agent settings validate does before it is written.
Exit: 0 translated and valid, 1 the result does not validate (nothing written;
or, when only certificate files it names are missing here, written all the same),
2 usage, unreadable file, or an NSClient++ 0.3.x NSC.ini.`,
  IMPORT_OPTIONS,
);

export async function importCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, IMPORT_OPTIONS);
  if (options.help) {
    out(IMPORT_HELP);
    return 0;
  }
  const format = String(options.format ?? 'text');
  if (!['text', 'json'].includes(format)) {
    err(`config-agent settings import: unknown format "${format}" (text or json)`);
    return 2;
  }
  const [source] = positionals;
  if (source === undefined || positionals.length !== 1) {
    err(`config-agent settings import: give exactly one NSClient++ settings file\n\n${IMPORT_HELP}`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch (e) {
    err(`config-agent settings import: cannot read ${source}: ${errorMessage(e)}`);
    return 2;
  }
  if (looksLikeNscIni(text)) {
    err(
      `config-agent settings import: ${source} is an NSClient++ 0.3.x NSC.ini ([modules], [Settings], [NRPE], … without the /settings/ paths of 0.4 and later); it is not translated: convert it with NSClient++ 0.4 or later first (nscp settings --migrate-to ini), then import the nsclient.ini it writes`,
    );
    return 2;
  }
  // --drop-in: a layer above the settings file (settings/store/drop-ins.ts), named by what is imported.
  const dropIn = join(
    dropInFolder(resolve(settingsPath(options))),
    looksLikeNrpeCfg(text) ? '50-nrpe-import.ini' : '50-nsclient-import.ini',
  );
  const output =
    typeof options.output === 'string' ? resolve(options.output) : options['drop-in'] === true ? dropIn : undefined;
  if (output !== undefined && existsSync(output) && options.force !== true) {
    err(`config-agent settings import: ${output} exists; give --force to replace it`);
    return 2;
  }
  const result = importNsclient(text, source, output ?? join(resolve(dirname(source)), 'agent.ini'));
  if (result.writable && output !== undefined) {
    try {
      await writeImportFile(output, result.text);
    } catch (e) {
      err(`config-agent settings import: cannot write ${output}: ${errorMessage(e)}`);
      return 1;
    }
  }
  if (format === 'json') {
    out(
      JSON.stringify({
        valid: result.valid,
        output: result.writable ? (output ?? null) : null,
        ...(output === undefined ? { settings: result.text } : {}),
        source: result.source,
        ...(result.totals ? { totals: result.totals } : {}),
        windowsOnly: result.windowsOnly,
        changes: result.changes,
        unsupportedModules: result.unsupportedModules,
        problems: result.problems,
        warnings: result.warnings,
        sudoers: result.sudoers,
      }),
    );
    return result.valid ? 0 : 1;
  }
  for (const line of formatChanges(result, source)) err(line);
  for (const p of result.warnings) err(formatProblem(p));
  if (!result.valid) {
    for (const p of result.problems) err(formatProblem(p));
    if (!result.writable) {
      err(`config-agent settings import: the translation of ${source} does not validate; nothing written`);
      return 1;
    }
    if (output === undefined) out(result.text);
    err(
      `config-agent settings import: ${output ?? 'the result'} ${output ? 'is written but does' : 'does'} not validate on this machine until the files named above exist (copy them over, then config-agent settings validate${output ? ` ${output}` : ''})`,
    );
    return 1;
  }
  if (output === undefined) out(result.text);
  err(
    `${source}: ${result.changes.filter((c) => c.action !== 'note' && c.action !== 'kept').length} key(s) or section(s) dropped or changed; ${output ?? 'the result'} validates${output ? ` (config-agent settings validate ${output})` : ''}`,
  );
  return 0;
}
