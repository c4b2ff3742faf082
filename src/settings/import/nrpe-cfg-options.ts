/**
 * nrpe.cfg's options as the import knows them: those with no counterpart
 * here (and why), and every name nrpe 4.1 matches exactly.
 */
/** Options that have no counterpart, with the reason given in the report. */
export const DROPPED: Readonly<Record<string, string>> = {
  nrpe_user:
    'the agent and its scripts run as the user of its service (User= of the systemd unit), not as a user it switches to',
  nrpe_group: 'the agent and its scripts run as the group of its service (Group= of the systemd unit)',
  pid_file: 'no pid file: systemd tracks the agent (Type=notify)',
  log_file: 'the agent logs to stdout (the journal under systemd); [/settings/log] level sets how much',
  disable_syslog: 'the agent logs to stdout (the journal under systemd), never to syslog directly',
  log_facility: 'the agent logs to stdout (the journal under systemd), never to syslog directly',
  nasty_metachars:
    'the refused characters are fixed here: | ` & > < \' \\ [ ] { } ; and line breaks in requests, and $ and " too in script arguments ([/settings/remote/server] and [/settings/external scripts] allow nasty characters)',
  allow_bash_command_substitution:
    '$( is always refused in script arguments here: $ is a refused character unless [/settings/external scripts] allow nasty characters = true',
  ssl_version: 'no key here: the server takes TLS 1.2 and 1.3 (1.2 at most without a certificate, as nrpe)',
  ssl_logging: 'no key here: TLS failures are logged at debug level',
  ssl_shutdown_timeout: 'no key here: the server closes right after its answer',
  listen_queue_size:
    "no key here: the listen backlog is Node's (511); [/settings/remote/server] max connections limits open connections",
  allow_weak_random_seed: 'no meaning here: Node seeds its random numbers from the operating system',
  keep_env_vars: "no key here: scripts get the agent's environment",
  address_family: 'no key here: bind to decides (an IPv6 address, an IPv4 address, or empty for both)',
  max_commands:
    'no key here as a limit of connections; [/settings/external scripts] max concurrent (8) limits scripts running at once',
};

/** The options nrpe knows by exact name: one written with blanks before its `=` is "Unknown option" to nrpe. */
export const OPTIONS = new Set([
  ...Object.keys(DROPPED),
  ...['include', 'include_file', 'include_dir', 'server_port', 'server_address', 'allowed_hosts', 'dont_blame_nrpe'],
  ...['command_timeout', 'connection_timeout', 'command_prefix', 'ssl_use_adh', 'ssl_cipher_list', 'ssl_cert_file'],
  ...['ssl_cacert_file', 'ssl_privatekey_file', 'ssl_client_certs', 'ssl_enabled', 'debug'],
]);
