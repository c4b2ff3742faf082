/**
 * Produce the TypeScript types of every settings section from the schemas,
 * with json-schema-to-typescript. Called by src/tools/generate.ts only; the
 * library is a dev dependency and is imported lazily.
 */
import { loadSchemaSet, uniqueSectionSchemas } from './schema-set.js';

export async function generateSettingsTypes(root: string): Promise<string> {
  const { compile } = await import('json-schema-to-typescript');
  const set = loadSchemaSet(root);
  const parts: string[] = [];
  for (const section of uniqueSectionSchemas(set)) {
    const schema = JSON.parse(JSON.stringify(section.schema)) as Record<string, unknown>;
    schema.title = section.typeName;
    // Defaults are applied before a module sees a section, so keys with a
    // default are always present in the snapshot.
    const props = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
    const withDefault = Object.keys(props).filter((k) => props[k]?.default !== undefined);
    if (withDefault.length > 0) schema.required = withDefault;
    const ts = await compile(schema as never, section.typeName, {
      bannerComment: '',
      additionalProperties: false,
      declareExternallyReferenced: true,
      format: false,
      strictIndexSignatures: true,
      style: { singleQuote: true },
    });
    parts.push(`/** Section ${section.pattern} */\n${ts.trim()}\n`);
  }
  return parts.join('\n');
}
