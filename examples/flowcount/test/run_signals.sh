#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Signals and outputs: SIGUSR1 writes the dump and runs on, then SIGTERM
# stops with a second dump that is a superset of the first (the shipped
# capture replayed forever, net_pcap infinite_rx=1); SIGHUP stops as
# SIGTERM does; --flow-dump - writes the dump to stdout; an unwritable
# dump path, or one that is a directory, a FIFO or a symbolic link, is
# refused before any port starts; the dump is written beside FILE through
# no name prepared in advance (a link at FILE.tmp stays as it was); a
# --stats-file FIFO nobody reads is refused at once; a refused run leaves
# the --stats-file as it was; an output that is a --vdev's file is
# refused; --stats-file - is stdout; statistics that cannot be written
# make the exit status 1; --stats-format json writes one JSON object per
# line, whose summary holds the capture's counts.

. "$(dirname "$0")/common.sh"

fail=0
DEMO=$DEMO_DIR/demo.pcap

wait_for() {   # wait_for PATTERN FILE: up to 20 s
	local i
	for i in $(seq 200); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		kill -0 "$FC_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# infinite_rx takes single-segment frames: the forwarding test's capture
"$PYTHON" "$TEST_DIR/fwd_frames.py" gen "$TMP/loop.pcap" || exit 1
NFLOWS=$("$PYTHON" "$TEST_DIR/fwd_frames.py" ip)

# ---- SIGUSR1, then SIGTERM ----
start_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/loop.pcap,infinite_rx=1" -- \
	--stats-interval 0 --flow-dump "$TMP/d.csv" > "$TMP/log" 2>&1
if ! wait_for '^lcore 1: RX port' "$TMP/log"; then
	echo "FAIL usr1: did not start"; tail -5 "$TMP/log"; exit 1
fi
sleep 0.5
# timeout(1) forwards SIGTERM, SIGINT and SIGHUP but dies of SIGUSR1: send
# that one to its child
kill -USR1 "$(pgrep -P "$FC_PID" | head -1)"
if ! wait_for '^flow dump: .* written' "$TMP/log"; then
	echo "FAIL usr1: no dump after SIGUSR1"; tail -5 "$TMP/log"; fail=1
fi
cp "$TMP/d.csv" "$TMP/d1.csv" 2>/dev/null
sleep 0.5
if ! kill -0 "$FC_PID" 2>/dev/null; then
	echo "FAIL usr1: dpdk-flowcount stopped after SIGUSR1"; fail=1
fi
kill -TERM "$FC_PID"
wait "$FC_PID"
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c '^flow dump: .* written' "$TMP/log")" != 2 ] ||
		! grep -q 'signal 15 (.*) received' "$TMP/log"; then
	echo "FAIL usr1: exit $rc, want 0, two dumps and a clean stop"
	tail -5 "$TMP/log"
	fail=1
elif "$PYTHON" - "$TMP/d1.csv" "$TMP/d.csv" "$NFLOWS" <<'PY'
import sys
def rows(p):
    out = {}
    for line in list(open(p))[1:]:
        f = line.rstrip('\n').split(',')
        out[tuple(f[:6])] = (int(f[6]), int(f[7]))
    return out
d1, d2 = rows(sys.argv[1]), rows(sys.argv[2])
nflows = int(sys.argv[3])
bad = [k for k in d1 if k not in d2 or d2[k][0] < d1[k][0] or
       d2[k][1] < d1[k][1]]
flows2 = [k for k in d2 if k[0].startswith('ipv')]
if len(flows2) != nflows or bad or not d1 or \
        sum(v[0] for v in d2.values()) <= sum(v[0] for v in d1.values()):
    print(f'FAIL usr1: second dump not a superset of the first ({bad[:3]}),'
          f' or not the capture\'s {nflows} flows')
    sys.exit(1)
