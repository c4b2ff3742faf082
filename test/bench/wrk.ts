/**
 * The load generator of the HTTP benchmarks: Debian's `wrk` (C, its own
 * process, so the client's speed does not squeeze the ratio towards 1).
 * `wrk()` runs it once and parses requests per second, latency and errors.
 */
import { execFile, execFileSync } from 'node:child_process';

export interface WrkResult {
  rps: number;
  /** Mean latency in ms. */
  latencyMs: number;
  requests: number;
  /** Non-2xx/3xx answers plus socket errors. */
  errors: number;
}

/** Path of wrk, or undefined (then the benchmark says how to install it). */
export function findWrk(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export function wrk(
  bin: string,
  url: string,
  o: { threads: number; connections: number; seconds: number; headers?: Record<string, string> },
): Promise<WrkResult> {
  const args = [`-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: (o.seconds + 30) * 1000 }, (err, out) => {
      if (err) return reject(new Error(`wrk failed: ${err.message}\n${out}`));
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
      const lat = /Latency\s+([\d.]+)(us|ms|s)\b/.exec(out);
      const latencyMs = lat ? Number(lat[1]) * (lat[2] === 'us' ? 0.001 : lat[2] === 's' ? 1000 : 1) : NaN;
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = non2xx + (sock ? sock.slice(1).reduce((t, x) => t + Number(x), 0) : 0);
      if (!Number.isFinite(rps)) return reject(new Error(`cannot read wrk's output:\n${out}`));
      resolve({ rps, latencyMs, requests, errors });
    });
  });
}
