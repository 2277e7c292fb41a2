#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Reserve and inspect 2 MiB hugepages for the tests, the benchmarks and the
# demo, without disturbing what the host already has. Everything here is
# optional: the library and its tests also run with 4 KiB pages (EAL
# --no-huge), so failures are reported, not fatal.
#
#   devtools/hugepages.sh status       print total / free / mount point, and
#                                      the pages this script has added
#   devtools/hugepages.sh free         print the number of free pages only
#   devtools/hugepages.sh reserve N    make sure N pages are free: raise the
#                                      system's count by the pages missing
#                                      (never lower it), remember how many
#                                      it added, and mount hugetlbfs on
#                                      /dev/hugepages if nothing is mounted
#   devtools/hugepages.sh release      lower the count by the pages that
#                                      reserve added, and only those
#
# Why not Debian's dpdk-hugepages.py: its --reserve sets the total (so on
# a host that had more pages it shrinks them) and --clear sets it to 0 for
# everyone. Here a reserve on a host with 1,024 pages, 600 of them free,
# adds nothing for N = 512 and 112 for N = 712, and release gives back
# exactly what the reserves added (recorded in the state file below).
# The system-wide 2 MiB pool is used (default NUMA policy: interleaved).
#
# Writing needs root (or write access to the sysfs file); without it,
# reserve and release print the command to run. Both always exit 0: the
# kernel may grant fewer pages than asked (fragmented memory, containers),
# and status says how many there are.
#
# Environment: PCPU_HUGEPAGES_SYSFS (default
# /sys/kernel/mm/hugepages/hugepages-2048kB), PCPU_HUGEPAGES_STATE (default
# /run/pcpu_mempool-hugepages: pages added and not yet released),
# PCPU_HUGEPAGES_MOUNT (default /dev/hugepages; empty: do not mount). The
# test hugepages_helper runs it on a stand-in sysfs directory.

set -uo pipefail

SYSFS=${PCPU_HUGEPAGES_SYSFS:-/sys/kernel/mm/hugepages/hugepages-2048kB}
STATE=${PCPU_HUGEPAGES_STATE:-/run/pcpu_mempool-hugepages}
MNT=${PCPU_HUGEPAGES_MOUNT-/dev/hugepages}
NR=$SYSFS/nr_hugepages

read_count() { # FILE: its number, 0 if unreadable
	local v
	v=$(cat "$1" 2>/dev/null) || v=0
	[[ "$v" =~ ^[0-9]+$ ]] || v=0
	echo "$v"
}

hugetlbfs_mount() {
	awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts 2>/dev/null
}

status() {
	echo "hugepages: 2 MiB pages: total $(read_count "$NR")," \
		"free $(read_count "$SYSFS/free_hugepages")," \
		"added by this script $(read_count "$STATE")," \
		"hugetlbfs $(hugetlbfs_mount || true)"
}

# Run "$@" holding a lock on the state file, so that two scripts that
# reserve at once do not both read the same count.
locked() {
	local lock=$STATE.lock
	if command -v flock > /dev/null 2>&1 && : 2> /dev/null >> "$lock"; then
		flock "$lock" "$0" --locked "$@"
	else
		"$0" --locked "$@"
	fi
}

# Write COUNT to nr_hugepages; print what the kernel then reports.
set_total() {
	if ! echo "$1" > "$NR" 2> /dev/null; then
		echo "hugepages: could not write $1 to $NR (tolerated)" >&2
	fi
	read_count "$NR"
}

reserve() {
	local want=$1 free total got added
	free=$(read_count "$SYSFS/free_hugepages")
	total=$(read_count "$NR")
	if [ "$free" -ge "$want" ]; then
		echo "hugepages: $free free, $want wanted: nothing to add"
	else
		got=$(set_total $(( total + want - free )))
		added=$(( got > total ? got - total : 0 ))
		echo $(( $(read_count "$STATE") + added )) > "$STATE"
		echo "hugepages: $free free, $want wanted: asked the kernel for" \
			"$(( want - free )) more, it granted $added"
		if [ "$added" -lt $(( want - free )) ]; then
			echo "hugepages: fewer pages than asked (tolerated)" >&2
		fi
	fi
	# EAL in hugepage mode wants a hugetlbfs mount (not --in-memory)
	if [ -n "$MNT" ] && [ "$(read_count "$NR")" -gt 0 ] &&
			[ -z "$(hugetlbfs_mount)" ]; then
		mkdir -p "$MNT" 2> /dev/null &&
			mount -t hugetlbfs -o pagesize=2M nodev "$MNT" 2> /dev/null ||
			echo "hugepages: could not mount hugetlbfs on $MNT (tolerated)" >&2
	fi
}

release() {
	local added total got given
	added=$(read_count "$STATE")
	if [ "$added" -eq 0 ]; then
		echo "hugepages: this script added no pages: nothing to release"
		return
	fi
	total=$(read_count "$NR")
	got=$(set_total $(( total > added ? total - added : 0 )))
	given=$(( total > got ? total - got : 0 ))
	echo $(( added > given ? added - given : 0 )) > "$STATE"
	echo "hugepages: gave back $given of the $added pages this script added"
}

writable() { # ACTION N: 0 if we may write, else print the command
	if [ -w "$NR" ]; then
		return 0
	fi
	echo "hugepages: cannot write $NR (not root?); as root run: $0 $*" >&2
	return 1
}

if [ "${1:-}" = --locked ]; then
	shift
	case "$1" in
	reserve) reserve "$2" ;;
	release) release ;;
	esac
	exit 0
fi

case "${1:-status}" in
status)
	status
	;;
free)
	read_count "$SYSFS/free_hugepages"
	;;
reserve)
	want=${2:-512}
	if ! [[ "$want" =~ ^[0-9]+$ ]]; then
		echo "hugepages: reserve needs a page count, got '$want'" >&2
		exit 2
	fi
	if writable reserve "$want"; then
		locked reserve "$want"
	fi
	status
	;;
release)
	if writable release; then
		locked release
	fi
	status
	;;
*)
	echo "usage: $0 status | free | reserve [N] | release" >&2
	exit 2
	;;
esac
exit 0
