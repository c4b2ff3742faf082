// V8's code cache of the bundle (dist/agent/main.cjs.cache beside dist/agent/main.cjs), made by
// the runtime that will read it: V8 rejects a cache made by another build of node (another
// version, another architecture), so `npm run build` makes the checkout's with its own node
// (bundle.mjs) and `npm run package` the arm64 package's with that package's node under qemu
// (package-arm64.mjs). `node` is the command that runs that runtime, as a list.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { START_MODULES } from './bundle-split.mjs';

/**
 * Writes `${file}.cache` for every bundle file (`*.cjs`) beside `bundle` (main.cjs, on-demand.cjs:
 * src/tools/bundle-split.mjs): the cache of the top level (`launcher`'s compile(), the very call
 * that later reads it), then, if the warm-up works, a warm one in place of each the warm-up start
 * loaded (warmCache: main.cjs). Throws when not even the top-level caches can be made; says in
 * one line on stderr, prefixed by `who`, when the warm-up failed.
 */
export async function writeCodeCache({ bundle, launcher, node, who }) {
  const [command, ...args] = node;
  const bundles = bundleFiles(dirname(bundle));
  const script = `const [launcher, ...bundles] = process.argv.slice(1);
for (const bundle of bundles)
  require('node:fs').writeFileSync(bundle + '.cache', require(launcher).compile(bundle).createCachedData());`;
  execFileSync(command, [...args, '-e', script, launcher, ...bundles], { stdio: 'inherit', timeout: 120_000 });
  await warmCache({ bundle, launcher, node, who });
}

/** The bundle files of a folder (dist/agent/ as the build writes it), by name. */
export function bundleFiles(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cjs'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * The settings of the warm-up starts: the modules the default settings (settings/agent.ini)
 * enable, the web server over TLS as that file has it (port 0s: a port of the system's choice;
 * with a plain port the TLS code a default start runs was compiled at each start, ~1 ms), and the
 * sections that file holds beside them (the default targets), whose validators a start would
 * otherwise compile each time. Written here rather than read from settings/agent.ini, which is
 * the user's to edit: a local edit must not change or break a build.
 */
export function warmSettings() {
  return `[/modules]
${Object.keys(START_MODULES)
  .map((name) => `${name} = enabled\n`)
  .join('')}
[/settings/default]
password =
allowed hosts = 127.0.0.1, ::1

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1

[/settings/remote/client/targets/default]
allowed ciphers = ALL:!aNULL:!LOW:!EXP:!MD5:@STRENGTH

[/settings/agent/client/targets/default]
allowed ciphers = ALL:!aNULL:!LOW:!EXP:!MD5:@STRENGTH
`;
}

/**
 * Replaces the top-level cache by a warm one: the agent is started twice on warmSettings()
 * (in a temporary folder: the first start
 * creates the certificate, the second reads it as every later start does); the launcher writes
 * the code cache of all it compiled when the second one exits after "agent ready". The functions
 * a start runs are then compiled at build time, not at each start. Any failure keeps the
 * top-level cache: a slower start, never a failed build.
 */
async function warmCache({ bundle, launcher, node, who }) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-warm-'));
  const cacheOut = join(dir, 'caches');
  try {
    const settings = join(dir, 'agent.ini');
    writeFileSync(settings, warmSettings());
    mkdirSync(cacheOut);
    const start = (env) => startOnce({ node: [...node, launcher, 'run', '--settings', settings], env });
    await start({});
    await start({ AGENT_BUILD_CODE_CACHE: cacheOut });
    if (!existsSync(join(cacheOut, `${basename(bundle)}.cache`)))
      throw new Error(`the start wrote no cache of ${bundle}`);
    for (const name of readdirSync(cacheOut)) renameSync(join(cacheOut, name), join(dirname(bundle), name));
  } catch (err) {
    console.error(`${who}: no warm code cache (${err.message}); the top-level cache is used`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the agent command `node`, stops it with SIGINT once it is ready; rejects on failure or after 30 s. */
function startOnce({ node, env }) {
  const [command, ...args] = node;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AGENT_LOG_LEVEL: 'info', ...env },
    });
    let output = '';
    let ready = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const read = (chunk) => {
      output = (output + chunk).slice(-4000);
      if (!ready && /agent ready/.test(output)) {
        ready = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (ready && code === 0) resolve();
      else
        reject(
          new Error(
            `the warm-up start ended with ${signal ?? `exit code ${code}`} before or after "agent ready": ${output.trim().split('\n').slice(-3).join(' | ')}`,
          ),
        );
    });
  });
}
