#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# dpdk-pcpu-info against the primary's own statistics: dpdk-test holds a
# pool and a few objects (the helper pcpu_mempool_telemetry_hold, EAL with
# hugepages: DPDK 22.11 gives a --no-huge primary no secondary), the
# primary's telemetry (/pcpu/info, /pcpu/stats, /pcpu_mempool/info) is read
# before and after dpdk-pcpu-info --json runs as a secondary process, and
# every figure the tool prints must be the primary's: allocator, NUMA
# nodes, lcores, chunks (against the audit's identities), size-class
# caches, the pool and the owners (/pcpu/owner of each). The text output
# is checked for its sections.
#
#   pcpu_info.sh DPDK_TEST DPDK_PCPU_INFO [EAL args...]
#
# Exit status: 0 pass, 1 fail, 77 skip (no dpdk-telemetry.py).

set -uo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 DPDK_TEST DPDK_PCPU_INFO [EAL args...]" >&2
	exit 2
fi
dpdk_test=$1
pcpu_info=$2
shift 2
. "$(dirname "$(readlink -f "$0")")/telemetry_hold.sh"
hold_require_telemetry
hold_setup pcpu_info
# EAL's memory where a secondary finds it free even in an ASan build
# (EAL's default, 4 GiB, is in ASan's shadow): see run_monitor.sh
hold_start "$dpdk_test" pcpu_mempool_telemetry_hold "the pool" \
	DPDK_TEST_HUGE_REQUIRED=1 -- \
	--base-virtaddr="${PRIMARY_BASE_VIRTADDR:-0x180000000000}" "$@"

query() {
	printf '%s\n' /pcpu/info /pcpu/stats /pcpu_mempool/info,tel_pool \
		/pcpu/owner,root /pcpu/owner,pool:tel_pool |
		"$telemetry" -f "$prefix" >"$1" 2>&1
}
query "$work/before.out"
"$pcpu_info" --file-prefix="$prefix" -- --json >"$work/info.json" \
	2>"$work/info.err"
info_rc=$?
"$pcpu_info" --file-prefix="$prefix" >"$work/info.txt" 2>&1
text_rc=$?
"$pcpu_info" --file-prefix="$prefix" -- --pool no_such_pool --json \
	>"$work/nopool.out" 2>&1
echo "$?" >"$work/nopool.rc"
# mistakes of the user's told as such, with a primary running
"$pcpu_info" --file-prefix="$prefix" --proc-type=primary \
	>"$work/proctype.out" 2>&1
echo "$?" >"$work/proctype.rc"
"$pcpu_info" --file-prefix="$prefix" -- --pool >"$work/noarg.out" 2>&1
echo "$?" >"$work/noarg.rc"
query "$work/after.out"
hold_stop

cat "$work/info.txt"
if [ $info_rc -ne 0 ] || [ $text_rc -ne 0 ]; then
	echo "FAIL: dpdk-pcpu-info exited with $info_rc (json), $text_rc (text)"
	cat "$work/info.err"
	exit 1
fi
if [ $test_rc -ne 0 ]; then
	echo "FAIL: dpdk-test exited with $test_rc:"
	cat "$log"
	exit 1
fi

python3 - "$work" <<'EOF'
import json
import os
import sys

work = sys.argv[1]


def replies(name):
    out = {}
    for line in open(os.path.join(work, name)):
        line = line.strip()
        if line.startswith('{'):
            for k, v in json.loads(line).items():
                if k == '/pcpu/owner' and v:
                    out.setdefault('owners', {})[v['name']] = v
                out.setdefault(k, v)
    return out


before, after = replies('before.out'), replies('after.out')
info = json.load(open(os.path.join(work, 'info.json')))
text = open(os.path.join(work, 'info.txt')).read()
nopool = open(os.path.join(work, 'nopool.out')).read()
nopool_rc = int(open(os.path.join(work, 'nopool.rc')).read())
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


st, st2 = before['/pcpu/stats'], after['/pcpu/stats']
alloc = info['allocator']
# every figure of the primary's own statistics, as the tool printed it;
# 'readers' is 1 while the tool runs (it is the reader), 0 around it
for k, v in st.items():
    if k == 'populated_bytes_socket':
        continue
    if k == 'readers':
        check(v == 0 and st2[k] == 0, 'no reader before or after')
        check(alloc.get(k) == 1, 'the tool saw itself reading')
        continue
    check(st2.get(k) == v, 'primary idle: %s %s -> %s' % (k, v, st2.get(k)))
    check(alloc.get(k) == v, 'allocator %s: tool %s, primary %s' %
          (k, alloc.get(k), v))
