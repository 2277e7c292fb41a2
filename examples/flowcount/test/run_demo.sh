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

# the other counter schemes, the pipeline, no flow cache and a flow cache
# of four sets (most lookups miss it, in bursts that also hit) count the
# same
for opts in "--counters mempool" "--counters atomic" "--counters array" \
		"--pipeline" "--flow-cache 0" "--flow-cache 16"; do
	tag=$(echo "$opts" | tr -d ' -')
	run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
		$opts --exit-on-idle 200 --stats-interval 0 \
		--flow-dump "$TMP/out-$tag.csv" > "$TMP/log" 2>&1 ||
		{ echo "FAIL: $opts run failed"; tail "$TMP/log"; exit 1; }
	if cmp -s "$TMP/out-$tag.csv" "$DEMO_DIR/demo.flows.csv"; then
		echo "PASS $opts: dump equals demo.flows.csv"
	else
		echo "FAIL $opts: dump differs"
		fail=1
	fi
done

# a full flow cache set keeps its flows: 128 UDP flows in round robin, 20
# rounds, through a cache of 16 sets (eight flows a set on average). A
# flow comes back four bursts later: replacing a way at every miss, a set
# mostly holds the flows that come back last, and 2104 of the 2560 packets
# (82%) were looked up in the rte_hash; keeping them, only the flows
# beyond a set's fourth and a replacement once in 8 misses are (1396, 55%)
"$PYTHON" - "$TMP/cycle.pcap" "$TEST_DIR" <<'PY' || exit 1
import struct, sys
sys.path.insert(0, sys.argv[2])
from fwd_frames import eth, ipv4, write_pcap
udp = [struct.pack('!HHHH', 1000 + f, 53, 8, 0) for f in range(128)]
pkts = [eth(ipv4('10.2.0.1', 64, l4=u)) for r in range(20) for u in udp]
write_pcap(sys.argv[1], pkts)
PY
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/cycle.pcap" -- \
	--flow-cache 64 --exit-on-idle 200 --stats-interval 0 \
	--stats-format json --stats-file "$TMP/cycle.json" > "$TMP/log" 2>&1 ||
	{ echo "FAIL: cycle run failed"; tail "$TMP/log"; exit 1; }
if "$PYTHON" - "$TMP/cycle.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
n, lookups = s['rx_pkts'], s['lcores'][0]['hash_lookups']
ok = n == 2560 and s['flows']['created'] == 128 and lookups <= 0.7 * n
print(('PASS' if ok else 'FAIL') + f' --flow-cache 64, 128 flows in round '
      f'robin: {lookups} of {n} packets looked up in the rte_hash '
      '(at most 70%)')
sys.exit(0 if ok else 1)
PY
then
	:
else
	fail=1
fi

# a flow takes one way of its set: 32 packets of one new flow in one burst,
# then 12 flows in round robin through four sets, must cost the 12 flows
# no more lookups than without that burst (a way per packet did: 49
# against 32)
"$PYTHON" - "$TMP/burst.pcap" "$TMP/noburst.pcap" "$TEST_DIR" <<'PY' || exit 1
import struct, sys
sys.path.insert(0, sys.argv[3])
from fwd_frames import eth, ipv4, write_pcap
one = eth(ipv4('10.3.0.1', 64, l4=struct.pack('!HHHH', 7, 53, 8, 0)))
udp = [struct.pack('!HHHH', 2000 + f, 53, 8, 0) for f in range(12)]
rr = [eth(ipv4('10.2.0.1', 64, l4=u)) for r in range(40) for u in udp]
write_pcap(sys.argv[1], [one] * 32 + rr)
write_pcap(sys.argv[2], rr)
PY
for c in burst noburst; do
	run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/$c.pcap" -- \
		--flow-cache 16 --exit-on-idle 200 --stats-interval 0 \
		--stats-format json --stats-file "$TMP/$c.json" > "$TMP/log" 2>&1 ||
		{ echo "FAIL: $c run failed"; tail "$TMP/log"; exit 1; }
