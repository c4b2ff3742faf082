/**
 * `config-agent settings schema`: one combined JSON Schema (draft-07) of the whole
 * settings file, for editors and other validators: the root schema with
 * every section schema inlined under `definitions`.
 */
import { AgentError } from '../errors.js';
import { out, parseArgs } from './args.js';
import { HELP_OPTION, helpText, type CliOption } from './options.js';
import { loadSchemaSet, type JsonSchema } from '../settings/model/schema-set.js';

export const SCHEMA_OPTIONS: readonly CliOption[] = [HELP_OPTION];

export const SCHEMA_HELP = helpText(
  `Usage: config-agent settings schema

Prints one combined JSON Schema of the settings file (section path -> keys),
with every section schema inlined, for editors and other validators.`,
  SCHEMA_OPTIONS,
);

export function combinedSchema(): JsonSchema {
  const set = loadSchemaSet();
  const definitions: Record<string, JsonSchema> = {};
  const refName = (ref: string): string => ref.replace(/^modules\//, '').replace(/\.schema\.json$/, '');
  for (const [id, schema] of set.files) {
    const copy: JsonSchema = { ...schema };
    delete copy.$id;
    delete copy.$schema;
    definitions[refName(id)] = copy;
  }
  const rewrite = (node: Record<string, { $ref: string }> | undefined): Record<string, { $ref: string }> =>
    Object.fromEntries(Object.entries(node ?? {}).map(([k, v]) => [k, { $ref: `#/definitions/${refName(v.$ref)}` }]));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'agent-settings.schema.json',
    title: set.root.title,
    description: set.root.description,
    type: 'object',
    properties: rewrite(set.root.properties as Record<string, { $ref: string }>),
    patternProperties: rewrite(set.root.patternProperties as Record<string, { $ref: string }>),
    additionalProperties: false,
    definitions,
  };
}

export async function schemaCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseArgs(argv, SCHEMA_OPTIONS);
  if (options.help) {
    out(SCHEMA_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new AgentError('AGENT_ERR_USAGE', [
      `config-agent settings schema takes no arguments (got "${positionals[0]}")`,
    ]);
  out(JSON.stringify(combinedSchema(), null, 2));
  return 0;
}
