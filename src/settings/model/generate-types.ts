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
    // Defaults are applied by the loader before a module sees a section, and
    // a key marked x-fallback takes the fallback section's value when the
    // file leaves it out (settings/model/module-view.ts), so both are always present.
    const props = (schema.properties ?? {}) as Record<string, { default?: unknown; 'x-fallback'?: string }>;
    const withDefault = Object.keys(props).filter(
      (k) => props[k]?.default !== undefined || props[k]?.['x-fallback'] !== undefined,
    );
    if (withDefault.length > 0) schema.required = withDefault;
    const ts = await compile(schema, section.typeName, {
      bannerComment: '',
      additionalProperties: false,
      declareExternallyReferenced: true,
      format: false,
      strictIndexSignatures: true,
      style: { singleQuote: true },
    });
    parts.push(`/** Section ${section.pattern} */\n${ts.trim()}\n`);
  }
  // Section path -> type, for the typed module views (settings/model/module-view.ts).
  const map = set.sections.map((section) => `  ${JSON.stringify(section.pattern)}: ${section.typeName};`);
  parts.push(
    `/** Every registered section path (object sections by their pattern) and its type. */\nexport interface SettingsSections {\n${map.join('\n')}\n}\n`,
  );
  return parts.join('\n');
}