check(alloc.get('shared') == 1 and alloc.get('base_addr', 0) > 0,
      'a shared area at an address')
nodes = info['nodes']
sock = st['populated_bytes_socket']
check([n['populated_bytes'] for n in nodes] == sock[:len(nodes)] and
      sum(sock[len(nodes):]) == 0, 'nodes %s, primary %s' % (nodes, sock))
lcores = info['lcores']
check([l['lcore'] for l in lcores] == before['/pcpu/info']['lcores'],
      'lcores with memory')
for l in lcores:
    check(l['populated_bytes'] == st['populated_pages'] * st['page_size'],
          'lcore %d populated bytes' % l['lcore'])
    check(l['node'] >= 0, 'lcore %d node' % l['lcore'])
    check(sum(c['len'] for c in l.get('caches', [])) == l['cached_objs'],
          'lcore %d caches add up' % l['lcore'])
check(sum(l['cached_objs'] for l in lcores) == st['cached_objs'],
      'cached objects over the lcores')
check(any(c['size'] == 24 and c['high'] > 0
          for l in lcores for c in l.get('caches', [])),
      'the 24 B class in use')
chunks = info['chunks']
check(len(chunks) == st['nr_chunks'], 'chunks: %d, primary %d' %
      (len(chunks), st['nr_chunks']))
check(sum(c['populated_pages'] for c in chunks) == st['populated_pages'],
      'populated pages over the chunks')
check(sum(c['empty_pages'] for c in chunks) == st['empty_pop_pages'],
      'empty pages over the chunks')
# the audit's identity: user-live + cached == live objects in the chunks
check(sum(c['nr_alloc'] for c in chunks) ==
      st['nr_cur_alloc'] + st['cached_objs'], 'objects over the chunks')
pools = info['pools']
check([p['name'] for p in pools] == ['tel_pool'], 'pools %s' % pools)
if pools:
    p, tp = pools[0], before['/pcpu_mempool/info']
    for k in ('n', 'elt_size', 'align', 'cache_size', 'flags', 'in_use',
              'avail', 'objects', 'free_shared', 'budget_bytes',
              'charged_bytes', 'init', 'rcu', 'get_success', 'get_fail',
              'get_fail_budget', 'put', 'cache_hits', 'cache_misses',
              'put_refused', 'rcu_pending'):
        check(p.get(k) == tp.get(k), 'pool %s: tool %s, primary %s' %
              (k, p.get(k), tp.get(k)))
    check(p.get('lcore_caches') == len(tp.get('lcore_ids', [])),
          'pool lcore caches')
check(nopool_rc != 0 and 'no_such_pool: no such pool' in nopool,
      '--pool of an unknown name: exit %d, %r' % (nopool_rc, nopool))
for case, want in (('proctype', 'leave out --proc-type'),
                   ('noarg', "option '--pool' needs an argument")):
    out = open(os.path.join(work, case + '.out')).read()
    rc = int(open(os.path.join(work, case + '.rc')).read())
    # one line, no usage text after it (the hint names --help)
    check(rc == 1 and want in out and 'cannot attach' not in out and
          'Usage:' not in out, '%s: exit %d, %r' % (case, rc, out[-300:]))
# the owners: the root and the pool's, every figure the primary's own
owners = {o['name']: o for o in info.get('owners', [])}
check(sorted(owners) == ['pool:tel_pool', 'root'], 'owners %s' % owners)
for name, to in before.get('owners', {}).items():
    for k, v in to.items():
        check(owners.get(name, {}).get(k) == v and
              after['owners'][name][k] == v, 'owner %s %s: tool %s, '
              'primary %s' % (name, k, owners.get(name, {}).get(k), v))
check(len(before.get('owners', {})) == 2, 'the primary answered for both')
if 'pool:tel_pool' in owners and pools:
    check(owners['pool:tel_pool']['live_bytes'] ==
          pools[0]['charged_bytes'], 'the pool is charged to its owner')
for title in ('percpu allocator', 'NUMA nodes', 'lcores with memory',
              'lcore caches', 'chunks', 'pools', 'owners'):
    check('========== %s' % title in text, 'text section %s' % title)
check('tel_pool' in text, 'text lists the pool')
check('pool:tel_pool' in text, 'text lists the pool\'s owner')
if fails:
    for f in fails:
        print('FAIL:', f)
    sys.exit(1)
print('pcpu-info: %d allocator figures, %d lcores, %d chunks, %d pools, '
      '%d owners equal to the primary\'s' % (len(st), len(lcores),
                                             len(chunks), len(pools),
                                             len(owners)))
EOF
