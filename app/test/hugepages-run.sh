#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Hugepage gate for the "-huge" variants of the autotests.
#
#   hugepages-run.sh --free-mb          print the MiB of free hugepages
#                                       (all page sizes; 0 without a
#                                       hugetlbfs mount)
#   hugepages-run.sh NEED_MB CMD [ARG...]
#                                       run CMD if at least NEED_MB MiB of
#                                       hugepages are free, else exit 77
#                                       (meson's "skipped")
#
# meson registers the -huge variants when hugepages were free at configure
# time; this script makes such a test skip, not fail, when they are gone
# (or taken) by the time it runs.

set -u

free_mb() {
	if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' \
			/proc/mounts 2>/dev/null; then
		echo 0
		return
	fi
	total_kb=0
	for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
		[ -r "$d/free_hugepages" ] || continue
		size_kb=${d##*hugepages-}
		size_kb=${size_kb%kB}
		pages=$(cat "$d/free_hugepages" 2>/dev/null || echo 0)
		total_kb=$((total_kb + pages * size_kb))
	done
	echo $((total_kb / 1024))
}

if [ $# -eq 1 ] && [ "$1" = "--free-mb" ]; then
	free_mb
	exit 0
fi

if [ $# -lt 2 ]; then
	echo "usage: $0 --free-mb | NEED_MB CMD [ARG...]" >&2
	exit 2
fi

need=$1
shift
have=$(free_mb)
if [ "$have" -lt "$need" ]; then
	echo "SKIP: needs $need MiB of free hugepages, $have MiB free" \
		"(reserve some: echo 512 > /proc/sys/vm/nr_hugepages)"
	exit 77
fi
# the files of the test's own --file-prefix, once it has ended: a test
# whose primary a secondary maps leaves them (devtools/hugepage-files.sh)
prefix=
for a in "$@"; do
	case "$a" in
	--file-prefix=*) prefix=${a#--file-prefix=} ;;
	esac
done
"$@"
rc=$?
if [ -n "$prefix" ]; then
	"$(dirname "$0")/../../devtools/hugepage-files.sh" remove "$prefix"
fi
exit $rc
