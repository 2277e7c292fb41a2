#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount on PMDs other than net_pcap, with exact counts:
#
# 1. net_af_packet on one end of a veth pair (port 0) and net_null as the
#    second port (port 1, TX only: --config polls port 0 alone). pmd_send.py
#    sends frames of three known 5-tuples (IPv4/UDP, IPv4/TCP, IPv6/UDP)
#    into the other end; after SIGINT the --flow-dump rows of those flows
#    must hold exactly the sent packets and bytes, the total must equal the
#    sum of the dump rows, and port 1 must have sent every IP packet.
# 2. net_tap (port 0) and net_null (port 1): the same frames written to the
#    tap interface from the kernel side. The kernel sends its own IPv6
#    neighbour discovery / MLD frames on the new interface: those rows are
#    counted in the totals but not compared.
# 3. net_null alone, about 1 s, stopped by SIGINT: exit 0 and a summary in
#    which every frame (zero-filled, EtherType 0) is in the non-ip bucket,
#    64 bytes each by default (size=128 in a second run with copy=1); and
#    two net_ring ports (no traffic: every count 0).
#
# Needs root for 1 and 2 (veth pairs, tap devices, AF_PACKET sockets): a
# part that cannot run is skipped; the test then exits 77 naming it, unless
# another part failed (exit 1).

. "$(dirname "$0")/common.sh"

