/**
 * What the translation of an NSClient++ settings file yields (translate.ts,
 * nrpe-cfg.ts): the sections and keys to write, with their comments and
 * source lines, and the report of every change.
 */
/** One physical line read (the given file and its includes); `setting` is false for blank and comment lines. */
export interface LineCount {
  file: string;
  line: number;
  setting: boolean;
}

export type ChangeAction = 'kept' | 'dropped' | 'renamed' | 'changed' | 'moved' | 'note';

/** One line of the report: what happened to a section or key of the source file, and why. */
export interface ImportChange {
  /** The file the line is in, when not the file given to the import (an included file). */
  file?: string;
  line: number;
  /** Section as written in the source. */
  section: string;
  key?: string;
  action: ChangeAction;
  detail: string;
}

export interface OutEntry {
  key: string;
  value: string;
  comments: string[];
  /** Source line, for the report. */
  line: number;
  /** Source file, when not the file given to the import. */
  file?: string;
  sourceSection: string;
  sourceKey: string;
  /** An NRPE command the written file does not hold: the agent reads it from this nrpe.cfg file at each load ([/includes]). */
  loadedFrom?: string;
}

export interface OutSection {
  path: string;
  comments: string[];
  entries: OutEntry[];
}

export interface Translation {
  header: string[];
  sections: OutSection[];
  changes: ImportChange[];
  /** NSClient++ modules of [/modules] that have no counterpart here. */
  unsupportedModules: string[];
  /** Windows-only items left out (scripts run through cmd, powershell, cscript, .bat, .ps1, .vbs; Windows modules), by kind. */
  windowsOnly?: { kind: string; name: string; line: number }[];
  /** Every line read, for the report's totals. */
  counted?: LineCount[];
  /** nrpe.cfg: the sudoers lines for the agent's user (formats/sudo-command.ts). */
  sudoers?: string[];
  /** The files [/includes] names (values as written), for import.ts to merge. */
  includes?: { value: string; line: number }[];
}
