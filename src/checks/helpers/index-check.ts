/**
 * check_index: every query the agent knows, with its module and whether it
 * is enabled (answered now: its module runs) or not (the queries of the
 * module table whose module does not run), through the engine
 * (filter=module = 'CheckNet', filter=enabled = 'disabled', detail-syntax=...).
 * The list comes from the core at call time, so scripts and modules loaded
 * later appear as enabled, and unloaded ones as disabled. `config-agent query
 * --list` prints the same list (queryIndex).
 */
import type { CheckDefinition } from '../engine.js';
import type { QueryInfo } from '../../core/core.js';
import { moduleTable } from '../../settings/model/module-table.js';

export interface IndexedQuery {
  name: string;
  module: string;
  title: string;
  description: string;
  /** Answered now (its module runs). */
  enabled: boolean;
}

/** The queries registered now (enabled), then those of the module table not registered (disabled), sorted by name. */
export function queryIndex(registered: readonly QueryInfo[]): IndexedQuery[] {
  const rows = new Map<string, IndexedQuery>();
  for (const q of registered)
    rows.set(q.name.toLowerCase(), {
      name: q.name,
      module: q.module,
      title: q.title,
      description: q.description,
      enabled: true,
    });
  for (const m of moduleTable()) {
    for (const name of m.queries) {
      if (!rows.has(name.toLowerCase()))
        rows.set(name.toLowerCase(), {
          name,
          module: m.name,
          title: m.title,
          description: `${m.description} (enable ${m.name} in [/modules] to answer it)`,
          enabled: false,
        });
    }
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function indexCheck(list: () => readonly QueryInfo[]): CheckDefinition {
  return {
    name: 'check_index',
    title: 'List of queries',
    description:
      'Lists every query the agent knows, sorted by name, with its module, whether it is enabled (its module runs), title and description.',
    vars: {
      name: { kind: 'string', description: 'Query name.' },
      module: { kind: 'string', description: 'Module that answers it.' },
      title: { kind: 'string', description: 'Short title.' },
      description: { kind: 'string', description: 'What it does.' },
      enabled: { kind: 'string', description: "'enabled' when its module runs and answers it now, else 'disabled'." },
    },
    defaults: {
      topSyntax: '${list}',
      detailSyntax: '${name} (${module}, ${enabled})',
      emptySyntax: '%(status): No queries found',
      emptyState: 'unknown',
      separator: '\n',
    },
    async collect() {
      return queryIndex(list()).map((q) => ({ ...q, enabled: q.enabled ? 'enabled' : 'disabled' }));
    },
    summaryPerf: [],
  };
}
