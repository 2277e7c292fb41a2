#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Two worker lcores read the same capture on two RX queues of one net_pcap
# port (rx_pcap given twice): every flow's counts, and the non-ip and
# malformed rows, must be exactly double the reference. Each flow's packets
# arrive on both lcores, so this checks that the percpu copies are summed
# right. Runs with a small flow cache (--flow-cache 256) on each worker, so
# that cached flows are checked for exactness too (run_captures.sh runs
# without one). Runs on the real captures; skips when they are absent.

. "$(dirname "$0")/common.sh"
need_pcap_dir

pass=0
fail=0
while read -r f; do
	name=$(basename "$f")
	prepare "$f" "$TMP/in.pcap" 2>/dev/null || {
		echo "FAIL $name: cannot prepare"; fail=$((fail + 1)); continue; }
	rm -f "$TMP/out.csv"
	if ! run_fc --lcores '0@0,1@0,2@1' \
			--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,rx_pcap=$TMP/in.pcap" \
			-- --exit-on-idle 300 --stats-interval 0 \
			--flow-cache 256 \
			--flow-dump "$TMP/out.csv" > "$TMP/log" 2>&1; then
		echo "FAIL $name: dpdk-flowcount exited with an error"
		tail -5 "$TMP/log"
		fail=$((fail + 1))
		continue
	fi
	# both workers must have received the whole capture
	nworkers=$(grep -c '^lcore [12]: RX port 0 queue [01]' "$TMP/log")
	if [ "$nworkers" -ne 2 ]; then
		echo "FAIL $name: expected 2 workers on queues 0 and 1"
		fail=$((fail + 1))
		continue
	fi
	if double_csv "$f.flows.csv" | cmp -s - "$TMP/out.csv"; then
		echo "PASS $name: $(($(wc -l < "$f.flows.csv") - 1)) rows doubled"
		pass=$((pass + 1))
	else
		echo "FAIL $name:"
		double_csv "$f.flows.csv" | diff - "$TMP/out.csv" | head -6
		fail=$((fail + 1))
	fi
done < <(list_captures real)

echo "$pass of $((pass + fail)) captures exactly doubled"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
