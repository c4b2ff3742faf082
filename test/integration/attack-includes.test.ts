/**
 * Includes at scale (issue 25, item 5): 100,000 included files validate
 * (no stack overflow); a running agent with 1,000 includes reloads an edit
 * of one of them; an include chain deeper than the limit is refused with a
 * clear error, logged, and shown in the status and in
 * `agent_settings_last_reload_successful`; a later good edit is still
 * applied, and SIGTERM stops the agent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, type AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { webRequest } from '../helpers/web-client.js';

const INCLUDED = 1000;
const MAIN = (extra = ''): string => `[/modules]
CheckHelpers = enabled
CheckExternalScripts = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret

[/includes]
all = conf.d
${extra}`;
const aliasFile = (i: number, target = 'check_ok'): string =>
  `[/settings/external scripts/alias/a${i}]\ncommand = ${target}\n`;

function includedFiles(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`conf.d/f${String(i).padStart(6, '0')}.ini`] = aliasFile(i);
  return files;
}

void it('100,000 included files validate, without a stack overflow', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-includes-'));
  try {
    mkdirSync(join(dir, 'conf.d'));
    for (const [rel, text] of Object.entries(includedFiles(100_000))) writeFileSync(join(dir, rel), text);
    writeFileSync(join(dir, 'agent.ini'), MAIN().replace('WEBServer = enabled\n', ''));
    const r = await runAgentCli(['settings', 'validate', '--settings', join(dir, 'agent.ini')], 120_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /valid \(0 error\(s\), 0 warning\(s\)\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

void describe('reloads of a tree of 1,000 includes (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const made = new Teardown();
  const get = async (path: string): Promise<string> =>
    (await webRequest(`${base}${path}`, { ca, user: 'root', password: 'root-secret' })).body;

  before(async () => {
    ({ agent, base, ca } = made.add(
      await startWebAgent({
        ini: MAIN(),
        files: includedFiles(INCLUDED),
        readyTimeoutMs: 60_000,
      }),
      async (w) => assert.equal(await w.agent.stop(), 0, 'SIGTERM stops the agent'),
    ));
  });
  after(() => made.close());

  void it('an edit of one included file is applied', async () => {
    const m = agent.mark();
    replaceFile(join(agent.dir, 'conf.d/f000500.ini'), aliasFile(500, 'check_version'));
    await agent.waitForLog(/settings changed \(.*\); reconciling/, 10_000, m);
    const query = JSON.parse(await get('/api/v1/queries/a500')) as {
      description?: string;
      aliasOf?: string;
      alias_of?: string;
    };
    assert.match(JSON.stringify(query), /check_version/);
  });

  void it('a chain of includes deeper than the limit is refused, logged and shown; a later edit is still applied', async () => {
    const m = agent.mark();
    for (let i = 0; i < 70; i++)
      writeFileSync(join(agent.dir, `deep${i}.ini`), `[/includes]\nnext = deep${i + 1}.ini\n`);
    writeFileSync(join(agent.dir, 'deep70.ini'), '');
    replaceFile(agent.settingsFile, MAIN('deep = deep0.ini\n'));
    await agent.waitForLog(/settings rejected: 1 problem/, 20_000, m);
    await agent.waitForLog(
      /AGENT_ERR_INCLUDE_DEPTH.*includes nest deeper than 64 levels: agent\.ini -> deep0\.ini -> deep1\.ini -> … -> deep63\.ini/,
      5_000,
      m,
    );
    assert.match(await get('/api/v1/metrics'), /^agent_settings_last_reload_successful 0$/m);
    const status = JSON.parse(await get('/api/v1/settings/status')) as {
      lastResult: string;
      problems: { code: string }[];
    };
    assert.equal(status.lastResult, 'invalid');
    assert.deepEqual(
      status.problems.map((p) => p.code),
      ['AGENT_ERR_INCLUDE_DEPTH'],
    );

    const again = agent.mark();
    replaceFile(agent.settingsFile, MAIN());
    // The settings in force were kept: the good file is the same settings again.
    await agent.waitForLog(/settings unchanged \(file rename\); reconciling/, 20_000, again);
    assert.match(await get('/api/v1/metrics'), /^agent_settings_last_reload_successful 1$/m);
  });
});
