/**
 * One duration syntax (issue 39, item 5): the parser, the coercion of every
 * key the schemas mark `x-duration`, and the schemas themselves (every
 * duration key is marked; a string one's pattern is the parser's syntax).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DURATION_HINT, parseDurationMs, parseDurationSeconds } from '../../../src/formats/duration.js';
import { coerceValue } from '../../../src/settings/model/coerce.js';
import { loadSchemaSet, uniqueSectionSchemas } from '../../../src/settings/model/schema-set.js';
import { loadSettingsText } from '../../../src/settings/model/load.js';

void test('NSClient++ durations: seconds, or a number with ms, s, m, h, d, w', () => {
  const table: [string, number][] = [
    ['300', 300_000],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    [' 2 m ', 120_000],
    ['1W', 604_800_000],
  ];
  for (const [text, ms] of table) assert.equal(parseDurationMs(text), ms, text);
  for (const bad of ['', 'soon', '5 minutes', '-5s', '1e3', '5mm']) assert.ok(Number.isNaN(parseDurationMs(bad)), bad);
  assert.equal(parseDurationSeconds('1.5s'), undefined, 'an integer key takes whole seconds');
  assert.equal(parseDurationSeconds('90s'), 90);
});

void test('every key measured in seconds takes durations; a string one keeps the same syntax as its pattern', () => {
  const marked: string[] = [];
  for (const section of uniqueSectionSchemas(loadSchemaSet())) {
    for (const [key, prop] of Object.entries(section.schema.properties ?? {})) {
      const seconds = /^Seconds\b|many seconds/.test(prop.description ?? '') && key !== 'time offset';
      if (prop['x-duration'] === true) marked.push(`${section.ref} ${key}`);
      else assert.ok(!seconds, `${section.ref} ${key} is measured in seconds but not marked x-duration`);
      if (prop['x-duration'] === true && prop.type === 'string') {
        const pattern = new RegExp(String(prop.pattern));
        for (const t of ['300', '30s', '5m', '250ms', '1.5h']) assert.ok(pattern.test(t), `${key} ${t}`);
        for (const t of ['soon', '5 minutes']) assert.ok(!pattern.test(t), `${key} ${t}`);
      } else if (prop['x-duration'] === true) assert.equal(prop.type, 'integer', `${section.ref} ${key}`);
    }
  }
  assert.ok(marked.length >= 15, marked.join(', '));
});

void test('a duration key takes 5m and refuses a word with the one hint', () => {
  const schema = { type: 'integer', 'x-duration': true };
  assert.deepEqual(coerceValue('5m', schema), { ok: true, value: 300 });
  assert.deepEqual(coerceValue('soon', schema), { ok: false, expected: DURATION_HINT });
  const ok = loadSettingsText(
    '[/settings/source]\nurl = https://example.invalid/a.ini\ninterval = 5m\ntimeout = 30s\nmax backoff = 1h\n',
    '/tmp/d/agent.ini',
  );
  assert.ok(ok.ok, JSON.stringify(ok.problems));
  const source = ok.snapshot.sections['/settings/source'];
  assert.ok(source);
  assert.equal(source.interval, 300);
  assert.equal(source['max backoff'], 3600);
  const bad = loadSettingsText('[/settings/WEB/server]\ntimeout = soon\n', '/tmp/d/agent.ini');
  assert.ok(!bad.ok);
  assert.match(bad.problems[0]?.message ?? '', /a duration: whole seconds \(300\) or a number with a unit/);
});
