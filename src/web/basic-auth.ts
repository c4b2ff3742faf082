/**
 * Reading credentials. The `Authorization` header takes HTTP Basic only;
 * every other scheme (Bearer included) and every malformed or oversized
 * header is reported as `invalid`, which the access layer answers with 403.
 * NSClient++'s `password` header (what Icinga's check_nscp_api sends) holds
 * a password alone, under the same 8 KiB cap.
 */
import { parse as parseBasicAuth } from 'basic-auth';

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
  const parsed = parseBasicAuth(header);
  if (!parsed || parsed.name === '') return { kind: 'invalid', reason: 'malformed' };
  return { kind: 'basic', user: parsed.name, password: parsed.pass };
}

export type PasswordHeader =
  { kind: 'none' } | { kind: 'invalid'; reason: 'too-long' } | { kind: 'password'; password: string };

/** Classify the `password` header (Node joins a repeated one with ", "); an empty one counts as none. */
export function readPasswordHeader(value: string | string[] | undefined): PasswordHeader {
  const password = Array.isArray(value) ? value.join(', ') : (value ?? '');
  if (password === '') return { kind: 'none' };
  if (password.length > MAX_AUTH_HEADER) return { kind: 'invalid', reason: 'too-long' };
  return { kind: 'password', password };
}
