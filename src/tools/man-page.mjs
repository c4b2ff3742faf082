// The man page config-agent(1), made from the command's own --help texts (part of
// `npm run package`): the overview, then every command's help as it prints it, then the files,
// the environment and the signals of the packaged service. `help(args)` runs the command.
const COMMANDS = [
  ['run'],
  ['query'],
  ['client'],
  ['settings', 'validate'],
  ['settings', 'show'],
  ['settings', 'schema'],
  ['settings', 'plan'],
  ['settings', 'import'],
  ['settings', 'fmt'],
  ['web', 'install'],
  ['web', 'password'],
  ['web', 'add-user'],
  ['web', 'add-role'],
];

/** Text as roff shows it literally: backslashes doubled, a leading dot or quote guarded. */
function roff(text) {
  return text
    .split('\n')
    .map((line) =>
      line
        .replace(/\\/g, '\\e')
        .replace(/^([.'])/, '\\&$1')
        .replace(/-/g, '\\-'),
    )
    .join('\n');
}

/** The help text in the command's own words, with the package's name for the command. */
function literal(text) {
  return `.nf\n${roff(text.trimEnd().replace(/\bagent (?=\S)/g, 'config-agent '))}\n.fi\n`;
}

export function manPage({ version, date, help }) {
  const day = date.toISOString().slice(0, 10);
  let out = `.TH CONFIG\\-AGENT 1 "${day}" "config-agent ${version}" "User Commands"
.SH NAME
config\\-agent \\- monitoring agent driven by one INI settings file
.SH SYNOPSIS
.B config\\-agent
.I command
.RI [ options ]
.SH DESCRIPTION
config\\-agent is a monitoring agent in the NSClient++ tradition: it answers
.BR check_nrpe (8)
over NRPE, other agents over its agent protocol and people over a JSON API and a web UI,
and runs host checks and external scripts. One INI file holds all its settings; edits apply
while it runs. The command was called
.B agent
in a checkout; the package installs it as
.BR config\\-agent .
.PP
${literal(help(['--help']))}`;
  for (const words of COMMANDS) {
    out += `.SH "${words.join(' ').toUpperCase()}"\n${literal(help([...words, '--help']))}`;
  }
  out += `.SH FILES
.TP
.I /etc/config\\-agent/agent.ini
The settings (a conffile: an upgrade keeps your edits). Readable by root and the group config\\-agent only.
.TP
.I /var/lib/config\\-agent/web\\-password
The generated password of the web user root (mode 0600), when the settings set none.
.TP
.I /var/lib/config\\-agent/security/
The generated certificates and keys.
.SH ENVIRONMENT
.TP
.B AGENT_SETTINGS
The settings file when \\-\\-settings is not given (default /etc/config\\-agent/agent.ini).
.TP
.B AGENT_LOG_LEVEL
The lowest level written to the console (debug, info, warning, error, critical).
.SH SIGNALS
SIGHUP reloads the settings (systemctl reload config\\-agent); SIGTERM and SIGINT stop the
modules in reverse order and exit 0.
.SH SERVICE
The package runs the agent as config\\-agent.service, user config\\-agent, logging to the
journal: journalctl \\-u config\\-agent.
.SH SEE ALSO
.BR check_nrpe (8),
.BR systemctl (1),
.BR journalctl (1)
`;
  return out;
}
