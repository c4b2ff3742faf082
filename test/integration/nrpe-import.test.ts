/**
 * The differential test of `config-agent settings import nrpe.cfg`. For each
 * nrpe.cfg fixture (with its include and include_dir files), Debian's NRPE
 * daemon and the config-agent run the same configuration, both as the user
 * `nagios` (nrpe switches to it; the agent is started as it, as nrpe runs
 * its commands). The agent runs what `config-agent settings import` wrote from it
 * (the include_dir followed at each load through [/includes]). A sudoers
 * file written for nagios (removed after) lets the sudo commands run. Debian's check_nrpe then asks both
 * for every command, over v4 packets (check_nrpe's default) and v2 (-2). It
 * also sends an undefined command, arguments and a nasty character. Exit
 * code and first line must be the same, with digits normalised (load,
 * process counts and sizes move between two readings; a state that flips
 * between the two readings is read again, at most 3 times). The only exceptions
 * are the deliberate differences in DELIBERATE below, and each of those is
 * asserted as it is.
 *
 * Both sides listen on loopback and use the same plugins
 * (monitoring-plugins-basic, which nagios-nrpe-server pulls in). Relative
 * include paths resolve from the daemon's working folder, which is the
 * fixture's copy.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, REPO, freePort, listenerPort, startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { CHECK_NRPE, NRPE_DAEMON, checkNrpe } from '../helpers/nrpe-daemon.js';
import { Teardown } from '../helpers/teardown.js';
import { defined } from '../helpers/defined.js';
import { inRange } from '../../src/in-range.js';

/**
 * Where the agent answers differently from Debian's nrpe 4.1.0, on purpose:
 * - arguments: Debian's nrpe is built without argument support and drops
 *   every request with `!` whatever dont_blame_nrpe says. The agent follows
 *   the setting: with dont_blame_nrpe=1 it runs the command with them, with
 *   0 it refuses in words (UNKNOWN) where nrpe drops the connection.
 * - a refused (nasty) character: nrpe drops the connection, the agent
 *   answers UNKNOWN saying why.
 * - `_NRPE_CHECK` (check_nrpe without -c): nrpe answers its version
 *   ("NRPE v4.1.0"), the agent its own.
 * - performance data: nrpe passes the plugin's text on byte for byte; the
 *   agent parses it and writes it again (labels in single quotes, no blank
 *   before the |), which Nagios reads the same. `normal` compares the
 *   message and the perf entries, not their spacing and quotes.
 * Everything else of an imported command is nrpe's (checks/scripts/nrpe-command.ts):
 * stdout only, `NRPE: Unable to read output`, `NRPE: Command timed out after N
 * seconds`, $ARGn$ empty when not given, exit codes outside 0-3 and signals.
 */
const DELIBERATE = ['arguments', 'nasty character', '_NRPE_CHECK version', 'perf data spelling'] as const;

/** The user nrpe runs its commands as (nagios-nrpe-server makes it). */
function nagios(): { uid: number; gid: number; env: Record<string, string> } {
  const row = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nagios:'));
  const [, , uid, gid, , home] = defined(row, 'the user nagios (nagios-nrpe-server)').split(':');
  // The environment a service of that user has (systemd's User= sets HOME, USER and LOGNAME).
  return { uid: Number(uid), gid: Number(gid), env: { HOME: home ?? '/', USER: 'nagios', LOGNAME: 'nagios' } };
}

const FIXTURES = join(REPO, 'test/fixtures/nrpe');
const DROPPED = /^CHECK_NRPE: (Receive header underflow|Error receiving data)/;
function normal(s: string): string {
  const first = s.split('\n')[0] ?? '';
  const bar = first.indexOf('|');
  const message = bar < 0 ? first : first.slice(0, bar).trimEnd();
  const perf =
    bar < 0
      ? ''
      : `|${first
          .slice(bar + 1)
          .trim()
          .split(/\s+/)
          .map((p) => p.replace(/^'([^']*)'=/, '$1=').replace(/;+$/, ''))
          .join(' ')}`;
  return `${message}${perf}`.replace(/\d+(\.\d+)?/g, '#');
}

