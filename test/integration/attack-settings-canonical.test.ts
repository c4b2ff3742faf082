/**
 * One canonical form before every check (issue 37, item 1), against a real
 * agent over HTTPS. A user holding only `settings.put` and `settings.delete`
 * throws variants of every section path and key the schema knows at PUT and
 * DELETE: blanks of every Unicode kind around them, control and format
 * characters inside, and letter cases the schema does not use. Each variant
 * is refused with 422 AGENT_ERR_SETTINGS_NOT_CANONICAL naming the character
 * (before any privilege is looked at), and the settings file stays byte for
 * byte as it was: nothing of a higher class is written. The variants are
 * drawn by a seeded generator (the seed is in the test name), so a failure
 * is repeatable. The report's three-request escalation is the first case.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { loadSchemaSet } from '../../src/settings/model/schema-set.js';
import type { AgentProcess } from '../helpers/agent-process.js';
import { startWebAgent } from '../helpers/nscp-clients.js';
import { Teardown } from '../helpers/teardown.js';
import { webRequest, type WebResponse } from '../helpers/web-client.js';

const INI = `[/modules]
WEBServer = enabled

[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
password = root-secret-password
allowed hosts = 127.0.0.1

[/settings/web/roles]
setter = public, settings.get, settings.put, settings.delete

[/settings/web/users/sam]
password = sam-password
role = setter
`;

const SEED = 0x5eed37;
const BLANKS = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u2007', '\u200b', '\u2028'];
const MORE = ['\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u0000', '\u0085', '\u00ad', '\u200d', '\u2060'];
const ODD = [...BLANKS, ...MORE];

/** mulberry32: a small seeded generator, so every run draws the same variants. */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A variant of `name` that is not canonical: an odd character around or inside it, or another case. */
function variant(name: string, random: () => number, allowCase: boolean): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const kind = Math.floor(random() * (allowCase ? 4 : 3));
  if (kind === 0) return `${name}${pick(ODD)}`;
  if (kind === 1) return `${pick(ODD)}${name}`;
  if (kind === 2) {
    const at = 1 + Math.floor(random() * Math.max(1, name.length - 1));
    return `${name.slice(0, at)}${pick(ODD.filter((c) => c !== ' '))}${name.slice(at)}`;
  }
  const flipped = name.replace(/./gsu, (c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase()));
  return flipped === name ? name.toUpperCase() : flipped;
}

/** Every section path (an object section with the name `x`) with its keys, one free key where the schema allows any. */
function schemaTargets(): { path: string; keys: string[]; caseFixed: number }[] {
  return loadSchemaSet().sections.map((s) => {
    const path = s.container !== undefined ? `${s.container}/x` : s.pattern;
    const keys = [...s.keys.values()];
    if (typeof s.schema.additionalProperties === 'object') keys.push('free');
    // The characters of the path the schema spells (an object's own name is free).
    return { path, keys, caseFixed: s.container !== undefined ? s.container.length : path.length };
  });
}

void describe('settings paths and keys in canonical form only (agent process)', () => {
  let agent: AgentProcess;
  let base: string;
  let ca: string;
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  const made = new Teardown();

  before(async () => {
    ({ agent, base, ca } = made.add(await startWebAgent({ ini: INI }), (w) => w.agent.stop()));
    made.add(keepAlive, (a) => a.destroy());
  });
  after(() => made.close());

  const send = (method: string, path: string, body?: unknown): Promise<WebResponse> =>
    webRequest(`${base}${path}`, {
      method,
      ca,
      agent: keepAlive,
      user: 'sam',
      password: 'sam-password',
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
  const file = (): string => readFileSync(agent.settingsFile, 'utf8');
  const refusedAsNotCanonical = (res: WebResponse, what: string): void => {
    assert.equal(res.status, 422, `${what}: ${res.status} ${res.body}`);
    const body = JSON.parse(res.body) as { code: string; error: string };
    assert.equal(body.code, 'AGENT_ERR_SETTINGS_NOT_CANONICAL', what);
    assert.match(body.error, /U\+[0-9A-F]{4}|schema spells|empty|starts with/, what);
  };

  void it('refuses the reported escalation: a blank after the path or key, a tab, another case', async () => {
    const before = file();
    const attacks = [
      { path: '/settings/web/roles ', key: 'setter', value: '*' },
      { path: '/settings/web/roles', key: 'setter\u00a0', value: '*' },
      { path: '/settings/WEB/server\t', key: 'password', value: 'mine' },
      { path: '/settings/web/server', key: 'password', value: 'mine' },
      { path: '\ufeff/settings/web/roles', key: 'setter', value: '*' },
      { path: '/settings/web/roles\u3000', key: 'setter', value: '*' },
    ];
    for (const a of attacks) refusedAsNotCanonical(await send('PUT', '/api/v1/settings', a), JSON.stringify(a));
    refusedAsNotCanonical(await send('DELETE', `/api/v1/settings/settings/web/roles%20?key=setter`), 'DELETE url');
    assert.equal(file(), before, 'nothing written');
    // The canonical form of the same edit reaches the privilege check and is refused there.
    const canonical = await send('PUT', '/api/v1/settings', { path: '/settings/web/roles', key: 'setter', value: '*' });
    assert.equal(canonical.status, 403, canonical.body);
  });

  void it(`refuses random variants of every schema path and key at PUT and DELETE (seed ${SEED})`, async () => {
    const random = generator(SEED);
    const before = file();
    let sent = 0;
    for (const { path, keys, caseFixed } of schemaTargets()) {
      const fixed = path.slice(0, caseFixed);
      const rest = path.slice(caseFixed);
      for (const key of keys) {
        // The key is free (a role, an alias) where the schema names none: only odd characters make it non-canonical.
        const keyCase = key !== 'free';
        const badPath = `${variant(fixed, random, true)}${rest}`;
        const badKey = variant(key, random, keyCase);
        const tries: [string, string, unknown][] = [
          ['PUT', '/api/v1/settings', { path: badPath, key, value: '1' }],
          ['PUT', '/api/v1/settings', { path, key: badKey, value: '1' }],
          [
            'PUT',
            '/api/v1/settings',
            [
              { path: '/settings/log', key: 'level', value: 'info' },
              { path, key: badKey },
            ],
          ],
          ['DELETE', '/api/v1/settings', { path: badPath, key }],
          ['DELETE', `/api/v1/settings${encodeURI(path)}?key=${encodeURIComponent(badKey)}`, undefined],
        ];
        for (const [method, url, body] of tries) {
          refusedAsNotCanonical(await send(method, url, body), `${method} ${url} ${JSON.stringify(body)}`);
          sent++;
        }
      }
    }
    assert.ok(sent > 500, `${sent} requests`);
    assert.equal(file(), before, 'nothing written');
  });
});
