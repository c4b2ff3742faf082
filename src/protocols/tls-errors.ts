/**
 * One classification of TLS failures for every client of the agent (NRPE,
 * agent protocol): whether an error is a TLS one, and what went wrong, read
 * from OpenSSL's and node's error codes. Each client words its hint for its
 * own options (`--ca` on the NRPE command line, `ca` in a target).
 */
export type TlsFailure =
  /** The server asks for a client certificate and we sent none. */
  | 'client-certificate-required'
  /** The server refused the client certificate we sent. */
  | 'client-certificate-rejected'
  /** We do not trust the server's certificate. */
  | 'untrusted'
  /** The other side does not speak TLS on that port. */
  | 'not-tls'
  | 'other';

type TlsErrorLike = NodeJS.ErrnoException & { library?: string };

/** True for an error of the TLS layer (handshake, certificates, records), as opposed to the socket. */
export function isTlsError(err: TlsErrorLike): boolean {
  const code = err.code ?? '';
  return (
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    err.library === 'SSL routines' ||
    /CERT|SELF_SIGNED|UNABLE_TO_/.test(code)
  );
}

/** What a TLS error means, from its code. */
export function classifyTlsError(err: TlsErrorLike): TlsFailure {
  const code = err.code ?? '';
  if (/CERTIFICATE_REQUIRED/.test(code)) return 'client-certificate-required';
  if (/UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|DECRYPT_ERROR/.test(code)) return 'client-certificate-rejected';
  if (/SELF_SIGNED|UNABLE_TO_|CERT_/.test(code)) return 'untrusted';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|RECORD_LAYER/.test(code)) return 'not-tls';
  return 'other';
}

/**
 * An error's message without node's advice about its own command line flags: since node 22 an
 * untrusted certificate's message ends with "; if the root CA is installed locally, try running
 * Node.js with --use-system-ca", which names a flag of node that the agent's users cannot pass.
 * The clients say what to set instead (`--ca`, a target's `ca`).
 */
export function withoutNodeAdvice(message: string): string {
  return message.replace(/; if the root CA is installed locally, try running Node\.js with --use-system-ca$/, '');
}

/** What a failed handshake on a listener means, from the server's side. */
export type ServerTlsFailure = 'no-shared-cipher' | 'not-tls' | 'old-protocol' | 'other';

/** Why a client's handshake with one of our listeners failed, from OpenSSL's code (`ERR_SSL_NO_SHARED_CIPHER`). */
export function classifyServerTlsError(err: TlsErrorLike): ServerTlsFailure {
  const text = `${err.code ?? ''} ${err.message}`;
  if (/NO_SHARED_CIPHER|NO_CIPHERS_AVAILABLE|no shared cipher/i.test(text)) return 'no-shared-cipher';
  if (
    /WRONG_VERSION_NUMBER|HTTP_REQUEST|HTTPS_PROXY_REQUEST|UNKNOWN_PROTOCOL|PACKET_LENGTH_TOO_LONG|RECORD_LAYER|wrong version number|http request/i.test(
      text,
    )
  )
    return 'not-tls';
  if (/UNSUPPORTED_PROTOCOL|VERSION_TOO_LOW|unsupported protocol/i.test(text)) return 'old-protocol';
  return 'other';
}
