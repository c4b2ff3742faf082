/**
 * Preloaded into a benchmarked CLI process (`node --import cpu-report.js
 * main.js …`): when the process exits it writes its own CPU time to standard
 * error as `bench-cpu-ms USER SYSTEM`, so a benchmark can report CPU time
 * beside wall time (on a shared machine the wall time mostly measures the
 * other load). Loaded only by benchmarks, never by the agent.
 */
process.on('exit', () => {
  const u = process.cpuUsage();
  process.stderr.write(`\nbench-cpu-ms ${(u.user / 1000).toFixed(0)} ${(u.system / 1000).toFixed(0)}\n`);
});
