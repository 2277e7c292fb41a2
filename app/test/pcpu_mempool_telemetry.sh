#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Telemetry test: start dpdk-test with telemetry on, running the helper
# command pcpu_mempool_telemetry_hold (a pool "tel_pool" of n 100, elt_size
# 32, cache 8, budget 1 MiB, 7 objects out), query /pcpu/info, /pcpu/stats,
# /pcpu/audit, /pcpu_mempool/list and /pcpu_mempool/info,tel_pool with Debian's
# dpdk-telemetry.py, and check the values against what the helper set up.
#
#   pcpu_mempool_telemetry.sh DPDK_TEST [EAL args...]
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
hold_setup pcpu_tel
hold_start "$dpdk_test" pcpu_mempool_telemetry_hold "the pool" -- "$@"
lcores=$(hold_ready_field lcores)
main_lcore=$(hold_ready_field main)

out=$work/telemetry.out
printf '%s\n' /pcpu/info /pcpu/stats /pcpu/audit /pcpu_mempool/list \
	/pcpu_mempool/info,tel_pool /pcpu_mempool/info,no_such_pool |
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

python3 - "$out" "$lcores" "$main_lcore" <<'EOF'
import json
import sys

lines = [l for l in open(sys.argv[1]) if l.strip().startswith('{')]
lcores = int(sys.argv[2])
lcore0 = int(sys.argv[3])
# one reply per command, in order; the first line is the command list
replies = {}
ordered = []
for l in lines:
    d = json.loads(l)
    for k, v in d.items():
        ordered.append((k, v))
        replies.setdefault(k, v)
fails = []

def check(cond, what):
    if not cond:
        fails.append(what)

info = replies.get('/pcpu/info')
check(isinstance(info, dict), '/pcpu/info answered a dict')
if isinstance(info, dict):
    check(info.get('page_size') in (4096, 2097152), 'info page_size')
    check(info.get('unit_stride', 0) > 0, 'info unit_stride')
    check(info.get('chunk_size', 0) > 0, 'info chunk_size')
    check('max_populated' in info, 'info limit')
    check(info.get('nr_lcores') == lcores, 'info nr_lcores == %d' % lcores)
    check(len(info.get('lcores', [])) == lcores, 'info lcores list')

stats = replies.get('/pcpu/stats')
check(isinstance(stats, dict), '/pcpu/stats answered a dict')
if isinstance(stats, dict):
    for k in ('nr_alloc', 'nr_dealloc', 'nr_cur_alloc', 'nr_max_alloc',
              'nr_alloc_fail', 'nr_chunks', 'nr_max_chunks',
              'min_alloc_size', 'max_alloc_size', 'populated_bytes',
              'max_populated_bytes', 'populated_bytes_socket',
              'populated_pages', 'empty_pop_pages', 'page_size',
              'max_populated', 'unit_stride', 'chunk_size', 'nr_lcores',
              'nr_huge_fallback', 'cached_objs', 'cached_bytes'):
        check(k in stats, 'stats has ' + k)
    # the pool allocated at least its 7 objects out (plus a cache refill)
    check(stats.get('nr_cur_alloc', 0) >= 7, 'stats nr_cur_alloc >= 7')
    check(stats.get('populated_bytes', 0) > 0, 'stats populated_bytes')
    check(stats.get('nr_lcores') == lcores, 'stats nr_lcores')

audit = replies.get('/pcpu/audit')
check(audit == {'allocator': 0, 'pools': 1, 'pool_failures': 0,
                'first_failed_pool': ''},
      '/pcpu/audit: allocator and the one pool clean')

check(replies.get('/pcpu_mempool/list') == ['tel_pool'],
      '/pcpu_mempool/list == ["tel_pool"]')

pool = replies.get('/pcpu_mempool/info')
check(isinstance(pool, dict), '/pcpu_mempool/info answered a dict')
if isinstance(pool, dict):
    check(pool.get('name') == 'tel_pool', 'pool name')
    check(pool.get('n') == 100, 'pool n == 100')
    check(pool.get('elt_size') == 32, 'pool elt_size == 32')
    check(pool.get('cache_size') == 8, 'pool cache_size == 8')
    check(pool.get('in_use') == 7, 'pool in_use == 7')
    check(pool.get('avail') == 93, 'pool avail == 93')
    check(pool.get('budget_bytes') == 1 << 20, 'pool budget')
    objs = pool.get('objects', -1)
    check(7 <= objs <= 100, 'pool objects')
    check(pool.get('charged_bytes') == objs * 32 * lcores,
          'charged_bytes == objects x 32 x lcores')
    check(pool.get('get_success') == 7, 'pool get_success == 7')
    check(pool.get('get_fail') == 0, 'pool get_fail == 0')
    check(pool.get('cache_hits', -1) + pool.get('cache_misses', -1) == 7,
          'hits + misses == 7')
    check(pool.get('cache_high_watermark') == 8, 'high watermark')
    check(pool.get('cache_low_watermark') == 4, 'low watermark')
    check(pool.get('lcore_ids') == [lcore0], 'one lcore cache, main lcore')
    check(pool.get('lcore_gets') == [7], 'lcore_gets')
    check(len(pool.get('lcore_cache_len', [])) == 1, 'cache len per lcore')
    check(sum(pool.get('lcore_cache_len', [0])) == objs - 7,
          'cached == objects - in use (shared stack empty)')
# an unknown pool is an error reply (null), not a crash
check(ordered and ordered[-1] == ('/pcpu_mempool/info', None),
      'unknown pool answers null')

if fails:
    for f in fails:
        print('FAIL:', f)
    sys.exit(1)
print('telemetry: all %d replies checked' % len(lines))
EOF
