/**
 * Who listens on a TCP port, read from /proc the way `ss -ltnp` reads it,
 * for the advice on a busy port (bind-advice.ts). /proc/net/tcp and tcp6
 * name the listening socket's user and inode to anyone; the process that
 * holds the inode is found through /proc/PID/fd, which only root and the
 * process's own user may read. So under the service (user config-agent)
 * a program of another user is named by its user's processes instead:
 * their names and their systemd unit (/proc/PID/cgroup, readable by
 * anyone), when they agree. `nrpe (pid 57, user nagios,
 * nagios-nrpe-server.service)`.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface PortProcess {
  pid: number;
  /** The kernel's name of the process (comm, as pgrep matches it). */
  name: string;
  /** The systemd service it runs in, when it is one. */
  unit: string | undefined;
}

export interface PortHolder {
  /** The socket's user: its name from /etc/passwd, else its number. */
  user: string;
  /** The processes holding the socket when they could be read, else those of its user that agree on name and unit. */
  processes: PortProcess[];
}

/** At most this many processes are looked at (a bound on the error path's work). */
const MAX_PROCESSES = 20_000;

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** The listening sockets on `port`: user id and inode, from /proc/net/tcp and tcp6. */
function listeners(proc: string, port: number): { uid: number; inode: string }[] {
  const found: { uid: number; inode: string }[] = [];
  for (const table of ['net/tcp', 'net/tcp6']) {
    for (const row of (read(join(proc, table)) ?? '').split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = row.trim().split(/\s+/);
      const local = f[1]?.split(':')[1];
      if (f.length < 10 || f[3] !== '0A' || local === undefined || parseInt(local, 16) !== port) continue;
      found.push({ uid: Number(f[7]), inode: f[9] ?? '' });
    }
  }
  return found;
}

function userName(uid: number): string {
  const line = (read('/etc/passwd') ?? '').split('\n').find((l) => l.split(':')[2] === String(uid));
  return line?.split(':')[0] || String(uid);
}

function processOf(proc: string, pid: number, name: string): PortProcess {
  const unit = /\/([^/]+\.service)(?:\/|$)/m.exec(read(join(proc, String(pid), 'cgroup')) ?? '')?.[1];
  return { pid, name, unit };
}

function holdsInode(proc: string, pid: number, inodes: Set<string>): boolean | undefined {
  const fdDir = join(proc, String(pid), 'fd');
  let fds: string[];
  try {
    fds = readdirSync(fdDir);
  } catch {
    return undefined;
  }
  return fds.some((fd) => {
    try {
      return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(join(fdDir, fd)))?.[1] ?? '');
    } catch {
      return false;
    }
  });
}

/** Who listens on TCP `port`, or undefined when nobody on this host's /proc does. */
export function portHolder(port: number, proc = '/proc'): PortHolder | undefined {
  const sockets = listeners(proc, port);
  const first = sockets[0];
  if (first === undefined) return undefined;
  const inodes = new Set(sockets.map((s) => s.inode));
  const exact: PortProcess[] = [];
  const sameUser: PortProcess[] = [];
  let pids: string[] = [];
  try {
    pids = readdirSync(proc).filter((p) => /^\d+$/.test(p));
  } catch {
    // No /proc to read: the user alone names the holder.
  }
  for (const p of pids.slice(0, MAX_PROCESSES)) {
    const status = read(join(proc, p, 'status')) ?? '';
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
    if (uid !== first.uid) continue;
    const name = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?';
    const holds = holdsInode(proc, Number(p), inodes);
    if (holds === true) exact.push(processOf(proc, Number(p), name));
    else if (holds === undefined) sameUser.push(processOf(proc, Number(p), name));
  }
  const user = userName(first.uid);
  if (exact.length > 0) return { user, processes: exact };
  // Another user's processes: named only when they are all the same program in the same unit.
  const agree = new Set(sameUser.map((q) => `${q.name} ${q.unit ?? ''}`)).size === 1;
  return { user, processes: agree ? sameUser : [] };
}

/** `nrpe (pid 57, user nagios, nagios-nrpe-server.service)`, or `a program of user nagios`. */
export function holderText(h: PortHolder): string {
  const [q, ...more] = h.processes;
  if (q === undefined) return `a program of user ${h.user}`;
  const pids = [q, ...more].map((x) => x.pid).join(', ');
  return `${q.name} (pid ${pids}, user ${h.user}${q.unit !== undefined ? `, ${q.unit}` : ''})`;
}

/** True when the holder is Debian's nrpe daemon (the program nrpe, or the unit nagios-nrpe-server). */
export function isNrpe(h: PortHolder): boolean {
  return h.processes.some((q) => q.name === 'nrpe' || q.unit === 'nagios-nrpe-server.service');
}
