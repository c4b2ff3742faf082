/**
 * check_os_updates: pending package updates, one item per package, from
 * every package manager the host has (package-updates.ts). NSClient++'s
 * defaults: any update warns, a security update is critical; nothing
 * pending is OK. A host without a supported package manager is UNKNOWN.
 */
import { ArgumentError } from '../arguments.js';
import { CheckError, type CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { cachedUpdates, newestMtime, presentBackends } from './package-updates.js';

export function osUpdatesCheck(host: HostSources = realHost()): CheckDefinition {
  return {
    name: 'check_os_updates',
    title: 'Pending OS updates',
    description:
      'Pending package updates (apt, dnf, yum), security updates marked, from a simulated upgrade; the answer is reused until the package database or repository metadata change.',
    options: {
      system: { description: 'Package manager: auto (every one present), apt, dnf or yum.', default: 'auto' },
      'max-metadata-age': {
        description: 'UNKNOWN when the repository metadata is older than this (such as 7d, 24h); 0 turns the test off.',
        default: '0',
      },
    },
    vars: {
      package: { kind: 'string', description: 'Package name.' },
      version: { kind: 'string', description: 'Version the update brings.' },
      old_version: { kind: 'string', description: 'Installed version (apt only; empty for dnf and yum).' },
      repository: { kind: 'string', description: 'Repository (apt: every archive that offers it).' },
      arch: { kind: 'string', description: 'Architecture.' },
      manager: { kind: 'string', description: 'apt, dnf or yum.' },
      security: { kind: 'number', description: '1 for a security update, else 0.' },
      prefix: { kind: 'string', description: "'[SECURITY] ' for a security update, else empty." },
    },
    defaults: {
      warning: 'count > 0',
      critical: 'security = 1',
      topSyntax: '${status}: ${count} update(s) available, ${crit_count} security: ${problem_list}',
      detailSyntax: '${prefix}${package} ${version}',
      emptySyntax: '%(status): no updates available',
      emptyState: 'ok',
    },
    async collect(args, call) {
      const system = (args.get('system') ?? 'auto').trim().toLowerCase();
      if (!['auto', 'apt', 'dnf', 'yum'].includes(system))
        throw new ArgumentError(`system=${system} is not one of auto, apt, dnf, yum`);
      const maxAge = durationMaybeDays(args.get('max-metadata-age'));
      const backends = await presentBackends(host, system);
      if (backends.length === 0)
        throw new CheckError(
          system === 'auto'
            ? 'no supported package manager on this host (looked for apt-get, dnf, yum)'
            : `${system} is not installed on this host`,
        );
      const items: Values[] = [];
      for (const b of backends) {
        if (maxAge > 0) {
          const newest = await newestMtime(host, b.metadata);
          const age = newest === undefined ? Infinity : call.now - newest;
          if (age > maxAge)
            throw new CheckError(
              `repository metadata in ${b.metadata} is ${newest === undefined ? 'missing' : `${Math.round(age / 3600)} h old`}, more than max-metadata-age (${Math.round(maxAge / 3600)} h)`,
            );
        }
        for (const u of await cachedUpdates(host, b, call.signal)) {
          items.push({
            package: u.package,
            version: u.version,
            old_version: u.oldVersion,
            repository: u.repository,
            arch: u.arch,
            manager: u.manager,
            security: u.security ? 1 : 0,
            prefix: u.security ? '[SECURITY] ' : '',
          });
        }
      }
      // Security updates first, then by name.
      return items.sort(
        (a, b) => Number(b.security) - Number(a.security) || String(a.package).localeCompare(String(b.package)),
      );
    },
    summaryPerf: [
      { object: 'count', key: 'count', alias: 'updates', minimum: 0 },
      { object: 'crit_count', key: 'crit_count', alias: 'security', minimum: 0 },
    ],
  };
}

function durationMaybeDays(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '' || raw.trim() === '0') return 0;
  const m = /^(\d+)\s*(s|m|h|d)?$/i.exec(raw.trim());
  if (!m) throw new ArgumentError(`max-metadata-age=${raw} is not a duration such as 24h or 7d`);
  return Number(m[1]) * ({ s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's').toLowerCase()] as number);
}
