/**
 * The one truth set of the agent, for settings values, API query flags and
 * client options alike: `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`,
 * `enabled`/`disabled` (and `enable`/`disable`), any case, blanks around
 * ignored, as NSClient++ settings files use all of them. An empty value is
 * not decided here: each caller says what "no value" means (a setting: false;
 * an API flag: its default; a client flag given bare: true).
 */
const TRUE = new Set(['1', 'true', 'yes', 'on', 'enabled', 'enable']);
const FALSE = new Set(['0', 'false', 'no', 'off', 'disabled', 'disable']);

/** true, false, or undefined when `text` is none of the words (an empty text included). */
export function parseBoolean(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (TRUE.has(t)) return true;
  if (FALSE.has(t)) return false;
  return undefined;
}
