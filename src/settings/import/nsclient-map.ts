/**
 * What an NSClient++ setting becomes here: module names, section paths,
 * keys whose meaning carries over and why the others are dropped. The
 * tables cover what NSClient++'s own files and common hand-written ones
 * hold; anything else is decided by the schemas (a key our schema knows is
 * kept, one it does not know is dropped as not supported), so keys that the
 * agent gains later are carried over without a change here.
 */

/** NSClient++ module names that are called differently here. */
export const MODULE_RENAMES: Readonly<Record<string, string>> = {
  nrpeserver: 'RemoteServer',
  nrpeclient: 'RemoteClient',
  nscpserver: 'AgentServer',
  nscpclient: 'AgentClient',
  checksystemunix: 'CheckSystem',
};

/** Section path prefixes (lower case) renamed here; the rest of the path is kept as written. */
export const SECTION_RENAMES: readonly (readonly [string, string])[] = [
  ['/settings/nrpe/client', '/settings/remote/client'],
  ['/settings/nrpe/server', '/settings/remote/server'],
  ['/settings/nscp/client', '/settings/agent/client'],
  ['/settings/nscp/server', '/settings/agent/server'],
  ['/settings/web/server/users', '/settings/web/users'],
  ['/settings/web/server/roles', '/settings/web/roles'],
];

/** Sections (lower-case prefixes) of NSClient++ that have no counterpart here, and why. */
export const DROPPED_SECTIONS: readonly (readonly [string, string])[] = [
  ['/settings/nsca/server', 'belongs to NSCAServer, which is not supported here'],
  ['/settings/nrdp', 'belongs to NRDPClient, which is not supported here'],
  ['/settings/eventlog', 'belongs to CheckEventLog (Windows event log), which is not supported here'],
  ['/settings/check_mk', 'belongs to CheckMKClient/CheckMKServer, which are not supported here'],
  ['/settings/graphite', 'belongs to GraphiteClient, which is not supported here'],
  ['/settings/smtp', 'belongs to SMTPClient, which is not supported here'],
  ['/settings/syslog', 'belongs to SyslogClient, which is not supported here'],
  ['/settings/python', 'belongs to PythonScript, which is not supported here'],
  ['/settings/lua', 'belongs to LUAScript, which is not supported here'],
  ['/settings/crash', 'no meaning here: the agent writes no crash dumps'],
  [
    '/settings/log/file',
    'no meaning here: the agent logs to stdout and stderr, where the service manager keeps the log',
  ],
  ['/settings/shared session', 'no meaning here: there is no tray or shared session'],
  ['/settings/system/windows', 'Windows-only settings: no meaning on this agent'],
  ['/settings/web/server/log', 'no meaning here: web requests are logged with the agent log'],
  ['/settings/targets', 'the generic targets of NSClient++ are not supported here: targets live under each client'],
];

/** Keys dropped from a section (canonical path here, lower-case key), and why. */
export const DROPPED_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '/settings/default': {
    'cache allowed hosts':
      'no key here: host names in allowed hosts are resolved at start and on each reload (RemoteServer, AgentServer, NSClientServer), which is what caching them amounts to',
    'bind to': "not supported in [/settings/default]: set bind to in each server's own section",
    'socket queue size': 'no meaning here: connections are accepted by the Node.js event loop',
    'thread pool': 'no meaning here: one event loop serves every connection',
    inbox: 'no meaning here: submissions go to the channel of each client or server',
    encoding: 'not supported: payloads are UTF-8',
  },
  '/settings/remote/server': {
    'cache allowed hosts':
      'no key here: host names in allowed hosts are resolved at start and on each reload, which is what caching them amounts to',
    'extended response':
      'not supported here: an answer longer than the payload is cut; NRPE v3/v4 packets (check_nrpe sends v4 first) carry long answers',
    'ssl options': "not supported: the TLS versions are OpenSSL's defaults",
    'certificate format': 'not supported: the server reads PEM files',
    'performance data': 'not supported: performance data is always sent',
    'socket queue size': 'no meaning here: connections are accepted by the Node.js event loop',
    'thread pool': 'no meaning here: one event loop serves every connection',
    encoding: 'not supported: payloads are UTF-8',
  },
  '/settings/NSClient/server': {
    'cache allowed hosts':
      'no key here: host names in allowed hosts are resolved at start and on each reload, which is what caching them amounts to',
    'socket queue size': 'no meaning here: connections are accepted by the Node.js event loop',
    'thread pool': 'no meaning here: one event loop serves every connection',
  },
  '/settings/agent/server': {
    'cache allowed hosts':
      'no key here: host names in allowed hosts are resolved at start and on each reload, which is what caching them amounts to',
    'thread pool': 'no meaning here: one event loop serves every connection',
  },
  '/settings/WEB/server': {
    threads: 'no meaning here: one event loop serves every request',
    'allow insecure':
      'not supported: the web server always serves TLS when the port ends in s (a missing certificate is generated)',
    'cache allowed hosts':
      'no meaning here: the web server takes addresses, masks and localhost in allowed hosts (host names are resolved by RemoteServer and AgentServer only)',
    'disable admin user': 'no meaning here: the built-in user is root and always exists',
    'allow anonymous access': 'not supported: every API request needs a user',
    'legacy query auth user agents': 'not supported: the legacy token routes do not exist here',
  },
  '/settings/log': {
    'file name': 'no meaning here: the agent logs to stdout and stderr',
    'date format': 'no meaning here: log lines carry ISO 8601 UTC times',
  },
  '/settings/NSCA/client': {
    encoding: 'not supported: payloads are UTF-8',
  },
  '/settings/scheduler': {
    'startup window':
      "not supported: every schedule's first run comes after a random part of randomness × interval, which spreads a start the same way",
    timezone: 'no meaning here: cron schedules are not supported, so there is no clock to interpret',
  },
  '/settings/external scripts': {
    'script path': 'not supported: list each script in [/settings/external scripts/scripts]',
    'kill tree': 'no meaning here: the whole process group of a script is always killed',
  },
};

