/**
 * Where `settings import` puts its result, so that the service can read it:
 * - a new file gets mode 0640 and, when the group `config-agent` exists (a
 *   packaged host), that group (root:config-agent, as the package's own
 *   settings files), its folder made if needed (0755);
 * - an existing file keeps its mode, owner and group;
 * - the `[/paths]` section of a file replaced is kept (the package's file
 *   names the service's folders there; the import never writes one).
 * The text goes to a temp file beside it, renamed over it in one step.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SERVICE_USER } from '../formats/sudo-command.js';

/** Write `text` to `output` as described above; returns the text written. */
export async function writeImportFile(output: string, text: string): Promise<string> {
  const old = statSync(output, { throwIfNoEntry: false });
  const written = old ? withPathsOf(readFileSync(output, 'utf8'), text) : text;
  if (!old) await mkdir(dirname(output), { recursive: true, mode: 0o755 });
  const tmp = `${output}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, written, { mode: old ? old.mode & 0o7777 : 0o640 });
    const gid = old ? old.gid : groupId(SERVICE_USER);
    const uid = old ? old.uid : process.getuid?.();
    if (uid !== undefined && gid !== undefined && (process.getuid?.() === 0 || uid === process.getuid?.()))
      await chown(tmp, uid, gid);
    await rename(tmp, output);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return written;
}

/** `text` with the `[/paths]` section of `previous` appended, when `text` has none. */
function withPathsOf(previous: string, text: string): string {
  const header = /^\s*\[\/paths\]\s*$/i;
  if (text.split('\n').some((l) => header.test(l))) return text;
  const lines = previous.split(/\r?\n/);
  const start = lines.findIndex((l) => header.test(l));
  if (start < 0) return text;
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  const kept = lines.slice(start, end).join('\n').trimEnd();
  return `${text.trimEnd()}\n\n; Kept from the file this import replaced: the service's folders.\n${kept}\n`;
}

/** The id of a group in /etc/group, or undefined. */
function groupId(name: string): number | undefined {
  try {
    const row = readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    const gid = row?.split(':')[2];
    return gid === undefined ? undefined : Number(gid);
  } catch {
    return undefined;
  }
}
