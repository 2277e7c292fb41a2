#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Speed of dpdk-flowcount with and without per-flow counting (printed, not
# a pass/fail test).
#
#   devtools/flowcount-bench.sh BUILD_DIR [FLOWS] [SECONDS] [REPEAT] [CACHE]
#
# Generates a capture of FLOWS (default 100000) distinct IPv4/UDP flows,
# one 64-byte frame each, replays it forever (net_pcap infinite_rx=1)
# through 1 and 2 worker lcores (2 workers: the file on two RX queues), in
# these modes, SECONDS (default 5) per run, the modes interleaved and the
# whole repeated REPEAT times (default 3):
#   count     the flow table (default options: no flow cache)
#   lookup    --lookup-only: the flow table's hash and lookup (and the
#             inserts) but no counter update (no counter line touched),
#             to split the cost of counting between the two
#   nocount   --no-count: the same RX, parse, route and TX work
#   cache     only when CACHE (entries) is given and not 0: the flow table
#             behind a flow cache of CACHE entries per worker
# For each it prints, per worker lcore, the median and the range of Mpps
# per second of the worker thread's CPU time (it does not move when other
# processes share the CPUs; Mpps over wall time is in the raw lines), and
# the cost of counting: CPU time per packet over the no-count run's (and
# the same for lookup only).
# EAL runs on --no-huge always: hugepages shared with other processes
# vanish mid-run, and every case gets the same kind of memory.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
FLOWS=${2:-100000}
SECS=${3:-5}
REPEAT=${4:-3}
CACHE=${5:-0}
APP=$BUILD/examples/flowcount/dpdk-flowcount
[ -x "$APP" ] || { echo "bench: $APP not built" >&2; exit 1; }
PYTHON=/usr/bin/python3
[ -x $PYTHON ] || PYTHON=$(command -v python3)

WORK=$(mktemp -d /tmp/flowcount-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

"$PYTHON" - "$WORK/flows.pcap" "$FLOWS" <<'PY'
import struct
import sys

path, flows = sys.argv[1], int(sys.argv[2])
with open(path, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(flows):
        payload = b'\0' * 18
        udp = struct.pack('!HHHH', 1024 + i % 50000, 9000 + i // 50000,
                          8 + len(payload), 0) + payload
        src = struct.pack('!I', 0x0a000000 + i)
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0, 64,
                         17, 0, src, bytes([192, 168, 0, 1])) + udp
        eth = bytes.fromhex('020000000002020000000001') + b'\x08\x00' + ip
        f.write(struct.pack('<IIII', 0, i, len(eth), len(eth)) + eth)
PY

# run WORKERS MODE: prints "wall-mpps/cpu-mpps" per worker lcore
run() {
	local workers=$1 mode=$2 vdev lcores extra="" mbufs mem
	vdev="net_pcap0,rx_pcap=$WORK/flows.pcap,infinite_rx=1"
	if [ "$workers" = 2 ]; then
		vdev="$vdev,rx_pcap=$WORK/flows.pcap"
		lcores='0@0,1@0,2@1'
	else
		lcores='0@0,1@1'
	fi
	# infinite_rx keeps every file in mbufs (about 2.4 KB each)
	mbufs=$((workers * FLOWS + 32768))
	mem="--no-huge -m $((mbufs * 3 / 1000 + 300))"
	case $mode in
	nocount) extra=--no-count ;;
	lookup) extra=--lookup-only ;;
	cache) extra="--flow-cache $CACHE" ;;
	esac
	"$APP" --lcores "$lcores" $mem --no-pci \
		--file-prefix "fcbench$$" --log-level=pmd.net.pcap:error \
		--vdev "$vdev" -- --stats-interval 0 --flow-timeout 0 \
		--max-flows $((FLOWS + 1024)) --mbufs $mbufs $extra \
		> "$WORK/log" 2>&1 &
	local pid=$! i
	# measure from the start of the workers (loading the file into
	# mbufs for infinite_rx takes a while)
	for i in $(seq 1 600); do
		grep -q '^flowcount: ' "$WORK/log" && break
		kill -0 $pid 2> /dev/null || break
		sleep 0.1
	done
	sleep "$SECS"
	kill -INT $pid 2> /dev/null || true
	wait $pid || true
	sed -n '/^=== flowcount summary/,/^  *port/p' "$WORK/log" |
		awk '$1 ~ /^[0-9]+$/ {printf "%s/%s ", $5, $6}'
}

# median and range of the CPU-time rates (all worker lcores of all runs)
stats() {
	tr ' /' '\n ' | awk 'NF == 2 {print $2}' | sort -g |
		awk '{v[NR] = $1} END {
			if (NR == 0) { print "n/a"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.2f (%.2f-%.2f)\n", m, v[1], v[NR] }'
}

echo "dpdk-flowcount speed: $FLOWS flows, 64-byte frames, ${SECS}s per run," \
	"$REPEAT runs per case, $(nproc) CPUs, --no-huge, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
echo "per worker lcore, Mpps per CPU second: median (min-max)"
MODES="count lookup nocount"
[ "$CACHE" != 0 ] && MODES="count lookup cache nocount"
declare -A raw
for r in $(seq 1 "$REPEAT"); do
	for w in 1 2; do
		for m in $MODES; do
			raw[$w,$m]="${raw[$w,$m]:-}$(run $w $m)"
		done
	done
done
# the last figure of a row is the cost of counting with the default
# options (devtools/bench_report.py reads it)
# cost CPU-MPPS NOCOUNT-CPU-MPPS: extra CPU time per packet, in per cent
cost() {
	awk -v c="${1%% *}" -v n="${2%% *}" 'BEGIN {
		if (c > 0 && n > 0) printf "%+.1f%%", (n / c - 1) * 100
		else print "n/a" }'
}
if [ "$CACHE" != 0 ]; then
	printf '%-8s %-22s %-22s %-22s %-22s %-12s %s\n' workers "counting" \
		"counting, cache $CACHE" "lookup only" "no-count" \
		"lookup only" "cost of counting (cache / default)"
else
	printf '%-8s %-22s %-22s %-22s %-12s %s\n' workers "counting" \
		"lookup only" "no-count" "lookup only" "cost of counting"
fi
for w in 1 2; do
	c=$(echo "${raw[$w,count]}" | stats)
	l=$(echo "${raw[$w,lookup]}" | stats)
	n=$(echo "${raw[$w,nocount]}" | stats)
	if [ "$CACHE" != 0 ]; then
		k=$(echo "${raw[$w,cache]}" | stats)
		printf '%-8s %-22s %-22s %-22s %-22s %-12s %s\n' "$w" "$c" \
			"$k" "$l" "$n" "$(cost "$l" "$n")" \
			"$(cost "$k" "$n") / $(cost "$c" "$n")"
	else
		printf '%-8s %-22s %-22s %-22s %-12s %s\n' "$w" "$c" "$l" "$n" \
			"$(cost "$l" "$n")" "$(cost "$c" "$n")"
	fi
done
echo "raw runs, per worker lcore: Mpps over wall time / per CPU second"
for w in 1 2; do
	for m in $MODES; do
		echo "  $w $m: ${raw[$w,$m]}"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(2 workers share the 2 CPUs with the main lcore, which sleeps; the"
echo " counting runs include inserting every flow once)"
