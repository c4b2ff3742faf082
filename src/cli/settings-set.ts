/**
 * `config-agent settings set --path SECTION --key KEY (--value V | --remove)`: one
 * key of the settings file, written through the settings writer (minimal
 * edit: comments, order and the rest of the file kept; locked, atomic, mode
 * kept; with [/includes], in the file that holds the key), and only when
 * the whole tree still validates afterwards, as an edit through the API.
 * NSClient++'s `nscp settings --path P --key K --set V` is the same (`--set`
 * is accepted for `--value`). A running agent applies the change as it
 * applies every save of the file. The listeners' error messages name this
 * command for the key that needs changing.
 * Exit: 0 written (or already so), 1 the result would not validate or the
 * file cannot be written (nothing written), 2 usage.
 */
import { AgentError, errorMessage } from '../errors.js';
import { changedFiles, editSettings } from '../settings/store/edit-tree.js';
import { loadSettingsFile } from '../settings/store/load-file.js';
import { SettingsReader } from '../settings/store/includes.js';
import { err, out, parseArgs, settingsPath } from './args.js';
import { formatProblem } from './format-problem.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';

export const SET_OPTIONS: readonly CliOption[] = [
  { name: 'path', arg: 'SECTION', help: 'the section, as written between the brackets: /settings/remote/server' },
  { name: 'key', arg: 'KEY', help: 'the key: port' },
  { name: 'value', arg: 'VALUE', help: 'the value to write' },
  { name: 'set', arg: 'VALUE', help: "the same as --value (NSClient++'s nscp settings --set)" },
  { name: 'remove', help: 'remove the key instead (its default applies)' },
  SETTINGS_OPTION,
  HELP_OPTION,
];

export const SET_HELP = helpText(
  `Usage: config-agent settings set --path SECTION --key KEY (--value V | --remove) [--settings FILE]

Writes one key of the settings file with the smallest edit (comments,
order and the rest of the file kept), only when the whole settings tree
still validates afterwards; with [/includes], the key is written in the
file that holds it. A running agent applies it as it applies every save.
Example: config-agent settings set --path /settings/remote/server --key port --value 5667
Exit: 0 written, 1 the result would not validate or cannot be written
(nothing written), 2 usage.`,
  SET_OPTIONS,
);

export async function setCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, SET_OPTIONS);
  if (options.help) {
    out(SET_HELP);
    return 0;
  }
  const section = typeof options.path === 'string' ? options.path.trim().replace(/^\[(.*)\]$/, '$1') : '';
  const key = typeof options.key === 'string' ? options.key.trim() : '';
  const value =
    typeof options.value === 'string' ? options.value : typeof options.set === 'string' ? options.set : undefined;
  const remove = options.remove === true;
  if (positionals.length > 0 || section === '' || key === '' || (value === undefined) === !remove) {
    err(`config-agent settings set: give --path, --key and one of --value or --remove\n\n${SET_HELP}`);
    return 2;
  }
  if (/[\r\n]/.test(`${section}${key}${value ?? ''}`) || key.includes('=')) {
    err('config-agent settings set: a path, key or value must not hold a line break, nor a key an =');
    return 2;
  }
  const file = settingsPath(options);
  let problems: string[] = [];
  try {
    const results = await editSettings(
      file,
      [remove ? { op: 'remove-key', section, key } : { op: 'set', section, key, value: value ?? '' }],
      {
        check: async (planned) => {
          const reader = new SettingsReader();
          for (const [f, text] of planned) await reader.source(f, Buffer.from(text, 'utf8'));
          const loaded = await loadSettingsFile(file, { reader });
          if (!loaded.ok) {
            problems = loaded.problems.map(formatProblem);
            throw new AgentError('AGENT_ERR_SETTINGS_INVALID', [file, String(loaded.problems.length)]);
          }
        },
      },
    );
    const changed = changedFiles(results);
    out(
      changed.length > 0
        ? `[${section}] ${key} ${remove ? 'removed' : `= ${value ?? ''}`}: written to ${changed.join(', ')}`
        : `[${section}] ${key} is already so; nothing written`,
    );
    return 0;
  } catch (e) {
    for (const p of problems) err(p);
    err(`config-agent settings set: ${errorMessage(e)}; nothing written`);
    return e instanceof AgentError && e.code === 'AGENT_ERR_USAGE' ? 2 : 1;
  }
}