# two lcores on the first two CPUs this process may use (one, if only one)
read -r -a CPUS < <("$PYTHON" -c \
	'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
LCORES="0@${CPUS[0]},1@${CPUS[1]:-${CPUS[0]}}"

VA=fcpa$$
VB=fcpb$$
TAP=fctap$$
FC_PID=
cleanup() {
	if [ -n "$FC_PID" ] && kill -0 "$FC_PID" 2>/dev/null; then
		kill -TERM "$FC_PID" 2>/dev/null
		wait "$FC_PID" 2>/dev/null
	fi
	ip link del "$VA" 2>/dev/null
	ip link del "$TAP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

nfail=0
skips=()
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $*"; skips+=("$*"); }

# wait_ready LOG: until the app has set up its ports and workers (every
# port is started before the "lcore N: RX" lines are printed)
wait_ready() {
	local i
	for i in $(seq 200); do
		grep -q '^lcore [0-9]*: RX port' "$1" && return 0
		kill -0 "$FC_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# stop_fc: SIGINT, then the exit status of dpdk-flowcount in FC_RC
stop_fc() {
	kill -INT "$FC_PID"
	wait "$FC_PID"
	FC_RC=$?
	FC_PID=
}

# summary_port LOG PORT COLUMN: a column of the port table of the summary
# (2 = rx-pkts, 3 = tx-pkts)
summary_port() {
	awk -v p="$2" -v c="$3" '/summary after/ { s = 1 }
		s && /^ *port +rx-pkts/ { t = 1; next }
		/^total:/ { t = 0 }
		s && t && $1 == p { print $c }' "$1"
}

# summary_total LOG: "PKTS BYTES" received, from the summary's total line
summary_total() {
	sed -n 's/^total: rx \([0-9]*\) pkts \([0-9]*\) bytes.*/\1 \2/p' "$1" |
		tail -1
}

# check_flows NAME LOG CSV EXPECTED: the part's result from the app's exit
# status, its log and dump, and the rows pmd_send.py printed
check_flows() {
	local name=$1 log=$2 csv=$3 exp=$4 row key got bad=0 others
	local sum total ip fwd

	if [ "$FC_RC" -ne 0 ]; then
		fail "$name: dpdk-flowcount exited with status $FC_RC"
		tail -5 "$log"
		return
	fi
	if ! grep -q '^flow dump: .* written' "$log" || [ ! -s "$csv" ]; then
		fail "$name: no flow dump"
		tail -5 "$log"
		return
	fi
	if [ "$(wc -l < "$exp")" -ne 3 ]; then
		fail "$name: pmd_send.py did not print the 3 expected rows"
		return
	fi
	while read -r row; do
		if grep -qxF "$row" "$csv"; then
			continue
		fi
		key=$(echo "$row" | cut -d, -f1-6)
		got=$(grep -F "$key," "$csv" | head -1)
		fail "$name: expected $row, dump has ${got:-no such flow}"
		bad=1
	done < "$exp"
	[ $bad -eq 0 ] || return

	# the summary's total is the sum of the dump's rows (kernel frames
	# included); every IP frame went out of port 1 (net_null drops none)
	# but those whose TTL or hop limit ran out (the kernel's MLD reports
	# on a tap have hop limit 1)
	sum=$(awk -F, 'NR > 1 { p += $7; b += $8 } END { print p + 0, b + 0 }' \
		"$csv")
	total=$(summary_total "$log")
	ip=$(awk -F, 'NR > 1 && ($1 == "ipv4" || $1 == "ipv6") { p += $7 }
		END { print p + 0 }' "$csv")
	fwd=$(summary_port "$log" 1 3)
	ttl=$(summary_port "$log" 0 6)
	ip=$((ip - ttl))
	if [ "$sum" != "$total" ]; then
		fail "$name: summary total rx '$total' != sum of dump rows '$sum'"
		return
	fi
	if [ "$fwd" != "$ip" ]; then
		fail "$name: port 1 sent '$fwd' packets, expected $ip (IP rows" \
			"less $ttl ttl-exceeded)"
		return
	fi
	others=$(($(wc -l < "$csv") - 4))
	pass "$name: $(awk -F, '{ printf "%s%s/%s %s pkts %s bytes",
		(NR > 1 ? "; " : ""), $1, $2, $7, $8 }' "$exp") exact;" \
		"total rx ${total% *} pkts ${total#* } bytes, port 1 tx $fwd pkts," \
		"$others other row(s) (kernel traffic) not compared"
}

# send_case NAME TAG VDEV SEND_IF DST_IF: dpdk-flowcount on VDEV (port 0)
# and net_null (port 1); pmd_send.py sends its frames out of SEND_IF to
# DST_IF's MAC address; then the dump rows must match what was sent
send_case() {
	local name=$1 tag=$2 vdev=$3 send_if=$4 dst_if=$5

	start_fc --lcores "$LCORES" \
		--vdev "$vdev" --vdev net_null0 -- \
		-P --config '(0,0,1)' --stats-interval 0 \
		--flow-dump "$TMP/$tag.csv" > "$TMP/$tag.log" 2>&1
	if ! wait_ready "$TMP/$tag.log"; then
		stop_fc 2>/dev/null
		fail "$name: dpdk-flowcount did not start"
		tail -5 "$TMP/$tag.log"
	elif ! "$PYTHON" "$TEST_DIR/pmd_send.py" "$send_if" \
			"$(cat "/sys/class/net/$dst_if/address")" \
			> "$TMP/$tag.exp"; then
		stop_fc
		fail "$name: pmd_send.py failed"
	else
		sleep 0.5
		stop_fc
		check_flows "$name" "$TMP/$tag.log" "$TMP/$tag.csv" \
			"$TMP/$tag.exp"
	fi
}

# ---- 1. net_af_packet on a veth pair ----
if ! ip link add "$VA" type veth peer name "$VB" 2>"$TMP/err"; then
	skip "net_af_packet: cannot create a veth pair" \
		"($(head -1 "$TMP/err"))"
else
	for i in "$VA" "$VB"; do
		# no IPv6 (neighbour discovery, MLD), no GRO merging frames
		sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1" 2>/dev/null
		ethtool -K "$i" gro off >/dev/null 2>&1
		ip link set "$i" up
	done
	send_case net_af_packet afp "net_af_packet0,iface=$VB" "$VA" "$VB"
	ip link del "$VA"
fi

# ---- 2. net_tap ----
if [ ! -c /dev/net/tun ]; then
	skip "net_tap: no /dev/net/tun"
elif ! ip tuntap add dev "$TAP" mode tap 2>"$TMP/err"; then
	skip "net_tap: cannot create a tap device ($(head -1 "$TMP/err"))"
else
	ip link del "$TAP"
	# the PMD's multiq qdisc needs sch_multiq; without it, only rte_flow
	# support is lost; its messages only go to the log
	send_case net_tap tap "net_tap0,iface=$TAP" "$TAP" "$TAP"
fi

# ---- 3. net_null: zero-filled frames are non-ip ----
# check_null NAME VDEV SIZE
check_null() {
	local name=$1 vdev=$2 size=$3 log="$TMP/$1.log" csv="$TMP/$1.csv"
	local total pkts bytes bucket lrx

	start_fc --lcores "$LCORES" --vdev "$vdev" -- --stats-interval 0 \
		--flow-dump "$csv" > "$log" 2>&1
	if ! wait_ready "$log"; then
		stop_fc 2>/dev/null
		fail "$name: dpdk-flowcount did not start"
		tail -5 "$log"
		return
	fi
	sleep 1
	stop_fc
	if [ "$FC_RC" -ne 0 ] || ! grep -q 'flowcount summary after' "$log"; then
		fail "$name: exit status $FC_RC, or no final summary"
		tail -5 "$log"
		return
	fi
	total=$(summary_total "$log")
	pkts=${total% *}
	bytes=${total#* }
	bucket=$(sed -n 's/^buckets: non-ip \([0-9]*\) pkts \([0-9]*\) bytes, malformed 0 pkts 0 bytes, overflow 0 pkts 0 bytes$/\1 \2/p' "$log" | tail -1)
	lrx=$(awk '/summary after/ { s = 1 } s && /^ *lcore +rx-pkts/ { getline;
		print $2; exit }' "$log")
	if [ -z "$pkts" ] || [ "$pkts" -eq 0 ]; then
		fail "$name: no frame received"
	elif [ "$bucket" != "$total" ]; then
		fail "$name: total rx '$total', buckets line:" \
			"$(grep '^buckets:' "$log" | tail -1)"
	elif [ "$bytes" -ne $((pkts * size)) ]; then
		fail "$name: $bytes bytes for $pkts frames of $size bytes"
	elif [ "$lrx" != "$pkts" ]; then
		fail "$name: lcore 1 received '$lrx', total $pkts"
	elif ! printf 'family,proto,src,dst,sport,dport,packets,bytes\nnon-ip,,,,,,%s,%s\n' \
			"$pkts" "$bytes" | cmp -s - "$csv"; then
		fail "$name: dump is not the non-ip row alone:"
		head -3 "$csv"
	else
		pass "$name: $pkts frames, all non-ip, $bytes bytes" \
			"($size each), = lcore 1 rx, = dump's non-ip row, no flow"
	fi
}
check_null net_null net_null0 64
check_null net_null_copy net_null0,copy=1,size=128 128

# ---- 3b. net_ring: two paired ports, no traffic ----
start_fc --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- \
	--stats-interval 0 --flow-dump "$TMP/ring.csv" > "$TMP/ring.log" 2>&1
if ! wait_ready "$TMP/ring.log"; then
	stop_fc 2>/dev/null
	fail "net_ring: dpdk-flowcount did not start"
	tail -5 "$TMP/ring.log"
else
	sleep 1
	stop_fc
	if [ "$FC_RC" -ne 0 ] ||
			! grep -q 'flowcount summary after' "$TMP/ring.log"; then
		fail "net_ring: exit status $FC_RC, or no final summary"
		tail -5 "$TMP/ring.log"
	elif ! grep -q '^port 0: net_ring, .* sends to 02:00:00:00:00:00$' \
				"$TMP/ring.log" ||
			! grep -q '^port 1: net_ring, .* sends to 02:00:00:00:00:01$' \
				"$TMP/ring.log" ||
			grep -q 'no paired port' "$TMP/ring.log"; then
		fail "net_ring: ports 0 and 1 are not two paired net_ring ports"
		grep '^port' "$TMP/ring.log"
	elif [ "$(summary_total "$TMP/ring.log")" != "0 0" ] ||
			[ "$(wc -l < "$TMP/ring.csv")" -ne 1 ]; then
		fail "net_ring: frames counted without traffic"
		grep '^total:' "$TMP/ring.log"
	else
		pass "net_ring: 2 paired ports, exit 0, summary with rx 0, empty dump"
	fi
fi

if [ $nfail -gt 0 ]; then
	echo "$nfail part(s) failed"
	exit 1
fi
if [ ${#skips[@]} -gt 0 ]; then
	echo "SKIP: not run: $(IFS=';'; echo "${skips[*]}")"
	exit $SKIP
fi
echo "all PMDs passed"
exit 0
