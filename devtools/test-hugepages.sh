#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# devtools/hugepages.sh on a stand-in sysfs directory (two plain files),
# so the host's hugepages are never touched: reserve never lowers the
# count and adds only the pages missing, release gives back only what the
# reserves added. The stand-in does not free pages by itself, so the test
# sets free_hugepages where the kernel would change it.
#
#   devtools/test-hugepages.sh
#
# Exit 0 on success, 1 on the first failed check.

set -euo pipefail

helper=$(cd "$(dirname "$0")" && pwd)/hugepages.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcpu-hugepages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PCPU_HUGEPAGES_SYSFS=$tmp/sysfs PCPU_HUGEPAGES_STATE=$tmp/state
export PCPU_HUGEPAGES_MOUNT=
mkdir -p "$PCPU_HUGEPAGES_SYSFS"

set_sys() { # TOTAL FREE
	echo "$1" > "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
	echo "$2" > "$PCPU_HUGEPAGES_SYSFS/free_hugepages"
}

check() { # WHAT TOTAL ADDED: the count and the pages recorded as added
	local total added
	total=$(cat "$PCPU_HUGEPAGES_SYSFS/nr_hugepages")
	added=$(cat "$PCPU_HUGEPAGES_STATE" 2> /dev/null || echo 0)
	if [ "$total" != "$2" ] || [ "$added" != "$3" ]; then
		echo "test-hugepages: FAIL: $1: total $total (want $2), added $added (want $3)" >&2
		exit 1
	fi
	echo "test-hugepages: ok: $1: total $total, added $added"
}

# a host with 1,024 pages, 600 free
set_sys 1024 600
"$helper" reserve 512 > /dev/null
check "reserve 512 with 600 free: nothing added, nothing shrunk" 1024 0
"$helper" reserve 712 > /dev/null
check "reserve 712 with 600 free: 112 added" 1136 112
echo 712 > "$PCPU_HUGEPAGES_SYSFS/free_hugepages"
"$helper" reserve 800 > /dev/null
check "reserve 800 with 712 free: 88 more" 1224 200
"$helper" release > /dev/null
check "release: the 200 added pages go back, the host's 1,024 stay" 1024 0
"$helper" release > /dev/null
check "release again: nothing to give back" 1024 0

# the kernel grants fewer than asked: only what it granted is recorded
set_sys 0 0
chmod a-w "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
if [ -w "$PCPU_HUGEPAGES_SYSFS/nr_hugepages" ]; then
	# root writes read-only files anyway: stand in for a refusal with a
	# count the helper cannot raise (a directory is not writable as a file)
	rm -f "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
	mkdir "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
	out=$("$helper" reserve 512 2>&1)
	rmdir "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
	echo 0 > "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
else
	out=$("$helper" reserve 512 2>&1)
	chmod u+w "$PCPU_HUGEPAGES_SYSFS/nr_hugepages"
fi
check "reserve refused: nothing recorded" 0 0
echo "$out" | grep -q "as root run\|could not write" || {
	echo "test-hugepages: FAIL: a refusal is not reported: $out" >&2
	exit 1
}
echo "test-hugepages: OK"
