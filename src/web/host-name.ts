/**
 * The machine's host name for answers that carry it on every request
 * (GET /api/v1/info, the Host-header check of public-host.ts): os.hostname()
 * is a uname(2) system call, a measurable share of a small answer's cost at
 * tens of thousands of requests a second, so it is read at most once a
 * second. A renamed host shows in the answers within that second.
 */
import { hostname } from 'node:os';

const MAX_AGE_MS = 1000;
let cached: { name: string; at: number } | undefined;

export function hostName(): string {
  const now = performance.now();
  if (!cached || now - cached.at >= MAX_AGE_MS) cached = { name: hostname(), at: now };
  return cached.name;
}
