/**
 * The table of the one error catalogue (src/errors.ts re-exports it, with
 * the error class and its helpers): every error and warning the agent
 * reports has a stable code listed here with a message template and, where
 * it reaches HTTP, a status. Codes never change meaning; new ones are
 * appended. docs/errors.md documents every code (a test checks both directions).
 */

export interface CodeInfo {
  /** Message template; `%s` placeholders are filled in order. */
  readonly message: string;
  /** HTTP status when the error ends a request. */
  readonly status?: number;
  /** Warnings are reported but never block. */
  readonly severity?: 'error' | 'warning';
}

export const CODES = {
  // Settings: reading, variables, validation, resolution
  AGENT_ERR_SETTINGS_UNREADABLE: { message: 'cannot read settings file %s: %s' },
  AGENT_ERR_SETTINGS_INVALID: { message: 'settings file %s is invalid (%s problems)' },
  AGENT_ERR_IMPORT_TOO_LARGE: {
    message:
      'the translation is %s, larger than %s, the most the agent reads as one settings file: split the source (move aliases or scripts into files named in [/includes] of the source) and import again',
  },
  AGENT_ERR_INI_SYNTAX: { message: 'cannot parse line: %s' },
  AGENT_ERR_INI_KEY_OUTSIDE_SECTION: {
    message: 'a key appears before any [section] (not shown: a file that is not INI may hold a secret there)',
  },
  AGENT_ERR_INI_DUPLICATE_SECTION: { message: 'section [%s] appears twice (first at line %s)' },
  AGENT_ERR_INI_DUPLICATE_KEY: { message: 'key "%s" appears twice in [%s] (first at line %s)' },
  AGENT_ERR_VARIABLE_UNKNOWN: { message: 'unknown variable ${%s}' },
  AGENT_ERR_VARIABLE_UNTERMINATED: { message: 'unterminated variable reference in "%s"' },
  AGENT_ERR_ENV_UNSET: { message: 'environment variable %s is not set (used as ${env:%s})' },
  AGENT_ERR_SECRET_FILE: { message: 'cannot read the secret file %s: %s' },
  AGENT_ERR_INCLUDE_MISSING: { message: 'cannot include %s: %s' },
  AGENT_ERR_INCLUDE_CYCLE: { message: 'include cycle: %s' },
  AGENT_ERR_INCLUDE_DEPTH: { message: 'includes nest deeper than %s levels: %s' },
  AGENT_WARN_INCLUDE_NOT_PULLED: {
    message: 'the remote include %s is not pulled yet: it includes nothing until its first good pull',
    severity: 'warning',
  },
  AGENT_ERR_SECTION_UNKNOWN: { message: 'unknown section [%s]' },
  AGENT_ERR_KEY_UNKNOWN: { message: 'unknown key (not in the schema of this section)' },
  AGENT_ERR_VALUE_TYPE: { message: '%s' },
  AGENT_ERR_VALUE_INVALID: { message: '%s' },
  AGENT_ERR_MODULE_UNKNOWN: { message: 'unknown module "%s"' },
  AGENT_ERR_OBJECT_PARENT_UNKNOWN: { message: 'object "%s" names parent "%s", which does not exist (chain: %s)' },
  AGENT_ERR_OBJECT_CYCLE: { message: 'object "%s" is part of an inheritance cycle (chain: %s)' },
  AGENT_ERR_ALIAS_INVALID: { message: 'alias "%s" %s' },
  AGENT_ERR_WRAPPED_SCRIPT_INVALID: { message: 'wrapped script "%s" %s' },
  AGENT_ERR_TARGET_TEMPLATE: {
    message: 'target "%s" in [%s] is a template (is template = 1): it is usable only as the parent of other targets',
  },
  AGENT_WARN_ROLE_UNKNOWN: {
    message: 'user "%s" has role "%s", which is not defined in [/settings/web/roles]: the user has no privileges',
    severity: 'warning',
  },
  AGENT_WARN_ROLE_LEGACY: {
    message:
      'SECURITY: role "%s" holds the legacy grant, which runs any query (/query, /query.pb) and reloads the agent (/core/reload)',
    severity: 'warning',
  },
  // Settings: insecure but legal choices
  AGENT_WARN_ADH_CIPHERS: {
    message: '%s allows anonymous DH (ADH) ciphers, which do not authenticate the peer',
    severity: 'warning',
  },
  AGENT_WARN_VERIFY_NONE: {
    message: '%s has verify mode none while use ssl is on: the peer certificate is not checked',
    severity: 'warning',
  },
  AGENT_WARN_EMPTY_PASSWORD: {
    message: 'WEBServer is enabled and no password is set: a random one is generated and kept in ${state}/web-password',
    severity: 'warning',
  },
  AGENT_WARN_WEAK_PASSWORD: {
    message:
      'the password of web user root has %s characters, fewer than %s: set a strong one with config-agent web password --set (or set none: the agent then generates one and keeps it in ${state}/web-password)',
    severity: 'warning',
  },
  AGENT_WARN_ALLOWED_HOSTS_OPEN: { message: 'allowed hosts lets every address connect%s', severity: 'warning' },
  AGENT_WARN_NO_CA: {
    message: '%s has no ca configured: anyone allowed by allowed hosts may query',
    severity: 'warning',
  },
  AGENT_WARN_TLS_NO_SHARED_CIPHER: {
    message:
      '%s has TLS on and no certificate, so only anonymous ciphers could be agreed, and allowed ciphers = %s keeps them out: no client can connect (check_nrpe fails with "no shared cipher"); set certificate and certificate key (a client needs no CA for that), or allow the anonymous suites (drop !aNULL)',
    severity: 'warning',
  },
  AGENT_WARN_UI_SIGN_IN: {
    message:
      'role %s lacks the privilege public, which the web UI needs to sign in: its users (%s) can use the API but the UI refuses them (403); add public to the role',
    severity: 'warning',
  },
  AGENT_WARN_SUDO_NO_NEW_PRIVILEGES: {
    message:
      '%s runs sudo (%s), which cannot work here: %s, and sudo, a set-uid program, refuses to run under no_new_privs, so the check answers UNKNOWN; %s',
    severity: 'warning',
  },
  AGENT_WARN_WINDOWS_VALUE: {
    message:
      '%s uses %s, which means something only on Windows (a drive letter, or a window that stopped answering): it answers UNKNOWN here; name a mount point (drive=/), or leave is_hung out',
    severity: 'warning',
  },
  AGENT_WARN_PLAIN_PASSWORD: {
    message: 'password of %s is stored in plain text; config-agent web add-user stores a hash',
    severity: 'warning',
  },
  AGENT_WARN_UNAUTHENTICATED_EXEC: {
    message: '%s lets peers that are not authenticated (%s) run exec commands (%s)',
    severity: 'warning',
  },
  AGENT_WARN_UNAUTHENTICATED_SCRIPT_ARGUMENTS: {
    message:
      '%s lets peers that are not authenticated (%s) run scripts with arguments (%s): set allow arguments = false on this line, require client certificates (ca and verify mode = peer-cert), or leave those scripts out of allowed queries',
    severity: 'warning',
  },
  // Settings editing
  AGENT_ERR_SETTINGS_CONFLICT: { message: 'settings file %s changed since it was read; re-read and try again' },
  AGENT_ERR_SETTINGS_WRITE: { message: 'cannot write settings file %s: %s' },
  AGENT_ERR_SETTINGS_NOT_FOUND: { message: 'settings file %s does not exist' },
  // Modules and core
  AGENT_ERR_MODULE_START: { message: 'module %s failed to start: %s' },
  AGENT_ERR_MODULE_STOP: { message: 'module %s failed to stop: %s' },
  AGENT_ERR_MODULE_APPLY: { message: 'module %s failed to apply new settings: %s' },
  AGENT_ERR_MODULE_TIMEOUT: { message: 'module %s did not finish %s within %s ms' },
  AGENT_ERR_MODULE_SHAPE: { message: 'module %s does not have the module shape: %s' },
  AGENT_ERR_QUERY_UNKNOWN: { message: 'Unknown command(s): %s' },
  AGENT_ERR_QUERY_FAILED: { message: 'query %s failed: %s' },
  AGENT_ERR_PROTOBUF: { message: 'invalid %s message: %s' },
  AGENT_ERR_COMMAND_REFUSED: { message: '%s %s is not allowed over %s: add it to %s in [%s]' },
  // Remote protocol (NRPE) and client queries
  AGENT_ERR_NRPE_PACKET: { message: 'invalid NRPE packet: %s' },
  AGENT_ERR_NRPE_CONNECT: { message: 'cannot connect to %s: %s' },
  AGENT_ERR_NRPE_TIMEOUT: { message: 'no answer from %s within %s s' },
  AGENT_ERR_NRPE_TLS: { message: 'TLS with %s failed: %s' },
  AGENT_ERR_NRPE_CLOSED: { message: '%s closed the connection %s' },
  AGENT_ERR_NRPE_FALLBACK: { message: '%s (after the v4 attempt failed: %s)' },
  AGENT_ERR_NRPE_LISTEN: { message: 'cannot listen on %s: %s' },
  AGENT_ERR_TLS_FILE: { message: 'cannot read %s file %s: %s' },
  AGENT_ERR_TLS_KEY_MISMATCH: { message: 'the private key in %s does not belong to the certificate %s' },
  AGENT_ERR_CLIENT_OPTION: { message: 'invalid client option: %s' },
  AGENT_ERR_TARGET_UNKNOWN: { message: 'target "%s" is not defined in [%s]' },
  // Passive checks: Scheduler, NSCAClient, IcingaClient
  AGENT_ERR_NSCA_SEND: { message: 'NSCA to %s: %s' },
  AGENT_ERR_ICINGA_SEND: { message: 'Icinga 2 at %s: %s' },
  AGENT_WARN_PASSIVE_DROPPED: {
    message: '%s: the queue of unsent results is full (%s); dropped the oldest (%s dropped so far)',
    severity: 'warning',
  },
  // Agent protocol
  AGENT_ERR_AGENT_FRAME: { message: 'invalid agent-protocol frame: %s' },
  AGENT_ERR_AGENT_CONNECT: { message: 'cannot connect to %s: %s' },
  AGENT_ERR_AGENT_TIMEOUT: { message: 'no answer from %s within %s s' },
  AGENT_ERR_AGENT_TLS: { message: 'TLS with %s failed: %s' },
  AGENT_ERR_AGENT_CLOSED: { message: '%s closed the connection %s' },
  AGENT_ERR_AGENT_PEER_ERROR: { message: '%s answered with an error: %s' },
  AGENT_ERR_AGENT_VERSION: {
    message: 'message version %s is not supported (peer speaks %s to %s, this agent speaks %s)',
  },
  AGENT_ERR_AGENT_LISTEN: { message: 'cannot listen on %s: %s' },
  AGENT_ERR_AGENT_TLS_CONFIG: { message: '[/settings/agent/server] %s' },
  AGENT_ERR_AGENT_CERTIFICATE: { message: 'cannot load or create the agent server certificate %s: %s' },
  // check_nt protocol (NSClientServer)
  AGENT_ERR_NSCLIENT_LISTEN: { message: 'cannot listen on %s: %s' },
  AGENT_ERR_NSCLIENT_CERTIFICATE: { message: 'cannot load or create the check_nt server certificate %s: %s' },
  AGENT_WARN_NSCLIENT_NO_PASSWORD: {
    message:
      'NSClientServer is enabled and no password is set: every check_nt request is refused; set password in [/settings/NSClient/server] or [/settings/default] (check_nt -s)',
    severity: 'warning',
  },
  // Command line
  AGENT_ERR_USAGE: { message: '%s' },
  // HTTP
  AGENT_ERR_HTTP_FORBIDDEN: { message: '403 You are not allowed', status: 403 },
  AGENT_ERR_HTTP_NOT_FOUND: { message: '%s', status: 404 },
  AGENT_ERR_HTTP_BAD_JSON: { message: 'invalid JSON body: %s', status: 400 },
  AGENT_ERR_HTTP_BAD_REQUEST: { message: '%s', status: 400 },
  AGENT_ERR_HTTP_BODY_TOO_LARGE: { message: 'request body larger than %s bytes', status: 413 },
  AGENT_ERR_HTTP_UNPROCESSABLE: { message: 'request body has invalid fields', status: 422 },
  AGENT_ERR_HTTP_INTERNAL: { message: 'internal error; see the agent log', status: 500 },
  AGENT_ERR_HTTP_UNAVAILABLE: { message: '%s', status: 503 },
  AGENT_WARN_HTTP_BODY_ABORTED: {
    message: 'the client closed the connection after %s bytes of the request body (Content-Length: %s)',
    status: 400,
    severity: 'warning',
  },
  // Web server
  AGENT_ERR_WEB_LISTEN: { message: 'web server cannot listen on %s: %s' },
  AGENT_ERR_WEB_CERTIFICATE: { message: 'cannot load or create the web server certificate %s: %s' },
  AGENT_WARN_WEB_AUTH_BLOCKED: {
    message:
      '%s is refused for %s s after %s failed authentications (the last on %s), on every channel that checks a password',
    severity: 'warning',
  },
  AGENT_WARN_TLS_RELOAD: {
    message: '%s: the TLS files changed on disk but cannot be used (%s); new connections keep the previous certificate',
    severity: 'warning',
  },
  AGENT_WARN_STATE_FOLDER: {
    message: 'cannot write %s in the state folder %s (%s); set [/paths] state to a writable folder',
    severity: 'warning',
  },
  // Settings: patterns the linear-time matcher cannot run
  AGENT_WARN_ROLE_ROOT_EQUIVALENT: {
    message: 'role "%s" grants %s, equivalent to root on this agent (docs/api.md "Privileges")',
    severity: 'warning',
  },
  AGENT_ERR_SETTINGS_PRIVILEGE: { message: '%s needs the privilege %s (docs/api.md "Privileges")', status: 403 },
  AGENT_ERR_SETTINGS_SEEDED_ROLE: {
    message:
      'removing role "%s" from the file would bring back its seeded definition (%s); set the privileges it should have instead',
    status: 422,
  },
  AGENT_ERR_SETTINGS_NOT_CANONICAL: {
    message: 'settings %s %s is not in canonical form: %s; nothing was written',
    status: 422,
  },
  AGENT_WARN_NET_RELAY: {
    message:
      'allowed queries lets peers run %s: they reach any address the agent can, its own loopback and network included (a relay; bound max timeout and max body size in [/settings/net])',
    severity: 'warning',
  },
  AGENT_ERR_SETTINGS_RELOAD: { message: 'reading settings file %s failed: %s' },
  AGENT_WARN_ALLOW_LIST_PATTERN: {
    message: '%s %s: %s; the pattern matches no name (a negated one refuses every name)',
    severity: 'warning',
  },
  AGENT_WARN_CLIENT_RELAY: {
    message:
      'allowed queries lets peers run the client queries %s: a peer makes this agent connect to other agents in its own name (a relay); leave them out (!remote_*, !agent_*, the default) unless relaying is the point',
    severity: 'warning',
  },
  // Secrets kept out of the settings files that git tracks
  AGENT_ERR_PASSWORD_FILE: {
    message:
      'cannot write the password file %s: %s; set [/paths] state to a writable folder, or give --write-password to write the password into the settings file',
  },
  AGENT_WARN_PASSWORD_IN_GIT: {
    message:
      '%s is written in plain text in %s, which git tracks: anyone with the repository reads it; put it in a file outside the repository and write ${file:PATH}, or write ${env:NAME}',
    severity: 'warning',
  },
  // Settings source ([/settings/source]): pulled settings
  AGENT_ERR_SOURCE_PULL: { message: 'pulling the settings from %s failed: %s; keeping the settings in force' },
  AGENT_ERR_SOURCE_INVALID: { message: 'the settings pulled from %s (revision %s) are not applied: %s' },
  AGENT_ERR_SOURCE_SIGNATURE: {
    message:
      'the settings pulled from %s are refused, their signature does not hold: %s; keeping the settings in force',
  },
  AGENT_ERR_SOURCE_SECTION: {
    message:
      'pulled settings cannot hold [%s]: only the local settings file names where settings come from and what it includes',
  },
  AGENT_ERR_SOURCE_INCLUDE: {
    message:
      'the pulled file %s (line %s) cannot include %s: %s; a pulled file includes files of its own repository (or origin) only',
  },
  AGENT_WARN_SOURCE_INSECURE: {
    message:
      '[/settings/source] %s: the identity of the server is not verified, so anyone on the path can hand this agent its settings',
    severity: 'warning',
  },
  AGENT_WARN_SOURCE_CACHED: {
    message: 'the settings source %s cannot be reached (%s); starting on the cached pull, revision %s of %s',
    severity: 'warning',
  },
  AGENT_WARN_SOURCE_NO_CACHE: {
    message:
      'the settings source %s cannot be reached (%s) and nothing was pulled before: running on the local settings file alone',
    severity: 'warning',
  },
  AGENT_WARN_PULLED_OVERRIDDEN: {
    message:
      '[%s] %s is set here and in the pulled settings (line %s there): the value here wins, so the pull does not change it; remove it here to let the pull decide',
    severity: 'warning',
  },
  AGENT_ERR_SOURCE_ROLLBACK: {
    message:
      'the settings pulled from %s (revision %s) are refused as a rollback: %s; keeping the settings in force (set [/settings/source] allow rollback = 1 to go back on purpose)',
  },
  AGENT_ERR_SOURCE_CACHE_UNVERIFIED: {
    message: 'the cached pull of %s is not used: %s; starting without it and pulling at once (the file is kept as %s)',
  },
  AGENT_ERR_SOURCE_NONE: { message: 'no settings source: [/settings/source] url is empty', status: 409 },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof CODES;
