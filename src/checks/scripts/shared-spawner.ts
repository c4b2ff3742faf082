/**
 * The agent's script spawner for programs that no module owns: the host
 * checks' commands (who, apt-get -s, systemctl, …) and check_ping's ping.
 * CheckExternalScripts keeps one of its own, stopped with the module. Both
 * are the same runner (spawner.ts); this one starts with its first run and
 * ends with the agent (the spawner exits when its stdin closes, killing
 * what still runs).
 */
import { sink } from '../../log.js';
import { ScriptSpawner } from './spawner.js';
import type { RunOptions, RunOutcome } from './run-types.js';

let shared: ScriptSpawner | undefined;

/** Runs `options` through the shared spawner; always resolves (run-types.ts). */
export function runProgram(options: RunOptions): Promise<RunOutcome> {
  shared ??= new ScriptSpawner({ log: (level, message) => sink.write(level, 'agent:programs', message) });
  return shared.run(options);
}