done
if "$PYTHON" - "$TMP/burst.json" "$TMP/noburst.json" <<'PY'
import json, sys
b, n = ([json.loads(l) for l in open(p)][-1]['lcores'][0]['hash_lookups']
        for p in sys.argv[1:3])
ok = b - 32 <= n
print(('PASS' if ok else 'FAIL') + f' --flow-cache 16 after a 32-packet '
      f'burst of one flow: {b - 32} lookups for the 12 flows in round '
      f'robin, {n} without that burst')
sys.exit(0 if ok else 1)
PY
then
	:
else
	fail=1
fi

# routing: IPv4 goes to port 1 (net_null, a sink), IPv6 has no route and
# is dropped as no-route on port 0; counting is the same. --config is
# written with hex, octal and spaces, as l3fwd's parser takes it
v4=$(awk -F, '/^ipv4/ {n += $7} END {print n + 0}' "$DEMO_DIR/demo.flows.csv")
v6=$(awk -F, '/^ipv6/ {n += $7} END {print n + 0}' "$DEMO_DIR/demo.flows.csv")
printf '# demo routes\nR127.0.0.0/8 1\n\n' > "$TMP/routes"
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" --vdev net_null0 \
	-- -p 0x3 --config "( 0x0, 00 ,1 )" --rule_ipv4 "$TMP/routes" \
	--exit-on-idle 200 \
	--stats-interval 0 --flow-dump "$TMP/out2.csv" > "$TMP/log" 2>&1 ||
	{ echo "FAIL: routed run failed"; tail "$TMP/log"; exit 1; }
# port 1 has no RX queue in --config: said at start
if grep -q "^port 1: not in --config: it only sends" "$TMP/log"; then
	echo "PASS routed: port 1 is said to only send"
else
	echo "FAIL routed: no note that port 1 only sends"
	fail=1
