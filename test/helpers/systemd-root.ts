/**
 * A real Debian 12 system for the package tests: a root made by Debian's mmdebstrap, its systemd
 * booted as PID 1 of its own namespaces (boot-root.sh), commands run inside with nsenter. Needs
 * root and the mmdebstrap package (.ci/run installs it); mmdebstrap fetches from the Debian mirror
 * that apt on this machine uses. Every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { runProgram as run, type ProgramRun as Run } from './run-program.js';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './agent-process.js';
import { waitUntil } from './wait-until.js';

export { runProgram as run, type ProgramRun as Run } from './run-program.js';

/** Makes a minimal Debian 12 root at `dir` with systemd and `packages`. */
export async function makeRoot(dir: string, packages: readonly string[]): Promise<void> {
  const r = await run(
    'mmdebstrap',
    [
      '--variant=apt',
      '--quiet',
      `--include=${['systemd', 'systemd-sysv', 'dbus', ...packages].join(',')}`,
      'bookworm',
      dir,
    ],
    600_000,
  );
  if (r.code !== 0) throw new Error(`mmdebstrap failed (${r.code}): ${r.stderr.slice(-2000)}`);
}

export interface BootedRoot {
  /** systemd's PID as this machine sees it. */
  readonly pid: number;
  /** Runs a shell command inside the system (all its namespaces, its root). */
  sh(command: string, timeoutMs?: number): Promise<Run>;
  /** Kills the system (its PID 1, hence everything in it). */
  kill(): Promise<void>;
}

/** Boots the root's systemd and waits until `systemctl is-system-running` says running or degraded. */
export async function bootRoot(dir: string): Promise<BootedRoot> {
  const child: ChildProcess = spawn(
    'unshare',
    ['--pid', '--fork', '--mount', '--net', '--uts', '--ipc', '--cgroup', join(REPO, 'test/helpers/boot-root.sh'), dir],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let pid = 0;
  const sh = (command: string, timeoutMs = 120_000): Promise<Run> =>
    run('nsenter', ['-t', String(pid), '-a', '-r', '-w', '/bin/sh', '-c', command], timeoutMs);
  try {
    await waitUntil(
      async () => {
        // The child of unshare is boot-root.sh until it execs the root's systemd.
        const r = await run('pgrep', ['-P', String(child.pid)]);
        pid = Number(r.stdout.trim().split('\n')[0]);
        return pid > 0 && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'systemd';
      },
      20_000,
      `the root's systemd to start (${stderr})`,
    );
    // Until systemd has opened its private socket, systemctl cannot ask (and --wait gives up).
    let state = '';
    await waitUntil(
      async () => {
        state = (await sh('systemctl is-system-running --wait', 60_000)).stdout.trim();
        return /^(running|degraded)$/.test(state);
      },
      90_000,
      'the booted system to be running',
    ).catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}: it is ${state}; failed units: ${(await sh('systemctl --failed --no-pager')).stdout}`,
      );
    });
  } catch (err) {
    // A system that did not come up is not left running (nor the test waiting for it).
    if (pid > 0) process.kill(pid, 'SIGKILL');
    else child.kill('SIGKILL');
    await exited;
    throw err;
  }
  return {
    pid,
    sh,
    kill: async () => {
      process.kill(pid, 'SIGKILL');
      await exited;
    },
  };
}

/** Removes a root made by makeRoot (its mounts went with the booted system's namespace). */
export function removeRoot(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Builds the packages (src/tools/package.mjs) at `version` into `dir` with fast compression, their
 * apt repository in `dir`/apt signed by the key in `gnupgHome` (made by the first build that names
 * it; builds that share one run one after the other); returns the path of the .deb of `arch`.
 */
export async function buildPackage(
  dir: string,
  version: string,
  gnupgHome = `${dir}-apt-key`,
  arch: 'amd64' | 'arm64' = 'amd64',
): Promise<string> {
  const r = await run(
    'env',
    [
      `AGENT_PACKAGE_DIR=${dir}`,
      `AGENT_PACKAGE_VERSION=${version}`,
      'AGENT_PACKAGE_XZ_LEVEL=0',
      `AGENT_APT_GNUPGHOME=${gnupgHome}`,
      process.execPath,
      join(REPO, 'src/tools/package.mjs'),
    ],
    300_000,
  );
  // The gpg-agent that signing started goes with the build.
  await run('gpgconf', ['--homedir', gnupgHome, '--kill', 'gpg-agent']);
  if (r.code !== 0) throw new Error(`package.mjs failed (${r.code}): ${r.stdout}${r.stderr}`);
  const deb = join(dir, `config-agent_${version}_${arch}.deb`);
  if (!existsSync(deb)) throw new Error(`no ${deb}: ${readdirSync(dir).join(', ')}`);
  return deb;
}

/** The service's main PID inside the system (0 when it is not running). */
export async function mainPid(sys: BootedRoot, unit = 'config-agent'): Promise<number> {
  return Number((await sys.sh(`systemctl show -P MainPID ${unit}`)).stdout.trim());
}

/** `systemd-analyze security`'s overall exposure of a unit inside the system (NaN when it gives none). */
export async function exposure(sys: BootedRoot, unit = 'config-agent'): Promise<{ score: number; text: string }> {
  const text = (await sys.sh(`systemd-analyze security ${unit} --no-pager`)).stdout;
  return { score: Number(/Overall exposure level for [\w.-]+: ([\d.]+)/.exec(text)?.[1]), text };
}
