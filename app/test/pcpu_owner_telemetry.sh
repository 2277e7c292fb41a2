#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Telemetry of the owners: start dpdk-test with telemetry on, running the
# helper command pcpu_owner_telemetry_hold (an owner "tel_owner" with a
# limit of 4000 bytes per lcore copy holding 4 objects of 64 B and 2 of
# 1000 B, after 7 allocations, a refused one and a free; a pool
# "tel_opool" of 32 B objects with a budget of 1 MiB and 3 objects out),
# query /pcpu/owners and /pcpu/owner,NAME with Debian's dpdk-telemetry.py,
# and check the values against what the helper set up.
#
#   pcpu_owner_telemetry.sh DPDK_TEST [EAL args...]
#
# Exit status: 0 pass, 1 fail, 77 skip (no dpdk-telemetry.py).

set -uo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 DPDK_TEST [EAL args...]" >&2
	exit 2
fi
dpdk_test=$1
shift
. "$(dirname "$(readlink -f "$0")")/telemetry_hold.sh"
hold_require_telemetry
hold_setup pcpu_otel
hold_start "$dpdk_test" pcpu_owner_telemetry_hold "the owners" -- "$@"
lcores=$(hold_ready_field lcores)

out=$work/telemetry.out
printf '%s\n' /pcpu/owners /pcpu/owner,tel_owner /pcpu/owner,root \
	/pcpu/owner,pool:tel_opool /pcpu_mempool/info,tel_opool \
	/pcpu/owner,no_such_owner |
	"$telemetry" -f "$prefix" >"$out" 2>&1
rc=$?
hold_stop

echo "--- dpdk-telemetry.py output"
cat "$out"
if [ $rc -ne 0 ]; then
	echo "FAIL: dpdk-telemetry.py exited with $rc"
	exit 1
fi
if [ $test_rc -ne 0 ]; then
	echo "FAIL: dpdk-test exited with $test_rc:"
	cat "$log"
	exit 1
fi

python3 - "$out" "$lcores" <<'EOF'
import json
import sys

lines = [l for l in open(sys.argv[1]) if l.strip().startswith('{')]
nl = int(sys.argv[2])
# one reply per command, in order (four for /pcpu/owner)
ordered = []
for l in lines:
    for k, v in json.loads(l).items():
        ordered.append((k, v))
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


names = [v for k, v in ordered if k == '/pcpu/owners']
check(len(names) == 1 and isinstance(names[0], list), '/pcpu/owners list')
if names and isinstance(names[0], list):
    check(names[0][:1] == ['root'], 'the root first')
    check('tel_owner' in names[0], 'tel_owner listed')
    check('pool:tel_opool' in names[0], 'the pool owner listed')

owners = [v for k, v in ordered if k == '/pcpu/owner']
check(len(owners) == 4, 'four /pcpu/owner replies')
if len(owners) == 4:
    o, root, pool, unknown = owners
    check(isinstance(o, dict) and o.get('name') == 'tel_owner', 'tel_owner')
    if isinstance(o, dict):
        copy = 4 * 64 + 2 * 1000
        check(o.get('live_copy_bytes') == copy, 'live_copy_bytes %d' % copy)
        check(o.get('live_bytes') == copy * nl, 'live_bytes x lcores')
        check(o.get('peak_bytes') == (copy + 64) * nl,
              'peak, before the free')
        check(o.get('limit_bytes') == 4000 * nl, 'limit')
        check(o.get('nr_alloc') == 7, 'nr_alloc 7')
        check(o.get('nr_free') == 1, 'nr_free 1')
        check(o.get('nr_live') == 6, 'nr_live 6')
        check(o.get('nr_fail') == 1, 'nr_fail 1')
        check(o.get('nr_lcores') == nl, 'nr_lcores')
        check(o.get('id', 0) >= 512, 'an id of an owner with a limit')
        check(sum(o.get('live_bytes_socket', [])) == copy * nl,
              'per socket adds up')
    check(isinstance(root, dict) and root.get('id') == 1 and
          root.get('limit_bytes') == 0, 'the root')
    check(isinstance(pool, dict) and pool.get('limit_bytes') == 1 << 20 and
          pool.get('nr_live') == 3 and
          pool.get('live_bytes') == 3 * 32 * nl, 'the pool owner')
    pinfo = [v for k, v in ordered if k == '/pcpu_mempool/info']
    check(len(pinfo) == 1 and isinstance(pinfo[0], dict) and
          pinfo[0].get('owner') == 'pool:tel_opool' and
          isinstance(pool, dict) and
          pinfo[0].get('charged_bytes') == pool.get('live_bytes'),
          'the pool names its owner and has the same charge')
    # an unknown owner is an error reply (null), not a crash
    check(unknown is None, 'unknown owner answers null')

if fails:
    for f in fails:
        print('FAIL:', f)
    sys.exit(1)
print('owner telemetry: all %d replies checked' % len(lines))
EOF
