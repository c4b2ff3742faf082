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

export interface RawOptions {
  /** Local address to connect from (default 127.0.0.1). */
  from?: string;
  tls?: boolean;
  /** Shut down the sending side after the request, as `nc -N` does. */
  halfClose?: boolean;
  ms?: number;
}

/** Sends `request` and resolves with what came back before the close ('' when closed without answer). */
export function rawRequest(port: number, request: string | Buffer, o: RawOptions = {}): Promise<string> {
  const ms = o.ms ?? 10_000;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const options = { host: '127.0.0.1', port, localAddress: o.from ?? '127.0.0.1' };
    const send = (): void => {
      if (o.halfClose) s.end(request);
      else s.write(request);
    };
    const s: Socket = o.tls ? tlsConnect({ ...options, rejectUnauthorized: false }, send) : connect(options, send);
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