function chmodTree(dir: string): void {
  chmodSync(dir, 0o755);
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) chmodTree(p);
    else chmodSync(p, 0o644);
  }
}

interface Side {
  port: number;
  stop(): Promise<void>;
}

async function startDaemon(dir: string, port: number): Promise<Side> {
  const cfg = join(dir, 'nrpe.cfg');
  const root = process.getuid?.() === 0;
  let text = readFileSync(cfg, 'utf8');
  if (!root) text = text.replace(/^nrpe_(user|group)=.*$/gm, '');
  // Later lines win in nrpe (and in the import): the test's own listener, log and pid file.
  text += `\nserver_port=${port}\nserver_address=127.0.0.1\nallowed_hosts=127.0.0.1\npid_file=${join(dir, 'nrpe.pid')}\nlog_file=${join(dir, 'nrpe.log')}\ndisable_syslog=1\n`;
  if (root) text += 'nrpe_user=nagios\nnrpe_group=nagios\n';
  writeFileSync(cfg, text);
  chmodTree(dir);
  const child: ChildProcess = spawn(NRPE_DAEMON, ['-c', cfg, '-f'], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = (): string => {
    try {
      return readFileSync(join(dir, 'nrpe.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const until = Date.now() + 5000;
  while (!log().includes('Listening for connections on port')) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`nrpe did not start (exit ${child.exitCode}); log:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

interface ImportJson {
  valid: boolean;
  sudoers: string[];
  warnings: { code: string; file: string; line: number }[];
  totals: { unaccounted: number; lines: number; kept: number; changed: number; dropped: number; blank: number };
}

function importCfg(cfg: string, output: string): Promise<{ code: number; json: ImportJson }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'settings', 'import', cfg, '--output', output, '--format', 'json'],
      { timeout: 30_000 },
      (err, stdout) => {
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          json: JSON.parse(stdout) as ImportJson,
        });
      },
    );
  });
}

for (const fixture of ['debian-default', 'ansible-role', 'chef-cookbook']) {
  void describe(`nrpe.cfg ${fixture}: Debian's nrpe and the agent on the same configuration`, () => {
    let dir: string;
    let daemon: Side;
    let agent: AgentProcess;
    let agentPort: number;
    let commands: string[];
    let withArguments: string[];
    let argumentsAllowed: boolean;
    let ini: string;
    let imported: { code: number; json: ImportJson };

    const made = new Teardown();
    after(() => made.close());

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `nrpe-import-${fixture}-`));
      made.defer(() => rmSync(dir, { recursive: true, force: true }));
      cpSync(join(FIXTURES, fixture), dir, { recursive: true });
      // The sudo commands' sudoers line, as the host had it for nrpe's user (a name without a dot: sudo reads it).
      const sudoers = `/etc/sudoers.d/config-agent-test-${process.pid}`;
      writeFileSync(sudoers, 'nagios ALL=(root) NOPASSWD: /usr/lib/nagios/plugins/check_procs\n', { mode: 0o440 });
      made.defer(() => rmSync(sudoers, { force: true }));
      // Debian's nrpe is told its port before it starts.
      daemon = made.add(await startDaemon(dir, await freePort()), (d) => d.stop());
      imported = await importCfg(join(dir, 'nrpe.cfg'), join(dir, 'agent.ini'));
      assert.equal(imported.code, 0, JSON.stringify(imported.json));
      assert.equal(imported.json.valid, true);
      assert.equal(imported.json.totals.unaccounted, 0);
      ini = readFileSync(join(dir, 'agent.ini'), 'utf8').replace(/^port = \d+$/m, 'port = 0');
      // Every command nrpe defines is answered: the import lists them all in allowed queries (include_dir's too).
      commands = defined(/^allowed queries = (.*)$/m.exec(ini)?.[1], 'allowed queries').split(', ');
      const lines = [...readdirSync(dir, { recursive: true, encoding: 'utf8' })]
        .filter((f) => f.endsWith('.cfg'))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n');
      withArguments = commands.filter((c) => new RegExp(`command\\[${c}\\] ?=.*\\$ARG\\d+\\$`).test(lines));
      argumentsAllowed = /^allow arguments = true$/m.test(ini);
      const user = nagios();
      agent = made.add(await startAgent({ ini, asUser: user.uid, asGroup: user.gid, env: user.env }), (a) => a.stop());
      agentPort = await listenerPort(agent, 'RemoteServer');
    });

    void test('every command: the same exit code and first line over v4 and v2', async () => {
      assert.ok(commands.length >= 5, commands.join(', '));
      for (const version of [[], ['-2']]) {
        for (const c of commands) {
          // A figure near a threshold (process count, load) can change state between the two readings: read again, at most 3 times.
          let theirs = { code: -1, out: '' };
          let ours = { code: -2, out: '' };
          for (
            let attempt = 0;
            attempt < 3 && !(ours.code === theirs.code && normal(ours.out) === normal(theirs.out));
            attempt++
          ) {
            theirs = await checkNrpe(daemon.port, [...version, '-c', c]);
            ours = await checkNrpe(agentPort, [...version, '-c', c]);
          }
          assert.deepEqual(
            [ours.code, normal(ours.out)],
            [theirs.code, normal(theirs.out)],
            `${c} ${version.join(' ')}: agent "${ours.out}" vs nrpe "${theirs.out}"`,
          );
        }
      }
    });

    void test('an undefined command: the same words and code', async () => {
      for (const version of [[], ['-2']]) {
        const theirs = await checkNrpe(daemon.port, [...version, '-c', 'check_not_defined_here']);
        const ours = await checkNrpe(agentPort, [...version, '-c', 'check_not_defined_here']);
        assert.deepEqual(ours, theirs);
        assert.deepEqual(ours, { code: 3, out: "NRPE: Command 'check_not_defined_here' not defined" });
      }
    });

    void test(`deliberate differences (${DELIBERATE.join(', ')}) are what the test says they are`, async () => {
      const target = withArguments[0] ?? inRange(commands, 0);
      const theirs = await checkNrpe(daemon.port, ['-c', target, '-a', '1', '2', '/']);
      assert.equal(theirs.code, 3);
      assert.match(theirs.out, DROPPED, "Debian's nrpe drops every request with arguments");
      const ours = await checkNrpe(agentPort, ['-c', target, '-a', '1', '2', '/']);
      if (argumentsAllowed)
        assert.doesNotMatch(ours.out, /not allowed|Arguments/i, `${target} runs with the arguments: ${ours.out}`);
      else assert.match(ours.out, /argument/i, `refused in words: ${ours.out}`);
      const nastyTheirs = await checkNrpe(daemon.port, ['-c', `${commands[0]};id`]);
      assert.equal(nastyTheirs.code, 3);
      assert.match(nastyTheirs.out, DROPPED);
      const nastyOurs = await checkNrpe(agentPort, ['-c', `${commands[0]};id`]);
      assert.equal(nastyOurs.code, 3);
      assert.doesNotMatch(nastyOurs.out, DROPPED, `answered in words: ${nastyOurs.out}`);
      const hello = await checkNrpe(daemon.port, []);
      assert.match(hello.out, /^NRPE v\d/);
      assert.equal((await checkNrpe(agentPort, [])).code, 0);
    });

    if (fixture === 'chef-cookbook') {
      void test('chef-cookbook: no command lost (blanks around =, include_dir with a folder below it), sudoers lines reported', () => {
        const names = new Set<string>();
        for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.cfg')))
          for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/^\s*command\[([^\]]+)\]/gm))
            names.add(inRange(m, 1));
        assert.deepEqual([...commands].sort(), [...names].sort());
        assert.ok(commands.length >= 15, commands.join(', '));
        assert.match(ini, /^\[\/includes\]\nnrpe nrpe\.d = .*\/nrpe\.d\/\*\.cfg$/m);
        assert.deepEqual(imported.json.sudoers, [
          'config-agent ALL=(root) NOPASSWD: /usr/lib/nagios/plugins/check_procs, /usr/lib/nagios/plugins/check_users',
        ]);
      });

      void test('chef-cookbook: under no_new_privs a sudo command warns at start and answers UNKNOWN naming the fix', async () => {
        const user = nagios();
        const locked = made.add(
          await startAgent({ ini, asUser: user.uid, asGroup: user.gid, env: user.env, noNewPrivs: true }),
          (a) => a.stop(),
        );
        await locked.waitForLog(/AGENT_WARN_SUDO_NO_NEW_PRIVILEGES.*check_sudo_procs/);
        const theirs = await checkNrpe(daemon.port, ['-c', 'check_sudo_procs']);
        assert.equal(theirs.code, 0, theirs.out);
        const ours = await checkNrpe(await listenerPort(locked, 'RemoteServer'), ['-c', 'check_sudo_procs']);
        assert.equal(ours.code, 3, ours.out);
        assert.match(ours.out, /^NRPE: Unable to read output: sudo cannot run under no_new_privs.*allow-sudo\.conf/);
      });

      void test('chef-cookbook: a changed nrpe.d file is read again, as nrpe reads it at its next load', async () => {
        const site = join(dir, 'nrpe.d/extra/site.cfg');
        writeFileSync(site, 'command[check_site] = /usr/lib/nagios/plugins/check_dummy 1 "site changed"\n');
        let ours = { code: -1, out: '' };
        for (const until = Date.now() + 15_000; Date.now() < until && ours.code !== 1;) {
          await new Promise((r) => setTimeout(r, 250));
          ours = await checkNrpe(agentPort, ['-c', 'check_site']);
        }
        assert.deepEqual(ours, { code: 1, out: 'WARNING: site changed' });
      });
    }
  });
}

