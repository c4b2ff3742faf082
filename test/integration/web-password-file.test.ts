/**
 * Issue 29, item 3: no secret written into the git file by a command. `config-agent web install` and
 * `config-agent web password --set` run as processes keep root's password in ${state}/web-password
 * (mode 0600) and write `${file:state/web-password}` into the settings, unless
 * --write-password; `settings validate` warns AGENT_WARN_PASSWORD_IN_GIT about a plain-text password
 * in a file that git tracks (a real `git init` and `git add`), and says nothing outside a work
 * tree or for a file git does not track. A running agent signs in with the password from the file.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { runAgentCli } from '../helpers/run-cli.js';
import { waitUntil } from '../helpers/wait-until.js';
import { webRequest } from '../helpers/web-client.js';

void describe('config-agent web keeps the password out of the settings file (processes, a real git work tree)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'web-password-file-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('install writes ${file:state/web-password}, the password in a 0600 file it names; --write-password writes it and validation warns in git only', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const file = join(repo, 'agent.ini');
    writeFileSync(file, '[/modules]\n');
    execFileSync('git', ['-C', repo, 'add', 'agent.ini']);

    const r = await runAgentCli(['web', 'install', '--settings', file, '--port', '18443']);
    assert.equal(r.code, 0, r.stderr);
    const pw = /web password for user root: (\S+)/.exec(r.stdout)?.[1] ?? '';
    assert.ok(pw.length >= 20, r.stdout);
    const secretFile = join(repo, 'state', 'web-password');
    assert.match(r.stdout, new RegExp(`kept in ${secretFile.replace(/[.]/g, '\\.')} \\(mode 0600`));
    assert.match(r.stdout, /\$\{env:AGENT_WEB_PASSWORD\}/, 'the output tells the ${env:} way too');
    assert.match(
      r.stderr,
      /lies in a git work tree and git does not ignore it/,
      'state/ is not ignored in this repository',
    );
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, new RegExp(pw));
    assert.match(text, /\[\/settings\/WEB\/server\]\nport = 18443s\npassword = \$\{file:state\/web-password\}\n/);
    assert.equal(readFileSync(secretFile, 'utf8'), `${pw}\n`);
    assert.equal(statSync(secretFile).mode & 0o777, 0o600);
    const clean = await runAgentCli(['settings', 'validate', file]);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.doesNotMatch(clean.stdout + clean.stderr, /AGENT_WARN_PASSWORD_IN_GIT/);
    const shown = await runAgentCli(['web', 'password', '--display', '--settings', file]);
    assert.match(shown.stdout, new RegExp(`web password for user root: ${pw}`));

    // Asked for: the password itself goes into the file, and validation warns at its line, without showing it.
    const literal = await runAgentCli([
      'web',
      'password',
      '--set',
      'literal-secret-29',
      '--write-password',
      '--settings',
      file,
    ]);
    assert.equal(literal.code, 0, literal.stderr);
    assert.doesNotMatch(literal.stdout, /kept in/);
    assert.match(readFileSync(file, 'utf8'), /password = literal-secret-29\n/);
    const warned = await runAgentCli(['settings', 'validate', file]);
    assert.equal(warned.code, 0, 'a warning does not fail validation');
    const out = warned.stdout + warned.stderr;
    assert.match(
      out,
      /agent\.ini:6:\d+: warning AGENT_WARN_PASSWORD_IN_GIT .*password is written in plain text in agent\.ini, which git tracks/,
    );
    assert.doesNotMatch(out, /literal-secret-29/);
    // A web user's plain-text password warns too; a pbkdf2 hash does not.
    appendFileSync(
      file,
      '\n[/settings/web/users/ann]\npassword = ann-plain-29\nrole = client\n\n[/settings/web/users/bob]\npassword = pbkdf2-sha256$100000$00$00\nrole = client\n',
    );
    const users = await runAgentCli(['settings', 'validate', file]);
    const usersOut = users.stdout + users.stderr;
    assert.match(usersOut, /agent\.ini:9:\d+: warning AGENT_WARN_PASSWORD_IN_GIT/);
    assert.doesNotMatch(usersOut, /agent\.ini:13:\d+: warning AGENT_WARN_PASSWORD_IN_GIT/);
    assert.doesNotMatch(usersOut, /ann-plain-29/);

    // The same file outside a work tree, or not added to git: no warning.
    const outside = join(dir, 'outside.ini');
    copyFileSync(file, outside);
    const untracked = join(repo, 'other.ini');
    copyFileSync(file, untracked);
    for (const f of [outside, untracked]) {
      const v = await runAgentCli(['settings', 'validate', f]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
      assert.doesNotMatch(v.stdout + v.stderr, /AGENT_WARN_PASSWORD_IN_GIT/, f);
    }
  });

  void it('password --set in a file whose state folder cannot be written fails with AGENT_ERR_PASSWORD_FILE and writes nothing', async () => {
    const file = join(dir, 'blocked.ini');
    const text = '[/paths]\nstate = blocked.ini/state\n\n[/modules]\n';
    writeFileSync(file, text);
    const r = await runAgentCli(['web', 'password', '--set', 'some-password-1', '--settings', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot write the password file .*blocked\.ini\/state\/web-password: .*--write-password/);
    assert.equal(readFileSync(file, 'utf8'), text);
  });
});

void describe('a running agent signs in with the password the command kept in its file (agent process)', () => {
  let agent: AgentProcess | undefined;
  after(async () => {
    await agent?.stop();
  });

  void it('install reuses the password the agent generated; password --set applies to the running agent', async () => {
    agent = await startAgent({
      ini: '[/modules]\nWEBServer = enabled\n\n[/settings/WEB/server]\nport = 0s\nbind to = 127.0.0.1\nallowed hosts = 127.0.0.1\n',
    });
    const base = (await agent.waitForLog(/web server listening on (https:\/\/127\.0\.0\.1:\d+)/))[1];
    const generated = readFileSync(join(agent.dir, 'state', 'web-password'), 'utf8').trim();
    const status = async (password: string): Promise<number> =>
      (await webRequest(`${base}/api/v1/info`, { user: 'root', password })).status;
    assert.equal(await status(generated), 200);

    const install = await runAgentCli(['web', 'install', '--settings', agent.settingsFile]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(
      install.stdout,
      new RegExp(`web password for user root: ${generated}`),
      'the password the agent generated stays the password',
    );
    assert.match(readFileSync(agent.settingsFile, 'utf8'), /password = \$\{file:state\/web-password\}/);
    await agent.waitForLog(/settings changed/);
    assert.equal(await status(generated), 200);

    const set = await runAgentCli(['web', 'password', '--set', 'from-the-file-29', '--settings', agent.settingsFile]);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /uses the new password after its next reload/);
    assert.doesNotMatch(readFileSync(agent.settingsFile, 'utf8'), /from-the-file-29/);
    agent.proc.kill('SIGHUP');
    await waitUntil(async () => (await status('from-the-file-29')) === 200, 15_000, 'the password from the file');
    assert.equal(await status(generated), 403);
  });
});
