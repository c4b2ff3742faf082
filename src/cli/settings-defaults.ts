/**
 * `config-agent settings defaults`: every settings key with its default and
 * a one-line meaning, as a commented INI reference made from the schemas
 * (settings/model/defaults-reference.ts).
 */
import { AgentError } from '../errors.js';
import { out, parseArgs } from './args.js';
import { HELP_OPTION, helpText, type CliOption } from './options.js';
import { defaultsReference } from '../settings/model/defaults-reference.js';

export const DEFAULTS_OPTIONS: readonly CliOption[] = [HELP_OPTION];

export const DEFAULTS_HELP = helpText(
  `Usage: config-agent settings defaults

Prints every settings key with its default and a one-line meaning, as an
INI reference with everything commented out (the package ships it as
/usr/share/doc/config-agent/agent.ini.reference). A key needs writing only
to change it.`,
  DEFAULTS_OPTIONS,
);

export async function defaultsCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, DEFAULTS_OPTIONS);
  if (options.help) {
    out(DEFAULTS_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new AgentError('AGENT_ERR_USAGE', [
      `config-agent settings defaults takes no arguments (got "${positionals[0]}")`,
    ]);
  out(defaultsReference().trimEnd());
  return Promise.resolve(0);
}
