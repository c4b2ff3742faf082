/**
 * The Debian package on a real host: `npm run package`'s signed apt repository served by nginx in
 * a minimal Debian 12 made by mmdebstrap, whose systemd runs as PID 1 in namespaces of its own
 * (helpers/systemd-root.ts), and the package installed from it with apt-get
 * (helpers/apt-repository.ts); the same repository unsigned, or signed by another key, is refused
 * by apt-get update. Inside it, as an admin would: the service is active and answers check_nrpe
 * and check_nscp_api (both installed in the root); an edit of the settings is applied without a
 * restart; systemctl reload reloads; the journal holds no password; SIGKILL and a stalled event
 * loop (the documented test stall, through a drop-in) bring it back; an upgrade published in the
 * repository (a rebuild at a higher version, signed by the key the first build made) is installed
 * by apt-get upgrade, keeps the edited settings and restarts it once; stop ends with status 0;
 * purge leaves no user and no state. Also: lintian has nothing to say at error or warning level,
 * and systemd-analyze security rates the unit 2.0 or better.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';
import { prepareAptHost, publish, sourcesLine } from '../helpers/apt-repository.js';
import { closeGpg, gpgKey, type GpgKey } from '../helpers/signing-keys.js';
import {
  bootRoot,
  buildPackage,
  exposure,
  mainPid,
  makeRoot,
  removeRoot,
  run,
  type BootedRoot,
} from '../helpers/systemd-root.js';
import { waitUntil } from '../helpers/wait-until.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const UPGRADE = `${VERSION}+test1`;
const NRPE = '/usr/lib/nagios/plugins/check_nrpe';
const NSCP_API = '/usr/lib/nagios/plugins/check_nscp_api';

void test(
  'the Debian package on a real systemd: install from the apt repository, serve, edit, reload, restart, watchdog, upgrade, stop, purge',
  { timeout: 600_000 },
  async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'agent-package-'));
    const rootDir = join(work, 'root');
    let sys: BootedRoot | undefined;
    let otherKey: GpgKey | undefined;
    try {
      // The first build makes the signing key in work/apt-key, the rebuild signs with it.
      const aptKey = join(work, 'apt-key');
      const [deb] = await Promise.all([
        (async () => {
          const first = await buildPackage(join(work, 'v1'), VERSION, aptKey);
          await buildPackage(join(work, 'v2'), UPGRADE, aptKey);
          return first;
        })(),
        makeRoot(rootDir, ['nagios-nrpe-plugin', 'icinga2-bin', 'monitoring-plugins-basic', 'procps', 'nginx']),
      ]);
      otherKey = gpgKey(work, 'other');
      prepareAptHost(rootDir, join(work, 'v1/apt'), otherKey);

      await t.test('lintian: no error and no warning', async () => {
        const r = await run('lintian', ['--tag-display-limit', '0', '--fail-on', 'error,warning', deb], 300_000);
        assert.equal(r.code, 0, r.stdout + r.stderr);
      });

      sys = await bootRoot(rootDir);
      const s = sys;

      await t.test('apt-get install config-agent from the signed repository starts the service', async () => {
        await waitUntil(
          async () => (await s.sh('systemctl is-active nginx')).stdout.trim() === 'active',
          30_000,
          'nginx serving the repository',
        );
        const r = await s.sh(
          `echo '${sourcesLine('config-agent')}' > /etc/apt/sources.list.d/config-agent.list && apt-get update && apt-get install -y config-agent`,
          300_000,
        );
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(
          (await s.sh('apt-cache policy config-agent')).stdout,
          /http:\/\/127\.0\.0\.1:8080\/config-agent stable\/main amd64 Packages/,
        );
        assert.equal((await s.sh('systemctl is-active config-agent')).stdout.trim(), 'active');
        assert.match((await s.sh('id config-agent')).stdout, /uid=\d+\(config-agent\) gid=\d+\(config-agent\)/);
        assert.equal(
          (
            await s.sh(
              'stat -c "%U:%G %a" /var/lib/config-agent /var/lib/config-agent/web-password /etc/config-agent/agent.ini',
            )
          ).stdout,
          'config-agent:config-agent 750\nconfig-agent:config-agent 600\nroot:config-agent 640\n',
        );
        assert.match(
          (await s.sh('systemctl show -P StatusText config-agent')).stdout,
          /^running: \d+ module\(s\) loaded/,
        );
        assert.match(
          (await s.sh('man -w config-agent 2>/dev/null || ls /usr/share/man/man1/config-agent.1.gz')).stdout,
          /config-agent\.1\.gz/,
        );
        // The command as an admin runs it; a filter pattern loads re2js from the package's node_modules.
        const q = await s.sh(`config-agent query check_os_version 'filter=pretty regexp "Debian"'`);
        assert.equal(q.code, 0, q.stdout + q.stderr);
        assert.match(q.stdout, /^OK: Debian GNU\/Linux 12/);
      });

      await t.test('systemd-analyze security rates the unit 2.0 or better', async () => {
        const { score, text } = await exposure(s);
        assert.ok(score <= 2.0, `exposure ${score}: ${text.slice(-400)}`);
      });

      await t.test('check_nscp_api answers through the web API with the generated password', async () => {
        const r = await s.sh(
          `${NSCP_API} -H 127.0.0.1 -P 8443 --password "$(cat /var/lib/config-agent/web-password)" -q check_ok`,
        );
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /OK/);
      });

      await t.test('a drop-in in /etc/config-agent/conf.d is applied while it runs: check_nrpe answers', async () => {
        const pid = await mainPid(s);
        assert.equal(
          (await s.sh("stat -c '%a %U %G' /etc/config-agent/conf.d")).stdout.trim(),
          '750 root config-agent',
        );
        await s.sh("printf '[/modules]\\nRemoteServer = enabled\\n' > /etc/config-agent/conf.d/50-nrpe.ini");
        await waitUntil(
          async () => (await s.sh(`${NRPE} -H 127.0.0.1 -c check_ok`)).code === 0,
          30_000,
          'check_nrpe answering after the edit',
        );
        assert.equal(
          (await s.sh(`${NRPE} -H 127.0.0.1`)).stdout.trim(),
          `I (agent ${VERSION}) seem to be doing fine...`,
        );
        assert.equal(await mainPid(s), pid, 'no restart for the edit');
      });

      await t.test('config-agent settings set edits agent.ini and keeps its mode, owner and group', async () => {
        const file = '/etc/config-agent/agent.ini';
        const before = (await s.sh(`stat -c '%a %U %G' ${file}`)).stdout.trim();
        assert.equal(before, '640 root config-agent');
        // The checked replace of a settings edit (renameat2 RENAME_EXCHANGE) ships as an addon.
        assert.equal((await s.sh('test -f /usr/lib/config-agent/dist/bin/rename-exchange.node')).code, 0);
        const r = await s.sh(
          `config-agent settings set --settings ${file} --path /settings/default --key "allowed hosts" --value "127.0.0.1, ::1, 127.0.0.2"`,
        );
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match((await s.sh(`cat ${file}`)).stdout, /^allowed hosts = 127\.0\.0\.1, ::1, 127\.0\.0\.2$/m);
        assert.equal((await s.sh(`stat -c '%a %U %G' ${file}`)).stdout.trim(), before);
        assert.equal((await s.sh('ls -A /etc/config-agent | grep -c "\\.tmp$"')).stdout.trim(), '0');
      });

      await t.test('the process is named config-agent: pgrep and check_procs -C find it', async () => {
        const pid = await mainPid(s);
        assert.equal((await s.sh('pgrep -x config-agent')).stdout.trim(), String(pid));
        const procs = await s.sh('/usr/lib/nagios/plugins/check_procs -C config-agent -c 1:1');
        assert.equal(procs.code, 0, procs.stdout + procs.stderr);
      });

      await t.test('check_drivesize under the service counts the drives the command line counts', async () => {
        const drives = (out: string): string => /All (\d+) drive\(s\)|No drives found|\d+ drive/.exec(out)?.[0] ?? out;
        const cli = await s.sh('config-agent query check_drivesize');
        const service = await s.sh(`${NRPE} -H 127.0.0.1 -c check_drivesize`);
        assert.equal(drives(service.stdout), drives(cli.stdout), `${cli.stdout}\n${service.stdout}`);
        assert.doesNotMatch(service.stdout, /\/etc\/config-agent|\/var\/lib\/config-agent|\/var\/tmp/);
      });

      await t.test('systemctl reload reloads the settings', async () => {
        const r = await s.sh('systemctl reload config-agent');
        assert.equal(r.code, 0, r.stderr);
        await waitUntil(
          async () =>
            /SIGHUP: reloading settings/.test((await s.sh('journalctl -u config-agent --no-pager -o cat')).stdout),
          20_000,
          'the reload in the journal',
        );
      });

      await t.test('the journal holds no password, and its warnings carry their priority', async () => {
        const password = (await s.sh('cat /var/lib/config-agent/web-password')).stdout.trim();
        assert.match(password, /^[\w-]{24}$/);
        const journal = (await s.sh('journalctl -u config-agent --no-pager -o cat')).stdout;
        assert.ok(!journal.includes(password), 'the password is not in the journal');
        assert.match(journal, /the password of web user root is in \/var\/lib\/config-agent\/web-password/);
        const warnings = (await s.sh('journalctl -u config-agent --no-pager -o cat -p warning')).stdout;
        assert.match(warnings, /AGENT_WARN_EMPTY_PASSWORD/);
        assert.doesNotMatch(warnings, /agent ready/, 'info lines are not at warning priority');
      });

      await t.test('SIGKILL: systemd restarts the agent', async () => {
        const pid = await mainPid(s);
        await s.sh('systemctl kill -s SIGKILL config-agent');
        await waitUntil(
          async () =>
            (await mainPid(s)) !== pid &&
            (await mainPid(s)) > 0 &&
            (await s.sh('systemctl is-active config-agent')).stdout.trim() === 'active',
          30_000,
          'a new main process',
        );
      });

      await t.test('a stalled event loop misses the watchdog and systemd restarts the agent', async () => {
        await s.sh(
          'mkdir -p /etc/systemd/system/config-agent.service.d && printf "[Service]\\nEnvironment=AGENT_TEST_STALL_SIGNAL=SIGUSR2\\nWatchdogSec=3s\\n" > /etc/systemd/system/config-agent.service.d/test-stall.conf && systemctl daemon-reload && systemctl reset-failed config-agent; systemctl restart config-agent',
        );
        const pid = await mainPid(s);
        assert.ok(pid > 0);
        await s.sh('systemctl kill -s SIGUSR2 --kill-who=main config-agent');
        await waitUntil(
          async () => /Watchdog timeout/.test((await s.sh('journalctl -u config-agent --no-pager -o cat')).stdout),
          30_000,
          'the watchdog timeout',
        );
        await waitUntil(
          async () =>
            (await mainPid(s)) !== pid && (await s.sh('systemctl is-active config-agent')).stdout.trim() === 'active',
          30_000,
          'the restarted agent',
        );
        // reset-failed: the restarts of these steps come close to systemd's start rate limit (5 in 10 s).
        await s.sh(
          'rm -r /etc/systemd/system/config-agent.service.d && systemctl daemon-reload && systemctl reset-failed config-agent; systemctl restart config-agent',
        );
      });

      await t.test('a repository unsigned or signed by another key is refused by apt-get update', async () => {
        for (const [name, problem] of [
          ['unsigned', /The repository 'http:\/\/127\.0\.0\.1:8080\/unsigned stable Release' is not signed/],
          ['other-key', new RegExp(`NO_PUBKEY ${otherKey?.gpgKey.slice(-16) ?? '-'}`)],
        ] as const) {
          const r = await s.sh(
            `echo '${sourcesLine(name)}' > /etc/apt/sources.list.d/${name}.list && apt-get update; code=$?; rm /etc/apt/sources.list.d/${name}.list; exit $code`,
            120_000,
          );
          assert.equal(r.code, 100, r.stdout + r.stderr);
          assert.match(r.stdout + r.stderr, problem);
        }
      });

      await t.test(
        'an upgrade published in the repository: apt-get upgrade installs it, keeps the edited settings and restarts the service once',
        async () => {
          const before = (
            await s.sh('journalctl -u config-agent --no-pager -o cat | grep -c "SIGTERM: stopping"')
          ).stdout.trim();
          publish(rootDir, 'config-agent', join(work, 'v2/apt'));
          const r = await s.sh('apt-get update && apt-get upgrade -y', 300_000);
          assert.equal(r.code, 0, r.stdout + r.stderr);
          assert.match(r.stdout, /^Unpacking config-agent \(.*\) over \(/m);
          assert.match(
            (await s.sh('dpkg-query -W -f "\\${Version}" config-agent')).stdout,
            new RegExp(`^${UPGRADE.replace(/[.+]/g, '\\$&')}$`),
          );
          assert.match(
            (await s.sh('cat /etc/config-agent/agent.ini')).stdout,
            /^allowed hosts = 127\.0\.0\.1, ::1, 127\.0\.0\.2$/m,
            'the edit is kept',
          );
          assert.match((await s.sh('cat /etc/config-agent/conf.d/50-nrpe.ini')).stdout, /^RemoteServer = enabled$/m);
          await waitUntil(
            async () => (await s.sh(`${NRPE} -H 127.0.0.1 -c check_ok`)).code === 0,
            30_000,
            'check_nrpe after the upgrade',
          );
          const after = (
            await s.sh('journalctl -u config-agent --no-pager -o cat | grep -c "SIGTERM: stopping"')
          ).stdout.trim();
          assert.equal(Number(after) - Number(before), 1, 'one restart');
        },
      );

      await t.test('systemctl stop ends with status 0', async () => {
        await s.sh('systemctl stop config-agent');
        assert.equal((await s.sh('systemctl show -P ExecMainStatus config-agent')).stdout.trim(), '0');
        assert.equal((await s.sh('systemctl show -P Result config-agent')).stdout.trim(), 'success');
      });

      await t.test('apt-get remove keeps the settings, purge leaves no user and no state', async () => {
        assert.equal((await s.sh('apt-get remove -y config-agent', 120_000)).code, 0);
        assert.equal(
          (await s.sh('test -f /etc/config-agent/agent.ini && test -d /var/lib/config-agent')).code,
          0,
          'settings and state kept by remove',
        );
        assert.equal((await s.sh('apt-get purge -y config-agent', 120_000)).code, 0);
        assert.notEqual((await s.sh('getent passwd config-agent')).code, 0, 'no user');
        assert.notEqual((await s.sh('getent group config-agent')).code, 0, 'no group');
        assert.notEqual((await s.sh('test -e /var/lib/config-agent')).code, 0, 'no state');
        assert.notEqual((await s.sh('test -e /etc/config-agent')).code, 0, 'no settings');
      });
    } finally {
      closeGpg(otherKey);
      await sys?.kill();
      removeRoot(rootDir);
      rmSync(work, { recursive: true, force: true });
    }
  },
);