/** Keys of the long-form script objects [/settings/external scripts/scripts/<name>] and why they go. */
export const SCRIPT_OBJECT_KEYS: Readonly<Record<string, string>> = {
  user: "not supported: scripts run as the agent's user",
  password: "not supported: scripts run as the agent's user",
  domain: "not supported: scripts run as the agent's user",
  session: 'no meaning here: there are no desktop sessions',
  display: 'no meaning here: there are no desktop sessions',
  'capture output': 'not supported: output is always captured',
  encoding: 'not supported: output is read as UTF-8',
  'ignore perfdata': 'not supported: performance data is always parsed',
  alias: 'not supported: the query is named after the object',
  parent: 'not supported for scripts: each script is one line',
  'is template': 'not supported for scripts: each script is one line',
};

/** Keys of client targets (any client) that have no counterpart here. */
export const DROPPED_TARGET_KEYS: Readonly<Record<string, string>> = {
  insecure:
    'no meaning here: a target without certificates uses anonymous DH (allowed ciphers ADH), which is what insecure = true asked for',
  retries: 'not supported as a target key: give --retry to the query',
  retry: 'not supported as a target key: give --retry to the query',
  encoding: 'not supported: payloads are UTF-8',
  version: 'not supported as a target key: give --version to remote_query',
  'ssl options': "not supported: the TLS versions are OpenSSL's defaults",
  path: 'no meaning here: the agent protocol is not HTTP',
};

/** Keys of the objects of a container (targets, schedules) that have no counterpart here, and why; they win over DROPPED_TARGET_KEYS. */
export const DROPPED_OBJECT_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '/settings/NSCA/client/targets': {
    'use ssl':
      'not supported: nsca 2.x speaks plain TCP with the packet encryption of encryption (the Debian daemon has no TLS)',
    'verify mode': 'no meaning here: nsca 2.x has no TLS',
    'allowed ciphers': 'no meaning here: nsca 2.x has no TLS',
    certificate: 'no meaning here: nsca 2.x has no TLS',
    'certificate key': 'no meaning here: nsca 2.x has no TLS',
    'certificate format': 'no meaning here: nsca 2.x has no TLS',
    ca: 'no meaning here: nsca 2.x has no TLS',
    dh: 'no meaning here: nsca 2.x has no TLS',
    timezone: 'no meaning here: the packet carries the timestamp the server sent (its init packet), as send_nsca does',
    encoding: 'not supported: payloads are UTF-8',
  },
  '/settings/icinga/client/targets': {
    'tls version': 'not supported: TLS 1.2 or later as OpenSSL negotiates it',
    'verify mode': "not supported: the API certificate is always verified (against ca, else the system's CAs)",
    'ensure objects':
      'not supported: the host and service objects must exist in Icinga 2 (a result for an unknown object is refused and logged)',
    'host template': 'not supported: objects are not created here',
    'service template': 'not supported: objects are not created here',
    'check command': 'not supported: objects are not created here',
  },
  '/settings/scheduler/schedules': {
    schedule: 'not supported: cron-like schedules do not exist here; set interval',
    'run on startup': 'not supported: the first run comes after a random part of randomness × interval',
  },
};

/** NSClient++ encryption names of NSCA that no nsca daemon decrypts or that OpenSSL 3 lacks, and what to do instead. */
export const NSCA_UNSUPPORTED_ENCRYPTION =
  "not supported here: use aes (nsca decryption_method 14, what NSClient++ sends as aes and aes256), 3des, des, xor or none on both sides (NSClient++'s aes128 and aes192 match no nsca method; cast, blowfish, twofish, serpent, gost, xtea and rc2 are not in OpenSSL 3)";

/** NSClient++'s hostname macros and their meaning here ([/settings/NSCA/client] and [/settings/icinga/client] hostname). */
export const HOSTNAME_MACROS: Readonly<Record<string, string>> = {
  '${host}': 'auto',
  '${host_lc}': 'auto-lc',
  '${host_uc}': 'auto-uc',
  auto: 'auto',
};

/** NSClient++ path variables that mean the installation folder: here that is the settings file's folder. */
export const PATH_VARIABLES = [
  'shared-path',
  'exe-path',
  'module-path',
  'data-path',
  'cache-folder',
  'log-path',
  'etc',
  'common-appdata',
];

/** NSClient++ modules that exist only on Windows (lower case), with what they do there. */
export const WINDOWS_MODULES: Readonly<Record<string, string>> = {
  checkeventlog: 'the Windows event log',
  checkwmi: 'WMI queries',
  checktasksched: 'the Windows task scheduler',
  checkwindows: 'Windows-specific checks',
  dotnetplugins: '.NET plugins',
  checknscp: "NSClient++'s own crash dumps and log of the Windows service",
};

/** NSClient++ log levels that are spelled differently here. */
export const LOG_LEVELS: Readonly<Record<string, string>> = { trace: 'debug', warn: 'warning', fatal: 'critical' };
