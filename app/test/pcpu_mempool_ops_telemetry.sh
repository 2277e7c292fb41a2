#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# DPDK's own tooling on an rte_mempool with the "pcpu" ops: start
# dpdk-test running the helper command pcpu_mempool_ops_telemetry_hold (a
# pool "tel_ops" of n 1000, elt_size 64, cache 32, made with
# rte_pcpu_mempool_ops_create(), 5 objects out), then
#
# - query /mempool/list, /mempool/info,tel_ops and /pcpu/stats with
#   Debian's dpdk-telemetry.py and check the values against what the
#   helper set up (the driver's layout: header 24 + element 64 + trailer
#   40 = a 128-byte stride; the flags NO_IOVA_CONTIG and NON_IO);
# - with hugepages (a --no-huge primary takes no secondary process), run
#   Debian's dpdk-proc-info as a secondary with the library loaded by -d
#   (so that it registers the "pcpu" ops at the primary's index) and check
#   its --show-mempool=tel_ops report: ops name, counts, layout, flags.
#
#   pcpu_mempool_ops_telemetry.sh DPDK_TEST LIBRARY_SO [EAL args...]
#
# Exit status: 0 pass, 1 fail, 77 skip (no dpdk-telemetry.py).

set -uo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 DPDK_TEST LIBRARY_SO [EAL args...]" >&2
	exit 2
fi
dpdk_test=$1
lib=$2
shift 2
. "$(dirname "$(readlink -f "$0")")/telemetry_hold.sh"
hold_require_telemetry
proc_info=${DPDK_PROC_INFO:-/usr/bin/dpdk-proc-info}
huge=1
for a in "$@"; do
	[ "$a" = --no-huge ] && huge=0
done
extra=()
# dpdk-proc-info wants an ethdev port to start
[ $huge = 1 ] && extra=(--vdev=net_null0)

# EAL loads a -d library only if no directory above it is world-writable
# (a build tree under /tmp is): then a copy in one that is not
safe_dir() {
	local d
	d=$(readlink -f "$1") || return 1
	while [ "$d" != / ]; do
		[ -n "$(find "$d" -maxdepth 0 -perm -0002)" ] && return 1
		d=$(dirname "$d")
	done
	return 0
}
# sets plugin (and plugin_copy, the directory to remove at the end)
plugin_place() {
	local d
	plugin=$1
	safe_dir "$(dirname "$1")" && return
	for d in "$HOME" /run /var/lib; do
		if [ -d "$d" ] && [ -w "$d" ] && safe_dir "$d"; then
			plugin_copy=$(mktemp -d "$d/pcpu-plugin.XXXXXX") || return
			chmod 755 "$plugin_copy"
			cp "$1" "$plugin_copy/" &&
				plugin=$plugin_copy/$(basename "$1")
			return
		fi
	done
}
plugin=
plugin_copy=

hold_cleanup_hook() {
	[ -z "$plugin_copy" ] || rm -rf "$plugin_copy"
}
hold_setup pcpu_ops_tel
hold_start "$dpdk_test" pcpu_mempool_ops_telemetry_hold "the pool" -- \
	"$@" "${extra[@]}"
ops_index=$(hold_ready_field ops_index)

out=$work/telemetry.out
printf '%s\n' /mempool/list /mempool/info,tel_ops /pcpu/stats |
	"$telemetry" -f "$prefix" >"$out" 2>&1
rc=$?
pout=$work/proc-info.out
prc=0
if [ $huge = 1 ] && [ -x "$proc_info" ]; then
	plugin_place "$lib"
	"$proc_info" --file-prefix="$prefix" --no-pci -d "$plugin" -- \
		--show-mempool=tel_ops >"$pout" 2>&1 || prc=$?
fi
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

python3 - "$out" "$ops_index" <<'PYEOF' || exit 1
import json
import sys

replies = {}
for l in open(sys.argv[1]):
    if l.strip().startswith('{'):
        replies.update(json.loads(l))
ops_index = int(sys.argv[2])
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


pools = replies.get('/mempool/list')
check(isinstance(pools, list) and 'tel_ops' in pools,
      '/mempool/list has tel_ops')
info = replies.get('/mempool/info')
check(isinstance(info, dict), '/mempool/info answered a dict')
if isinstance(info, dict):
    want = {'name': 'tel_ops', 'size': 1000, 'populated_size': 1000,
            'cache_size': 32, 'elt_size': 64, 'header_size': 24,
            'trailer_size': 40, 'private_data_size': 0,
            'ops_index': ops_index}
    for k, v in want.items():
        check(info.get(k) == v, 'info %s == %r (got %r)' % (k, v, info.get(k)))
    flags = info.get('flags', 0)
    # RTE_MEMPOOL_F_POOL_CREATED, _NO_IOVA_CONTIG, _NON_IO
    check(flags & 0x70 == 0x70, 'flags %#x: created, no IOVA, non-IO' % flags)
stats = replies.get('/pcpu/stats')
check(isinstance(stats, dict) and stats.get('nr_cur_alloc', 0) >= 1,
      '/pcpu/stats counts the pool block')
if fails:
    for f in fails:
        print('FAIL:', f)
    sys.exit(1)
print('telemetry: /mempool/list, /mempool/info and /pcpu/stats checked')
PYEOF

if [ $huge = 0 ]; then
	echo "dpdk-proc-info: not run (a --no-huge primary takes no secondary" \
		"process; the -huge variant runs it)"
	exit 0
fi
if [ ! -x "$proc_info" ]; then
	echo "FAIL: $proc_info not found"
	exit 1
fi
echo "--- dpdk-proc-info output"
cat "$pout"
if [ $prc -ne 0 ]; then
	echo "FAIL: dpdk-proc-info exited with $prc"
	exit 1
fi
for want in "ops_index $ops_index ops_name pcpu" \
		"Count: avail (995), in use (5)" "Size 1000 Cache 32 element 64" \
		"header 24 trailer 40" "No IOVA config (y)" \
		"Not used for IO (y)"; do
	if ! grep -qF -- "$want" "$pout"; then
		echo "FAIL: dpdk-proc-info: no \"$want\""
		exit 1
	fi
done
echo "dpdk-proc-info: --show-mempool=tel_ops checked"
