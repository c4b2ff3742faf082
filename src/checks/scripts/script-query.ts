/**
 * One configured script as a query: expand the command line with the
 * query's arguments, wait for a slot in the limiter, run it, and turn the
 * outcome into a result. Exit codes 0..3 are the status, anything else
 * (other codes, death by signal, timeout, failure to start) is UNKNOWN. The
 * output (stdout, or stderr when stdout is empty) splits into message and
 * perf data the Nagios way, several lines included. Never throws.
 */
import { statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { relativeInside } from '../../path-inside.js';
import { splitOutput, statusFromExitCode, UNKNOWN, type QueryResult } from '../../core/result.js';
import { errorMessage } from '../../errors.js';
import {
  CommandLineError,
  expandArguments,
  resolveProgram,
  splitCommandLine,
  type ArgumentPolicy,
} from '../../formats/script-command-line.js';
import { countRefused, observeScript } from '../../core/work-counters.js';
import { QueueFullError, type Limiter } from './limiter.js';
import type { RunOptions, RunOutcome } from './run-types.js';
import { runProgram } from './shared-spawner.js';
import { linkSignals } from '../../abort-link.js';

export interface ScriptSettings extends ArgumentPolicy {
  /** Absolute script root: relative programs start there, and it is the working folder when it exists. */
  root: string;
  timeoutSeconds: number;
}

/**
 * `commandLine` is the configured line, or the words already split (a
 * wrapped script's template filled in). `run` starts the process: the
 * module's ScriptSpawner, else the agent's shared one.
 */
export async function runConfiguredScript(
  name: string,
  commandLine: string | readonly string[],
  args: readonly string[],
  settings: ScriptSettings,
  limiter: Limiter,
  signal?: AbortSignal,
  run: (options: RunOptions) => Promise<RunOutcome> = runProgram,
): Promise<QueryResult> {
  let argv: string[];
  try {
    argv = expandArguments(
      typeof commandLine === 'string' ? splitCommandLine(commandLine) : commandLine,
      args,
      settings,
    );
  } catch (err) {
    if (err instanceof CommandLineError) return { command: name, result: UNKNOWN, message: err.message, perf: [] };
    throw err;
  }
  const [program] = argv;
  if (program === undefined)
    return { command: name, result: UNKNOWN, message: `Script ${name} has an empty command line`, perf: [] };
  argv[0] = resolveProgram(program, settings.root);
  const ran = await runScriptArgv(name, argv, settings, limiter, signal, run);
  if ('result' in ran) return ran;
  const { outcome } = ran;
  if (outcome.error !== undefined)
    return {
      command: name,
      result: UNKNOWN,
      message: `Failed to run ${name} (${shownProgram(argv[0], settings.root)}): ${outcome.error}`,
      perf: [],
    };
  if (outcome.timedOut)
    return {
      command: name,
      result: UNKNOWN,
      message: `Script ${name} timed out after ${settings.timeoutSeconds} s`,
      perf: [],
    };
  if (outcome.aborted) return { command: name, result: UNKNOWN, message: `Script ${name} was stopped`, perf: [] };
  const text = outcome.stdout.trim() !== '' ? outcome.stdout : outcome.stderr;
  const { message, perf } =
    text.trim() === ''
      ? { message: `No output available from command (${name}).`, perf: [] }
      : splitOutput(text.replace(/\s+$/, ''));
  const status = outcome.code === null ? UNKNOWN : statusFromExitCode(outcome.code);
  const why =
    outcome.code === null
      ? ` (killed by ${outcome.signal})`
      : status === UNKNOWN && outcome.code > 3
        ? ` (exit code ${outcome.code})`
        : '';
  return { command: name, result: status, message: why ? `${message}${why}` : message, perf };
}

/**
 * Run `argv` (the program already resolved) under the limiter and the
 * script timeout (the wait for a slot counts against it): the outcome, or
 * the UNKNOWN result when it never ran (queue full, timed out waiting).
 */
export async function runScriptArgv(
  name: string,
  argv: readonly string[],
  settings: ScriptSettings,
  limiter: Limiter,
  signal: AbortSignal | undefined,
  run: (options: RunOptions) => Promise<RunOutcome>,
): Promise<{ outcome: RunOutcome } | QueryResult> {
  let outcome: RunOutcome;
  // The time spent waiting for a slot counts against the script's timeout: the caller waits for both.
  const timeoutMs = settings.timeoutSeconds * 1000;
  const started = performance.now();
  const queueDeadline = AbortSignal.timeout(timeoutMs);
  const waiting = linkSignals(...(signal ? [signal, queueDeadline] : [queueDeadline]));
  try {
    outcome = await limiter.run(
      () =>
        run({
          argv,
          cwd: existingDir(settings.root),
          timeoutMs: Math.max(1, timeoutMs - (performance.now() - started)),
          ...(signal ? { signal } : {}),
        }),
      waiting.signal,
    );
  } catch (err) {
    if (err instanceof QueueFullError) {
      countRefused('CheckExternalScripts');
      return {
        command: name,
        result: UNKNOWN,
        message: `Script ${name} refused: ${err.message} ([/settings/external scripts] max queued)`,
        perf: [],
      };
    }
    if (queueDeadline.aborted && !signal?.aborted)
      return {
        command: name,
        result: UNKNOWN,
        message: `Script ${name} timed out after ${settings.timeoutSeconds} s (waiting for a free slot)`,
        perf: [],
      };
    return { command: name, result: UNKNOWN, message: `Script ${name} did not run: ${errorMessage(err)}`, perf: [] };
  } finally {
    waiting.release();
  }
  observeScript(
    name,
    outcome.durationMs / 1000,
    outcome.error !== undefined ? 'not started' : outcome.timedOut ? 'timeout' : outcome.aborted ? 'stopped' : 'exited',
  );
  return { outcome };
}

/** The program as a result may show it: relative to the script root, else its bare name (no absolute path of the machine). */
function shownProgram(program: string, root: string): string {
  if (!isAbsolute(program)) return program;
  const rel = relativeInside(root, program);
  return rel !== undefined && rel !== '' ? rel : basename(program);
}

function existingDir(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}
