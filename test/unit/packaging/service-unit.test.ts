/**
 * The systemd unit carries ceilings for open files and memory
 * (`LimitNOFILE=`, `MemoryMax=`), each once, with the figures that
 * docs/operations.md ("Running as a service") gives and justifies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REPO } from '../../helpers/agent-process.js';

const unit = readFileSync(`${REPO}/src/packaging/config-agent.service`, 'utf8');
const docs = readFileSync(`${REPO}/docs/operations.md`, 'utf8');

for (const key of ['LimitNOFILE', 'MemoryMax']) {
  void test(`the unit sets ${key}= once, in [Service], with the figure the docs give`, () => {
    const lines = unit.split('\n').filter((l) => l.startsWith(`${key}=`));
    assert.equal(lines.length, 1, `${key}= lines: ${lines.length}`);
    const line = lines[0] ?? '';
    assert.ok(unit.indexOf(line) > unit.indexOf('[Service]') && unit.indexOf(line) < unit.indexOf('[Install]'));
    assert.match(line, /^\w+=\d+[KMG]?$/, line);
    assert.ok(docs.includes(`\`${line}\``), `docs/operations.md names \`${line}\``);
  });
}
