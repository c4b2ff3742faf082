/**
 * check_mailq: size of the postfix mail queue. `postconf -h
 * queue_directory` names the spool; the agent counts the files (and their
 * bytes) under active, deferred, hold, incoming and maildrop itself, which
 * needs read access to the spool (root, as the spool is postfix's). No
 * postfix on the host, or a spool the agent may not read, is UNKNOWN
 * saying so.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckError, type CheckDefinition } from '../engine.js';
import type { VarDef } from '../expression/evaluate.js';
import { describeFailure, hostPath, type HostSources, realHost } from '../host/host-sources.js';

const QUEUES = ['active', 'deferred', 'hold', 'incoming', 'maildrop'] as const;
const MAX_FILES = 1_000_000;

export function mailqCheck(host: HostSources = realHost()): CheckDefinition {
  const queueVars = Object.fromEntries(
    QUEUES.flatMap((q): [string, VarDef][] => [
      [q, { kind: 'number' as const, description: `Messages in the ${q} queue.` }],
      [`${q}_size`, { kind: 'size' as const, description: `Bytes in the ${q} queue.` }],
    ]),
  );
  return {
    name: 'check_mailq',
    title: 'Mail queue',
    description:
      'Messages and bytes in the postfix queues (active, deferred, hold, incoming, maildrop), counted in the spool that postconf names; needs read access to the spool.',
    options: {
      mta: { description: 'Mail transfer agent: auto or postfix (the only one supported).', default: 'auto' },
    },
    vars: {
      mta: { kind: 'string', description: 'postfix.' },
      folder: { kind: 'string', description: 'The queue directory.' },
      ...queueVars,
      total: { kind: 'number', description: 'Messages in every queue.' },
    },
    defaults: {
      warning: 'active > 5 or active_size > 10m or deferred > 0 or deferred_size > 10m',
      critical: 'active > 10 or active_size > 20m or deferred > 10 or deferred_size > 20m',
      topSyntax: '${status}: ${list}',
      detailSyntax: '${mta}: active ${active} / deferred ${deferred} / hold ${hold}',
      emptySyntax: '%(status): could not get any mail queue data',
      emptyState: 'unknown',
    },
    async collect(args, call) {
      const mta = (args.get('mta') ?? 'auto').trim().toLowerCase();
      if (mta !== 'auto' && mta !== 'postfix') throw new CheckError(`mta=${mta} is not supported (auto or postfix)`);
      const argv = ['postconf', '-h', 'queue_directory'];
      const r = await host.run(argv, { timeoutMs: 10000, signal: call.signal });
      if (r.error !== undefined && /ENOENT/.test(r.error))
        throw new CheckError('no mail queue on this host: postfix is not installed (no postconf)');
      if (r.code !== 0) throw new CheckError(`postconf failed: ${describeFailure(argv, r)}`);
      const folder = r.stdout.trim();
      if (folder === '') throw new CheckError('postconf printed no queue_directory');
      const item: Record<string, string | number> = { mta: 'postfix', folder, total: 0 };
      for (const q of QUEUES) {
        const { files, bytes } = await countQueue(hostPath(host, join(folder, q)));
        item[q] = files;
        item[`${q}_size`] = bytes;
        item.total = (item.total as number) + files;
      }
      return [item];
    },
    perf: () =>
      QUEUES.flatMap((q) => [
        { object: q, key: q, alias: q, minimum: 0 },
        { object: q, key: `${q}_size`, alias: `${q}_size`, minimum: 0 },
      ]),
  };
}

/** Files and bytes below a queue folder (postfix hashes deferred into sub-folders); a missing folder is empty. */
async function countQueue(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const walk = async (d: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code === 'EACCES' || code === 'EPERM')
        throw new CheckError(
          `cannot read the mail queue ${d}: permission denied (the spool belongs to postfix; run the agent as root)`,
        );
      throw err;
    }
    for (const e of entries) {
      if (files >= MAX_FILES) return;
      const p = join(d, e.name);
      if (e.isDirectory() && depth < 4) await walk(p, depth + 1);
      else if (e.isFile()) {
        files++;
        bytes += (await stat(p).catch(() => undefined))?.size ?? 0;
      }
    }
  };
  await walk(dir, 0);
  return { files, bytes };
}
