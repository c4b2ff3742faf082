/**
 * `config-agent run [--settings FILE]`: run in the foreground, log to stdout,
 * reload on SIGHUP and on every change of the file; on SIGTERM or SIGINT
 * stop the modules in reverse order and exit 0. Invalid settings at start:
 * every problem printed, exit 1. An uncaught exception or unhandled
 * rejection logs its stack, stops the modules in reverse order and exits 70
 * (crash.ts).
 */
import { parseArgs, settingsPath, out, err, settingsExitCode } from './args.js';
import { HELP_OPTION, SETTINGS_OPTION, helpText, type CliOption } from './options.js';
import { formatMessage } from '../errors.js';
import { startAgent, type RunningAgent } from '../agent.js';
import type { ReconcilerStatus } from '../core/control.js';
import { ChangeStream } from '../settings/store/change-stream.js';
import { sink, type Logger } from '../log.js';
import { formatProblem } from './format-problem.js';
import { installTestStall, notifySystemd, startWatchdog } from './sd-notify.js';
import { onCrash } from './crash.js';
import { markNonDumpable } from './no-dump.js';
import { scheduleHeapSettle } from './heap-settle.js';
import { settingsStatusLine } from '../checks/helpers/settings-check.js';

export const RUN_OPTIONS: readonly CliOption[] = [SETTINGS_OPTION, HELP_OPTION];

export const RUN_HELP = helpText(
  `Usage: config-agent run [--settings FILE]

Runs the agent in the foreground on the settings file (default: $AGENT_SETTINGS,
else settings/agent.ini). Edits of the file apply while it runs; SIGHUP reloads;
SIGTERM or SIGINT stops the modules in reverse order and exits 0.`,
  RUN_OPTIONS,
);

export async function runCommand(argv: string[]): Promise<number> {
  const { options } = parseArgs(argv, RUN_OPTIONS);
  if (options.help) {
    out(RUN_HELP);
    return 0;
  }
  const file = settingsPath(options);
  const log = sink.logger('agent:run');
  // Before any secret is read: scripts of the agent's user must not read its /proc files (no-dump.ts).
  markNonDumpable(log);
  // SIGHUP's default action ends the process: the handler is there from the start. The one change
  // stream is made before the agent, whose reconciler consumes it: a SIGHUP while the modules start
  // waits in it (afterStart, once) and is carried out once the agent is ready; file events are not held.
  const changes = new ChangeStream<ReconcilerStatus>();
  let running: RunningAgent | undefined;
  const reloading = (): void => {
    log.info('SIGHUP: reloading settings');
    notifySystemd('RELOADING=1');
  };
  const onHup = (): void => {
    // While starting, one SIGHUP is kept: more would add nothing to the reload it makes.
    if (!running && changes.held() > 0) return;
    if (running) reloading();
    else log.info('SIGHUP while starting: reloading once started');
    // A reload never rejects (its one catch makes an unexpected throw a rejected reload, logged).
    // With [/settings/source], SIGHUP also pulls at once (a pull that changes something reloads again).
    void changes
      .push({ reason: 'SIGHUP', afterStart: true })
      .then(() => (running?.source.status() ? running.source.pull('SIGHUP') : undefined))
      .catch(() => undefined)
      .finally(() => notifySystemd('READY=1'));
  };
  process.on('SIGHUP', onHup);
  log.debug(`starting on ${file}`);
  const result = await startAgent({ settingsFile: file, changes });
  if (!result.ok) {
    process.off('SIGHUP', onHup);
    const code = settingsExitCode(result.problems);
    // An unreadable file is one problem that says it all; an invalid one gets a count first.
    if (code === 1)
      err(`agent: ${formatMessage('AGENT_ERR_SETTINGS_INVALID', [file, result.problems.length])}; not starting:`);
    for (const p of result.problems) err(formatProblem(p));
    if (code === 2) err('agent: not starting');
    return code;
  }
  const { agent } = result;
  running = agent;
  const modules = agent.reconciler.status().modules;
  const loaded = modules.filter((m) => m.loaded).map((m) => m.name);
  const failed = modules.filter((m) => m.state === 'failed' || m.outcome === 'failed').map((m) => m.name);
  const failedText = failed.length > 0 ? `; failed: ${failed.join(', ')} (retrying; see the errors above)` : '';
  // What `systemctl status` shows: the modules, and the settings as check_settings sees them.
  const statusLine = (): string => {
    const now = agent.reconciler.status().modules;
    const bad = now.filter((m) => m.state === 'failed' || m.outcome === 'failed').map((m) => m.name);
    const running = `running: ${now.filter((m) => m.loaded).length} module(s) loaded${bad.length > 0 ? `, failed: ${bad.join(', ')}` : ''}`;
    return `${running}; ${settingsStatusLine(agent.core.settingsHealth())}`;
  };
  // One stop, whether a signal or a crash asks for it (crash.ts exits 70 after it).
  let stopped: Promise<void> | undefined;
  const stopOnce = (): Promise<void> => (stopped ??= agent.stop());
  onCrash(async () => {
    notifySystemd('STOPPING=1');
    await stopOnce();
    log.info('agent stopped after a crash');
  });
  installTestStall();
  let stopAfterReady: (() => void) | undefined;
  return new Promise<number>((resolveExit) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      log.info(`${signal}: stopping`);
      stopAfterReady?.();
      notifySystemd('STOPPING=1');
      stopOnce().then(
        () => {
          log.info('agent stopped');
          resolveExit(0);
        },
        (e: unknown) => {
          log.error(`stopping failed: ${String(e)}`);
          resolveExit(70);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    // Ready only once the signals are handled: a SIGTERM sent as soon as this
    // line is read must stop the agent, not kill it with the default action.
    log.info(
      `agent ready: pid ${process.pid}, settings ${agent.reconciler.settings().file}, modules: ${loaded.join(', ') || 'none'}${failedText}`,
    );
    notifySystemd(`READY=1\nSTATUS=${statusLine()}`);
    stopAfterReady = afterReady(statusLine, log);
    if (changes.open() > 0) reloading();
  });
}

/**
 * What runs once the agent is ready: systemd's watchdog, and the heap settling (the start's
 * garbage and malloc's free pages given back now, not in 10 s: heap-settle.ts). The returned
 * function stops both.
 */
function afterReady(statusLine: () => string, log: Logger): () => void {
  const stopWatchdog = startWatchdog(statusLine);
  const cancelSettle = scheduleHeapSettle(log);
  return () => {
    stopWatchdog?.();
    cancelSettle();
  };
}
