/**
 * One pull of a file from a git repository, with Debian's `git` (never a
 * home-made git client): `git ls-remote URL REF` first, so an unchanged
 * ref costs one round trip and no fetch; otherwise a fetch of that ref
 * into a bare cache repository in the state folder (with its history, so
 * that a signed source can tell a descendant of the applied commit from
 * an older one: isAncestor; after the first pull a fetch brings only the
 * new objects; a repository an older agent fetched shallow is deepened
 * once), and `git cat-file blob COMMIT:PATH`. The revision is the commit id. Every git run has
 * the pull's time limit, no terminal prompt and no pager; what git says on
 * failure is the error. A required signature is checked (verify-git.ts)
 * before any file of the commit is read.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { signaturesRequired, type Trust } from './trust.js';
import { TRUST_OWN_REPOSITORY, verifyGitObject } from './verify-git.js';

export interface GitFetchOptions {
  url: string;
  ref: string;
  path: string;
  timeoutMs: number;
  maxBytes: number;
  /** The bare repository kept between pulls. */
  repoDir: string;
  /** The commit in force: the same commit at the ref is no change. */
  known?: string | undefined;
  /** A PEM file of the CAs an https:// repository's certificate may be signed by (else git's own settings). */
  ca?: string | undefined;
  /** No verification of an https:// repository's certificate. */
  insecure?: boolean | undefined;
  /** Keys the commit (or the tag the ref names) must be signed by (verify-git.ts). */
  trust?: Trust | undefined;
}

export type GitFetchResult = { changed: false } | { changed: true; body: Buffer; revision: string };

const GIT_ENV = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  GIT_ASKPASS: '/bin/false',
  SSH_ASKPASS: '/bin/false',
  LC_ALL: 'C',
  ...TRUST_OWN_REPOSITORY,
};

function git(
  args: string[],
  timeoutMs: number,
  maxBuffer = 1024 * 1024,
  env: Record<string, string> = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { timeout: timeoutMs, maxBuffer, encoding: 'buffer', env: { ...process.env, ...GIT_ENV, ...env } },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const lines = stderr
          .toString('utf8')
          .trim()
          .split('\n')
          .filter((l) => l !== '');
        // git's own verdict (fatal:, error:) is the cause: kept whole, whatever hints follow it.
        const verdict = lines.filter((l) => /^(fatal|error): /.test(l));
        const said = (verdict.length > 0 ? verdict : lines.slice(-2)).join('; ');
        const killed = (err as { killed?: boolean }).killed === true;
        // The subcommand, past the options and their values (-C DIR, -c KEY=VALUE).
        const name = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-C' && args[i - 1] !== '-c') ?? '';
        reject(
          new Error(killed ? `git ${name} took more than ${timeoutMs} ms` : `git ${name}: ${said || err.message}`),
        );
      },
    );
  });
}

