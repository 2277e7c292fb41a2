#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount on every capture under ../shared/data/pcap/{real,malformed}
# (net_pcap, one RX queue, --exit-on-idle): its CSV dump must equal the
# capture's *.flows.csv exactly (every flow, packet and byte, the non-ip
# and malformed rows), with the counters in an rte_pcpu_mempool (pcpu, the
# default) and in a stock rte_mempool with "pcpu" ops (mempool). Skips when
# the captures are absent.

. "$(dirname "$0")/common.sh"
need_pcap_dir

# one prepared capture ($TMP/in.pcap of $1), one counter scheme ($2): the
# dump must equal the reference
capture_check() {
	local f=$1 name
	name=$(basename "$f")
	rm -f "$TMP/out.csv"
	if ! run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" -- \
			--exit-on-idle 200 --stats-interval 0 --counters "$2" \
			--flow-dump "$TMP/out.csv" > "$TMP/log" 2>&1; then
		echo "FAIL $name ($2): dpdk-flowcount exited with an error"
		tail -5 "$TMP/log"
		fail=$((fail + 1))
		return
	fi
	if cmp -s "$TMP/out.csv" "$f.flows.csv"; then
		echo "PASS $name ($2): $(($(wc -l < "$f.flows.csv") - 1)) rows"
		pass=$((pass + 1))
	else
		echo "FAIL $name ($2):"
		diff "$f.flows.csv" "$TMP/out.csv" | head -6
		fail=$((fail + 1))
	fi
}

pass=0
fail=0
while read -r f; do
	if ! prepare "$f" "$TMP/in.pcap" 2> /dev/null; then
		echo "FAIL $(basename "$f"): cannot prepare"
		fail=$((fail + 1))
		continue
	fi
	for scheme in pcpu mempool; do
		capture_check "$f" "$scheme"
	done
done < <(list_captures real malformed)

echo "$pass of $((pass + fail)) capture runs match exactly"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
