/**
 * check_mount: are the expected file systems mounted, with the expected
 * type and options (ro/rw, noexec, ...)? Without mount= every real mount is
 * listed (pseudo file systems and /proc, /sys, /dev, /run are left out).
 * Options are a subset test: the listed options must be present, extra
 * ones are fine (SNClient+ warns about every extra option); ro against rw
 * is always reported. A mount of another type is reported, not silently
 * skipped as in SNClient+.
 */
import type { CheckDefinition } from '../engine.js';
import type { Values } from '../expression/evaluate.js';
import { realHost, type HostSources } from '../host/host-sources.js';
import { listArgument } from '../host/options.js';
import { readMountinfo, type MountEntry } from './mountinfo.js';

const PSEUDO = new Set(
  'autofs bdev binfmt_misc bpf cgroup cgroup2 configfs cpuset debugfs devpts devtmpfs efivarfs fuse.portal fusectl hugetlbfs mqueue nsfs overlay pipefs proc pstore ramfs rpc_pipefs securityfs selinuxfs sockfs sysfs tracefs tmpfs'.split(
    ' ',
  ),
);
const SYSTEM_PATHS = ['/proc', '/sys', '/dev', '/run'];

export function mountCheck(host: HostSources = realHost()): CheckDefinition {
  return {
    name: 'check_mount',
    title: 'Mounts',
    description:
      'Whether file systems are mounted, with the expected type and options, from /proc/1/mountinfo (or /proc/self/mountinfo).',
    options: {
      mount: {
        description: 'Mount point that must be mounted; comma list, may be repeated; default every real mount.',
        repeat: true,
      },
      options: {
        description:
          'Options each checked mount must have, such as ro or rw,noexec (comma list); extra options are fine.',
      },
      fstype: { description: 'File system type each checked mount must have (case-insensitive).' },
    },
    vars: {
      mount: { kind: 'string', description: 'Mount point.' },
      device: { kind: 'string', description: 'Mounted device or source.' },
      fstype: { kind: 'string', description: 'File system type.' },
      options: {
        kind: 'string',
        description: 'Mount and super-block options, comma list (bind added for a sub-tree mount).',
      },
      readonly: { kind: 'bool', description: 'True when mounted ro.' },
      mounted: { kind: 'bool', description: 'False for an expected mount point that is not mounted.' },
      issues: {
        kind: 'string',
        description: "What is wrong: 'not mounted', 'missing options: …', 'fstype is X, expected Y'; empty when fine.",
      },
      has_issues: { kind: 'number', description: '1 when issues is not empty, else 0 (NSClient++ name).' },
    },
    defaults: {
      warning: "issues != ''",
      critical: "issues like 'not mounted'",
      topSyntax: '${status}: ${problem_list}',
      okSyntax: '${status}: ${count} mount(s) ok',
      detailSyntax: '${mount} ${issues}',
      emptySyntax: '%(status): No mounts found',
      emptyState: 'unknown',
    },
    async collect(args) {
      const wanted = listArgument(args, 'mount').map(trimSlash);
      const wantOptions = listArgument(args, 'options');
      const wantType = args.get('fstype')?.trim().toLowerCase();
      const table = await readMountinfo(host.proc);
      // The last mount on a point hides the earlier ones.
      const byPoint = new Map<string, MountEntry>();
      for (const m of table) byPoint.set(m.mountPoint, m);
      const chosen = wanted.length > 0 ? wanted : [...byPoint.values()].filter(isReal).map((m) => m.mountPoint);
      return chosen.map((point): Values => {
        const m = byPoint.get(point);
        if (!m)
          return {
            mount: point,
            device: '',
            fstype: '',
            options: '',
            readonly: false,
            mounted: false,
            issues: 'not mounted',
            has_issues: 1,
          };
        const problems: string[] = [];
        const missing = wantOptions.filter((o) => !m.options.includes(o));
        if (missing.length > 0) problems.push(`missing options: ${missing.join(', ')}`);
        if (wantType !== undefined && wantType !== '' && m.fsType.toLowerCase() !== wantType)
          problems.push(`fstype is ${m.fsType}, expected ${wantType}`);
        const issues = problems.join('; ');
        return {
          mount: point,
          device: maskSecret(m.device),
          fstype: m.fsType,
          options: m.options.join(','),
          readonly: m.options.includes('ro'),
          mounted: true,
          issues,
          has_issues: issues === '' ? 0 : 1,
        };
      });
    },
  };
}

function isReal(m: MountEntry): boolean {
  if (PSEUDO.has(m.fsType)) return false;
  return !SYSTEM_PATHS.some((p) => m.mountPoint === p || m.mountPoint.startsWith(`${p}/`));
}

function trimSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** A password in a device string (//user:secret@host/share) is never shown. */
function maskSecret(device: string): string {
  return device.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1****@');
}
