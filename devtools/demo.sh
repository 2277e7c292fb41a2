#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# make demo: run dpdk-flowcount on the shipped capture of real loopback
# traffic (examples/flowcount/data/demo.pcap), print its statistics table,
# top flows, totals and flow dump, and check the dump against the counts
# tshark produced for the same capture (demo.flows.csv).
#
#   devtools/demo.sh BUILD_DIR
#
# Uses hugepages when free ones exist, else --no-huge -m 512; NO_HUGE=1
# (make demo NO_HUGE=1) always --no-huge. Exit 0 on success.

set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in
/*) ;;
*) BUILD=$(pwd)/$BUILD ;;
esac
APP=$BUILD/examples/flowcount/dpdk-flowcount
DATA=$SRC/examples/flowcount/data

if [ ! -x "$APP" ]; then
	echo "demo: $APP not built (run 'make build' or ninja -C $BUILD)" >&2
	exit 1
fi

free_huge=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
hugesz=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
if [ "${NO_HUGE:-0}" != 1 ] && [ "${free_huge:-0}" -ge 256 ] &&
		[ "${hugesz:-0}" -eq 2048 ] && [ -w /dev/hugepages ]; then
	# --huge-unlink: the hugepage files go with the process (each run
	# has its own --file-prefix; kept files would pin 256 MiB a run)
	MEM="-m 256 --huge-unlink"
	echo "demo: using hugepages ($free_huge free)"
else
	MEM="--no-huge -m 512"
	if [ "${NO_HUGE:-0}" = 1 ]; then
		echo "demo: NO_HUGE=1, running with --no-huge"
	else
		echo "demo: no free hugepages, running with --no-huge"
	fi
fi

OUT=$(mktemp -d /tmp/flowcount-demo.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

# the second lcore is the worker; the main lcore prints and ages
run() {
	set -x
	"$APP" -l 0-1 $MEM --no-pci --file-prefix "flowcount_demo$$" \
		--log-level=pmd.net.pcap:error \
		--vdev "net_pcap0,rx_pcap=$DATA/demo.pcap" -- \
		--stats-interval 100 --top 8 --exit-on-idle 250 \
		--flow-dump "$OUT/demo.csv"
	{ local rc=$?; set +x; } 2> /dev/null
	return $rc
}
if ! run; then
	# other processes may have taken the hugepages meanwhile
	[ "$MEM" = "--no-huge -m 512" ] && exit 1
	echo "demo: failed with hugepages, retrying with --no-huge"
	MEM="--no-huge -m 512"
	run
fi

echo
echo "flow dump ($OUT/demo.csv):"
column -s, -t < "$OUT/demo.csv" 2> /dev/null || cat "$OUT/demo.csv"
echo
if cmp -s "$OUT/demo.csv" "$DATA/demo.flows.csv"; then
	echo "demo: the dump equals tshark's counts in demo.flows.csv" \
		"($(($(wc -l < "$DATA/demo.flows.csv") - 1)) flows)"
else
	echo "demo: the dump differs from demo.flows.csv:" >&2
	diff "$DATA/demo.flows.csv" "$OUT/demo.csv" >&2 || true
	exit 1
fi