print(f'PASS usr1: SIGUSR1 dumped {len(d1)} flows '
      f'({sum(v[0] for v in d1.values())} pkts) and ran on; SIGTERM dumped '
      f'{len(d2)} flows ({sum(v[0] for v in d2.values())} pkts), a superset')
PY
then
	:
else
	fail=1
fi

# ---- SIGHUP stops as SIGTERM does ----
rm -f "$TMP/h.csv"
start_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/loop.pcap,infinite_rx=1" -- \
	--stats-interval 0 --flow-dump "$TMP/h.csv" > "$TMP/log" 2>&1
if wait_for '^lcore 1: RX port' "$TMP/log"; then
	sleep 0.3
	kill -HUP "$FC_PID"
	wait "$FC_PID"
	rc=$?
	if [ $rc -eq 0 ] && grep -q 'signal 1 (.*) received' "$TMP/log" &&
			grep -q 'summary after' "$TMP/log" && [ -s "$TMP/h.csv" ]; then
		echo "PASS hup: SIGHUP stopped with exit 0, summary and dump"
	else
		echo "FAIL hup: exit $rc"; tail -5 "$TMP/log"; fail=1
	fi
else
	echo "FAIL hup: did not start"; fail=1
fi

# ---- --flow-dump - ----
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 200 \
		--stats-interval 0 --flow-dump - > "$TMP/out" 2>&1 &&
		sed -n '/^family,proto,src,dst,sport,dport,packets,bytes$/,/^[^a-z]/p' \
		"$TMP/out" | grep -v '^[^a-z]' | cmp -s - "$DEMO_DIR/demo.flows.csv" &&
		[ ! -e ./- ]; then
	echo "PASS dump to stdout: --flow-dump - printed the exact CSV"
else
	echo "FAIL dump to stdout"; fail=1
fi

# ---- an unwritable dump path is refused before the ports start ----
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 200 \
		--flow-dump "$TMP/no/such/dir/x.csv" > "$TMP/out" 2>&1; then
	echo "FAIL bad dump path: accepted"; fail=1
elif ! grep -q 'cannot write' "$TMP/out" || grep -q '^lcore 1' "$TMP/out" ||
		! grep -q -- "-- --help'" "$TMP/out"; then
	echo "FAIL bad dump path: no message or hint, or traffic started"
	cat "$TMP/out"; fail=1
else
	echo "PASS bad dump path: $(grep 'cannot write' "$TMP/out")"
fi

