#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-flowcount --monitor, a DPDK secondary process of a running
# dpdk-flowcount (with hugepages: DPDK 22.11 gives a --no-huge primary no
# secondary; skipped, 77, without 300 MiB of free hugepages):
# - once the shipped capture has been read, the monitor's flow dump is the
#   primary's own dump, byte for byte, with the flows live in the table,
#   and again once they have all aged out (the totals);
# - the monitor's counters line and JSON counters_owner have the figures of
#   the counters' owner that dpdk-pcpu-info reads from the primary;
# - while traffic runs (the capture replayed forever), its reports count
#   up, and a monitor killed with SIGKILL leaves the primary running, then
#   stopping cleanly;
# - --monitor needs no --proc-type (it adds --proc-type=secondary); with
#   --proc-type=primary it is refused;
#   without a primary, or against a --no-huge one, the monitor says why.

. "$(dirname "$0")/common.sh"

fail=0
DEMO=$DEMO_DIR/demo.pcap
REF=$DEMO_DIR/demo.flows.csv

free_mb() {
	local t=0 d n s
	awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts \
		2>/dev/null || { echo 0; return; }
	for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
		[ -r "$d/free_hugepages" ] || continue
		s=${d##*hugepages-}
		s=${s%kB}
		n=$(cat "$d/free_hugepages")
		t=$((t + n * s))
	done
	echo $((t / 1024))
}
if [ "$(free_mb)" -lt 300 ]; then
	echo "SKIP: needs 300 MiB of free hugepages (a --no-huge primary has" \
		"no secondary process in DPDK 22.11), $(free_mb) MiB free"
	exit $SKIP
fi

# The primaries run without --huge-unlink (the monitor maps their pages)
# and leave their hugepage files: removed at exit, every prefix of the run.
REPO_DIR=$(cd "$(dirname "$0")/../../.." && pwd)
remove_hugepage_files() {
	local i
	for i in none $(seq "${RUN_ID:-0}"); do
		"$REPO_DIR/devtools/hugepage-files.sh" remove "fcmon$$_$i"
	done
}
trap 'remove_hugepage_files; rm -rf "$TMP"' EXIT

# start_primary ARGS...: dpdk-flowcount with hugepages, in the background.
# EAL's memory at a fixed address (PRIMARY_BASE_VIRTADDR) that a secondary
# finds free: EAL's own default (4 GiB) lies inside AddressSanitizer's
# shadow, and the kernel's choice instead made one monitor in three fail
# to attach in an ASan build ("Cannot reserve ... please use
# '--base-virtaddr'"). 24 TiB: above the shadow (up to 16 TiB), below the
# library's percpu area (32 TiB).
PRIMARY_BASE_VIRTADDR=${PRIMARY_BASE_VIRTADDR:-0x180000000000}
start_primary() {
	RUN_ID=$((RUN_ID + 1))
	FC_PREFIX=fcmon$$_$RUN_ID
	( exec timeout -k 5 60 "$FLOWCOUNT" -m 256 --no-pci \
		--base-virtaddr="$PRIMARY_BASE_VIRTADDR" \
		--file-prefix "$FC_PREFIX" --log-level=pmd.net.pcap:error \
		"$@" ) &
	FC_PID=$!
}

# monitor ARGS...: dpdk-flowcount --monitor of the last primary, with no
# --proc-type (--monitor adds --proc-type=secondary) unless MONITOR_EAL
# names one. DPDK 22.11's vdev bus leaks the device list it gets from the
# primary in a secondary process: no leak report for the monitor (an
# AddressSanitizer build otherwise reports it at exit).
MONITOR_EAL=
monitor() {
	# shellcheck disable=SC2086 # MONITOR_EAL: zero or one word
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	timeout -k 5 30 "$FLOWCOUNT" $MONITOR_EAL \
		--file-prefix "$FC_PREFIX" -l 1 --no-pci \
		--log-level=lib.eal:warning -- --monitor "$@"
}

wait_for() {   # wait_for PATTERN FILE: up to 20 s
	local i
	for i in $(seq 200); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		kill -0 "$FC_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

refused() {   # refused NAME PATTERN CMD...: CMD exits 1, PATTERN in its output
	local what=$1 want=$2 rc
	shift 2
	"$@" > "$TMP/refused.log" 2>&1
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q -- "$want" "$TMP/refused.log"; then
		echo "FAIL $what: exit $rc"
		cat "$TMP/refused.log"
		fail=1
	fi
}

stop_primary() {   # stop_primary NAME: SIGINT, exit 0 wanted
	kill -INT "$FC_PID"
	wait "$FC_PID"
	local rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $1: the primary exited with $rc"
		tail -5 "$TMP/p.log"
		fail=1
	fi
}

# check_counters_owner: the owner of the counter blocks, as the monitor
# reports it in its JSON (the last run, $TMP/m_live.log) and in its table,
# has the figures dpdk-pcpu-info reads from the primary, and they are not
# zeros (the flows of the capture are live). The primary is idle: no
# figure moves between the reads.
check_counters_owner() {
	if [ -z "${PCPU_INFO:-}" ]; then
		echo "FAIL counters: PCPU_INFO (dpdk-pcpu-info) is not set"
		fail=1
		return
	fi
	monitor --monitor-count 1 --stats-interval 100 > "$TMP/m_table.log" 2>&1
	timeout -k 5 30 "$PCPU_INFO" --file-prefix "$FC_PREFIX" -- --owners \
		--json > "$TMP/owners.json" 2> "$TMP/owners.err"
	if ! "$PYTHON" - "$TMP/m_live.log" "$TMP/m_table.log" \
		"$TMP/owners.json" <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
table = [l for l in open(sys.argv[2]) if l.startswith('counters:')]
err = []
try:
    owners = {o['name']: o for o in json.load(open(sys.argv[3]))['owners']}
except (ValueError, KeyError) as e:
    print('FAIL counters: no owners from dpdk-pcpu-info (%s)' % e)
    sys.exit(1)
co = js[0].get('counters_owner') if js else None
if not co or co.get('name') not in owners:
    print('FAIL counters: JSON counters_owner %s, owners %s' %
          (co, sorted(owners)))
    sys.exit(1)
o = owners[co['name']]
want = {'allocations': o['nr_live'], 'live_bytes': o['live_bytes'],
        'peak_bytes': o['peak_bytes'], 'limit_bytes': o['limit_bytes'],
        'refused': o['nr_fail'], 'lcores': o['nr_lcores']}
if o['nr_live'] == 0 or o['live_bytes'] == 0 or o['nr_lcores'] == 0:
    err.append('dpdk-pcpu-info: owner %s holds nothing: %s' % (co['name'], o))
got = {k: co.get(k) for k in want}
if got != want:
    err.append('JSON counters_owner %s, dpdk-pcpu-info %s' % (got, want))
line = ('counters: owner %s holds %d bytes in %d allocations on %d lcores '
        '(%d per lcore), peak %d, limit none, refused %d\n' %
        (co['name'], o['live_bytes'], o['nr_live'], o['nr_lcores'],
         o['live_copy_bytes'], o['peak_bytes'], o['nr_fail']))
if table != [line]:
    err.append('table %s, want %s' % (table, [line]))
for e in err:
    print('FAIL counters: ' + e)
if not err:
    print('counters: the monitor reports the owner as dpdk-pcpu-info does: '
          + line.strip())
sys.exit(1 if err else 0)
PY
	then
		cat "$TMP/m_table.log" "$TMP/owners.err"
		fail=1
	fi
}

# ---- the monitor's dump is the primary's: live flows, then aged ones ----
for mode in live aged; do
	timeout_ms=0
	[ $mode = aged ] && timeout_ms=100
	start_primary -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
		--stats-interval 0 --flow-timeout $timeout_ms \
		--flow-dump "$TMP/p_$mode.csv" > "$TMP/p.log" 2>&1
	if ! wait_for '^lcore 1: RX port' "$TMP/p.log"; then
		echo "FAIL $mode: the primary did not start"
		tail -5 "$TMP/p.log"
		exit 1
	fi
	# the capture is read in well under a second; aged: every flow idle
	# for more than 100 ms is gone from the table into the totals
	sleep 1.5
	monitor --monitor-count 1 --stats-interval 100 --stats-format json \
		--top 3 --flow-dump "$TMP/m_$mode.csv" > "$TMP/m_$mode.log" 2>&1
	rc=$?
	[ $mode = live ] && check_counters_owner
	stop_primary "$mode"
	if [ $rc -ne 0 ]; then
		echo "FAIL $mode: the monitor exited with $rc"
		cat "$TMP/m_$mode.log"
		fail=1
		continue
	fi
	if ! cmp -s "$TMP/p_$mode.csv" "$TMP/m_$mode.csv"; then
		echo "FAIL $mode: the monitor's dump differs from the primary's"
		diff "$TMP/p_$mode.csv" "$TMP/m_$mode.csv" | head -10
		fail=1
	fi
	if ! "$PYTHON" - "$TMP/m_$mode.log" "$REF" "$mode" <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ref = [l.rstrip('\n').split(',') for l in open(sys.argv[2])][1:]
mode = sys.argv[3]
flows = [r for r in ref if r[0].startswith('ipv')]
pkts = sum(int(r[6]) for r in ref)
byts = sum(int(r[7]) for r in ref)
err = []
if len(js) != 1:
    err.append('%d reports, want 1' % len(js))
else:
    s = js[0]
    if (s['rx_pkts'], s['rx_bytes']) != (pkts, byts):
        err.append('rx %d/%d, want %d/%d' % (s['rx_pkts'], s['rx_bytes'],
                                              pkts, byts))
    live, aged = s['flows']['live'], s['flows']['aged']
    if mode == 'live' and (live, aged) != (len(flows), 0):
        err.append('live %d aged %d, want %d 0' % (live, aged, len(flows)))
    if mode == 'aged' and (live, aged) != (0, len(flows)):
        err.append('live %d aged %d, want 0 %d' % (live, aged, len(flows)))
    big = max(flows, key=lambda r: int(r[7]))
    top = s['top'][0] if s['top'] else None
    if mode == 'live' and (top is None or top['bytes'] != int(big[7])):
        err.append('top flow %s, want %s' % (top, big))
for e in err:
    print('FAIL %s: %s' % (mode, e))
sys.exit(1 if err else 0)
PY
	then
		cat "$TMP/m_$mode.log"
		fail=1
	else
		echo "$mode: the monitor's dump equals the primary's" \
			"($(($(wc -l < "$TMP/m_$mode.csv") - 1)) rows)"
	fi
done

# ---- a monitor left to run until the primary stops writes its dump ----
start_primary -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- \
	--stats-interval 0 --flow-timeout 0 --flow-dump "$TMP/p_end.csv" \
	> "$TMP/p.log" 2>&1
if ! wait_for '^lcore 1: RX port' "$TMP/p.log"; then
	echo "FAIL end: the primary did not start"
	tail -5 "$TMP/p.log"
	exit 1
fi
sleep 1
monitor --stats-interval 100 --flow-dump "$TMP/m_end.csv" \
	> "$TMP/m_end.log" 2>&1 &
MON=$!
if ! wait_for '=== flowcount monitor' "$TMP/m_end.log"; then
	echo "FAIL end: the monitor did not report"
	cat "$TMP/m_end.log"
	fail=1
fi
stop_primary end
wait $MON
rc=$?
if [ $rc -ne 0 ] || ! grep -q 'the primary stopped' "$TMP/m_end.log"; then
	echo "FAIL end: the monitor exited with $rc"
	cat "$TMP/m_end.log"
	fail=1
elif ! cmp -s "$TMP/p_end.csv" "$TMP/m_end.csv"; then
	echo "FAIL end: the monitor's dump differs from the primary's"
	diff "$TMP/p_end.csv" "$TMP/m_end.csv" | head -10
	fail=1
else
	echo "end: a monitor without --monitor-count wrote its dump as the" \
		"primary stopped, equal to the primary's" \
		"($(($(wc -l < "$TMP/m_end.csv") - 1)) rows)"
fi
# the primary is gone, its hugepage files are not: no primary, it says
refused "--monitor after the primary exited" \
	"^dpdk-flowcount: no primary process running with file prefix '$FC_PREFIX'" \
	monitor --monitor-count 1

# ---- while traffic runs; a monitor killed mid-read ----
# infinite_rx takes single-segment frames: the forwarding test's capture
"$PYTHON" "$TEST_DIR/fwd_frames.py" gen "$TMP/loop.pcap" || exit 1
start_primary -l 0-1 --vdev "net_pcap0,rx_pcap=$TMP/loop.pcap,infinite_rx=1" \
	-- --stats-interval 0 --flow-dump "$TMP/p_loop.csv" > "$TMP/p.log" 2>&1
if ! wait_for '^lcore 1: RX port' "$TMP/p.log"; then
	echo "FAIL traffic: the primary did not start"
	tail -5 "$TMP/p.log"
	exit 1
fi
sleep 0.3
# an option of the forwarding process is refused, not ignored
refused "traffic: --monitor with --max-flows" \
	'--max-flows is an option of the forwarding' \
	monitor --monitor-count 1 --max-flows 5
# this one with the --proc-type a user may still give
MONITOR_EAL=--proc-type=secondary monitor --stats-interval 0 \
	> "$TMP/m_kill.log" 2>&1 &
MON=$!
monitor --monitor-count 5 --stats-interval 100 --stats-format json \
	> "$TMP/m_loop.log" 2>&1
rc=$?
kill -KILL $MON
wait $MON 2>/dev/null
sleep 0.2
if ! kill -0 "$FC_PID" 2>/dev/null; then
	echo "FAIL traffic: the primary died with its monitor"
	fail=1
fi
stop_primary traffic
if [ $rc -ne 0 ] || ! "$PYTHON" - "$TMP/m_loop.log" <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
rx = [s['rx_pkts'] for s in js]
if len(rx) != 5 or any(b <= a for a, b in zip(rx, rx[1:])):
    print('FAIL traffic: rx_pkts of 5 reports %s, want rising' % rx)
    sys.exit(1)
print('traffic: the monitor saw rx_pkts rise: %s' % rx)
PY
then
	cat "$TMP/m_loop.log"
	fail=1
fi
if ! grep -q '^flow dump: .* written' "$TMP/p.log"; then
	echo "FAIL traffic: no dump from the primary after its monitor died"
	fail=1
fi

# ---- refused ----
refused "--monitor in a primary" '--monitor runs as a secondary process' \
	run_fc --proc-type=primary -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" \
	-- --monitor
# no primary, then a --no-huge one: the reason, not "Success"
FC_PREFIX=fcmon$$_none
refused "--monitor without a primary" \
	"^dpdk-flowcount: no primary process running with file prefix '$FC_PREFIX'" \
	monitor --monitor-count 1
# its options are checked before it attaches: the mistake, not the
# missing primary
refused "--monitor with a bad option and no primary" \
	"^dpdk-flowcount: --monitor-count: '-1' is not a non-negative number" \
	monitor --monitor-count -1
refused "--monitor with a forwarding option and no primary" \
	"^dpdk-flowcount: --max-flows is an option of the forwarding process" \
	monitor --max-flows 5
start_fc -l 0-1 --vdev "net_pcap0,rx_pcap=$DEMO" -- --stats-interval 0 \
	> "$TMP/p.log" 2>&1
if wait_for '^lcore 1: RX port' "$TMP/p.log"; then
	refused "--monitor of a --no-huge primary" \
		"cannot attach to the primary process with file prefix '$FC_PREFIX': .* (it needs hugepages" \
		monitor --monitor-count 1
else
	echo "FAIL no-huge: the primary did not start"
	tail -5 "$TMP/p.log"
	fail=1
fi
stop_primary no-huge

exit $fail
