#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Remove the hugepage files that EAL processes of one --file-prefix left,
# once every process of that prefix has ended:
#
#   devtools/hugepage-files.sh remove PREFIX
#
# EAL names a primary's hugepage files PREFIXmap_N in its hugetlbfs mount
# and deletes each when the page is freed, but a process that exits with
# memory still allocated (every primary that a secondary must be able to
# map, so started without --huge-unlink) leaves its files, and they hold
# their hugepages until a primary of the same prefix starts again. The
# tests give their prefixes a pid or a name of their own, so without this
# every run would hold more. Every hugetlbfs mount is looked at, as EAL may
# use any. Exit 0 (nothing to remove included), 2 on bad usage.

if [ $# -ne 2 ] || [ "$1" != remove ] || [ -z "$2" ]; then
	echo "usage: $0 remove PREFIX" >&2
	exit 2
fi
prefix=$2
awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts 2>/dev/null |
while read -r mnt; do
	for f in "$mnt/${prefix}map_"*; do
		[ -e "$f" ] || continue
		rm -f "$f" || echo "hugepage-files: cannot remove $f" >&2
	done
done
exit 0
