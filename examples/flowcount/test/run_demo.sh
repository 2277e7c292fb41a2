#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount on the shipped capture of real loopback traffic: the dump
# must equal demo.flows.csv, made by tshark (devtools/capture-demo.sh).
# Also checks that bad options fail with a message and --help succeeds.

. "$(dirname "$0")/common.sh"

fail=0
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
	--exit-on-idle 200 --stats-interval 0 --flow-dump "$TMP/out.csv" \
	> "$TMP/log" 2>&1 || { echo "FAIL: run failed"; tail "$TMP/log"; exit 1; }
if cmp -s "$TMP/out.csv" "$DEMO_DIR/demo.flows.csv"; then
	echo "PASS demo.pcap: dump equals tshark's demo.flows.csv" \
		"($(($(wc -l < "$DEMO_DIR/demo.flows.csv") - 1)) flows)"
else
	echo "FAIL demo.pcap:"
	diff "$DEMO_DIR/demo.flows.csv" "$TMP/out.csv" | head
	fail=1
fi

# option errors: non-zero exit and a message naming the problem
bad() {
	local want=$1
	shift
	if run_fc -l 0-1 --vdev "net_null0" -- "$@" > "$TMP/log" 2>&1; then
		echo "FAIL: '$*' was accepted"
		fail=1
	elif ! grep -q -- "$want" "$TMP/log"; then
		echo "FAIL: '$*': no message '$want'"
		cat "$TMP/log"
		fail=1
	else
		echo "PASS: '$*' rejected: $(grep -- "$want" "$TMP/log" | head -1)"
	fi
}
bad "unknown option" --bogus
bad "needs an argument" --max-flows
bad "not a number" --max-flows 12x
bad "expected" --config "(0,0"
bad "main lcore" --config "(0,0,0)"
bad "not enabled" --config "(0,0,5)"
bad "does not exist" -p 0x6
bad "needs counting" --no-count --flow-dump "$TMP/x.csv"
bad "cannot open" --route "$TMP/nonexistent"
printf '10.0.0.0/33 0\n' > "$TMP/bad.route"
bad "prefix length" --route "$TMP/bad.route"
if run_fc -l 0-1 --vdev net_null0 -- --help > "$TMP/log" 2>&1 &&
		grep -q -- "--flow-timeout" "$TMP/log"; then
	echo "PASS: --help"
else
	echo "FAIL: --help"
	fail=1
fi
exit $fail
