/**
 * HostSources over a recorded machine under test/fixtures/host/<name>/:
 * `proc/`, `sys/` and `root/` are copies of the trees the checks read, and
 * `commands.json` maps a command line (argv joined by spaces) to the file
 * holding what it printed, its exit code and stderr. A command that was not
 * recorded fails with exit code 127 naming it, so a test never passes on
 * output nobody recorded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandOutcome, HostSources } from '../../src/checks/host/host-sources.js';

interface Recorded {
  stdout?: string;
  stderr?: string;
  code?: number;
}

export const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'host');

export function recordedHost(
  name: string,
  overrides: Partial<Omit<HostSources, 'run'>> = {},
): HostSources & { commands: string[] } {
  const dir = join(FIXTURES, name);
  let table: Record<string, Recorded> = {};
  try {
    table = JSON.parse(readFileSync(join(dir, 'commands.json'), 'utf8')) as Record<string, Recorded>;
  } catch {
    table = {};
  }
  const commands: string[] = [];
  return {
    proc: join(dir, 'proc'),
    sys: join(dir, 'sys'),
    root: join(dir, 'root'),
    ...overrides,
    commands,
    run: async (argv): Promise<CommandOutcome> => {
      const line = argv.join(' ');
      commands.push(line);
      const r = table[line];
      if (!r)
        return { code: 127, stdout: '', stderr: `not recorded in ${name}/commands.json: ${line}`, timedOut: false };
      return {
        code: r.code ?? 0,
        stdout: r.stdout ? readFileSync(join(dir, r.stdout), 'utf8') : '',
        stderr: r.stderr ?? '',
        timedOut: false,
      };
    },
  };
}