fi
# port rows of the final summary in $TMP/log: port rx tx tx-drop no-route
# ttl bad-ip
summary_ports() {
	ports=$(sed -n '/^=== flowcount summary/,$p' "$TMP/log" |
		awk '$1 == "port" {on = 1; next} on && $1 ~ /^[0-9]+$/ {print}
			/^total/ {on = 0}')
	p0=$(echo "$ports" | awk '$1 == 0')
	p1=$(echo "$ports" | awk '$1 == 1')
}
summary_ports
if ! cmp -s "$TMP/out2.csv" "$DEMO_DIR/demo.flows.csv"; then
	echo "FAIL routed: dump differs"
	fail=1
elif [ "$(echo "$p1" | awk '{print $3}')" != "$v4" ] ||
		[ "$(echo "$p0" | awk '{print $5}')" != "$v6" ] ||
		[ "$(echo "$p0" | awk '{print $3}')" != 0 ]; then
	echo "FAIL routed: want port 1 tx $v4, port 0 no-route $v6; got"
	echo "$ports"
	fail=1
else
	echo "PASS routed: $v4 IPv4 packets to port 1, $v6 IPv6 packets" \
		"without route dropped, dump unchanged"
fi

# --count-floor (a speed test: no flow table, each packet added to a line
# of the flow cache) forwards as counting does
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" --vdev net_null0 \
	-- -p 0x3 --config "(0,0,1)" --rule_ipv4 "$TMP/routes" --count-floor \
	--exit-on-idle 200 --stats-interval 0 > "$TMP/log" 2>&1 ||
	{ echo "FAIL: --count-floor run failed"; tail "$TMP/log"; exit 1; }
summary_ports
if grep -q "counting floor (speed test" "$TMP/log" &&
		[ "$(echo "$p1" | awk '{print $3}')" = "$v4" ] &&
		[ "$(echo "$p0" | awk '{print $5}')" = "$v6" ]; then
	echo "PASS --count-floor: $v4 IPv4 packets to port 1, $v6 IPv6" \
		"packets without route dropped"
else
	echo "FAIL --count-floor: want port 1 tx $v4, port 0 no-route $v6; got"
	echo "$ports"
	grep "^flowcount:" "$TMP/log"
	fail=1
fi

# the floor's default flow cache is at least a cache's 16 entries, and a
# worker whose flow cache cannot be made (64 MiB in 40) stops the run
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
	--count-floor --max-flows 1 --exit-on-idle 200 --stats-interval 0 \
	> "$TMP/log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "its flow cache set, 16 entries;" "$TMP/log"; then
	echo "PASS --count-floor --max-flows 1: a flow cache of 16 entries"
else
	echo "FAIL --count-floor --max-flows 1: exit $rc"
	tail -5 "$TMP/log"
	fail=1
fi
run_fc -l 0-1 -m 40 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
	--count-floor --max-flows 1000 --flow-cache 4194304 --mbufs 1024 \
	--exit-on-idle 200 --stats-interval 0 > "$TMP/log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^lcore 1: --count-floor counts in a flow cache, which could not be made: Cannot allocate memory$" "$TMP/log"; then
	echo "PASS --count-floor without memory for its flow cache: exit 1," \
		"one line"
else
	echo "FAIL --count-floor without memory for its flow cache: exit $rc"
	tail -5 "$TMP/log"
	fail=1
fi

# --max-flows: beyond 10 flows, packets go to the overflow row; every
# packet and byte is still counted exactly once
run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
	--max-flows 10 --exit-on-idle 200 --stats-interval 0 \
	--flow-dump "$TMP/out3.csv" > "$TMP/log" 2>&1 ||
	{ echo "FAIL: --max-flows run failed"; tail "$TMP/log"; exit 1; }
want=$(awk -F, 'NR > 1 {p += $7; b += $8} END {print p, b}' \
	"$DEMO_DIR/demo.flows.csv")
got=$(awk -F, 'NR > 1 {p += $7; b += $8} END {print p, b}' "$TMP/out3.csv")
nflows=$(grep -c '^ipv' "$TMP/out3.csv")
if [ "$got" = "$want" ] && [ "$nflows" = 10 ] &&
		grep -q '^overflow,,,,,,' "$TMP/out3.csv"; then
	echo "PASS max-flows 10: 10 flows, the rest in overflow," \
		"totals $got unchanged"
else
	echo "FAIL max-flows 10: $nflows flows, totals $got (want $want)"
	cat "$TMP/out3.csv"
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
bad "option '--count-floor' takes no argument" --count-floor=1
bad "option '--no-count' takes no argument" --no-count=yes
bad "needs an argument" --max-flows
bad "not a non-negative number" --max-flows 12x
bad "max-flows: 99999999999999999999 is not within 1 to" \
	--max-flows 99999999999999999999
bad "goes with --monitor" --monitor-count 0
bad "not a non-negative number" -p 0xfg
# a hex mask may start with a letter, as l3fwd's: parsed, then refused
# for its ports
bad "does not exist" -p a
# every number (options, rule files, telemetry) starts with a digit or
# '+': strtoul() would skip blanks and wrap a minus sign
bad "max-flows: '-5' is not a non-negative number" --max-flows -5
bad "max-flows: ' 5' is not a non-negative number" --max-flows " 5"
bad "expected PORT,MAC, got ' 1,02:00:00:00:00:01'" \
	--eth-dest " 1,02:00:00:00:00:01"
bad "expected" --config "(0,0"
bad "main lcore" --config "(0,0,0)"
bad "not enabled" --config "(0,0,5)"
bad "does not exist" -p 0x6
bad "needs counting" --no-count --flow-dump "$TMP/x.csv"
bad "cannot open" --rule_ipv4 "$TMP/nonexistent"
bad "cannot read $TMP: Is a directory" --rule_ipv4 "$TMP"
bad "bad number at '-1)'" --config "(0,0,-1)"
bad "bad number at '- 1)'" --config "(0,0, - 1)"
bad "bad number at '08,0,1)' (a leading 0 means octal)" --config "(08,0,1)"
bad "nothing after the last ','" --config "(0,0,1), "
bad "needs counting: drop --no-count" --no-count --pipeline
bad "name the same file" --stats-file "$TMP/same" --flow-dump "$TMP/same"
bad "expected PORT,MAC, got '-1,02:00:00:00:00:01'" \
	--eth-dest "-1,02:00:00:00:00:01"
bad "unknown option" --route "$TMP/routes"
# bad rule files (l3fwd's syntax): the file, the line and what is wrong
badrule() {
	local want=$1 family=$2
	printf '# rules\n%s\n' "$3" > "$TMP/bad.rules"
	bad "$want" -p 0x1 "--rule_ipv$family" "$TMP/bad.rules"
}
badrule "bad.rules:2: depth must be 0 to 32" 4 "R10.0.0.0/33 0"
badrule "bad.rules:2: depth must be 0 to 128" 6 "R2001:db8::/129 0"
badrule "bad.rules:2: depth must be 0 to 32, got '-0'" 4 "R10.0.0.0/-0 0"
badrule "not a port number: '-1'" 4 "R10.0.0.0/8 -1"
badrule "not an IPv4 address: '2001:db8::'" 4 "R2001:db8::/32 0"
badrule "not an IPv6 address" 6 "R10.0.0.0/8 0"
badrule "a rule starts with 'R'" 4 "10.0.0.0/8 0"
badrule "ACL rules ('@') are not supported" 4 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 0x06/0xff"
badrule "not a port number: 'x'" 4 "R10.0.0.0/8 x"
badrule "expected 'R<prefix>/<depth> <port>'" 4 "R10.0.0.0/8 0 extra"
badrule "no '/<depth>'" 4 "R10.0.0.0 0"
printf '# only comments\n\n' > "$TMP/empty.rules"
bad "no rules" --rule_ipv4 "$TMP/empty.rules"
# more routes longer than /24 than rte_lpm has groups for (256, as
# l3fwd's): the file and line of the first one refused
for i in $(seq 0 299); do echo "R10.$((i / 256)).$((i % 256)).0/25 0"; done \
	> "$TMP/many.rules"
bad "many.rules:257: cannot add the route" --rule_ipv4 "$TMP/many.rules"
bad "not a MAC address" --eth-dest "0,zz:00"
bad "expected PORT,MAC" --eth-dest "02:00:00:00:00:01"
bad "eth-dest: port 9 does not exist (1 port)" --eth-dest "9,02:00:00:00:00:01"
# a port that exists but is not enabled: exit 1, that one line
run_fc -l 0-1 --vdev net_null0 --vdev net_null1 -- -p 0x1 \
	--eth-dest "1,02:00:00:00:00:01" > "$TMP/log" 2>&1
rc=$?
if [ $rc -ne 1 ] ||
		! grep -q -- "--eth-dest: port 1 is not enabled (-p 0x1)$" "$TMP/log"; then
	echo "FAIL: --eth-dest of a port not enabled: exit $rc"
	cat "$TMP/log"
	fail=1
else
	echo "PASS: --eth-dest of a port not enabled rejected:" \
		"$(grep -- '--eth-dest' "$TMP/log")"
fi
bad "is not pcpu, mempool, atomic or array" --counters bogus
bad "is not table or json" --stats-format xml
bad "not within 64 to 9600" --max-pkt-len 10
bad "not within 1 to 65535" --rx-queue-size 0
bad "keeps no flow table: drop --counters" --no-count --counters atomic
bad "keeps no flow table: drop --max-flows" --max-flows 5 --no-count
bad "keeps no flow table: drop --flow-cache" --no-count --flow-cache 0
bad "keeps no flow table: drop --count-floor" --no-count --count-floor
bad "needs counting: drop --count-floor" --count-floor --flow-dump "$TMP/x.csv"
bad "two speed tests: give one" --count-floor --lookup-only
bad "keeps no counters: drop --counters" --counters array --count-floor
bad "counts in the flow cache: drop --flow-cache 0" --count-floor \
	--flow-cache 0
bad "keeps no flow table: drop --flow-cache" --no-count --count-floor \
	--flow-cache 0
bad "cannot write" --stats-file "$TMP/no/such/dir/s.json"
if run_fc -l 0-1 --vdev net_null0 -- --help > "$TMP/log" 2>&1 &&
		grep -q -- "--flow-timeout" "$TMP/log"; then
	echo "PASS: --help"
else
	echo "FAIL: --help"
	fail=1
fi
exit $fail
