/**
 * Runs a program with a time limit and resolves with its exit code and output; a non-zero exit
 * is an answer, not an error (a Nagios plugin's state, a failed systemctl). Rejects only when the
 * program cannot run at all or is killed at the limit.
 */
import { execFile } from 'node:child_process';

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runProgram(file: string, args: readonly string[], timeoutMs = 20_000): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number')
        return reject(new Error(`cannot run ${file}: ${err.message}; ${stderr}`, { cause: err }));
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}
