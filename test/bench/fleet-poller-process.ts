/**
 * The load generator of the fleet-server benchmark, in its own process (never
 * in a server's thread): CONCURRENCY loops that each poll the settings source
 * the way an agent whose settings did not change polls it, with the agent's
 * own client code, for SECONDS (bounded: the loops stop at the deadline).
 *
 * - `https`: fetchSettings (src/settings/source/fetch-settings.ts) with the
 *   validators of a first fetch, a conditional GET on a new TLS connection
 *   with a full handshake, answered 304, as each agent's poll is;
 * - `git`: fetchGit (fetch-git.ts) with the commit in force: `git ls-remote`
 *   over smart HTTP, and nothing fetched.
 *
 * Prints one JSON line: polls, errors (the first one's message), seconds,
 * and this process's CPU (its own and the git children's it waited for,
 * proc-cpu.ts), ms.
 *
 *   node fleet-poller-process.js https|git URL CA_FILE CONCURRENCY SECONDS
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { globalAgent as httpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchSettings } from '../../src/settings/source/fetch-settings.js';
import { fetchGit, remoteCommit } from '../../src/settings/source/fetch-git.js';
import { processCpuMs } from '../helpers/proc-cpu.js';

const [mode, url, caFile, concurrencyText, secondsText] = process.argv.slice(2);
if ((mode !== 'https' && mode !== 'git') || !url || !caFile)
  throw new Error('usage: fleet-poller-process.js https|git URL CA_FILE CONCURRENCY SECONDS');
const concurrency = Number(concurrencyText ?? 8);
const seconds = Number(secondsText ?? 5);
const ca = readFileSync(caFile, 'utf8');
const repoDir = join(mkdtempSync(join(tmpdir(), 'fleet-poller-')), 'cache.git');

let poll: () => Promise<boolean>;
if (mode === 'https') {
  // An agent polls once per interval (300 s here): the connection of the previous poll is long closed (Node's
  // agent keeps an idle one 5 s, nginx 75 s) and its TLS session expired (nginx's tickets live 5 min), so each
  // poll is a new connection with a full handshake, as here.
  // Node reads both on each use; its typings leave them out of Agent.
  Object.assign(httpsAgent, { keepAlive: false, maxCachedSessions: 0 });
  const first = await fetchSettings(url, { timeoutMs: 10_000, maxBytes: 1 << 20, ca, insecure: false });
  if (!first.changed) throw new Error('the first fetch was not a 200');
  const { etag, lastModified } = first.validators;
  poll = async () =>
    !(await fetchSettings(url, { timeoutMs: 10_000, maxBytes: 1 << 20, ca, insecure: false, etag, lastModified }))
      .changed;
} else {
  const known = (await remoteCommit(url, 'main', 10_000, { GIT_SSL_CAINFO: caFile })).commit;
  poll = async () =>
    !(
      await fetchGit({
        url,
        ref: 'main',
        path: 'agent.ini',
        timeoutMs: 10_000,
        maxBytes: 1 << 20,
        repoDir,
        known,
        ca: caFile,
      })
    ).changed;
}

const cpu0 = processCpuMs(process.pid);
const t0 = performance.now();
const deadline = t0 + seconds * 1000;
let polls = 0;
let errors = 0;
let firstError: string | undefined;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      try {
        if (!(await poll())) throw new Error('a poll saw a change: the benchmark measures unchanged polls');
        polls++;
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  }),
);
const elapsed = (performance.now() - t0) / 1000;
process.stdout.write(
  `${JSON.stringify({ polls, errors, firstError, seconds: elapsed, cpuMs: processCpuMs(process.pid) - cpu0 })}\n`,
);
rmSync(join(repoDir, '..'), { recursive: true, force: true });