void test('check_nrpe is the Debian client', () => {
  assert.ok(statSync(CHECK_NRPE).isFile());
});

void test('--output onto an existing file keeps its mode, owner, group and [/paths]; --drop-in writes conf.d/ 0640', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nrpe-import-output-'));
  try {
    const main = join(dir, 'agent.ini');
    writeFileSync(main, '[/paths]\nstate = /var/lib/config-agent\n\n[/modules]\nWEBServer = enabled\n', {
      mode: 0o640,
    });
    const { gid } = nagios();
    chownSync(main, 0, gid);
    const cfg = join(FIXTURES, 'debian-default', 'nrpe.cfg');
    const run = (args: string[]): Promise<void> =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [MAIN, 'settings', 'import', cfg, ...args], { timeout: 30_000 }, (err) =>
          err ? reject(new Error(err.message)) : resolve(),
        ),
      );
    await run(['--output', main, '--force']);
    const st = statSync(main);
    assert.deepEqual([st.mode & 0o7777, st.uid, st.gid], [0o640, 0, gid]);
    assert.match(readFileSync(main, 'utf8'), /^\[\/paths\]\nstate = \/var\/lib\/config-agent$/m);
    assert.match(readFileSync(main, 'utf8'), /^\[\/settings\/external scripts\/nrpe commands\]$/m);
    await run(['--drop-in', '--settings', main]);
    const dropIn = join(dir, 'conf.d', '50-nrpe-import.ini');
    assert.equal(statSync(dropIn).mode & 0o7777, 0o640);
    assert.doesNotMatch(readFileSync(dropIn, 'utf8'), /\[\/paths\]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
