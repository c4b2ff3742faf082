/**
 * Each file system counted once (issue 38, item 5): the mount table of an
 * agent under its hardened systemd unit (the folders the unit binds, its
 * private /tmp, a second mount of the root file system) gives the same
 * drives as the command line's; btrfs subvolumes mounted whole are drives
 * of their own; `bind-mounts` lists the rest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMounts } from '../../../../src/checks/disk/mounts.js';
import { drivesizeCheck } from '../../../../src/checks/disk/drivesize-check.js';
import { CheckArguments } from '../../../../src/checks/arguments.js';

/** The command line's view: the root file system, /boot, /proc. */
const HOST = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro',
  '23 22 8:2 / /boot rw,relatime shared:2 - ext4 /dev/sda2 rw',
  '24 22 0:5 / /proc rw,nosuid shared:3 - proc proc rw',
];
/** The same host seen from the unit: BindPaths=, ReadWritePaths=, PrivateTmp= and a second mount of /. */
const SERVICE = [
  ...HOST,
  '40 22 8:1 /etc/config-agent /etc/config-agent ro,relatime shared:1 - ext4 /dev/sda1 rw',
  '41 22 8:1 /var/lib/config-agent /var/lib/config-agent rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '42 22 8:1 /tmp/systemd-private-abc-config-agent.service-x/tmp /tmp rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '43 22 8:1 /var/tmp/systemd-private-abc-config-agent.service-y/tmp /var/tmp rw shared:1 - ext4 /dev/sda1 rw',
  '44 22 8:1 / /mnt rw,relatime shared:1 - ext4 /dev/sda1 rw',
];

void test('bind mounts and second mounts of a file system are marked, each file system counted once', () => {
  const host = parseMounts(HOST.join('\n'));
  const service = parseMounts(SERVICE.join('\n'));
  const disks = (list: typeof host): string[] => list.filter((m) => !m.bind).map((m) => m.mountPoint);
  assert.deepEqual(disks(host), ['/', '/boot', '/proc']);
  assert.deepEqual(disks(service), disks(host));
  assert.deepEqual(
    service.filter((m) => m.bind).map((m) => m.mountPoint),
    ['/etc/config-agent', '/var/lib/config-agent', '/tmp', '/var/tmp', '/mnt'],
  );
  assert.equal(service.find((m) => m.mountPoint === '/etc/config-agent')?.options.includes('ro'), true);
});

void test('btrfs subvolumes mounted whole are file systems of their own; a folder of one is a bind mount', () => {
  const mounts = parseMounts(
    [
      '30 1 0:30 /@ / rw,relatime shared:1 - btrfs /dev/vda2 rw,ssd,subvol=/@',
      '31 30 0:30 /@home /home rw,relatime shared:2 - btrfs /dev/vda2 rw,ssd,subvol=/@home',
      '32 30 0:30 /@home/alice/www /srv/www rw,relatime shared:2 - btrfs /dev/vda2 rw,ssd,subvol=/@home',
    ].join('\n'),
  );
  assert.deepEqual(
    mounts.map((m) => [m.mountPoint, m.bind]),
    [
      ['/', false],
      ['/home', false],
      ['/srv/www', true],
    ],
  );
});

void test('check_drivesize over the unit view: as many drives as the command line; bind-mounts lists the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mounts-'));
  try {
    // Real mount points of this machine, so statfs answers: / and /tmp stand for the host, /proc is pseudo.
    const lines = [
      '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw',
      '24 22 0:5 / /proc rw,nosuid - proc proc rw',
      '42 22 8:1 /tmp/systemd-private-x/tmp /tmp rw,relatime - ext4 /dev/sda1 rw',
      '43 22 8:1 /etc /etc ro,relatime - ext4 /dev/sda1 rw',
    ];
    const file = join(dir, 'mountinfo');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const check = drivesizeCheck(file);
    const ctx = { signal: new AbortController().signal, now: Date.now() / 1000 };
    const all = await check.collect(new CheckArguments([]), ctx);
    assert.deepEqual(
      all.map((i) => i.drive),
      ['/', '/proc'],
    );
    const withBinds = await check.collect(new CheckArguments([['bind-mounts', '']]), ctx);
    assert.deepEqual(
      withBinds.map((i) => [i.drive, i.bind]),
      [
        ['/', false],
        ['/proc', false],
        ['/tmp', true],
        ['/etc', true],
      ],
    );
    // A path under a bind mount is held by the file system, as on the command line.
    const [held] = await check.collect(new CheckArguments([['drive', '/etc/hostname']]), ctx);
    assert.equal(held?.mount, '/');
    // A bind mount named as a drive is answered for, under its own name.
    const [named] = await check.collect(new CheckArguments([['drive', '/tmp']]), ctx);
    assert.equal(named?.mount, '/tmp');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
