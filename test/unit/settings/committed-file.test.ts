/**
 * A file a pulled git file includes, read from the commit
 * (settings/source/fetch-git.ts committedRegularFile): a regular file is
 * read; a symbolic link (even one pointing out of the repository), a
 * folder, a missing path and a file over the size limit are refused with
 * why, never followed or read.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { committedRegularFile } from '../../../src/settings/source/fetch-git.js';

const dir = mkdtempSync(join(tmpdir(), 'committed-file-'));
const git = (...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-C', dir, ...args], {
    encoding: 'utf8',
  }).trim();

void describe('settings/source/fetch-git.ts committedRegularFile', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));
  git('init', '--quiet');
  mkdirSync(join(dir, 'shared'));
  writeFileSync(join(dir, 'shared', 'base.ini'), '[/settings/log]\nlevel = info\n');
  symlinkSync('/etc/passwd', join(dir, 'shared', 'out.ini'));
  symlinkSync('base.ini', join(dir, 'shared', 'in.ini'));
  git('add', '-A');
  git('commit', '--quiet', '-m', 'files');
  const commit = git('rev-parse', 'HEAD');
  const read = (path: string, max = 1000): ReturnType<typeof committedRegularFile> =>
    committedRegularFile(join(dir, '.git'), commit, path, 10_000, max);

  void it('reads a regular file of the commit', async () => {
    const got = await read('shared/base.ini');
    assert.ok(Buffer.isBuffer(got));
    assert.equal(got.toString('utf8'), '[/settings/log]\nlevel = info\n');
  });

  void it('refuses a symbolic link, a folder, a missing file and one over the size limit', async () => {
    for (const [path, why, max] of [
      ['shared/out.ini', /is a symbolic link/, 1000],
      ['shared/in.ini', /is a symbolic link/, 1000],
      ['shared', /is a tree, not a file/, 1000],
      ['shared/none.ini', /has no file shared\/none\.ini/, 1000],
      ['shared/*.ini', /has no file/, 1000],
      ['shared/base.ini', /more than max size 5/, 5],
    ] as const) {
      const got = await read(path, max);
      assert.ok(!Buffer.isBuffer(got), path);
      assert.match(got.why, why, path);
    }
  });
});
