#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Reserve and inspect 2 MiB hugepages for the tests, the benchmarks and the
# demo. Everything here is optional: the library and its tests also run
# with 4 KiB pages (EAL --no-huge), so failures are reported, not fatal.
#
#   devtools/hugepages.sh status         print total / free / mount point
#   devtools/hugepages.sh reserve N      as root: ask the kernel for N pages
#                                        (system-wide, default node policy)
#                                        and mount hugetlbfs on /dev/hugepages
#                                        if nothing is mounted yet
#   devtools/hugepages.sh release        as root: give all 2 MiB pages back
#   devtools/hugepages.sh free           print the number of free pages only
#
# reserve and release always exit 0; the kernel may grant fewer pages than
# asked (fragmented memory, containers without the right), and status says
# how many there are.

set -uo pipefail

NR=/proc/sys/vm/nr_hugepages
MNT=/dev/hugepages

meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo 2>/dev/null
}

hugetlbfs_mount() {
	awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts 2>/dev/null
}

status() {
	local total free size mnt
	total=$(meminfo HugePages_Total)
	free=$(meminfo HugePages_Free)
	size=$(meminfo Hugepagesize)
	mnt=$(hugetlbfs_mount)
	echo "hugepages: size ${size:-?} kB, total ${total:-0}, free ${free:-0}," \
		"hugetlbfs ${mnt:-not mounted}"
}

reserve() {
	local want=$1 got
	if ! [[ "$want" =~ ^[0-9]+$ ]]; then
		echo "hugepages: reserve needs a page count, got '$want'" >&2
		exit 2
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "hugepages: not root; as root run: echo $want > $NR" >&2
		status
		return 0
	fi
	if ! echo "$want" > "$NR" 2>/dev/null; then
		echo "hugepages: could not write $NR (tolerated)" >&2
	fi
	got=$(cat "$NR" 2>/dev/null || echo 0)
	if [ "$got" -lt "$want" ]; then
		echo "hugepages: asked for $want, the kernel granted $got (tolerated)" >&2
	fi
	# EAL in hugepage mode wants a hugetlbfs mount (not --in-memory)
	if [ "$got" -gt 0 ] && [ -z "$(hugetlbfs_mount)" ]; then
		mkdir -p "$MNT" 2>/dev/null &&
			mount -t hugetlbfs -o pagesize=2M nodev "$MNT" 2>/dev/null ||
			echo "hugepages: could not mount hugetlbfs on $MNT (tolerated)" >&2
	fi
	status
}

case "${1:-status}" in
status)
	status
	;;
free)
	free=$(meminfo HugePages_Free)
	echo "${free:-0}"
	;;
reserve)
	reserve "${2:-512}"
	;;
release)
	if [ "$(id -u)" -eq 0 ]; then
		echo 0 > "$NR" 2>/dev/null ||
			echo "hugepages: could not write $NR (tolerated)" >&2
	else
		echo "hugepages: not root; as root run: echo 0 > $NR" >&2
	fi
	status
	;;
*)
	echo "usage: $0 status | free | reserve [N] | release" >&2
	exit 2
	;;
esac
exit 0
