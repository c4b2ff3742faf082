/**
 * check_index: every query the agent answers right now, with its module,
 * through the engine (filter=module = 'CheckNet', detail-syntax=...).
 * The list comes from the core at call time, so scripts and modules loaded
 * later appear, and unloaded ones vanish.
 */
import type { CheckDefinition } from '../engine.js';
import type { QueryInfo } from '../../core/core.js';

export function indexCheck(list: () => readonly QueryInfo[]): CheckDefinition {
  return {
    name: 'check_index',
    title: 'List of queries',
    description: 'Lists every query the agent answers, sorted by name, with its module, title and description.',
    vars: {
      name: { kind: 'string', description: 'Query name.' },
      module: { kind: 'string', description: 'Module that answers it.' },
      title: { kind: 'string', description: 'Short title.' },
      description: { kind: 'string', description: 'What it does.' },
    },
    defaults: {
      topSyntax: '${list}',
      detailSyntax: '${name} (${module})',
      emptySyntax: '%(status): No queries found',
      emptyState: 'unknown',
      separator: '\n',
    },
    async collect() {
      return [...list()].sort((a, b) => a.name.localeCompare(b.name)).map((q) => ({ name: q.name, module: q.module, title: q.title, description: q.description }));
    },
    summaryPerf: [],
  };
}
