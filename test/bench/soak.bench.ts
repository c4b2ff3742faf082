/**
 * Soak (issue 12, item 7): the agent, started as a process with NRPE, the
 * agent protocol and the web server (TLS on all three), held for 60 s
 * under mixed abuse on all three ports by a generator in its own process
 * (test/helpers/soak-abuser.ts: random and truncated input, idle
 * connections, requests trickled one byte per TLS record, oversized frames
 * and headers, parallel settings edits through the API and `config-agent web
 * add-user`). Meanwhile this process sends one valid query per port every
 * 3 s (check_nrpe, agent_query over TLS, an authenticated GET of check_ok's
 * execute route). Baseline in the same run: the same queries on the same
 * agent before the abuse. Afterwards the agent's open descriptors
 * (/proc/PID/fd) and its heap in use after a full GC (through the
 * inspector it is started with, `--inspect=127.0.0.1:0`) are compared with
 * their values after a warm-up round; RSS is printed beside them.
 * Goals: every valid query answered within 2 s; descriptors back to their
 * start; heap within 10% of its start. Loopback only.
 * Run: npm run bench -- soak   (SOAK_SECONDS=N changes the duration)
 */
import { describeSoak, runSoak } from '../helpers/soak.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 60);
const r = await runSoak({ durationMs: seconds * 1000, sampleEveryMs: 3000, warmupMs: 5000 });
for (const line of describeSoak(r)) console.log(line);

const slowest = Math.max(...r.samples.map((s) => (s.ok ? s.ms : Infinity)));
const growth = r.memory.end.heapUsed / r.memory.start.heapUsed - 1;
console.log(
  `goal: every valid query answered within 2 s (slowest ${Number.isFinite(slowest) ? `${slowest.toFixed(0)} ms` : 'failed'}): ${slowest <= 2000 ? 'PASS' : 'MISS'}`,
);
console.log(
  `goal: open descriptors back to their start (${r.fds.start} -> ${r.fds.end}): ${r.fds.end <= r.fds.start ? 'PASS' : 'MISS'}`,
);
console.log(
  `goal: heap in use after GC within 10% of its start (${(growth * 100).toFixed(1)}%): ${Math.abs(growth) <= 0.1 ? 'PASS' : 'MISS'}`,
);
console.log(`goal: agent running and no error line in its log: ${r.alive && r.errors.length === 0 ? 'PASS' : 'MISS'}`);
