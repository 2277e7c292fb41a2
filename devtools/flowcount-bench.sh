#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Speed of dpdk-flowcount with and without per-flow counting (printed, not
# a pass/fail test).
#
#   devtools/flowcount-bench.sh BUILD_DIR [FLOWS] [SECONDS]
#
# Generates a capture of FLOWS (default 100000) distinct IPv4/UDP flows,
# one 64-byte frame each, replays it forever (net_pcap infinite_rx=1)
# through 1 and 2 worker lcores (2 workers: the file on two RX queues),
# with the flow table and with --no-count, for SECONDS (default 5) each,
# and prints, per worker lcore, Mpps over wall time and Mpps per second of
# the worker thread's CPU time (the second does not move when other
# processes share the CPUs), and the cost of counting from the latter.
# Uses hugepages when 600 free ones exist, else --no-huge.

set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
FLOWS=${2:-100000}
SECS=${3:-5}
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

free_huge=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
if [ "${free_huge:-0}" -ge 600 ]; then
	MEM="-m 1100"
else
	MEM="--no-huge -m 1100"
fi
MBUFS=$((2 * FLOWS + 32768))

# run WORKERS MODE: prints "wall-mpps/cpu-mpps" per worker lcore
run() {
	local workers=$1 mode=$2 vdev lcores extra=""
	vdev="net_pcap0,rx_pcap=$WORK/flows.pcap,infinite_rx=1"
	if [ "$workers" = 2 ]; then
		vdev="$vdev,rx_pcap=$WORK/flows.pcap"
		lcores='0@0,1@0,2@1'
	else
		lcores='0@0,1@1'
	fi
	[ "$mode" = nocount ] && extra=--no-count
	"$APP" --lcores "$lcores" $MEM --no-pci \
		--file-prefix "fcbench$$" --log-level=pmd.net.pcap:error \
		--vdev "$vdev" -- --stats-interval 0 --flow-timeout 0 \
		--max-flows $((FLOWS + 1024)) --mbufs $MBUFS $extra \
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

echo "dpdk-flowcount speed: $FLOWS flows, 64-byte frames, ${SECS}s per run," \
	"$(nproc) CPUs, ${MEM}"
echo "per worker lcore: Mpps over wall time / Mpps per CPU second"
printf '%-8s %-26s %-26s %s\n' workers "counting" "no-count" \
	"cost of counting (CPU time per packet)"
for w in 1 2; do
	c=$(run $w count)
	n=$(run $w nocount)
	# mean CPU-time rate over the workers
	cs=$(echo $c | tr ' /' '\n ' | awk 'NF == 2 {s += $2; k++} END {print k ? s / k : 0}')
	ns=$(echo $n | tr ' /' '\n ' | awk 'NF == 2 {s += $2; k++} END {print k ? s / k : 0}')
	cost=$(awk -v c="$cs" -v n="$ns" \
		'BEGIN { if (c > 0 && n > 0) printf "%+.1f%%", (n / c - 1) * 100; else print "n/a" }')
	printf '%-8s %-26s %-26s %s\n' "$w" "$c" "$n" "$cost"
done
echo "(2 workers share the 2 CPUs with the main lcore, which sleeps; the"
echo " counting run includes inserting every flow once)"
