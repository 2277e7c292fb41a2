#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount side by side with DPDK's own l3fwd (printed, not a
# pass/fail test).
#
#   devtools/flowcount-bench.sh [--smoke] [options] [BUILD_DIR]
#
# Builds l3fwd from Debian's dpdk-doc sources (/usr/share/dpdk/examples/
# l3fwd and ../common) into BUILD_DIR/l3fwd-bench, with the two changes the
# virtual ports need applied by sed at build time (devtools/
# flowcount-bench.py says which), generates a capture of 100,000 IPv4/UDP
# flows, 64-byte frames, in round robin and in a Zipf mix, and replays it
# with net_pcap's infinite_rx=1, routed to a net_null port, through 1 and 2
# worker lcores (2: a net_pcap port each, or with --layout queues the two
# RX queues of one), for: l3fwd -L, l3fwd -E (every flow in its exact-match
# rules), dpdk-flowcount --no-count, counting (percpu counters),
# --lookup-only, --count-floor, --counters atomic and --counters array.
# The cases run interleaved, a warm-up then a measured window each, in
# several rounds.
# Prints, per case, Mpps over wall time and CPU time of the worker threads
# per packet, median (min-max); then the issue's targets as per-packet CPU
# time ratios of cases of the same round; the CPU model and the load.
# Every run also prints a CSV line: run,ROUND,CASE,WORKERS,MIX,MPPS,NS.
#
# Options: --smoke (every case once, 20,000 flows, 0.5 s: for CI),
# --flows N, --seconds S, --warmup S, --rounds R, --workers 1,2,
# --mixes rr,zipf, --cases LIST, --layout ports|queues, --case
# NAME=OPT,OPT (one more dpdk-flowcount case, e.g. --case
# nocache=--flow-cache,0), --base BINARY
# (another dpdk-flowcount, e.g. a build of the previous commit, run as the
# cases base-no-count and base-count in the same rounds, with their
# ratios), --no-huge (default: 2 MiB hugepages when enough are free, else
# --no-huge).
set -eu
cd "$(dirname "$0")/.."
PYTHON=/usr/bin/python3
[ -x $PYTHON ] || PYTHON=$(command -v python3)
exec "$PYTHON" devtools/flowcount-bench.py "$@"
