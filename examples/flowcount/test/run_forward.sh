#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Forwarding as l3fwd does, frame by frame: fwd_frames.py writes a capture
# of IPv4 and IPv6 frames (TTL 64, 2, 1 and 0, options, a VLAN tag, a
# non-first fragment, the RFC 1624 checksum corner, no route, a bad total
# length, ARP, a cut header) read by port 0; routes from l3fwd rule files
# send them to port 1, a net_pcap whose tx_pcap is checked frame by frame:
# destination MAC from --eth-dest, source MAC port 1's, TTL or hop limit
# one less, a valid IPv4 checksum, every other byte unchanged; every drop
# counted by reason in the summary, and every frame and byte received.
# Then the same with default routes (0.0.0.0/0 and ::/0), and both again
# with --no-count, which forwards each packet in one pass and its common
# frames without a flow key; a single port without rule files, which must
# forward nothing, counting and not; and two rx_pcap queues polled by one
# worker with the default --config, whose counts must be double.

. "$(dirname "$0")/common.sh"

fail=0
"$PYTHON" "$TEST_DIR/fwd_frames.py" gen "$TMP/in.pcap" || exit 1
printf '# test routes\nR198.18.1.0/24 1\n' > "$TMP/r4"
printf 'R2001:db8:1::/48 1\n' > "$TMP/r6"
DST=52:54:00:12:34:56

# forward DEFAULT [OPTION]: one run; DEFAULT 1 adds the default routes
forward() {
	local default=$1 name=routes opt=()
	cp "$TMP/r4" "$TMP/r4.use"
	cp "$TMP/r6" "$TMP/r6.use"
	if [ "$default" = 1 ]; then
		name="default routes"
		printf 'R0.0.0.0/0 1\n' >> "$TMP/r4.use"
		printf 'R::/0 1\n' >> "$TMP/r6.use"
	fi
	if [ -n "${2:-}" ]; then
		opt=("$2")
		name="$name, $2"
	fi
	rm -f "$TMP/out.pcap"
	if ! run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" \
			--vdev "net_pcap1,tx_pcap=$TMP/out.pcap" -- -p 0x3 \
			--config '(0,0,1)' --rule_ipv4 "$TMP/r4.use" \
			--rule_ipv6 "$TMP/r6.use" --eth-dest "1,$DST" \
			--exit-on-idle 200 --stats-interval 0 "${opt[@]}" \
			> "$TMP/log" 2>&1; then
		echo "FAIL $name: dpdk-flowcount exited with an error"
		tail -5 "$TMP/log"
		fail=1
		return
	fi
	src=$(sed -n 's/^port 1: .* MAC \([0-9a-f:]*\), .*/\1/p' "$TMP/log")
	if ! "$PYTHON" "$TEST_DIR/fwd_frames.py" check "$TMP/in.pcap" \
			"$TMP/out.pcap" "$src" "$DST" "$default" > "$TMP/check"; then
		echo "FAIL $name: frames sent on port 1:"
		grep FAIL "$TMP/check" | head
		fail=1
		return
	fi
	want() { awk -v r="$1" '$1 == "expect" && $2 == r { print $3 }' \
		"$TMP/check"; }
	got="rx $(fc_summary_port "$TMP/log" 0 2) rx-bytes"
	got="$got $(sed -n 's/^total: rx [0-9]* pkts \([0-9]*\) bytes.*/\1/p' \
		"$TMP/log")"
	got="$got tx $(fc_summary_port "$TMP/log" 1 3) ttl $(fc_summary_port \
		"$TMP/log" 0 6) no-route $(fc_summary_port "$TMP/log" 0 5)"
	got="$got bad-ip $(fc_summary_port "$TMP/log" 0 7) non-ip"
	got="$got $(fc_bucket "$TMP/log" non-ip) malformed"
	got="$got $(fc_bucket "$TMP/log" malformed)"
	exp="rx $(want rx) rx-bytes $(want rx-bytes)"
	exp="$exp tx $(want fwd) ttl $(want ttl) no-route $(want no-route) bad-ip"
	exp="$exp $(want bad-ip) non-ip $(want non-ip) malformed $(want malformed)"
	if [ "$got" != "$exp" ]; then
		echo "FAIL $name: summary has $got; want $exp"
		fail=1
		return
	fi
	echo "PASS $name: $(want fwd) frames rewritten exactly (MACs, TTL," \
		"hop limit, checksum); drops counted: $exp"
}
forward 0
forward 1
forward 0 --no-count
forward 1 --no-count

# one port, no rule files: nothing goes back out of it (counting, and
# --no-count, whose common frames are routed without a key)
ip=$("$PYTHON" "$TEST_DIR/fwd_frames.py" ip)
for opt in "" --no-count; do
	rm -f "$TMP/out1.pcap"
	run_fc -l 0-1 \
		--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,tx_pcap=$TMP/out1.pcap" \
		-- --exit-on-idle 200 --stats-interval 0 $opt > "$TMP/log" 2>&1 ||
		{ echo "FAIL single port $opt: run failed"; tail -5 "$TMP/log"
		fail=1; }
	if [ "$(fc_summary_port "$TMP/log" 0 3)" = 0 ] &&
			[ "$(fc_summary_port "$TMP/log" 0 5)" = "$ip" ] &&
			[ "$(stat -c %s "$TMP/out1.pcap")" = 24 ]; then
		echo "PASS single port without rule files${opt:+ $opt}: $ip IP" \
			"frames counted as no-route, none sent back"
	else
		echo "FAIL single port${opt:+ $opt}: want tx 0 and no-route $ip," \
			"empty tx_pcap"
		grep -A3 'port  *rx-pkts' "$TMP/log" | tail -3
		fail=1
	fi
done

# two rx_pcap queues, one worker, default --config: both are polled
if run_fc -l 0-1 \
		--vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap,rx_pcap=$DEMO_DIR/demo.pcap" \
		-- --exit-on-idle 200 --stats-interval 0 \
		--flow-dump "$TMP/two.csv" > "$TMP/log" 2>&1 &&
		double_csv "$DEMO_DIR/demo.flows.csv" | cmp -s - "$TMP/two.csv" &&
		[ "$(grep -c '^lcore 1: RX port 0 queue [01]$' "$TMP/log")" = 2 ]; then
	echo "PASS default --config: one worker polls both rx_pcap queues," \
		"counts doubled"
else
	echo "FAIL default --config with two rx_pcap queues and one worker"
	grep '^lcore\|^total' "$TMP/log"
	fail=1
fi
exit $fail
