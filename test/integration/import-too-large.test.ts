/**
 * `config-agent settings import` of a file whose translation is larger than the
 * agent reads as one settings file (16 MiB): the command reads and
 * translates all of it, then refuses with the size and the way out, writes
 * nothing and still reports every line it read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgentCli } from '../helpers/run-cli.js';

const LINES = 450_000;

void test('a translation over 16 MiB is refused with its size, nothing written, every line counted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-import-large-'));
  try {
    const source = join(dir, 'nsclient.ini');
    const aliases = Array.from({ length: LINES }, (_, i) => `alias_${i} = check_cpu warn=load>${i % 100}`);
    writeFileSync(
      source,
      `[/modules]\nCheckSystem = enabled\n[/settings/external scripts/alias]\n${aliases.join('\n')}\n`,
    );
    const output = join(dir, 'agent.ini');
    const r = await runAgentCli(['settings', 'import', source, '--output', output], 120_000);
    assert.equal(r.code, 1, r.stderr.slice(-2000));
    assert.match(
      r.stderr,
      /AGENT_ERR_IMPORT_TOO_LARGE: the translation is 1[6-9]\.\d MiB, larger than 16 MiB, the most the agent reads as one settings file: split the source/,
    );
    assert.match(
      r.stderr,
      new RegExp(
        `${LINES + 3} line\\(s\\) read \\(1 file\\(s\\)\\): ${LINES + 3} kept, 0 changed, 0 dropped, 0 blank or comment`,
      ),
    );
    assert.match(r.stderr, /does not validate; nothing written/);
    assert.equal(existsSync(output), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
