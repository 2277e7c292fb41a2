#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Telemetry of a running dpdk-flowcount, queried with Debian's
# dpdk-telemetry.py, once the shipped capture has been read (the app keeps
# running, no --exit-on-idle): /flowcount/stats reports exactly the
# capture's packets, bytes and flows, /flowcount/flows,N lists N flows by
# bytes with the top one equal to the reference; then SIGINT stops the app
# cleanly with its summary. (infinite_rx=1 cannot replay this capture: it
# has frames longer than one mbuf, which net_pcap refuses in that mode.)

. "$(dirname "$0")/common.sh"

TEL=$(command -v dpdk-telemetry.py || true)
if [ -z "$TEL" ]; then
	echo "SKIP: dpdk-telemetry.py not found (Debian package dpdk)"
	exit $SKIP
fi

prefix=fctel$$
FC_FILE_PREFIX=$prefix FC_TIMEOUT=90 start_fc -l 0-1 \
	--vdev "net_pcap0,rx_pcap=$DEMO_DIR/demo.pcap" -- \
	--stats-interval 0 --flow-timeout 0 > "$TMP/log" 2>&1
app=$FC_PID
for i in $(seq 1 100); do
	grep -q "counting on" "$TMP/log" 2> /dev/null && break
	sleep 0.2
done
sleep 1   # the capture is read in well under a second

query() {
	printf '%s\n' "$@" | "$PYTHON" "$TEL" -f "$prefix" 2>&1
}
query /flowcount/stats '/flowcount/flows,3' > "$TMP/q1"
sleep 0.5
query /flowcount/stats > "$TMP/q2"
query '/flowcount/flows,abc' > "$TMP/e1"
query '/flowcount/flows,-1' > "$TMP/e2"
query '/flowcount/flows,3,bogus' > "$TMP/e3"
query '/flowcount/stats,1' > "$TMP/e4"
query '/flowcount/flows,2,all' > "$TMP/q3"
query '/flowcount/flows,2,aged' > "$TMP/q4"
query '/flowcount/flows,3,' > "$TMP/q5"
kill -INT $app
wait $app
rc=$?

cat "$TMP/q1" "$TMP/q2"
"$PYTHON" - "$TMP/q1" "$TMP/q2" "$DEMO_DIR/demo.flows.csv" "$TMP/e1" \
	"$TMP/e2" "$TMP/e3" "$TMP/e4" "$TMP/q3" "$TMP/q4" "$TMP/q5" <<'PY'
import json, sys
def replies(path):
    out = {}
    for line in open(path):
        line = line.strip()
        if line.startswith('{'):
            out.update(json.loads(line))
    return out
q1, q2 = replies(sys.argv[1]), replies(sys.argv[2])
ref = [l.rstrip('\n').split(',') for l in open(sys.argv[3])][1:]
flows_ref = sum(1 for r in ref if r[0].startswith('ipv'))
pkts_ref = sum(int(r[6]) for r in ref)
bytes_ref = sum(int(r[7]) for r in ref)
big = max((r for r in ref if r[0].startswith('ipv')), key=lambda r: int(r[7]))
s1, s2 = q1['/flowcount/stats'], q2['/flowcount/stats']
top = list(q1['/flowcount/flows'].values())
errors = []
if s1['rx_pkts'] != pkts_ref or s1['rx_bytes'] != bytes_ref:
    errors.append(f"rx {s1['rx_pkts']} pkts {s1['rx_bytes']} bytes, want "
                  f"{pkts_ref} / {bytes_ref}")
if s2['uptime_ms'] <= s1['uptime_ms']:
    errors.append('uptime did not move between queries')
if top and [top[0]['src'], top[0]['dst'], str(top[0]['sport']),
            str(top[0]['dport']), str(top[0]['bytes'])] != \
        [big[2], big[3], big[4], big[5], big[7]]:
    errors.append(f'top flow {top[0]} is not {big}')
if s1['flows_live'] != flows_ref or s1['flows_created'] != flows_ref:
    errors.append(f"flows live {s1['flows_live']} created "
                  f"{s1['flows_created']}, want {flows_ref}")
# the worker looked each flow up at least once, fewer times than the
# flows have packets (the default flow cache holds them all)
flow_pkts = sum(int(r[6]) for r in ref if r[0].startswith('ipv'))
lookups = s1.get('lcore_1', {}).get('hash_lookups')
if lookups is None or not flows_ref <= lookups < flow_pkts:
    errors.append(f'lcore_1 hash_lookups {lookups}, want {flows_ref} to '
                  f'{flow_pkts - 1}')
if len(top) != 3:
    errors.append(f'{len(top)} flows listed, want 3')
if [f['bytes'] for f in top] != sorted((f['bytes'] for f in top),
                                       reverse=True):
    errors.append('flows not sorted by bytes')
for f in top:
    for k in ('family', 'proto', 'src', 'dst', 'sport', 'dport',
              'packets', 'bytes'):
        if k not in f:
            errors.append(f'flow without {k}')
# bad parameters: an error message, not null
for path, cmd in zip(sys.argv[4:8], ['/flowcount/flows'] * 3 +
                     ['/flowcount/stats']):
    r = replies(path).get(cmd)
    if not isinstance(r, dict) or 'error' not in r:
        errors.append(f'{path}: no error message: {r}')
    else:
        print(f'bad parameters: {r["error"]}')
# scopes: all = live here (nothing aged), aged is empty
q3 = list(replies(sys.argv[8])['/flowcount/flows'].values())
q4 = replies(sys.argv[9])['/flowcount/flows']
if q3 != top[:2]:
    errors.append(f'scope all {q3} is not the top 2 live {top[:2]}')
if q4 not in ({}, None, []):
    errors.append(f'scope aged not empty: {q4}')
# an empty scope is the default, live (as an empty N is --top)
q5 = list(replies(sys.argv[10])['/flowcount/flows'].values())
if q5 != top:
    errors.append(f'empty scope {q5} is not the live top 3 {top}')
for e in errors:
    print('FAIL:', e)
sys.exit(1 if errors else 0)
PY
ok=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: dpdk-flowcount exited with $rc after SIGINT"
	tail "$TMP/log"
	exit 1
fi
if ! grep -q "signal 2 (.*) received" "$TMP/log" ||
		! grep -q "summary after" "$TMP/log"; then
	echo "FAIL: no clean stop with summary after SIGINT"
	tail "$TMP/log"
	exit 1
fi
[ $ok -eq 0 ] && echo "PASS: telemetry answered; SIGINT gave a clean stop" \
	"and the final summary"
exit $ok
