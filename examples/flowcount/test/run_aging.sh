#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Aging: with a short --flow-timeout and --stats-interval, idle flows are
# removed from the table (their handles go back through RCU) and their
# counts still appear in the dump, once.
#  1. real captures, replayed at once then idle: every flow ages out
#     (aged == created) and the dump equals the reference exactly;
#  2. a capture fed through a FIFO twice with a pause longer than the
#     timeout: every flow ages, comes back as a new entry and ages again
#     (created == aged == 2 x flows), and the dump has each flow once with
#     exactly double counts.
# Both run with a 64-entry flow cache, whose entries must stop being used
# once their flows aged out (see flow_table.h).
# Skips when the captures are absent.

. "$(dirname "$0")/common.sh"
need_pcap_dir

fail=0
pass=0

# summary_field NAME LOG: a number from the final "flows:" line
summary_field() {
	sed -n '/^=== flowcount summary/,$p' "$2" |
		sed -n "s/^flows: live .*$1 \([0-9]*\).*/\1/p" | head -1
}

check() {   # check NAME EXPECTED-CSV-CMD-OUTPUT-FILE LOG CREATED
	local name=$1 want=$2 log=$3 created_want=$4
	local created aged pending closed
	created=$(summary_field created "$log")
	aged=$(summary_field aged "$log")
	closed=$(summary_field "closed at stop" "$log")
	pending=$(sed -n 's/^flows: live .*waiting for RCU \([0-9]*\).*/\1/p' \
		"$log" | tail -1)
	if ! cmp -s "$want" "$TMP/out.csv"; then
		echo "FAIL $name: dump differs"
		diff "$want" "$TMP/out.csv" | head -6
		fail=$((fail + 1))
	elif [ "$created" != "$created_want" ] || [ "$aged" != "$created" ] ||
			[ "$pending" != 0 ] || [ "$closed" != 0 ]; then
		echo "FAIL $name: created $created (want $created_want)," \
			"aged $aged, waiting for RCU $pending, closed at stop $closed"
		fail=$((fail + 1))
	else
		echo "PASS $name: created $created, aged $aged, dump exact"
		pass=$((pass + 1))
	fi
}

# 1. every flow ages out after the capture is read
for c in dnp3.pcap dns_fragmented.pcap synscan.pcap alexa-app.pcapng; do
	f="$PCAP_DIR/real/$c"
	[ -f "$f" ] || continue
	prepare "$f" "$TMP/in.pcap" 2>/dev/null
	rm -f "$TMP/out.csv"
	flows=$(grep -c '^ipv' "$f.flows.csv")
	run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" -- \
		--flow-timeout 50 --stats-interval 100 --exit-on-idle 1000 \
		--flow-cache 64 \
		--flow-dump "$TMP/out.csv" > "$TMP/log" 2>&1 ||
		{ echo "FAIL $c: run failed"; tail -5 "$TMP/log"; fail=$((fail + 1));
		  continue; }
	check "$c (age all)" "$f.flows.csv" "$TMP/log" "$flows"
done

# 2. same flows twice, separated by more than the timeout
for c in dnp3.pcap dns_fragmented.pcap; do
	f="$PCAP_DIR/real/$c"
	[ -f "$f" ] || continue
	prepare "$f" "$TMP/in.pcap" 2>/dev/null
	rm -f "$TMP/out.csv" "$TMP/fifo"
	mkfifo "$TMP/fifo"
	flows=$(grep -c '^ipv' "$f.flows.csv")
	# the writer blocks until net_pcap opens the FIFO at probe time
	"$PYTHON" - "$TMP/in.pcap" "$TMP/fifo" <<'PY' &
import sys, time
data = open(sys.argv[1], 'rb').read()
with open(sys.argv[2], 'wb') as f:
    f.write(data)
    f.flush()
    time.sleep(2.5)
    f.write(data[24:])    # the records again, without the file header
PY
	writer=$!
	run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/fifo" -- \
		--flow-timeout 200 --stats-interval 250 --exit-on-idle 3500 \
		--flow-cache 64 \
		--flow-dump "$TMP/out.csv" > "$TMP/log" 2>&1 ||
		{ echo "FAIL $c: run failed"; tail -5 "$TMP/log"; fail=$((fail + 1)); }
	wait $writer
	double_csv "$f.flows.csv" > "$TMP/want.csv"
	check "$c (twice, aged in between)" "$TMP/want.csv" "$TMP/log" \
		$((2 * flows))
done

echo "$pass of $((pass + fail)) aging checks pass"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
