/**
 * SIGHUP while the agent starts (its default action would end the
 * process): the signal is kept and carried out once the modules have
 * started; the agent lives on and reloads once. The start is made slow by
 * a settings tree of 3,000 included files, and the signal is sent as soon
 * as the agent says it is starting. (The tree is one folder include: the agent
 * also shows it gets ready with one; before, the first reload closed the
 * folder's watcher before its scan ended and the start waited for good.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgent } from '../helpers/agent-process.js';

void test('a SIGHUP during the start is queued and carried out after it, not fatal', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 3000; i++) files[`inc/f${i}.ini`] = `[/settings/default]\ntimeout = 30\n`;
  const agent = await startAgent({
    ini: '[/includes]\nall = inc\n\n[/modules]\nCheckHelpers = enabled\n',
    files,
    waitReady: false,
  });
  try {
    await agent.waitForLog(/agent:run: starting on /, 20_000);
    agent.proc.kill('SIGHUP');
    const ready = await agent.waitForLog(/agent ready/, 20_000);
    const readyAt = agent.logs().indexOf(ready[0]);
    assert.match(
      agent.logs().slice(0, readyAt),
      /SIGHUP while starting: reloading once started/,
      'the signal came during the start',
    );
    await agent.waitForLog(/SIGHUP: reloading settings/, 20_000, readyAt);
    await agent.waitForLog(/settings unchanged \(SIGHUP\); reconciling/, 20_000, readyAt);
  } finally {
    assert.equal(await agent.stop(), 0, 'the agent was running until stopped and stopped cleanly');
  }
});
