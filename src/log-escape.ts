/**
 * Escaping of values that came from outside (peer addresses, NRPE command
 * names, agent-protocol fields, HTTP paths) before they go into a log line,
 * so that a peer cannot forge or split log entries.
 *
 * Contract: the result holds no CR, LF, other C0 or C1 control character,
 * DEL, or Unicode line/paragraph separator; each is written as `\r`, `\n`,
 * `\t` or `\xNN` / `\uNNNN`. A backslash is written as `\\`, so an escaped
 * text can always be told apart from text that merely looks escaped.
 * Printable text (any script) is kept as it is. Never throws.
 */

// C0 controls, backslash, DEL, C1 controls, U+2028/U+2029 (line breaks in JavaScript and many viewers).
// eslint-disable-next-line no-control-regex -- matching control characters is this escaper's job
const UNSAFE = /[\u0000-\u001f\\\u007f-\u009f\u2028\u2029]/g;

/** `value` as text safe for one log line (see the file's contract). */
export function escapeLog(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.replace(UNSAFE, escapeChar);
}

// ---------------------------------------------------------------- helpers

function escapeChar(c: string): string {
  switch (c) {
    case '\r':
      return '\\r';
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
    case '\\':
      return '\\\\';
    default: {
      const code = c.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}

// ---------------------------------------------------------------- secrets

export const SECRET_MASK = '******';

/** Shorter values are not masked inside longer texts (a secret "1" would mask every digit); they are still hidden where shown by key. */
export const MIN_MASKED_LENGTH = 4;

/** The userinfo of a URL (`scheme://user:password@`): up to the last `@` before the path, query or fragment. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>\\]*@/gi;

/**
 * `text` as it may leave the agent: the userinfo of every URL in it
 * (`https://user:password@host/` → `https://******@host/`) and every
 * occurrence of each secret value (settings/model/secrets.ts: values read with
 * `${env:}` / `${file:}`, x-secret keys) replaced by ******. The one mask of
 * every exit: the log, the API's status, metrics and errors, `settings show`.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  // The values first: a secret value that is a whole URL no longer matches once its userinfo is masked.
  let out = text;
  for (const s of secrets) if (s.length >= MIN_MASKED_LENGTH && out.includes(s)) out = out.split(s).join(SECRET_MASK);
  return out.includes('@') ? out.replace(USERINFO, `$1${SECRET_MASK}@`) : out;
}
