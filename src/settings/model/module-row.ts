/**
 * What the settings layer knows of a module without loading its code: a
 * module's descriptor (`src/modules/<folder>/descriptor.ts`, static data
 * beside the module's code) is one of these, and `npm run gen` collects
 * them into the one table (generated/module-rows.ts, read by
 * module-table.ts).
 */
import type { SectionPath } from './module-view.js';

export interface ModuleRow {
  /** The module's key in `[/modules]` (schema/modules/modules.schema.json). */
  readonly name: string;
  /**
   * Where the module starts among the others (lower first; the reconciler
   * stops them in reverse): the checks first, so a server answers with
   * every check registered, then the servers and clients, the passive
   * senders, and the Scheduler last, which runs the others' queries.
   */
  readonly startRank: number;
  readonly title: string;
  readonly description: string;
  /** The sections the module reads (its settings view). */
  readonly sections: readonly SectionPath[];
  /** The queries the module registers when it runs. */
  readonly queries: readonly string[];
  /** A listening module: the section of its listener (bind to, port, TLS, limits). */
  readonly listener?: SectionPath;
  /** The one module whose context carries the control interface (the API and UI): WEBServer. */
  readonly control?: true;
  /** A module that acts on its own (sends results): left out of one-shot commands beside a running agent. */
  readonly background?: true;
}
