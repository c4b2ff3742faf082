/**
 * The agent installed in a folder whose path has a space and non-ASCII
 * characters: the built agent (dist/, package.json, schema/, the web UI)
 * is copied there, node_modules linked, and its `agent` command (the
 * bundle's launcher, dist/agent.cjs) runs as a process from there: `agent settings validate` and `agent run` until ready, then
 * SIGTERM. Paths read at run time must come from fileURLToPath, never
 * from URL.pathname (which keeps %20 and %C3%BC).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers/agent-process.js';

const base = mkdtempSync(join(tmpdir(), 'agent install '));
const root = join(base, 'Überwachung agent ü 監視');
after(() => rmSync(base, { recursive: true, force: true }));

mkdirSync(root, { recursive: true });
for (const rel of ['package.json', 'schema', 'dist', 'src/web/ui']) cpSync(join(REPO, rel), join(root, rel), { recursive: true });
symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
const main = join(root, 'dist/agent.cjs');
const ini = join(root, 'agent ü.ini');
writeFileSync(ini, '[/modules]\nCheckHelpers = enabled\nCheckSystem = enabled\n');

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], { cwd: base, timeout: 30_000, env: { ...process.env, AGENT_LOG_LEVEL: 'info' } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, out: stdout + stderr });
    });
  });
}

test('agent settings validate runs from a folder with a space and non-ASCII characters', async () => {
  const ok = await run(['settings', 'validate', '--settings', ini]);
  assert.equal(ok.code, 0, ok.out);
  // The schema really was read from there: a problem is found and explained.
  const badIni = join(root, 'bad.ini');
  writeFileSync(badIni, '[/settings/WEB/server]\nport = nope\n');
  const bad = await run(['settings', 'validate', '--settings', badIni]);
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /AGENT_ERR_VALUE_INVALID/);
});

test('agent run starts its modules from there and stops on SIGTERM with exit 0', async () => {
  const proc = spawn(process.execPath, [main, 'run', '--settings', ini], { cwd: base, env: { ...process.env, AGENT_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  const ready = new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`not ready after 20 s:\n${out}`)), 20_000);
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
    assert.match(out, /module CheckHelpers started/);
    assert.match(out, /module CheckSystem started/);
  } finally {
    proc.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out);
  assert.match(out, /agent stopped/);
});
