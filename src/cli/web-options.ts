/**
 * The option tables and --help texts of `config-agent web` and its subcommands:
 * the parser of each subcommand (web.ts) takes its spec from the table, and
 * the help lists the same table, so every accepted option is documented.
 */
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';

/** The options every subcommand takes. */
const COMMON: readonly CliOption[] = [
  SETTINGS_OPTION,
  {
    name: 'create',
    help: 'make FILE when it does not exist (without it a path that does not exist is refused, exit 2)',
  },
  HELP_OPTION,
];

const WRITE_PASSWORD: CliOption = {
  name: 'write-password',
  help: 'write the password itself into the settings file (without it, it is kept in ${state}/web-password, mode 0600, and the settings read it with ${file:})',
};

const PASSWORD_STDIN: CliOption = {
  name: 'password-stdin',
  help: 'read the password from standard input (one line), so it appears neither in the process list nor in the shell history',
};

/** The subcommands of `config-agent web`, in help order. */
export const WEB_SUBCOMMANDS = ['install', 'password', 'add-user', 'add-role'] as const;
export type WebSubcommand = (typeof WEB_SUBCOMMANDS)[number];

export function isWebSubcommand(name: string): name is WebSubcommand {
  return (WEB_SUBCOMMANDS as readonly string[]).includes(name);
}

export const WEB_OPTIONS: Readonly<Record<WebSubcommand, readonly CliOption[]>> = {
  install: [
    {
      name: 'password',
      arg: 'P',
      help: 'password of the user root, at least 8 characters (without it an existing password stays; when there is none, a strong one is generated and printed)',
    },
    PASSWORD_STDIN,
    { name: 'allow-weak-password', help: 'accept a password shorter than 8 characters' },
    WRITE_PASSWORD,
    { name: 'port', arg: 'N', help: 'TLS port (8443 is written as 8443s; a trailing s means TLS)' },
    {
      name: 'allowed-hosts',
      arg: 'LIST',
      help: 'client addresses: 10.0.0.1, 10.0.0.0/8, 10.0.*.*, ::1, ... (comma-separated)',
    },
    {
      name: 'https',
      help: "serve TLS (NSClient++'s switch; TLS is the default here: an existing port without its trailing s gets it)",
    },
    { name: 'certificate', arg: 'FILE', help: 'PEM certificate of the web server (checked before it is written)' },
    { name: 'certificate-key', arg: 'FILE', help: 'PEM key of that certificate' },
    ...COMMON,
  ],
  password: [
    { name: 'set', arg: 'P', help: 'write P as the web password ([/settings/WEB/server] password, user root)' },
    { ...PASSWORD_STDIN, help: 'the same as --set, reading the password from standard input (one line)' },
    WRITE_PASSWORD,
    { name: 'display', help: "print the password in force (the web server's own, else [/settings/default])" },
    ...COMMON,
  ],
  'add-user': [
    { name: 'user', arg: 'U', help: 'the user name' },
    {
      name: 'password',
      arg: 'P',
      help: 'its password, stored as a pbkdf2-sha256 hash (a new user without one gets a strong one, printed once)',
    },
    PASSWORD_STDIN,
    { name: 'role', arg: 'R', help: 'its role (default: the role it has, else client)' },
    ...COMMON,
  ],
  'add-role': [
    { name: 'role', arg: 'R', help: 'the role to extend (created when new)' },
    { name: 'grant', arg: 'PRIVILEGE[,PRIVILEGE...]', help: 'privileges to append to its list' },
    ...COMMON,
  ],
};

export const HELP: Readonly<Record<WebSubcommand | 'web', string>> = {
  web: helpText(
    `Usage: config-agent web <install|password|add-user|add-role> [options]

  install   enable WEBServer and set the root password
  password  set or show the web password (user root)
  add-user  add or update a web user (password stored as a pbkdf2 hash)
  add-role  grant a privilege to a role

Run "config-agent web <subcommand> --help" for the options. Every subcommand takes
--settings FILE and --create (make FILE when it does not exist; without it a
path that does not exist is refused with exit 2).`,
    [HELP_OPTION],
  ),
  install: helpText(
    `Usage: config-agent web install [--password P | --password-stdin] [--port N] [--allowed-hosts LIST] [--https]
                         [--certificate FILE] [--certificate-key FILE] [--allow-weak-password] [--write-password]
                         [--settings FILE]

Enables WEBServer in [/modules] and writes [/settings/WEB/server]. The
password is kept in \${state}/web-password (mode 0600, outside the
repository) and the settings read it with \${file:}; --write-password writes it
into the settings file instead.`,
    WEB_OPTIONS.install,
  ),
  password: helpText(
    `Usage: config-agent web password (--set P | --password-stdin | --display) [--write-password] [--settings FILE]

--set keeps the password in \${state}/web-password (mode 0600, outside the
repository) and the settings read it with \${file:}; --write-password writes it
into the settings file instead.`,
    WEB_OPTIONS.password,
  ),
  'add-user': helpText(
    `Usage: config-agent web add-user --user U [--password P | --password-stdin] [--role R] [--settings FILE]

Writes [/settings/web/users/U] with the password as a pbkdf2-sha256 hash and
the role, as NSClient++ does: an existing user given only --role keeps its
password; a new user without --password gets a strong one, printed once
(--password-stdin reads it from standard input, one line); a user without
--role keeps the role it has, or gets the role client with a warning (client
is added to [/settings/web/roles] with NSClient++'s read-only privileges when
the file does not define it).`,
    WEB_OPTIONS['add-user'],
  ),
  'add-role': helpText(
    `Usage: config-agent web add-role --role R --grant PRIVILEGE[,PRIVILEGE...] [--settings FILE]

Appends the privileges to the role's list in [/settings/web/roles] (ones it
already has are not repeated). A privilege is dot-separated; a trailing *
grants every privilege with that prefix, * alone grants everything.`,
    WEB_OPTIONS['add-role'],
  ),
};