# ---- a dump path that exists but is not a regular file is refused before
# the ports start: a directory (the rename of the dump over it at the end
# would fail), a FIFO (opening it would block while nobody reads it) and a
# symbolic link (the rename would replace the link by a file) ----
mkdir -p "$TMP/isdir"
mkfifo "$TMP/isfifo"
ln -s "$TMP/linked" "$TMP/islink"
for c in "isdir:Is a directory" "isfifo:not a regular file" \
		"islink:not a regular file"; do
	name=${c%%:*}
	want=${c#*:}
	if FC_TIMEOUT=20 run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
			--exit-on-idle 200 --flow-dump "$TMP/$name" \
			> "$TMP/out" 2>&1; then
		echo "FAIL dump path $name: accepted"; fail=1
	elif ! grep -q "cannot replace.*$want" "$TMP/out" ||
			! grep -q -- "-- --help'" "$TMP/out" ||
			grep -q '^lcore 1' "$TMP/out" || [ ! -L "$TMP/islink" ] ||
			[ -e "$TMP/linked" ]; then
		echo "FAIL dump path $name: no message or hint, traffic started or" \
			"the path changed"
		cat "$TMP/out"; fail=1
	else
		echo "PASS dump path $name: $(grep 'cannot replace' "$TMP/out")"
	fi
done

# ---- the dump is written to a new file beside FILE (mkstemp), never
# through a name someone prepared: a symbolic link at FILE.tmp, the name
# dumps used before, keeps its target as it was; and a --stats-file that
# is a FIFO nobody reads is refused at once, not waited for ----
echo precious > "$TMP/precious"
ln -s "$TMP/precious" "$TMP/d2.csv.tmp"
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 200 \
		--stats-interval 0 --flow-dump "$TMP/d2.csv" > "$TMP/out" 2>&1 &&
		cmp -s "$TMP/d2.csv" "$DEMO_DIR/demo.flows.csv" &&
		[ "$(cat "$TMP/precious")" = precious ] &&
		[ -z "$(find "$TMP" -name 'd2.csv.??????')" ]; then
	echo "PASS dump beside FILE: exact, a link at FILE.tmp untouched," \
		"nothing left behind"
else
	echo "FAIL dump beside FILE: dump, link target or leftovers wrong"
	cat "$TMP/out"; fail=1
fi
mkfifo "$TMP/sfifo"
if FC_TIMEOUT=20 run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
		--exit-on-idle 200 --stats-file "$TMP/sfifo" > "$TMP/out" 2>&1; then
	echo "FAIL stats FIFO: accepted"; fail=1
elif ! grep -q 'cannot write.*a FIFO nobody reads' "$TMP/out" ||
		grep -q '^lcore 1' "$TMP/out"; then
	echo "FAIL stats FIFO: no message, or traffic started"
	cat "$TMP/out"; fail=1
else
	echo "PASS stats FIFO: $(grep 'cannot write' "$TMP/out")"
fi

# ---- a refused run leaves --stats-file as it was ----
echo "kept" > "$TMP/s-kept.txt"
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
		--stats-file "$TMP/s-kept.txt" \
		--rule_ipv4 "$TMP/no-such-rules" > "$TMP/out" 2>&1; then
	echo "FAIL stats kept: the run was not refused"; fail=1
elif [ "$(cat "$TMP/s-kept.txt")" != "kept" ]; then
	echo "FAIL stats kept: a refused run changed the --stats-file"; fail=1
else
	echo "PASS stats kept: refused ($(grep -c . "$TMP/out") lines), file" \
		"unchanged"
fi

# ---- an output that is a file of a --vdev (its capture) is refused ----
cp "$DEMO" "$TMP/in.pcap"
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" -- \
		--flow-dump "$TMP/in.pcap" > "$TMP/out" 2>&1 ||
		! grep -q "is a file of --vdev net_pcap0 (rx_pcap=" "$TMP/out" ||
		! cmp -s "$DEMO" "$TMP/in.pcap"; then
	echo "FAIL vdev file: not refused, or the capture changed"
	cat "$TMP/out"; fail=1
else
	echo "PASS vdev file: $(grep 'is a file of' "$TMP/out")"
fi

# ---- --stats-file - is stdout; statistics that cannot be written ----
if (cd "$TMP" && run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
		--exit-on-idle 200 --stats-interval 0 --stats-file - \
		> "$TMP/out" 2>&1) && [ ! -e "$TMP/-" ] &&
		grep -q "^=== flowcount summary" "$TMP/out"; then
	echo "PASS stats -: the summary on stdout, no file '-'"
else
	echo "FAIL stats -"; cat "$TMP/out"; fail=1
fi
if [ -w /dev/full ]; then
	run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 200 \
		--stats-interval 0 --stats-file /dev/full > "$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -q \
			"cannot write the statistics to /dev/full: No space" \
			"$TMP/out"; then
		echo "PASS stats /dev/full: exit 1, $(grep 'cannot write the' \
			"$TMP/out")"
	else
		echo "FAIL stats /dev/full: exit $rc"; cat "$TMP/out"; fail=1
	fi
fi

# ---- --stats-format json ----
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 300 \
		--stats-interval 50 --stats-format json \
		--stats-file "$TMP/s.jsonl" > "$TMP/out" 2>&1 &&
		"$PYTHON" - "$TMP/s.jsonl" "$DEMO_DIR/demo.flows.csv" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ref = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
s = lines[-1]
want = (sum(int(r[6]) for r in ref), sum(int(r[7]) for r in ref),
        sum(1 for r in ref if r[0].startswith('ipv')))
got = (s['rx_pkts'], s['rx_bytes'], s['flows']['created'])
keys = {'type', 'time_s', 'interval_s', 'rx_pkts', 'rx_bytes', 'tx_pkts',
        'drops', 'buckets', 'flows', 'lcores', 'ports', 'top_scope', 'top'}
ok = (s['type'] == 'summary' and got == want and
      all(l['type'] == 'interval' for l in lines[:-1]) and
      all(keys <= set(l) for l in lines) and
      s['lcores'][0]['lcore'] == 1 and s['ports'][0]['port'] == 0 and
      len(s['top']) == 5 and s['top_scope'] == 'all')
# the counter blocks are charged to their pool's owner: every block the
# pool made (one per flow at least) x 64 bytes x the 2 lcores with memory
co = s.get('counters_owner') or {}
owner_ok = (co.get('name') == 'pool:fc_flows' and co['lcores'] == 2 and
            co['allocations'] >= got[2] and co['limit_bytes'] == 0 and
            co['live_bytes'] == co['allocations'] * 64 * 2 and
            co['peak_bytes'] >= co['live_bytes'] and co['refused'] == 0)
ok = ok and owner_ok
# the flow cache holds every flow after its first packets: each flow is
# looked up in the rte_hash at least once (it is inserted then), and
# fewer times than it has packets
flow_pkts = sum(int(r[6]) for r in ref if r[0].startswith('ipv'))
lookups = s['lcores'][0]['hash_lookups']
ok = ok and got[2] <= lookups < flow_pkts
print(('PASS' if ok else 'FAIL') + f' json: {len(lines)} lines, summary '
      f'rx {got[0]} pkts {got[1]} bytes, {got[2]} flows (want {want}), '
      f'{lookups} hash lookups for {flow_pkts} flow packets, '
      f'counters owner {co}')
sys.exit(0 if ok else 1)
PY
then
	:
else
	fail=1
fi
# without a flow cache every packet of a flow is looked up
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 300 \
		--flow-cache 0 --stats-interval 0 --stats-format json \
		--stats-file "$TMP/c.jsonl" > "$TMP/out" 2>&1 &&
		"$PYTHON" - "$TMP/c.jsonl" "$DEMO_DIR/demo.flows.csv" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
ref = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
want = sum(int(r[6]) for r in ref if r[0].startswith('ipv'))
got = s['lcores'][0]['hash_lookups']
print(('PASS' if got == want else 'FAIL') + ' json --flow-cache 0: '
      f'{got} hash lookups (want {want}, the flows\' packets)')
sys.exit(0 if got == want else 1)
PY
then
	:
else
	cat "$TMP/out"
	fail=1
fi
# without counting: the same schema, no flows, and an empty top whose
# scope in the summary is the summary's ('all'), as with counting
if run_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --exit-on-idle 300 \
		--no-count --stats-interval 50 --stats-format json \
		--stats-file "$TMP/n.jsonl" > "$TMP/out" 2>&1 &&
		"$PYTHON" - "$TMP/n.jsonl" "$DEMO_DIR/demo.flows.csv" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ref = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
s = lines[-1]
want = sum(int(r[6]) for r in ref)
ok = (s['type'] == 'summary' and s['rx_pkts'] == want and
      s['top'] == [] and s['top_scope'] == 'all')
print(('PASS' if ok else 'FAIL') + f' json --no-count: {len(lines)} lines, '
      f'rx {s["rx_pkts"]} (want {want}), top_scope {s["top_scope"]}')
sys.exit(0 if ok else 1)
PY
then
	:
else
	cat "$TMP/out"
	fail=1
fi
exit $fail
