#!/bin/sh
# Boots the systemd of a Debian root (made by mmdebstrap) as PID 1 of new pid, mount, network,
# UTS, IPC and cgroup namespaces, the way a container manager would:
#   unshare --pid --fork --mount --net --uts --ipc --cgroup test/helpers/boot-root.sh ROOT
# The root's /proc, /sys, /dev, /run and /tmp are mounted in the new mount namespace only, so they
# go away with it; the network namespace has nothing but its own loopback. Reach the system with
#   nsenter -t <pid of systemd> -a -r -w COMMAND   and stop it by killing that PID.
set -e
root=$1
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=0755 tmpfs "$root/run"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
hostname agent-test-host
# Units that make no sense in a throw-away root (timers of maintenance jobs, consoles) are masked.
mkdir -p "$root/run/systemd/system"
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer man-db.timer systemd-tmpfiles-clean.timer console-getty.service getty-static.service getty@tty1.service; do
  ln -sf /dev/null "$root/run/systemd/system/$u"
done
exec chroot "$root" /usr/bin/env container=other /lib/systemd/systemd --system
