/**
 * Real-looking nsclient.ini files (test/fixtures/nsclient/: an Ansible role
 * with NSClient++'s legacy command names, an Icinga setup relying on the
 * default aliases, a Centreon plugin pack with modern checks) go through
 * `config-agent settings import`. The agent then runs on the result, and Debian's
 * check_nrpe runs every alias the file defines, or the default ones when it
 * defines none. None may answer that its query is unknown, or that its
 * arguments or expressions are wrong: what the file meant must run.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { DEFAULT_ALIASES } from '../../src/checks/scripts/default-aliases.js';
import { inRange } from '../../src/in-range.js';

const BROKEN = /Unknown command|is not a query|unknown argument|invalid \w+ expression|needs a value|unknown name/;

for (const fixture of ['ansible-legacy-aliases', 'icinga-default-aliases', 'centreon-modern']) {
  void describe(`${fixture}.ini: imported, run, every alias answers`, () => {
    const dir = mkdtempSync(join(tmpdir(), `nsclient-${fixture}-`));
    let agent: AgentProcess | undefined;
    after(async () => {
      await agent?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    void test('every alias runs its query', async () => {
      const out = join(dir, 'agent.ini');
      const imported = await runAgentCli([
        'settings',
        'import',
        join(REPO, 'test/fixtures/nsclient', `${fixture}.ini`),
        '--output',
        out,
      ]);
      assert.equal(imported.code, 0, imported.stderr);
      let ini = readFileSync(out, 'utf8').replace(
        /(\[\/settings\/remote\/server\][^[]*?)port = \d+/,
        '$1port = 0\nbind to = 127.0.0.1',
      );
      ini = ini.replace(/^allowed hosts = .*$/gm, 'allowed hosts = 127.0.0.1');
      agent = await startAgent({ ini });
      const port = await listenerPort(agent, 'RemoteServer');
      const section = ini.includes('[/settings/external scripts/alias]\n')
        ? (ini.slice(ini.indexOf('[/settings/external scripts/alias]\n')).split(/\n\[/)[0] ?? '')
        : '';
      const oneLiners = [...section.matchAll(/^([A-Za-z][\w-]*) = /gm)].map((m) => inRange(m, 1));
      const objects = [...ini.matchAll(/^\[\/settings\/external scripts\/alias\/([^\]]+)\]$/gm)].map((m) =>
        inRange(m, 1),
      );
      const aliases = oneLiners.length + objects.length > 0 ? [...oneLiners, ...objects] : Object.keys(DEFAULT_ALIASES);
      assert.ok(aliases.length >= 5, aliases.join(', '));
      for (const alias of aliases) {
        const r = await checkNrpe(port, ['-c', alias, '-a', '80', '90', '95']);
        assert.ok(r.code >= 0 && r.code <= 3, `${alias}: ${r.code} ${r.out}`);
        assert.doesNotMatch(r.out, BROKEN, `${alias}: ${r.out}`);
        assert.doesNotMatch(r.out, /^CHECK_NRPE/, `${alias}: ${r.out}`);
      }
      if (fixture === 'centreon-modern') {
        // NSClient++'s own names (its default filter is `mounted = 1`): at 0% every drive is a problem and shows them.
        const r = await checkNrpe(port, ['-c', 'centreon_disks_nscp', '-a', '0', '0']);
        assert.equal(r.code, 2, r.out);
        assert.match(r.out, /^CRITICAL: \/: \S+\/\S+ used \(mounted,readable(,writable)?\)/, r.out);
      }
    });
  });
}
