#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount on every capture under ../shared/data/pcap/{real,malformed}
# (net_pcap, one RX queue, --exit-on-idle): its CSV dump must equal the
# capture's *.flows.csv exactly (every flow, packet and byte, the non-ip
# and malformed rows). Skips when the captures are absent.

. "$(dirname "$0")/common.sh"
need_pcap_dir

pass=0
fail=0
while read -r f; do
	name=$(basename "$f")
	prepare "$f" "$TMP/in.pcap" 2>/dev/null || {
		echo "FAIL $name: cannot prepare"; fail=$((fail + 1)); continue; }
	rm -f "$TMP/out.csv"
	if ! run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" -- \
			--exit-on-idle 200 --stats-interval 0 \
			--flow-dump "$TMP/out.csv" > "$TMP/log" 2>&1; then
		echo "FAIL $name: dpdk-flowcount exited with an error"
		tail -5 "$TMP/log"
		fail=$((fail + 1))
		continue
	fi
	if cmp -s "$TMP/out.csv" "$f.flows.csv"; then
		echo "PASS $name: $(($(wc -l < "$f.flows.csv") - 1)) rows"
		pass=$((pass + 1))
	else
		echo "FAIL $name:"
		diff "$f.flows.csv" "$TMP/out.csv" | head -6
		fail=$((fail + 1))
	fi
done < <(list_captures real malformed)

echo "$pass of $((pass + fail)) captures match exactly"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
