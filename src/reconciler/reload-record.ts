/**
 * What the reloads found, for the reconciler's status: the hash and the
 * files of the last read of the settings, the time and result of the last
 * reload, its problems and warnings (each warning logged once, when it
 * first appears), and how many reloads ended each way. The reconciler
 * (reconciler.ts) records into it; it applies nothing.
 */
import { sink } from '../log.js';
import type { ReconcilerStatus, SettingsProblem } from '../core/control.js';
import { describeProblem, newWarnings } from '../settings/model/problem.js';
import { isoTime } from '../iso-time.js';

const log = sink.logger('agent:reconciler');

export type ReloadResult = 'ok' | 'invalid' | 'partial';

export class ReloadRecord {
  fileHash: string;
  watchedFiles: readonly string[];
  private lastReload: string | null = null;
  private lastResult: ReconcilerStatus['lastResult'] = 'none';
  /** The reasons of every trigger the last reload covered (change-stream.ts). */
  private lastReasons: readonly string[] = [];
  problems: SettingsProblem[] = [];
  warnings: SettingsProblem[];
  private readonly counts = { ok: 0, invalid: 0, partial: 0 };

  constructor(fileHash: string, watchedFiles: readonly string[], warnings: SettingsProblem[]) {
    this.fileHash = fileHash;
    this.watchedFiles = watchedFiles;
    this.warnings = warnings;
  }

  /** What the store's read of the next batch compares the files with (change-stream.ts AppliedTree), beside the snapshot. */
  tree(): { watched: readonly string[]; refused: boolean; warnings: SettingsProblem[] } {
    return { watched: this.watchedFiles, refused: this.problems.length > 0, warnings: this.warnings };
  }

  /** A read of the settings files got this far: their hash and every file it touched. */
  read(hash: string, watched: readonly string[]): void {
    this.fileHash = hash;
    this.watchedFiles = watched;
  }

  /** Valid settings were applied: no problems, and the warnings new since the last read are logged. */
  accepted(warnings: SettingsProblem[]): void {
    this.problems = [];
    for (const w of newWarnings(this.warnings, warnings))
      log.warning(describeProblem(w), { file: w.file, line: w.line });
    this.warnings = warnings;
  }

  /** Settings were rejected (every problem logged); `appliedHash` names the last good settings kept. */
  rejected(problems: SettingsProblem[], warnings: SettingsProblem[], hash: string, appliedHash: string): void {
    this.problems = problems;
    this.warnings = warnings;
    if (hash) this.fileHash = hash;
    log.error(
      `settings rejected: ${problems.length} problem(s); keeping the last good settings (${appliedHash.slice(0, 12)})`,
    );
    for (const p of problems) log.error(describeProblem(p), { file: p.file, line: p.line });
  }

  /** The log line of a reload's verdict, once per trigger it covers, each with its reason (tests and people grep for them). */
  reconciling(verdict: 'changed' | 'unchanged', reasons: readonly string[]): void {
    for (const reason of reasons) log.info(`settings ${verdict} (${reason}); reconciling`);
  }

  /** A reload that covered these triggers ended this way, now. */
  finished(result: ReloadResult, reasons: readonly string[]): void {
    this.lastReload = isoTime(Date.now());
    this.lastReasons = reasons;
    this.lastResult = result;
    this.counts[result]++;
  }

  /** The part of the reconciler's status this record holds. */
  fields(): Pick<
    ReconcilerStatus,
    'fileHash' | 'lastReload' | 'lastResult' | 'lastReasons' | 'problems' | 'warnings' | 'reloads'
  > {
    return {
      fileHash: this.fileHash,
      lastReload: this.lastReload,
      lastResult: this.lastResult,
      lastReasons: [...this.lastReasons],
      problems: this.problems,
      warnings: this.warnings,
      reloads: { ...this.counts },
    };
  }
}
