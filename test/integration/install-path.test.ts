/**
 * The agent installed in a folder whose path has spaces and non-ASCII
 * characters (`…/inst ü 監視`), the way an admin installs it: the package
 * is packed (`npm pack`, the built dist/ included), unpacked there, and
 * its dependencies installed there with `npm ci --omit=dev --offline`
 * from the lock file and the npm cache (CI's `npm ci` has just filled the
 * cache, so no network is needed: a few seconds). `npm install --offline
 * <tarball>` is not used: it needs the registry's package lists, which the
 * cache does not keep. Scripts are not run (`--ignore-scripts`: `prepare`
 * would rebuild, and dist/ is already in the package).
 *
 * From there, as processes: `config-agent settings validate`; `config-agent run` with
 * WEBServer over TLS (the certificate created under the spaced path and
 * served), /api/v1/info answering, and external scripts under `${scripts}`
 * run by name and by `${scripts}/…` path; then SIGTERM. Paths read at run
 * time must come from fileURLToPath, never from URL.pathname (which keeps
 * %20 and %C3%BC), and a path variable in a command line stays one word.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { REPO } from '../helpers/agent-process.js';
import { webRequest } from '../helpers/web-client.js';

const PASSWORD = 'install-pw';
const base = mkdtempSync(join(tmpdir(), 'agent install '));
const root = join(base, 'inst ü 監視');
after(() => rmSync(base, { recursive: true, force: true }));

// Install: pack, unpack into the spaced folder, install the dependencies there.
const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
npm(['pack', '--ignore-scripts', '--pack-destination', base], REPO);
const tarball = readdirSync(base).find((f) => f.endsWith('.tgz'));
assert.ok(tarball, 'npm pack made a tarball');
mkdirSync(root, { recursive: true });
execFileSync('tar', ['-xzf', join(base, tarball), '--strip-components=1', '-C', root], { timeout: 60_000 });
copyFileSync(join(REPO, 'package-lock.json'), join(root, 'package-lock.json'));
npm(['ci', '--omit=dev', '--offline', '--ignore-scripts'], root);

const main = join(root, 'dist/agent.cjs');
const ini = join(root, 'agent ü.ini');
mkdirSync(join(root, 'scripts'), { recursive: true });
writeFileSync(join(root, 'scripts', 'hello.sh'), '#!/bin/sh\necho "hello: $1"\n');
chmodSync(join(root, 'scripts', 'hello.sh'), 0o755);
writeFileSync(
  ini,
  `[/modules]
CheckHelpers = enabled
CheckSystem = enabled
CheckExternalScripts = enabled
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = ${PASSWORD}
allowed hosts = 127.0.0.1

[/settings/external scripts]
allow arguments = 1

[/settings/external scripts/scripts]
by_name = hello.sh "$ARG1$"
by_path = \${scripts}/hello.sh "$ARG1$"
`,
);

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [main, ...args],
      { cwd: base, timeout: 30_000, env: { ...process.env, AGENT_LOG_LEVEL: 'info' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, out: stdout + stderr });
      },
    );
  });
}

void test('installed with npm ci from the packed package: the agent and its dependencies are there', () => {
  assert.ok(existsSync(main));
  for (const dep of ['ajv', 'protobufjs', 'selfsigned'])
    assert.ok(existsSync(join(root, 'node_modules', dep, 'package.json')), dep);
  assert.ok(!existsSync(join(root, 'node_modules', 'typescript')), 'no dev dependencies');
});

void test('config-agent settings validate runs from a folder with a space and non-ASCII characters', async () => {
  const ok = await run(['settings', 'validate', '--settings', ini]);
  assert.equal(ok.code, 0, ok.out);
  // The schema really was read from there: a problem is found and explained.
  const badIni = join(root, 'bad.ini');
  writeFileSync(badIni, '[/settings/WEB/server]\nport = nope\n');
  const bad = await run(['settings', 'validate', '--settings', badIni]);
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /AGENT_ERR_VALUE_INVALID/);
});

void test('config-agent run from there: WEBServer over TLS with its certificate made there, /api/v1/info, scripts under ${scripts}; SIGTERM exits 0', async () => {
  const proc = spawn(process.execPath, [main, 'run', '--settings', ini], {
    cwd: base,
    env: { ...process.env, AGENT_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  const ready = new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`not ready after 30 s:\n${out}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      if (/agent ready/.test(out)) {
        clearTimeout(timer);
        res();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      rej(new Error(`exited before ready:\n${out}`));
    });
  });
  try {
    await ready;
    for (const m of ['CheckHelpers', 'CheckSystem', 'CheckExternalScripts', 'WEBServer'])
      assert.match(out, new RegExp(`module ${m} started`));
    const url = /web server listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    assert.ok(url, out);

    // The certificate was created under the spaced path, and it is the one served.
    const certFile = join(root, 'security', 'certificate.pem');
    assert.ok(existsSync(certFile), `${certFile} exists`);
    const made = new X509Certificate(readFileSync(certFile));
    const served = await new Promise<string>((res, rej) => {
      const s = connect({ host: '127.0.0.1', port: Number(new URL(url).port), rejectUnauthorized: false }, () => {
        res(s.getPeerCertificate().fingerprint256);
        s.end();
      });
      s.once('error', rej);
    });
    assert.equal(served, made.fingerprint256);

    const info = await webRequest(`${url}/api/v1/info`, { user: 'root', password: PASSWORD, timeoutMs: 20_000 });
    assert.equal(info.status, 200, info.body);
    assert.ok(typeof info.json<{ version?: unknown }>().version === 'string', info.body);

    for (const query of ['by_name', 'by_path']) {
      const res = await webRequest(`${url}/api/v1/queries/${query}/commands/execute?${encodeURIComponent('a b')}`, {
        user: 'root',
        password: PASSWORD,
        timeoutMs: 20_000,
      });
      assert.equal(res.status, 200, res.body);
      const body = res.json<{ result: number; lines: { message: string }[] }>();
      assert.deepEqual([body.result, body.lines[0]?.message], [0, 'hello: a b'], `${query}: ${res.body}`);
    }
  } finally {
    proc.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out);
  assert.match(out, /agent stopped/);
});
