/**
 * A half-written settings file is never applied (issue 12): a writer saves
 * in place, pausing 200 ms between its two writes. The first half alone is a
 * valid file that would unload CheckHelpers; the agent must wait for the
 * writer and apply only the whole file. Five rounds, as the report had 5 of 5.
 * The assertions that nothing was applied follow a SIGHUP's reload, which
 * runs after every reload the save asked for: no sleep and hope.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAgent, type AgentProcess } from '../helpers/agent-process.js';
import { Teardown } from '../helpers/teardown.js';

const ROUNDS = 5;
const FIRST = '[/modules]\nCheckExternalScripts = disabled\n';
const whole = (round: number): string => `${FIRST}CheckHelpers = enabled\n; round ${round}\n`;

let agent: AgentProcess;
const made = new Teardown();
after(() => made.close());

before(async () => {
  agent = made.add(await startAgent({ ini: whole(0) }), (a) => a.stop());
  await agent.waitForLog(/module CheckHelpers started/);
});

void test('an in-place save that pauses 200 ms between two writes is applied only whole', async () => {
  for (let round = 1; round <= ROUNDS; round++) {
    const m = agent.mark();
    const fd = openSync(agent.settingsFile, 'w');
    try {
      writeSync(fd, FIRST);
      // The agent saw the first half (its watcher logs the event), then the writer's pause goes on.
      await agent.waitForLog(/agent\.ini: (change|rename); reading it in \d+ ms unless more follows/, 10_000, m);
      await sleep(200);
      writeSync(fd, whole(round).slice(FIRST.length));
    } finally {
      closeSync(fd);
    }
    await agent.waitForLog(/settings changed \(file [^)]*\); reconciling/, 10_000, m);
    // Proof that every reload this save caused has run: a SIGHUP's reload is queued behind them.
    const hup = agent.mark();
    agent.proc.kill('SIGHUP');
    await agent.waitForLog(/settings unchanged \(SIGHUP\); reconciling/, 10_000, hup);
    const after = agent.logs().slice(m);
    assert.doesNotMatch(
      after,
      /CheckHelpers: (unload|load)/,
      `round ${round}: the half-written file was applied:\n${after}`,
    );
    assert.doesNotMatch(after, /settings rejected/, `round ${round}`);
  }
});
