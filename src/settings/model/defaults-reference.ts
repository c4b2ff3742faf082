/**
 * The reference of every settings key, made from the schemas (the only
 * hand-written settings model): each section in the order the root schema
 * lists it, each key with its default and the first sentence of its
 * meaning, commented out, so the file can be read, grepped and copied
 * from but changes nothing if read. `config-agent settings defaults`
 * prints it; `npm run gen` writes it to settings/agent.ini.reference (CI
 * fails on drift) and the package ships that file as
 * /usr/share/doc/config-agent/agent.ini.reference. Pure.
 */
import { loadSchemaSet, type JsonSchema, type SchemaSet } from './schema-set.js';

/** The first sentence of a description, on one line. */
function firstSentence(text: string | undefined): string {
  const one = (text ?? '').replace(/\s+/g, ' ').trim();
  const end = one.search(/\.(\s|$)/);
  return end < 0 ? one : one.slice(0, end + 1);
}

/** A default as the INI file writes it. */
function defaultText(prop: JsonSchema, modules: boolean): string {
  const d = prop.default;
  if (d === undefined) return '';
  if (typeof d === 'boolean') return modules ? (d ? 'enabled' : 'disabled') : d ? 'true' : 'false';
  if (typeof d === 'string' || typeof d === 'number') return String(d);
  return JSON.stringify(d);
}

/** `; ` before every line of a comment of at most `width` characters a line. */
function comment(text: string, width = 100): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + word.length + 1 > width) {
      out.push(`; ${line}`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') out.push(`; ${line}`);
  return out;
}

export function defaultsReference(set: SchemaSet = loadSchemaSet()): string {
  const lines = [
    '; Every settings key of config-agent with its default and its meaning, made from the',
    '; schemas (config-agent settings defaults). Nothing here is read: a value is in force',
    '; without being written. Write a key in /etc/config-agent/agent.ini or a drop-in of',
    '; /etc/config-agent/conf.d/ only to change it. Layers, lowest first: these defaults,',
    '; the pulled settings ([/settings/source]), agent.ini, conf.d/*.ini in name order.',
    '; Object sections (<name>) take any name; their defaults come from the object "default".',
    '',
  ];
  for (const section of set.sections) {
    const schema = section.schema;
    lines.push(`[${section.pattern}]`);
    lines.push(...comment(firstSentence(schema.description)));
    const extra = schema.additionalProperties;
    if (typeof extra === 'object') lines.push(...comment(`Any key: ${firstSentence(extra.description)}`));
    for (const [key, prop] of Object.entries(schema.properties ?? {})) {
      const meaning = firstSentence(prop.description);
      if (meaning !== '') lines.push(...comment(meaning).map((l) => `;${l}`));
      lines.push(
        `; ${key} = ${prop['x-secret'] === true ? '' : defaultText(prop, section.pattern === '/modules')}`.trimEnd(),
      );
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
