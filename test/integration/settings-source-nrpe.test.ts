/**
 * Settings pulled from a web server drive what the agent answers over
 * NRPE: the local file is only a boot file naming `[/settings/source]`
 * (Debian's nginx on loopback serves the settings); the pulled file
 * enables RemoteServer and an alias, and Debian's check_nrpe gets the
 * alias's answer; a changed file on the server, pulled on SIGHUP, changes
 * the answer without a restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { nrpeAliasSettings } from '../helpers/source-client.js';
import { waitUntil } from '../helpers/wait-until.js';

let nginx: Nginx | undefined;
let agent: AgentProcess | undefined;
const state = mkdtempSync(join(tmpdir(), 'source-nrpe-state-'));

/** The settings the server hands out: RemoteServer on a port the system picks, and one alias whose answer says which revision ran. */
const served = (revision: string): string => nrpeAliasSettings(`from the server, ${revision}`);

before(async () => {
  nginx = await startNginx();
  serve(nginx, 'agent.ini', served('first'));
  agent = await startAgent({
    ini: [
      '[/paths]',
      `state = ${state}`,
      '[/settings/source]',
      `url = ${nginx.base}/agent.ini`,
      'interval = 3600',
      'timeout = 5',
      '',
    ].join('\n'),
  });
});

after(async () => {
  await agent?.stop();
  await nginx?.close();
  rmSync(state, { recursive: true, force: true });
});

void test('check_nrpe answers from the pulled settings, and from the next revision after SIGHUP', async () => {
  const running = agent as AgentProcess;
  const port = await listenerPort(running, 'RemoteServer');
  const first = await checkNrpe(port, ['-c', 'check_pulled']);
  assert.deepEqual(first, { code: 0, out: 'from the server, first' });
  // A longer text: nginx's ETag (mtime in seconds and size) differs even within the same second.
  serve(nginx as Nginx, 'agent.ini', served('the second revision'));
  running.proc.kill('SIGHUP');
  let answer = first;
  await waitUntil(
    async () => {
      answer = await checkNrpe(port, ['-c', 'check_pulled']);
      return answer.out === 'from the server, the second revision';
    },
    15_000,
    'the new revision answering over NRPE',
  );
  assert.equal(answer.code, 0);
});
