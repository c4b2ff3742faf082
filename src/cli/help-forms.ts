import { inRange } from '../in-range.js';
/**
 * NSClient++'s help forms beside --help: `help` (the same text),
 * `help-short` (the usage line) and `help-csv` (one row per option:
 * option,argument,description), bare or with dashes, wherever a command
 * takes --help. They are derived from the command's own --help text, so
 * they never disagree with it.
 */
export type HelpForm = 'full' | 'short' | 'csv';

const FORMS: Record<string, HelpForm> = {
  help: 'full',
  'help-short': 'short',
  '--help-short': 'short',
  'help-csv': 'csv',
  '--help-csv': 'csv',
};

/** The help form a command's first argument asks for, if any (`--help` itself is the command's own). */
export function helpFormOf(arg: string | undefined): HelpForm | undefined {
  return arg === undefined ? undefined : FORMS[arg];
}

/** `help` text reshaped into `form`. */
export function reshapeHelp(help: string, form: HelpForm): string {
  const lines = help.replace(/\n$/, '').split('\n');
  const usage = lines.find((l) => l.startsWith('Usage:')) ?? lines[0] ?? '';
  if (form === 'full') return help;
  if (form === 'short') return usage;
  const rows = new Map<string, { arg: string; description: string }>();
  // Options listed with a description: `  --name ARG   what it does`.
  // An option listed once per value (`--format text  …`, `--format json  …`) becomes one row.
  for (const line of lines) {
    const m = /^\s{2,}(--[\w-]+)(?:[ =]([A-Z][\w|.…,[\]]*|[a-z]+(?:\|[a-z]+)*))?\s{2,}(\S.*)$/.exec(line);
    if (!m) continue;
    const [name, arg, description] = [inRange(m, 1), balanced(m[2] ?? ''), inRange(m, 3).trim()];
    const row = rows.get(name);
    if (!row) rows.set(name, { arg, description });
    else {
      if (arg && !row.arg.split('|').includes(arg)) row.arg = row.arg ? `${row.arg}|${arg}` : arg;
      row.description = `${row.description}; ${description}`;
    }
  }
  // Options only named in the usage line.
  for (const m of usage.matchAll(/(--[\w-]+)(?:[ =]([A-Z][\w|.…,[\]]*|[a-z]+(?:\|[a-z]+)+))?/g)) {
    const name = inRange(m, 1);
    if (!rows.has(name)) rows.set(name, { arg: balanced(m[2] ?? ''), description: '' });
  }
  const cell = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return [
    'option,argument,description',
    ...[...rows].map(([name, r]) => [name, r.arg, r.description].map(cell).join(',')),
  ].join('\n');
}

/** `P]` (the end of `[--password P]`) without the bracket that closes the usage's optional part. */
function balanced(arg: string): string {
  let out = arg;
  while (out.endsWith(']') && (out.match(/\]/g) ?? []).length > (out.match(/\[/g) ?? []).length) out = out.slice(0, -1);
  return out;
}

/**
 * Runs `command` with --help while holding back what it prints, then
 * prints that text in `form`. Resolves with the command's exit code.
 */
export async function runHelpForm(command: (argv: string[]) => Promise<number>, form: HelpForm): Promise<number> {
  const write = process.stdout.write.bind(process.stdout);
  let text = '';
  process.stdout.write = (chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  let code: number;
  try {
    code = await command(['--help']);
  } finally {
    process.stdout.write = write;
  }
  const shaped = reshapeHelp(text, form);
  write(shaped.endsWith('\n') ? shaped : `${shaped}\n`);
  return code;
}
