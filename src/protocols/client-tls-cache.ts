/**
 * Client TLS contexts, built once per TLS settings and settings version
 * instead of once per query: a SecureContext (ciphers, certificate, key,
 * ca) costs file reads, PEM checks and OpenSSL setup that every connection
 * of a query would otherwise repeat. The key is the caller's (the target's
 * TLS settings and the settings hash), so an edit of the settings builds a
 * new one; a certificate file replaced on disk without a settings change is
 * picked up on the next settings version or restart. A build that fails
 * (AGENT_ERR_TLS_FILE) is not cached: it throws again on the next query.
 */
import { createSecureContext, type ConnectionOptions } from 'node:tls';

/** Contexts kept; the oldest goes first (a few per target are normal). */
const LIMIT = 256;
const cache = new Map<string, ConnectionOptions>();

/** Connection options holding one shared `secureContext` for `key`, built by `build` on a miss. */
export function cachedClientTls(key: string, build: () => ConnectionOptions): ConnectionOptions {
  const hit = cache.get(key);
  if (hit) return hit;
  const { rejectUnauthorized, checkServerIdentity, ...contextOptions } = build();
  const options: ConnectionOptions = {
    secureContext: createSecureContext(contextOptions),
    ...(rejectUnauthorized !== undefined ? { rejectUnauthorized } : {}),
    ...(checkServerIdentity !== undefined ? { checkServerIdentity } : {}),
    // Unused by tls.connect next to secureContext; the NRPE client's messages ask whether we sent one.
    ...(contextOptions.cert !== undefined ? { cert: contextOptions.cert } : {}),
  };
  if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, options);
  return options;
}

/** Number of cached contexts (for tests). */
export function cachedClientTlsCount(): number {
  return cache.size;
}
