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
#   devtools/debian-root.sh copy DIR           copy the tree's files (those
#                                              git tracks, as they are in the
#                                              work tree) afresh to
#                                              DIR/copy/<its name>
#   devtools/debian-root.sh run [--copy] DIR CMD...
#                                              run CMD in DIR, as root, in
#                                              the tree (bind-mounted) or,
#                                              with --copy, in its copy
#
# "run" bind-mounts this tree at /src/<its name> inside the root (with
# --copy it works in the copy at /copy/<its name> instead, whose build
# directories are the root's own), and ../shared (when present,
# read-only) beside it (/src/shared or /copy/shared), so that relative
# paths to the data work as on the host. It mounts /proc, /sys, /dev,
# /dev/pts and a /dev/shm, /run and /tmp of the run's own, in a mount
# namespace of its own (unshare(1)): other runs in the same root do not
# see them, and they go when CMD ends, whatever its exit. No hugepages
# inside: the tests run EAL with --no-huge there. CMD runs in the tree's
# directory with HOME=/root and the host's CI variable. The exit status
# is CMD's.
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
copy)
	[ $# -eq 1 ] || usage
	dir=$(readlink -f "$1")
	[ -x "$dir/bin/sh" ] || { echo "debian-root: $dir is no root" >&2; exit 1; }
	dst=$dir/copy/$(basename "$SRC")
	if mountpoint -q "$dst"; then
		echo "debian-root: $dst is a mount point" >&2
		exit 1
	fi
	rm -rf "$dst"
	mkdir -p "$dst"
	git -C "$SRC" ls-files -z | tar -C "$SRC" --null -T - \
		--ignore-failed-read -cf - 2> /dev/null | tar -x -C "$dst"
	echo "debian-root: $(git -C "$SRC" ls-files | wc -l) files copied to $dst"
	;;
run)
	copy=0
	if [ "$1" = --copy ]; then
		copy=1
		shift
	fi
	[ $# -ge 2 ] || usage
	dir=$(readlink -f "$1")
	shift
	[ -x "$dir/bin/sh" ] || { echo "debian-root: $dir is no root" >&2; exit 1; }
	name=$(basename "$SRC")
	top=/src
	if [ $copy -eq 1 ]; then
		top=/copy
		if [ ! -f "$dir/copy/$name/Makefile" ]; then
			echo "debian-root: no copy in $dir/copy/$name" \
				"(run: $0 copy $dir)" >&2
			exit 1
		fi
	fi
	mkdir -p "$dir/src/$name" "$dir$top/shared"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2> /dev/null || true
	# the mounts live in a private mount namespace: gone when CMD ends
	exec unshare --mount --propagation private /bin/bash -c '
		set -e
		dir=$1 src=$2 name=$3 top=$4 copy=$5
		shift 5
		mount -t proc proc "$dir/proc"
		mount -t sysfs sysfs "$dir/sys"
		mount --bind /dev "$dir/dev"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts"
		mount -t tmpfs -o mode=1777 shm "$dir/dev/shm"
		mount -t tmpfs -o mode=755 run "$dir/run"
		mount -t tmpfs -o mode=1777 tmp "$dir/tmp"
		[ "$copy" = 1 ] || mount --bind "$src" "$dir/src/$name"
		if [ -d "$src/../shared" ]; then
			mount --bind "$src/../shared" "$dir$top/shared"
			mount -o remount,bind,ro "$dir$top/shared"
		fi
		exec chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CI="$CI" \
			/bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$top/$name" "$@"
	' debian-root "$dir" "$SRC" "$name" "$top" "$copy" "$@"
	;;
*)
	usage
	;;
esac
