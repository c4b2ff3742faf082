/**
 * An API edit never overwrites a hand edit it has not read: while a person
 * (a process of its own, test/helpers/hand-editor.ts) saves 200 edits to
 * the settings file (one every 20-80 ms), by rename and by appending in
 * place, the test sends settings edits through the API one after the
 * other. Every hand edit is
 * in the file at the end; the API edits that met a hand edit between their
 * read and their rename were read again and applied on top (or answered
 * 409), never written over it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { basic, webRequest } from '../helpers/web-client.js';

const HAND_EDITS = 200;
const EDITOR = fileURLToPath(new URL('../helpers/hand-editor.js', import.meta.url));
let agent: AgentProcess | undefined;

after(async () => {
  await agent?.stop();
});

void test('hand edits saved during a stream of API edits are all kept', async () => {
  const ini = [
    '[/modules]',
    'WEBServer = enabled',
    'CheckHelpers = enabled',
    '[/settings/default]',
    'password = race-secret',
    '[/settings/WEB/server]',
    'port = 0s',
    'bind to = 127.0.0.1',
    // Both writers add keys here: the API in the section, the hand editor at the end of the file.
    '[/settings/external scripts/alias]',
  ];
  agent = await startAgent({ ini: `${ini.join('\n')}\n` });
  const running = agent;
  const base = `https://127.0.0.1:${await webPort(running)}/api/v1`;
  const auth = { authorization: basic('root', 'race-secret'), 'content-type': 'application/json' };

  const editor = spawn(process.execPath, [EDITOR, running.settingsFile, String(HAND_EDITS)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let editorOut = '';
  editor.stdout.on('data', (d: Buffer) => (editorOut += d.toString()));
  editor.stderr.on('data', (d: Buffer) => (editorOut += d.toString()));
  const editorDone = new Promise<number | null>((resolve) => editor.on('close', resolve));
  let editing = true;
  void editorDone.then(() => (editing = false));

  const statuses = new Map<number, number>();
  // Bounded: the editor ends after HAND_EDITS saves; the cap keeps the loop finite whatever happens.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- editing is cleared by the callback above, which TypeScript does not see run
  for (let i = 0; editing && i < 5000; i++) {
    const r = await webRequest(`${base}/settings`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ path: '/settings/external scripts/alias', key: `api_${i}`, value: 'check_ok' }),
    });
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    assert.ok(r.status === 200 || r.status === 409, `API edit ${i}: ${r.status} ${r.body}`);
  }
  assert.equal(await editorDone, 0, editorOut);
  assert.match(editorOut, new RegExp(`done ${HAND_EDITS}`));
  assert.ok(
    (statuses.get(200) ?? 0) > 0,
    `no API edit was applied while the hand edits were saved: ${JSON.stringify([...statuses])}`,
  );

  const text = readFileSync(running.settingsFile, 'utf8');
  const lost = Array.from({ length: HAND_EDITS }, (_, i) => `hand_${i}`).filter(
    (key) => !new RegExp(`^${key} = check_ok$`, 'm').test(text),
  );
  assert.deepEqual(lost, [], `hand edits overwritten by API edits (API answers ${JSON.stringify([...statuses])})`);
});
