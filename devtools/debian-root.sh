#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# A Debian root of another release (debootstrap), to build and test this
# tree against that release's DPDK: Debian 13 (trixie) has DPDK 24.11,
# Debian unstable (sid) DPDK 25.11. Run as root.
#
#   devtools/debian-root.sh create SUITE DIR   debootstrap SUITE into DIR
#                                              (kept if it is there)
#   devtools/debian-root.sh run DIR CMD...     run CMD in DIR with the tree
#                                              mounted, as root
#
# "run" bind-mounts this tree at /src/<its name> inside the root, and
# ../shared (when present, read-only) at /src/shared beside it, so that
# relative paths to the data work as on the host; it mounts /proc, /sys,
# /dev, /dev/pts and a /dev/shm and /run of the root's own, and unmounts
# all of it when CMD ends, whatever its exit. No hugepages inside: the
# tests run EAL with --no-huge there. CMD runs in the tree's directory
# with HOME=/root and the host's CI variable. The exit status is CMD's.
#
# MIRROR (default http://deb.debian.org/debian) is the archive debootstrap
# and apt use.

set -euo pipefail

SRC=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

usage() {
	sed -n '/^#   devtools/,/^#$/p' "$0" | sed 's/^# \{0,3\}//' >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
shift

if [ "$(id -u)" -ne 0 ]; then
	echo "debian-root: must run as root" >&2
	exit 1
fi

case $cmd in
create)
	[ $# -eq 2 ] || usage
	suite=$1 dir=$2
	if [ -x "$dir/usr/bin/apt-get" ] && [ -f "$dir/etc/debian_version" ]; then
		echo "debian-root: $dir exists ($(cat "$dir/etc/debian_version"))"
		exit 0
	fi
	if ! command -v debootstrap > /dev/null; then
		apt-get update < /dev/null > /dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y \
			--no-install-recommends debootstrap < /dev/null > /dev/null
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "debian-root: debootstrap --variant=buildd $suite $dir"
	if ! debootstrap --variant=buildd "$suite" "$dir" "$MIRROR" \
			> "$dir.debootstrap.log" 2>&1; then
		tail -20 "$dir.debootstrap.log" >&2
		echo "debian-root: debootstrap $suite failed" \
			"(log: $dir.debootstrap.log)" >&2
		exit 1
	fi
	rm -f "$dir.debootstrap.log"
	# only the one suite: no security or updates archive for sid
	echo "deb $MIRROR $suite main" > "$dir/etc/apt/sources.list"
	# sid's Release files carry a Valid-Until that a mirror's snapshot
	# may be past; the packages' signatures are still checked
	echo 'Acquire::Check-Valid-Until "false";' \
		> "$dir/etc/apt/apt.conf.d/99pcpu-no-valid-until"
	# no daemons started by package scripts inside the root
	printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
	chmod 755 "$dir/usr/sbin/policy-rc.d"
	echo "debian-root: $dir ready ($(cat "$dir/etc/debian_version"))"
	;;
run)
	dir=$(readlink -f "$1")
	shift
	[ $# -ge 1 ] || usage
	[ -x "$dir/bin/sh" ] || { echo "debian-root: $dir is no root" >&2; exit 1; }
	name=$(basename "$SRC")
	mounts=()
	cleanup() {
		local i
		for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
			umount -l "${mounts[i]}" 2> /dev/null || true
		done
	}
	trap cleanup EXIT
	mnt() { # mnt TARGET mount-args...
		local target=$1
		shift
		mkdir -p "$target"
		mount "$@" "$target"
		mounts+=("$target")
	}
	mnt "$dir/proc" -t proc proc
	mnt "$dir/sys" -t sysfs sysfs
	mnt "$dir/dev" --bind /dev
	mnt "$dir/dev/pts" -t devpts devpts
	mnt "$dir/dev/shm" -t tmpfs -o mode=1777 shm
	mnt "$dir/run" -t tmpfs -o mode=755 run
	mnt "$dir/tmp" -t tmpfs -o mode=1777 tmp
	mnt "$dir/src/$name" --bind "$SRC"
	if [ -d "$SRC/../shared" ]; then
		mnt "$dir/src/shared" --bind "$SRC/../shared"
		mount -o remount,bind,ro "$dir/src/shared"
	fi
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2> /dev/null || true
	set +e
	chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CI="${CI:-}" \
		/bin/bash -c 'cd "$0" && exec "$@"' "/src/$name" "$@"
	rc=$?
	set -e
	exit $rc
	;;
*)
	usage
	;;
esac
