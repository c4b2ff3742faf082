/**
 * Debian's check_nt (monitoring-plugins-basic) against a port on 127.0.0.1,
 * and a raw check_nt peer (one write, read until the server closes) for
 * what check_nt cannot send: garbage, oversized requests, another source
 * address. Every run is bounded.
 */
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { runProgram } from './run-program.js';

export const CHECK_NT = '/usr/lib/nagios/plugins/check_nt';

/** check_nt's exit code and first output line. */
export async function checkNt(port: number, args: readonly string[]): Promise<{ code: number; out: string }> {
  const r = await runProgram(CHECK_NT, ['-H', '127.0.0.1', '-p', String(port), '-t', '20', ...args], 30_000);
  return { code: r.code, out: (r.stdout + r.stderr).trim() };
}

/** Sends `request` from `from` (over TLS with `tls`) and resolves with what came back before the close ('' when closed without answer). */
export function rawRequest(port: number, request: string | Buffer, from = '127.0.0.1', ms = 10_000, tls = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const options = { host: '127.0.0.1', port, localAddress: from };
    const s: Socket = tls ? tlsConnect({ ...options, rejectUnauthorized: false }, () => s.write(request)) : connect(options, () => s.write(request));
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no close from 127.0.0.1:${port} within ${ms} ms`));
    }, ms);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
