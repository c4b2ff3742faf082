/**
 * Reading the `Authorization` header. Only HTTP Basic is accepted; every
 * other scheme (Bearer included) and every malformed or oversized header is
 * reported as `invalid`, which the access layer answers with 403.
 */
import auth from 'basic-auth';

/** Headers longer than this are refused without decoding (NSClient++ uses 8 KiB too). */
export const MAX_AUTH_HEADER = 8192;

export type BasicCredentials =
  | { kind: 'none' }
  | { kind: 'invalid'; reason: 'scheme' | 'malformed' | 'too-long' }
  | { kind: 'basic'; user: string; password: string };

/** Classify the header value (undefined when the request has none). */
export function readBasicCredentials(header: string | undefined): BasicCredentials {
  if (header === undefined || header === '') return { kind: 'none' };
  if (header.length > MAX_AUTH_HEADER) return { kind: 'invalid', reason: 'too-long' };
  if (!/^\s*basic\s/i.test(header)) return { kind: 'invalid', reason: 'scheme' };
  const parsed = auth.parse(header);
  if (!parsed || parsed.name === '') return { kind: 'invalid', reason: 'malformed' };
  return { kind: 'basic', user: parsed.name, password: parsed.pass };
}
