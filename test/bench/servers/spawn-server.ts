/**
 * Start a baseline server of a benchmark (a script in this folder) in its
 * own process and wait, at most 20 s, for its `listening <port>` line.
 * `stop()` sends SIGTERM.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface BaselineServer {
  port: number;
  pid: number;
  stop(): void;
}

export function spawnServer(script: string, args: string[] = []): Promise<BaselineServer> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = (): void => void child.kill('SIGTERM');
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${script} did not start within 20 s`));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before listening`));
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ port: Number(m[1]), pid: child.pid as number, stop });
      }
    });
  });
}
