#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Instructions per operation of the allocator's paths, counted by callgrind
# over dpdk-test-pcpu-paths (app/test-pcpu-paths): repeatable whatever else
# the machine runs, so two builds can be compared on a shared machine.
#
#   devtools/callgrind-paths.sh [BUILD_DIR] [N]
#
# N objects per phase (default 65536). Prints one line per case: the
# instructions per allocation, per free, per pool get+increment+put, and
# per alloc+free pair charged to each kind of owner.

set -euo pipefail
B=${1:-build}
N=${2:-65536}
BIN=$B/app/test-pcpu-paths/dpdk-test-pcpu-paths
[ -x "$BIN" ] || { echo "callgrind-paths: $BIN is missing (make build)" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "callgrind-paths: valgrind is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# instructions of function $1 in a run of the tool with arguments $2..
count() {
	local fn=$1 out="$tmp/cg.$RANDOM"
	shift
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		--toggle-collect="$fn" "$BIN" --no-huge -m 256 --no-pci -l 0 \
		--file-prefix="cgpaths$$" --log-level=1 -- "$@" \
		> /dev/null 2> "$tmp/err" ||
		{ echo "callgrind-paths: run failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
	awk '/^totals:/ { print $2 }' "$out"
}

printf '%-36s %12s %12s\n' "case ($N objects)" "alloc" "free/pair"
for cache in cache nocache; do
	for size in 4 64 256 1024; do
		for order in in alt; do
			a=$(count paths_alloc alloc "$size" "$N" "$order" "$cache")
			f=$(count paths_free alloc "$size" "$N" "$order" "$cache")
			printf '%-36s %12d %12d\n' \
				"$size B, $order, $cache" $((a / N)) $((f / N))
		done
	done
done
for size in 16 64; do
	p=$(count paths_pool pool "$size" "$N")
	printf '%-36s %12s %12d\n' "pool get+put $size B, cache 256" - \
		$(((p) / N))
done
# alloc+free pairs through the caches, charged to the root, to an owner
# without a limit and to one with a limit (rte_pcpu_owner.h)
for size in 16 64 256; do
	for owner in root owner limited; do
		p=$(count paths_pair pair "$size" "$N" "$owner")
		printf '%-36s %12s %12d\n' "alloc+free $size B, $owner" - \
			$((p / N))
	done
done
