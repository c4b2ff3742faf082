/**
 * The running agent with a boot file that includes a host file by
 * ${host_lc} (from AGENT_HOSTNAME), which includes a shared base: editing the base hot-applies,
 * a broken base keeps the last good settings (with the base's file and line
 * in the log), and a secret from the environment never reaches the log.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';

const SECRET = 'fleet-secret-from-env-7731';
const BASE = (helpers: boolean, extra = ''): string => `; shared base
[/modules]
CheckHelpers = ${helpers ? 'enabled' : 'disabled'}
CheckExternalScripts = disabled

[/settings/default]
password = \${env:FLEET_TEST_PASSWORD}
${extra}`;

let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

before(async () => {
  agent = made.add(
    await startAgent({
      ini: '[/includes]\nhost = hosts/${host_lc}.ini\n',
      files: {
        'hosts/web01.ini': '[/includes]\nbase = ../shared/base.ini\n\n[/settings/log]\nlevel = debug\n',
        'shared/base.ini': BASE(true),
      },
      env: { AGENT_HOSTNAME: 'WEB01.example.com', FLEET_TEST_PASSWORD: SECRET },
    }),
    (a) => a.stop(),
  );
});

void test('starts from the tree: boot file, host file by ${host_lc}, shared base', async () => {
  await agent.waitForLog(/module CheckHelpers started/);
});

void test('editing the shared base hot-applies', async () => {
  const m = agent.mark();
  replaceFile(join(agent.dir, 'shared', 'base.ini'), BASE(false));
  await agent.waitForLog(/CheckHelpers: unload \(disabled in \[\/modules\]\)/, 15_000, m);
});

void test('a broken base keeps the last good settings and names the base file and line', async () => {
  const m = agent.mark();
  replaceFile(join(agent.dir, 'shared', 'base.ini'), BASE(true, '\n[/settings/WEB/server]\nport = nope\n'));
  await agent.waitForLog(/settings rejected/, 15_000, m);
  await agent.waitForLog(
    /AGENT_ERR_VALUE_INVALID \[\/settings\/WEB\/server\] port: "nope".*\(.*shared\/base\.ini:10\)/,
    5_000,
    m,
  );
  assert.doesNotMatch(agent.logs().slice(m), /CheckHelpers: load/, 'nothing of the broken base is applied');
  const fixed = agent.mark();
  replaceFile(join(agent.dir, 'shared', 'base.ini'), BASE(true));
  await agent.waitForLog(/CheckHelpers: load \(enabled in \[\/modules\]\)/, 15_000, fixed);
});

void test('the secret from ${env:} appears in no log line', () => {
  assert.doesNotMatch(agent.logs(), new RegExp(SECRET));
});

void test('a folder in [/includes]: a file dropped into it, edited in place and removed hot-applies each time', async () => {
  const folder = await startAgent({
    ini: '[/includes]\nparts = conf.d\n\n[/modules]\nCheckExternalScripts = disabled\n',
    files: { 'conf.d/00-log.ini': '[/settings/log]\nlevel = debug\n' },
  });
  try {
    await folder.waitForLog(/agent ready/);
    let m = folder.mark();
    writeFileSync(join(folder.dir, 'conf.d', '10-helpers.ini'), '[/modules]\nCheckHelpers = enabled\n');
    await folder.waitForLog(/CheckHelpers: load \(enabled in \[\/modules\]\)/, 15_000, m);
    m = folder.mark();
    writeFileSync(join(folder.dir, 'conf.d', '10-helpers.ini'), '[/modules]\nCheckHelpers = disabled\n');
    await folder.waitForLog(/CheckHelpers: unload \(disabled in \[\/modules\]\)/, 15_000, m);
    m = folder.mark();
    writeFileSync(join(folder.dir, 'conf.d', '10-helpers.ini'), '[/modules]\nCheckHelpers = enabled\n');
    await folder.waitForLog(/CheckHelpers: load/, 15_000, m);
    m = folder.mark();
    rmSync(join(folder.dir, 'conf.d', '10-helpers.ini'));
    await folder.waitForLog(/CheckHelpers: unload/, 15_000, m);
    // A file that is not .ini changes nothing: the folder's watch passes it by (the debug line would say a reload).
    m = folder.mark();
    writeFileSync(join(folder.dir, 'conf.d', 'notes.txt'), 'CheckHelpers = enabled\n');
    writeFileSync(join(folder.dir, 'conf.d', '20-marker.ini'), '; nothing\n');
    await folder.waitForLog(/settings (changed|unchanged) \(/, 15_000, m);
    assert.doesNotMatch(folder.logs().slice(m), /CheckHelpers: load/);
  } finally {
    await folder.stop();
  }
});
