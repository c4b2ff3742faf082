/**
 * Rules that span several keys of a section and that JSON Schema alone does
 * not express; each broken rule is an error at the key that decides it.
 * - `[/settings/agent/server]` with `use ssl` on and a `verify mode` other
 *   than none needs a `ca` to check client certificates against.
 * - `[/settings/WEB/server] port` (a string such as `8443s`) must be a port
 *   number up to 65535 (0 asks the system for a free port).
 * - every `allowed hosts` entry must parse (addresses, `/` masks, `*` ranges,
 *   `localhost`): a typo would otherwise deny everyone at run time.
 */
import type { Origin } from './snapshot.js';
import type { SettingsProblem } from './problem.js';
import { problem } from './problem.js';
import { parseAllowedHosts } from '../../formats/allowed-hosts.js';
import { keyText, valueText } from './value-text.js';

export function crossChecks(
  file: string,
  sections: Record<string, Record<string, unknown>>,
  origins: Record<string, Record<string, Origin>>,
): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  const path = '/settings/agent/server';
  const s = sections[path] ?? {};
  const mode = keyText(s, path, 'verify mode');
  if (s['use ssl'] !== false && mode !== 'none' && !s.ca) {
    const o = origins[path]?.['verify mode'];
    out.push(
      problem(
        'AGENT_ERR_VALUE_INVALID',
        [`verify mode "${mode}" needs a ca to check client certificates against; set ca or use verify mode none`],
        { file: o?.file ?? file, line: o?.line ?? 0, col: o?.col ?? 0, section: path, key: 'verify mode' },
      ),
    );
  }
  const web = '/settings/WEB/server';
  const port = Number.parseInt(valueText(sections[web]?.port), 10);
  if (Number.isInteger(port) && port > 65535) {
    const o = origins[web]?.port;
    out.push(
      problem(
        'AGENT_ERR_VALUE_INVALID',
        [
          `port "${String(sections[web]?.port)}": must be a port number from 0 (any free port) to 65535 (add s for TLS)`,
        ],
        { file: o?.file ?? file, line: o?.line ?? 0, col: o?.col ?? 0, section: web, key: 'port' },
      ),
    );
  }
  for (const section of ['/settings/default', web, '/settings/remote/server', '/settings/agent/server']) {
    const value = sections[section]?.['allowed hosts'];
    const o = origins[section]?.['allowed hosts'];
    if (typeof value !== 'string' || !o) continue;
    const parsed = parseAllowedHosts(value);
    // The web server matches addresses only; RemoteServer and AgentServer resolve names (src/protocols/allowed-host-names.ts).
    const names =
      section === web
        ? parsed.matchers
            .filter((m) => m.kind === 'name')
            .map(
              (m) =>
                `allowed hosts entry "${m.text}": the web server takes addresses, masks, * ranges and localhost, not host names`,
            )
        : [];
    if (parsed.problems.length + names.length > 0) {
      out.push(
        problem('AGENT_ERR_VALUE_INVALID', [[...parsed.problems, ...names].join('; ')], {
          file: o.file,
          line: o.line,
          col: o.col,
          section,
          key: 'allowed hosts',
        }),
      );
    }
  }
  return out;
}
