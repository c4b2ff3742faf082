/**
 * Pending package updates from the package managers a host has: apt
 * (`apt-get -s dist-upgrade`, held-back packages included) and dnf or yum
 * (`check-update`, then `check-update --security`). Commands run through
 * HostSources (recorded output in tests). A result is reused while the
 * package database and repository metadata are unchanged (their mtimes are
 * part of the cache key), because a simulated upgrade takes seconds.
 */
import { readdir, stat } from 'node:fs/promises';
import { CheckError } from '../engine.js';
import { describeFailure, hostPath, hostPathExists, type HostSources } from '../host/host-sources.js';
import { inRange } from '../../in-range.js';

export interface PackageUpdate {
  manager: 'apt' | 'dnf' | 'yum';
  package: string;
  version: string;
  oldVersion: string;
  repository: string;
  arch: string;
  security: boolean;
}

export interface Backend {
  manager: PackageUpdate['manager'];
  binary: string;
  /** Folders and files whose change invalidates a cached answer. */
  watch: string[];
  /** Folder whose newest file tells how old the repository metadata is. */
  metadata: string;
  list(host: HostSources, signal?: AbortSignal): Promise<PackageUpdate[]>;
}

const TIMEOUT_MS = 120000;

/** `Inst pkg [old] (new Repo:x/y, Other:z [arch])` lines; new installs (no [old]) are not updates. */
export function parseAptSimulation(text: string): PackageUpdate[] {
  const out: PackageUpdate[] = [];
  for (const line of text.split('\n')) {
    const m = /^Inst (\S+) \[([^\]]+)\] \((\S+) (.*?)(?: \[([^\]]+)\])?\)/.exec(line);
    if (!m) continue;
    const repos = inRange(m, 4);
    out.push({
      manager: 'apt',
      package: inRange(m, 1),
      oldVersion: inRange(m, 2),
      version: inRange(m, 3),
      repository: repos,
      arch: m[5] ?? '',
      security: /Debian-Security:|-security\b/.test(repos),
    });
  }
  return out;
}

/** `name.arch  version  repo` lines of dnf/yum check-update (stops at Obsoleting Packages). */
export function parseCheckUpdate(text: string, manager: 'dnf' | 'yum'): PackageUpdate[] {
  const out: PackageUpdate[] = [];
  for (const line of text.split('\n')) {
    if (/^Obsoleting Packages/i.test(line)) break;
    const f = line.trim().split(/\s+/);
    const [name, version, repository] = f;
    if (f.length !== 3 || name === undefined || version === undefined || repository === undefined) continue;
    if (!/\.[A-Za-z0-9_]+$/.test(name) || !/\d/.test(version)) continue;
    const dot = name.lastIndexOf('.');
    out.push({
      manager,
      package: name.slice(0, dot),
      arch: name.slice(dot + 1),
      version,
      oldVersion: '',
      repository,
      security: false,
    });
  }
  return out;
}

const apt: Backend = {
  manager: 'apt',
  binary: '/usr/bin/apt-get',
  watch: ['/var/lib/apt/lists', '/var/lib/dpkg/status'],
  metadata: '/var/lib/apt/lists',
  async list(host, signal) {
    const argv = ['apt-get', '-s', '-qq', '-o', 'Debug::NoLocking=true', 'dist-upgrade'];
    const r = await host.run(argv, { timeoutMs: TIMEOUT_MS, ...(signal ? { signal } : {}) });
    if (r.code !== 0) throw new CheckError(`apt-get failed: ${describeFailure(argv, r)}`);
    return parseAptSimulation(r.stdout);
  },
};

function rpmBackend(manager: 'dnf' | 'yum'): Backend {
  return {
    manager,
    binary: `/usr/bin/${manager}`,
    watch: ['/var/lib/rpm', `/var/cache/${manager}`],
    metadata: `/var/cache/${manager}`,
    async list(host, signal) {
      const run = async (extra: string[]): Promise<PackageUpdate[]> => {
        const argv = [manager, '-q', '--cacheonly', 'check-update', ...extra];
        const r = await host.run(argv, { timeoutMs: TIMEOUT_MS, ...(signal ? { signal } : {}) });
        // 100: updates available; 0: none; anything else failed.
        if (r.code !== 0 && r.code !== 100) throw new CheckError(`${manager} failed: ${describeFailure(argv, r)}`);
        return parseCheckUpdate(r.stdout, manager);
      };
      const all = await run([]);
      const security = new Set((await run(['--security'])).map((u) => `${u.package}.${u.arch}`));
      return all.map((u) => ({ ...u, security: security.has(`${u.package}.${u.arch}`) }));
    },
  };
}

export const BACKENDS: readonly Backend[] = [apt, rpmBackend('dnf'), rpmBackend('yum')];

/** The backends present on the host; dnf wins over yum (yum is often a link to dnf). */
export async function presentBackends(host: HostSources, wanted: string): Promise<Backend[]> {
  const found: Backend[] = [];
  for (const b of BACKENDS) {
    if (wanted !== 'auto' && wanted !== b.manager) continue;
    if (b.manager === 'yum' && found.some((f) => f.manager === 'dnf')) continue;
    if (await hostPathExists(host, b.binary)) found.push(b);
  }
  return found;
}

/** Newest modification time (seconds) of a path and, for a folder, of its direct entries. */
export async function newestMtime(host: HostSources, path: string): Promise<number | undefined> {
  const full = hostPath(host, path);
  const st = await stat(full).catch(() => undefined);
  if (!st) return undefined;
  let newest = st.mtimeMs;
  if (st.isDirectory()) {
    for (const e of (await readdir(full).catch(() => [] as string[])).slice(0, 5000)) {
      if (e === 'partial' || e === 'lock') continue;
      const s = await stat(`${full}/${e}`).catch(() => undefined);
      if (s && s.mtimeMs > newest) newest = s.mtimeMs;
    }
  }
  return newest / 1000;
}

interface Cached {
  key: string;
  updates: PackageUpdate[];
}
const cache = new Map<string, Cached>();

/** List a backend's updates, reusing the last answer while its watched paths are unchanged. */
export async function cachedUpdates(host: HostSources, b: Backend, signal?: AbortSignal): Promise<PackageUpdate[]> {
  const id = `${host.root}\u0000${b.manager}`;
  const key = (await Promise.all(b.watch.map((w) => newestMtime(host, w)))).join(',');
  const hit = cache.get(id);
  if (hit && hit.key === key) return hit.updates;
  const updates = await b.list(host, signal);
  cache.delete(id);
  cache.set(id, { key, updates });
  while (cache.size > 16) cache.delete(cache.keys().next().value as string);
  return updates;
}
