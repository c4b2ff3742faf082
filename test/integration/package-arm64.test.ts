/**
 * The arm64 package on this x64 machine: `npm run package` (helpers/systemd-root.ts buildPackage)
 * writes config-agent_<version>_arm64.deb and .tar.gz beside amd64's and lists the .deb in the apt
 * repository for arm64 hosts; lintian has nothing to say at error or warning level about the .deb.
 * Its tree, unpacked from the .tar.gz, is run as an arm64 host would run it, under Debian's
 * qemu-aarch64-static with the arm64 libraries of the cross toolchain (-L /usr/aarch64-linux-gnu,
 * no binfmt registration): the runtime and the C parts are aarch64 code, the runtime is the
 * pinned version the x64 build runs, the addons load, V8 takes the code cache made under qemu at
 * package time, `config-agent query check_cpu` answers, and the agent started on loopback answers
 * Debian's check_nrpe and an API request with Basic auth over TLS. Scripts are not run: starting
 * the (arm64) script spawner is an execve that the kernel refuses without a binfmt registration.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, listenerPort, startAgent, webPort } from '../helpers/agent-process.js';
import { checkNrpe } from '../helpers/nrpe-daemon.js';
import { buildPackage, run, type Run } from '../helpers/systemd-root.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest } from '../helpers/web-client.js';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const SYSROOT = '/usr/aarch64-linux-gnu';
const C_PARTS = [
  'script-spawner',
  'sd-notify.node',
  'no-dump.node',
  'rename-exchange.node',
  'heap-settle.node',
  'bundle-read.node',
].map((f) => `dist/bin/${f}`);

const made = new Teardown();
let work = '';
let deb = '';
/** /usr/lib/config-agent of the unpacked .tar.gz. */
let lib = '';
/** The packaged arm64 node as this machine runs it. */
let node: [string, ...string[]] = ['node'];
let lintian: Promise<Run> | undefined;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'agent-arm64-'));
  made.defer(() => rmSync(work, { recursive: true, force: true }));
  deb = await buildPackage(join(work, 'out'), VERSION, join(work, 'apt-key'), 'arm64');
  // lintian reads the .deb while the tests before its own run the tree under qemu.
  lintian = run('lintian', ['--tag-display-limit', '0', '--fail-on', 'error,warning', deb], 120_000);
  const root = join(work, 'root');
  mkdirSync(root);
  const untar = await run('tar', [
    '--extract',
    '--gzip',
    '--file',
    join(work, 'out', `config-agent_${VERSION}_arm64.tar.gz`),
    '--directory',
    root,
  ]);
  assert.equal(untar.code, 0, untar.stderr);
  lib = join(root, 'usr/lib/config-agent');
  node = ['qemu-aarch64-static', '-L', SYSROOT, join(lib, 'bin/node')];
});

after(async () => {
  await lintian?.catch(() => undefined);
  await made.close();
});

/** Runs the packaged node under qemu with `args`. */
const arm64 = (args: string[], timeoutMs = 30_000): Promise<Run> =>
  run(node[0], [...node.slice(1), ...args], timeoutMs);

void test('the apt repository lists the arm64 .deb for arm64 hosts', () => {
  const apt = join(work, 'out/apt/dists/stable');
  assert.match(readFileSync(join(apt, 'Release'), 'utf8'), /^Architectures: amd64 arm64$/m);
  const packages = readFileSync(join(apt, 'main/binary-arm64/Packages'), 'utf8');
  assert.match(packages, /^Architecture: arm64$/m);
  assert.match(packages, new RegExp(`^Filename: pool/main/c/config-agent/config-agent_${VERSION}_arm64\\.deb$`, 'm'));
});