/** The commit `ref` names on the remote (a branch, a tag, or a full ref), from `git ls-remote`. */
export async function remoteCommit(
  url: string,
  ref: string,
  timeoutMs: number,
  tls: Record<string, string> = {},
): Promise<{ commit: string; ref: string }> {
  const out = (await git(['ls-remote', '--', url, ref], timeoutMs, undefined, tls)).toString('utf8');
  const lines = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t') as [string, string]);
  // An annotated tag's commit is the peeled line (^{}); otherwise the first exact match of the name.
  const wanted = [ref, `refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const name of wanted) {
    const peeled = lines.find(([, r]) => r === `${name}^{}`);
    const plain = lines.find(([, r]) => r === name);
    const hit = peeled ?? plain;
    if (hit) return { commit: hit[0], ref: name };
  }
  throw new Error(`the repository has no ref ${ref}`);
}

export async function fetchGit(o: GitFetchOptions): Promise<GitFetchResult> {
  const deadline = Date.now() + o.timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  // `ca` and `insecure` for an https:// repository, as git's environment (which wins over any git config).
  const tls: Record<string, string> = {
    ...(o.ca ? { GIT_SSL_CAINFO: o.ca } : {}),
    ...(o.insecure === true ? { GIT_SSL_NO_VERIFY: '1' } : {}),
  };
  const remote = await remoteCommit(o.url, o.ref, left(), tls);
  if (remote.commit === o.known) return { changed: false };
  if (!existsSync(o.repoDir)) await git(['init', '--quiet', '--bare', o.repoDir], left());
  const deepen = existsSync(join(o.repoDir, 'shallow')) ? ['--unshallow'] : [];
  await git(
    ['-C', o.repoDir, 'fetch', '--quiet', '--no-tags', ...deepen, '--', o.url, `+${remote.ref}:refs/source/head`],
    left(),
    undefined,
    tls,
  );
  // The ref may have moved since ls-remote: what was fetched is the revision.
  const commit = (await git(['-C', o.repoDir, 'rev-parse', '--verify', 'refs/source/head^{commit}'], left()))
    .toString('utf8')
    .trim();
  // What the ref names (a signed tag, else the commit) must carry a trusted signature.
  if (o.trust && signaturesRequired(o.trust)) await verifyGitObject(o.repoDir, 'refs/source/head', o.trust, left());
  const spec = `${commit}:${o.path.replace(/^\/+/, '')}`;
  const size = Number(
    (
      await git(['-C', o.repoDir, 'cat-file', '-s', spec], left()).catch(() => {
        throw new Error(`commit ${commit} has no file ${o.path}`);
      })
    )
      .toString('utf8')
      .trim(),
  );
  if (size > o.maxBytes) throw new Error(`${o.path} is ${size} bytes at ${commit}, more than max size ${o.maxBytes}`);
  const body = await git(['-C', o.repoDir, 'cat-file', 'blob', spec], left(), o.maxBytes + 1);
  return { changed: true, body, revision: commit };
}

/**
 * Whether `older` is `newer` or one of its ancestors in the cache
 * repository (`git merge-base --is-ancestor`). A commit the repository
 * does not hold is no ancestor: after fetching `newer` with its history,
 * every ancestor of it is there.
 */
export async function isAncestor(repoDir: string, older: string, newer: string, timeoutMs: number): Promise<boolean> {
  if (!/^[0-9a-f]{40,64}$/.test(older)) return false;
  try {
    await git(['-C', repoDir, 'merge-base', '--is-ancestor', older, newer], timeoutMs);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the last applied pull fetched (a commit, or the signed tag naming it): a later fetch moves
 * `refs/source/head` to a commit that may be refused, so the cache is checked at start against this.
 */
export const APPLIED_REF = 'refs/source/applied';

/** After a pull of the cache repository is applied: `refs/source/applied` names what `refs/source/head` names. */
export async function markApplied(repoDir: string, timeoutMs: number): Promise<void> {
  await git(['-C', repoDir, 'update-ref', APPLIED_REF, 'refs/source/head'], timeoutMs);
}

/**
 * The ref of the cache repository that names the applied pull: `refs/source/applied`, or
 * `refs/source/head` in a repository an agent without it kept.
 */
export async function appliedRef(repoDir: string, timeoutMs: number): Promise<string> {
  const has = await git(['-C', repoDir, 'rev-parse', '--verify', '--quiet', APPLIED_REF], timeoutMs).then(
    () => true,
    () => false,
  );
  return has ? APPLIED_REF : 'refs/source/head';
}

/** The commit `ref` (what a pull fetched and verified) names in the cache repository. */
export async function fetchedCommit(repoDir: string, timeoutMs: number, ref = 'refs/source/head'): Promise<string> {
  return (await git(['-C', repoDir, 'rev-parse', '--verify', `${ref}^{commit}`], timeoutMs)).toString('utf8').trim();
}

/** The file `path` of `commit` in the cache repository. */
export async function committedFile(
  repoDir: string,
  commit: string,
  path: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<Buffer> {
  return git(['-C', repoDir, 'cat-file', 'blob', `${commit}:${path.replace(/^\/+/, '')}`], timeoutMs, maxBytes + 1);
}

/**
 * The regular file `path` of `commit` in the cache repository, or why it is
 * none: absent, a folder, a symbolic link (git never follows one, so a
 * link cannot lead out of the repository) or larger than `maxBytes`. Paths
 * are literal (no pathspec magic).
 */
export async function committedRegularFile(
  repoDir: string,
  commit: string,
  path: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<Buffer | { why: string }> {
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1, deadline - Date.now());
  const listed = await git(
    ['--literal-pathspecs', '-C', repoDir, 'ls-tree', '-z', '-l', '--full-tree', commit, '--', path],
    left(),
  );
  // "<mode> <type> <object> <size>\t<path>\0", one entry: the path itself.
  const [info = '', name] = listed.toString('utf8').split('\0')[0]?.split('\t') ?? [];
  if (name !== path) return { why: `commit ${commit} has no file ${path}` };
  const [mode, type, , size] = info.split(/ +/);
  if (mode === '120000') return { why: `${path} is a symbolic link at commit ${commit}` };
  if (type !== 'blob') return { why: `${path} is a ${type ?? 'thing'}, not a file, at commit ${commit}` };
  if (Number(size) > maxBytes)
    return { why: `${path} is ${size} bytes at commit ${commit}, more than max size ${maxBytes}` };
  return committedFile(repoDir, commit, path, left(), maxBytes);
}

/** The paths of the entries of `folder` ('' for the root) at `commit` in the cache repository (`git ls-tree`). */
export async function committedNames(
  repoDir: string,
  commit: string,
  folder: string,
  timeoutMs: number,
): Promise<string[]> {
  const spec = folder === '' ? [] : ['--', `${folder}/`];
  const out = await git(
    ['--literal-pathspecs', '-C', repoDir, 'ls-tree', '-z', '--name-only', '--full-tree', commit, ...spec],
    timeoutMs,
  );
  return out
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
}
