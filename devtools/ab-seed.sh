#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Two builds of the library side by side on 2^20 allocations and frees
# (the seed table's cases), in wall terms, with one measuring program:
# devtools/ab-seed.c, built once against NEW_BUILD, run alternately with
# each build's librte_pcpu_mempool.so, ROUNDS interleaved rounds (default
# 5) of every case, three runs of each order per round. Prints, per case
# and phase, each build's median with its quartiles and the ratio of the
# medians (above 1: NEW is slower). For a change that instruction counts
# (devtools/callgrind-paths.sh) cannot judge: memory, TLB and page costs.
#
#   devtools/ab-seed.sh OLD_BUILD NEW_BUILD [ROUNDS] [CASE...]
#
# A CASE is "SIZE cache|nocache huge|normal" (default: 16 and 256 B, with
# and without caches, 2 MiB pages; 256 B with caches on 4 KiB pages). Both
# builds run with 2 lcores that have memory; huge needs 600 MiB of free
# hugepages.

set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [ROUNDS] [CASE...]" >&2; exit 2; }
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("16 cache huge" "256 cache huge"
	"16 nocache huge" "256 nocache huge" "256 cache normal")
top=$(cd "$(dirname "$0")/.." && pwd)
for b in "$old" "$new"; do
	[ -f "$b/lib/pcpu_mempool/librte_pcpu_mempool.so" ] ||
		{ echo "ab-seed: no library in $b (make build)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2046
cc -O2 -DALLOW_EXPERIMENTAL_API -o "$tmp/ab-seed" "$top/devtools/ab-seed.c" \
	-I"$top/lib/pcpu_mempool" $(pkg-config --cflags libdpdk) \
	-L"$new/lib/pcpu_mempool" -lrte_pcpu_mempool $(pkg-config --libs libdpdk)
echo "ab-seed: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$rounds"); do
	for c in "${cases[@]}"; do
		for side in old new; do
			[ $side = old ] && b=$old || b=$new
			# shellcheck disable=SC2086 # the case is three words
			LD_LIBRARY_PATH=$b/lib/pcpu_mempool "$tmp/ab-seed" \
				--no-huge -m 256 --no-pci --no-telemetry -l 0-1 \
				--file-prefix="ab_seed_$$" --log-level=1 -- $c |
				sed "s/^/$side /" >> "$tmp/runs.txt"
		done
	done
done
echo "ab-seed: $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/runs.txt" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    side, _, size, cache, pages, order, a, f = line.split()
    t[(int(size), cache, pages, order, 'alloc', side)].append(float(a))
    t[(int(size), cache, pages, order, 'free', side)].append(float(f))
def q(v):
    v = sorted(v)
    return statistics.median(v), v[len(v) // 4], v[(3 * len(v)) // 4]
print("%-26s %-5s %-24s %-24s %s" % ("case", "phase", "old ms [quartiles]",
      "new ms [quartiles]", "new/old"))
for k in sorted({k[:5] for k in t}):
    o, n = q(t[k + ('old',)]), q(t[k + ('new',)])
    print("%-26s %-5s %7.2f [%6.1f-%6.1f]  %7.2f [%6.1f-%6.1f]  %.2f" %
          ("%d B %s %s %s" % k[:4], k[4], *o, *n, n[0] / o[0]))
PY
