/**
 * Run the `agent` command as a process (node dist/agent.cjs ...), as a
 * user does, and collect its exit code and output; bounded by a timeout
 * (exit code 99 when it was killed or could not run).
 */
import { execFile } from 'node:child_process';
import { MAIN } from './agent-process.js';

export function runAgentCli(
  args: string[],
  timeoutMs = 30_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { timeout: timeoutMs, env: { ...process.env, AGENT_LOG_LEVEL: 'error' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr });
      },
    );
  });
}
