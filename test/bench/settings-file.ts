import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A generated settings file for benchmarks: N remote targets (subsections
 * with a parent chain through a few templates), M web users and their roles.
 * `dotted` names the targets like host names (`host1.example.com`); without
 * it they are `host1-example-com`, which `ini` does not split into nested
 * sections, so a bare `ini.decode` does the same work as ours.
 */
export function generateSettings(targets: number, users: number, dotted = true): string {
  const lines: string[] = [
    '[/modules]',
    'CheckHelpers = enabled',
    'RemoteClient = enabled',
    'WEBServer = enabled',
    '',
    '[/settings/default]',
    'password = bench-secret',
    'allowed hosts = 127.0.0.1',
    '',
  ];
  lines.push('[/settings/web/roles]', 'ops = modules.*, queries.*, info.get', 'viewer = info.get, queries.list', '');
  for (let t = 0; t < 4; t++) {
    lines.push(
      `[/settings/remote/client/targets/tpl${t}]`,
      'is template = 1',
      `timeout = ${10 + t}`,
      'allowed ciphers = ALL:!ADH:!LOW:!EXP:!MD5:@STRENGTH',
      'verify mode = peer-cert',
      '',
    );
  }
  for (let i = 0; i < targets; i++) {
    lines.push(
      `[/settings/remote/client/targets/host${i}${dotted ? '.example.com' : '-example-com'}]`,
      `; target ${i}`,
      `parent = tpl${i % 4}`,
      `address = 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:5666`,
      `payload length = ${i % 2 === 0 ? 1024 : 2048}`,
      `use ssl = ${i % 3 === 0 ? 'false' : 'true'}`,
      '',
    );
  }
  for (let u = 0; u < users; u++) {
    lines.push(
      `[/settings/web/users/user${u}]`,
      `password = pbkdf2-sha256$1000$${'ab'.repeat(16)}$${'cd'.repeat(32)}`,
      `role = ${u % 2 === 0 ? 'ops' : 'viewer'}`,
      '',
    );
  }
  return lines.join('\n');
}

/**
 * The shipped settings/agent.ini as is, but for the web server's port: 0s,
 * a free port the system picks (TLS), so a benchmark's agent never collides
 * with another on 8443. The shipped file leaves the port at its default.
 */
export function defaultSettingsOnFreePort(repo: string): string {
  const defaults = readFileSync(join(repo, 'settings/agent.ini'), 'utf8');
  const header = /^\[\/settings\/WEB\/server\]$/m;
  if (!header.test(defaults) || /^port *=/m.test(defaults))
    throw new Error('settings/agent.ini: expected a [/settings/WEB/server] section without a port line');
  return defaults.replace(header, '$&\nport = 0s');
}
