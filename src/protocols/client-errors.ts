/**
 * What went wrong on a client's connection, in words, for both clients of
 * the agent (NRPE, agent protocol): one socket-error describer and one TLS
 * hint. The hint names what to change in the words of the client's own
 * options (`--ca` on the NRPE command line, `ca` in an agent target), so
 * each client passes its words; the sentences are the same.
 */
import { classifyTlsError, withoutNodeAdvice } from './tls-errors.js';

/** How a client names the other side and its options in a hint. */
export interface TlsHintWords {
  /** `the server`, `the peer`. */
  peer: string;
  /** The options of a client certificate: `--certificate and --certificate-key`. */
  certificate: string;
  /** The options that decide trust: `--ca and --verify`. */
  ca: string;
  /** What to try when the other side does not speak TLS: `try --no-ssl`. */
  plain: string;
}

/** A socket error in a few words: the common codes in words (with the code where it helps), any other as `CODE: message`. */
export function describeSocketError(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by peer';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `unreachable (${code})`;
    default:
      return code ? `${code}: ${withoutNodeAdvice(err.message)}` : withoutNodeAdvice(err.message);
  }
}

/** What a TLS failure (tls-errors.ts) means for the user and what to set; other TLS errors keep their first line. */
export function tlsHint(err: NodeJS.ErrnoException & { reason?: string }, words: TlsHintWords): string {
  const code = err.code ?? '';
  const reason = describeSocketError(err);
  switch (classifyTlsError(err)) {
    case 'client-certificate-required':
      return `${words.peer} requires a client certificate (set ${words.certificate}) [${code}]`;
    case 'client-certificate-rejected':
      return `${words.peer} rejected our client certificate (not signed by its CA?) [${code}]`;
    case 'untrusted':
      return `${reason} (${words.peer}'s certificate is not trusted: check ${words.ca})`;
    case 'not-tls':
      return `${words.peer} does not speak TLS here (${words.plain}) [${code}]`;
    case 'other':
      return code.startsWith('ERR_SSL_') ? `${err.reason ?? reason.split('\n')[0]} [${code}]` : reason;
  }
}
