/**
 * An imported NSClient++ file runs: `config-agent settings import` on the NRPE
 * fixture, then the agent started on the result (its NRPE port moved to a
 * free one) answers Debian's check_nrpe with the imported aliases and
 * scripts, arguments included.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenerPort, MAIN, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/nsclient/nrpe-scripts-aliases.ini', import.meta.url));
let agent: AgentProcess;
let port: number;
const made = new Teardown();

before(async () => {
  const imported = execFileSync(process.execPath, [MAIN, 'settings', 'import', FIXTURE], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 20_000,
  });
  assert.match(imported, /^port = 5666$/m);
  const ini = imported.replace(/^port = 5666$/m, `port = 0\nbind to = 127.0.0.1`);
  agent = made.add(
    await startAgent({ ini, files: { 'scripts/check_mailq.sh': '#!/bin/sh\necho "mailq $1 $2"\nexit $2\n' } }),
    (a) => a.stop(),
  );
  chmodSync(join(agent.dir, 'scripts', 'check_mailq.sh'), 0o755);
  port = await listenerPort(agent, 'RemoteServer');
});

after(() => made.close());

void test('check_nrpe runs the imported aliases and scripts', async () => {
  const cpu = await checkNrpe(port, ['-c', 'alias_cpu', '-a', '101', '102']);
  assert.equal(cpu.code, 0, cpu.out);
  assert.match(cpu.out, /^OK: CPU load is ok\.\|/);
  const root = await checkNrpe(port, ['-c', 'alias_root']);
  assert.ok([0, 2].includes(root.code), root.out);
  assert.match(root.out, /\//);
  assert.deepEqual(await checkNrpe(port, ['-c', 'check_mailq_lines', '-a', 'q', '1']), { code: 1, out: 'mailq q 1' });
});