void test('the runtime and the C parts are aarch64 code; the runtime is the version the x64 build runs', async () => {
  for (const file of ['bin/node', ...C_PARTS]) {
    const r = await run('file', ['-b', join(lib, file)]);
    assert.match(r.stdout, /^ELF 64-bit LSB .*ARM aarch64/, `${file}: ${r.stdout}`);
  }
  const r = await arm64(['-p', 'process.arch + " " + process.version']);
  assert.equal(r.stdout.trim(), `arm64 ${process.version}`, r.stderr);
});

void test('the addons load in the arm64 runtime', async () => {
  const addons = C_PARTS.filter((f) => f.endsWith('.node')).map((f) => join(lib, f));
  const r = await arm64(['-e', 'for (const f of process.argv.slice(1)) require(f)', ...addons]);
  assert.equal(r.code, 0, r.stderr);
});

void test('the code cache of each bundle file was made by the arm64 runtime: V8 takes it', async () => {
  const bundles = ['main.cjs', 'on-demand.cjs'].map((name) => join(lib, 'dist/agent', name));
  const r = await arm64([
    '-e',
    `const [launcher, ...bundles] = process.argv.slice(1);
const rejected = bundles.map((b) => require(launcher).compile(b, require('node:fs').readFileSync(b + '.cache')).cachedDataRejected);
process.stdout.write(rejected.join(' '));`,
    join(lib, 'dist/agent.cjs'),
    ...bundles,
  ]);
  assert.equal(r.stdout, 'false false', r.stderr);
});

void test('config-agent query check_cpu answers', async () => {
  const r = await arm64([join(lib, 'dist/agent.cjs'), 'query', 'check_cpu'], 60_000);
  assert.ok([0, 1, 2].includes(r.code), `exit ${r.code}: ${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /^(OK: CPU load is ok\.|(WARNING|CRITICAL): .*)\|'total [^']+'=[\d.]+%;80;90/);
});

void test('the agent starts and answers check_nrpe and the API (Basic auth over TLS)', async () => {
  const agent = made.add(
    await startAgent({
      command: [...node, join(lib, 'dist/agent.cjs')],
      readyTimeoutMs: 45_000,
      ini: `[/modules]
CheckSystem = enabled
CheckHelpers = enabled
RemoteServer = enabled
WEBServer = enabled

[/settings/default]
allowed hosts = 127.0.0.1

[/settings/remote/server]
port = 0
bind to = 127.0.0.1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = arm64-secret
`,
    }),
    (a) => a.stop(),
  );
  // The no-dump addon ran in the arm64 agent.
  assert.match(agent.logs(), /process marked non-dumpable/);
  // So did the heap-settle addon: malloc trimmed after the start (src/cli/heap-settle.ts).
  await agent.waitForLog(/heap settled after the start in [\d.]+ ms \(malloc trimmed\)/, 30_000);

  const nrpe = await listenerPort(agent, 'RemoteServer');
  const hello = await checkNrpe(nrpe, []);
  assert.equal(hello.out, `I (agent ${VERSION}) seem to be doing fine...`);
  const cpu = await checkNrpe(nrpe, ['-c', 'check_cpu']);
  assert.ok([0, 1, 2].includes(cpu.code), cpu.out);
  assert.match(cpu.out, /\|'total [^']+'=[\d.]+%;80;90/);

  const url = `https://127.0.0.1:${await webPort(agent)}/api/v1/info`;
  const ca = readFileSync(join(agent.dir, 'security', 'certificate.pem'), 'utf8');
  const info = await webRequest(url, { user: 'root', password: 'arm64-secret', ca, timeoutMs: 20_000 });
  assert.equal(info.status, 200, info.body);
  const { version } = info.json<{ version: string }>();
  assert.ok(version.includes(VERSION), version);
  const refused = await webRequest(url, { user: 'root', password: 'wrong', ca, timeoutMs: 20_000 });
  assert.equal(refused.status, 403);
});

void test('lintian: no error and no warning on the arm64 .deb', async () => {
  assert.ok(lintian, 'lintian was started');
  const r = await lintian;
  assert.equal(r.code, 0, r.stdout + r.stderr);
});
