/**
 * check_settings for the poller (issue 39, item 3), asked with Debian's
 * check_nrpe of an config-agent run as a process that pulls its settings from
 * Debian's nginx on loopback: OK with the revision in force; CRITICAL with
 * the first problem while a pulled file is refused, and while a local edit
 * is; WARNING once the source failed max-failures polls in a row; OK again
 * once fixed; Icinga 2, polling it with the ITL's nrpe command, sees the
 * same states. Perf data: seconds since the last good pull and change.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { listenerPort, replaceFile, startAgent, webPort, type AgentProcess } from '../helpers/agent-process.js';
import { startIcingaDaemon } from '../helpers/icinga-daemon.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { serve, startNginx, type Nginx } from '../helpers/nginx-daemon.js';
import { sourceClient, type SourceClient } from '../helpers/source-client.js';
import { Teardown } from '../helpers/teardown.js';
import { waitUntil } from '../helpers/wait-until.js';

const PASSWORD = 'check-settings-password';

void describe('check_settings over check_nrpe (agent as a process, nginx source)', () => {
  let nginx: Nginx;
  let agent: AgentProcess;
  let client: SourceClient;
  let nrpe: number;
  let ini: string;
  const made = new Teardown();
  after(() => made.close());

  const ask = async (...args: string[]): Promise<{ code: number; out: string }> => {
    const r = await checkNrpe(nrpe, ['-n', '-c', 'check_settings', ...(args.length > 0 ? ['-a', ...args] : [])]);
    return { code: r.code, out: r.out.trim() };
  };

  before(async () => {
    nginx = made.add(await startNginx(), (n) => n.close());
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 1000\n');
    ini = [
      '[/modules]',
      'WEBServer = enabled',
      'CheckHelpers = enabled',
      'RemoteServer = enabled',
      '[/paths]',
      'state = ${base-path}/state',
      '[/settings/default]',
      `password = ${PASSWORD}`,
      'allowed hosts = 127.0.0.1',
      '[/settings/WEB/server]',
      'port = 0s',
      'bind to = 127.0.0.1',
      '[/settings/remote/server]',
      'port = 0',
      'bind to = 127.0.0.1',
      'use ssl = false',
      'allow arguments = true',
      '[/settings/source]',
      `url = ${nginx.base}/fleet.ini`,
      'interval = 3600',
      '',
    ].join('\n');
    agent = made.add(await startAgent({ ini }), (a) => a.stop());
    client = sourceClient(await webPort(agent), PASSWORD);
    nrpe = await listenerPort(agent, 'RemoteServer');
    assert.equal((await client.firstPull()).lastError, null);
  });

  void it('OK with the revision in force, and the seconds since the last good pull and change', async () => {
    const s = await client.status();
    const r = await ask();
    assert.equal(r.code, 0, r.out);
    assert.ok(r.out.startsWith(`OK: settings in force, revision ${s.revision ?? ''}|`), r.out);
    assert.match(r.out, /'since_good_pull'=\d+s 'since_change'=\d+s$/);
  });

  void it('CRITICAL with the first problem while the pulled file is refused; OK once fixed', async () => {
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = lots!\n');
    await client.pull();
    const r = await ask();
    assert.equal(r.code, 2, r.out);
    assert.match(
      r.out,
      /^CRITICAL: the settings pulled are refused: the settings pulled from \S+ \(revision .*\) are not applied: 1 problem/,
    );
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 2000\n');
    await client.pull();
    assert.equal((await ask()).code, 0);
  });

  void it('WARNING once the source failed max-failures polls in a row', async () => {
    await nginx.stop();
    try {
      await client.pull();
      assert.equal((await ask()).code, 0, 'one failure is no warning with max-failures=3');
      assert.equal((await ask('max-failures=1')).code, 1);
      await client.pull();
      await client.pull();
      const r = await ask();
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /^WARNING: the settings source failed 3 polls in a row: /);
    } finally {
      await nginx.start();
    }
    await client.pull();
    assert.equal((await ask()).code, 0);
  });

  void it('Icinga 2 polling it with check_nrpe sees OK, then CRITICAL for a refused pull, then OK', async () => {
    const icinga = made.add(
      await startIcingaDaemon({
        hosts: ['agent-host'],
        services: [],
        nrpeChecks: [{ host: 'agent-host', service: 'settings', port: nrpe, command: 'check_settings' }],
      }),
      (i) => i.stop(),
    );
    const result = async (): Promise<{ state: number; output: string } | undefined> => {
      const r = (await icinga.object('services/agent-host!settings'))?.last_check_result as
        { state: number; output: string } | null | undefined;
      return r ?? undefined;
    };
    await waitUntil(async () => (await result())?.state === 0, 30_000, 'Icinga 2 polling OK');
    assert.match((await result())?.output ?? '', /^OK: settings in force, revision /);
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = lots!\n');
    await client.pull();
    await waitUntil(async () => (await result())?.state === 2, 30_000, 'Icinga 2 seeing CRITICAL');
    assert.match((await result())?.output ?? '', /^CRITICAL: the settings pulled are refused: /);
    serve(nginx, 'fleet.ini', '[/settings/log]\nbuffer size = 3000\n');
    await client.pull();
    await waitUntil(async () => (await result())?.state === 0, 30_000, 'Icinga 2 seeing OK again');
  });

  void it('CRITICAL while a local edit is refused; OK once the file is good again', async () => {
    const good = readFileSync(agent.settingsFile, 'utf8');
    const from = agent.mark();
    replaceFile(agent.settingsFile, `${good}\n[/settings/NSClient/server]\ntimeout = soon\n`);
    await agent.waitForLog(/timeout/, 10_000, from);
    await waitUntil(async () => (await ask()).code === 2, 10_000, 'CRITICAL after the bad edit');
    assert.match((await ask()).out, /^CRITICAL: the settings last read are refused: .*a duration/);
    replaceFile(agent.settingsFile, good);
    await waitUntil(async () => (await ask()).code === 0, 10_000, 'OK after the fix');
  });
});
