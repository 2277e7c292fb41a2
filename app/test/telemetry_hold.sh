# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Sourced by the telemetry and secondary-process tests: start dpdk-test
# running one of its *_telemetry_hold commands (which set something up,
# print a PCPU_TEL_READY line and wait for a file to appear), query it, and
# stop it.
#
#   . telemetry_hold.sh
#   hold_require_telemetry        # $telemetry, or exit 77
#   hold_setup NAME               # $prefix, $work, $log; cleanup at exit
#   hold_start DPDK_TEST COMMAND WHAT [ENV=VALUE...] -- [EAL args...]
#   ...                           # queries against --file-prefix $prefix
#   hold_stop                     # $test_rc: dpdk-test's exit status
#   hold_ready_field KEY          # KEY=value of the ready line
#
# A script that has more to remove at exit defines hold_cleanup_hook.

hold_require_telemetry() {
	telemetry=${DPDK_TELEMETRY:-/usr/bin/dpdk-telemetry.py}
	if [ ! -x "$telemetry" ] && ! command -v "$telemetry" >/dev/null; then
		echo "skip: $telemetry not found"
		exit 77
	fi
}

hold_cleanup() {
	touch "$hold_done"
	if [ -n "$hold_pid" ]; then
		wait "$hold_pid" 2>/dev/null
	fi
	rm -rf "$work"
	# a primary that secondaries map leaves its hugepage files
	"$(dirname "${BASH_SOURCE[0]}")/../../devtools/hugepage-files.sh" \
		remove "$prefix"
	if declare -F hold_cleanup_hook >/dev/null; then
		hold_cleanup_hook
	fi
}

hold_setup() {
	prefix=$1_$$
	work=$(mktemp -d)
	hold_done=$work/done
	log=$work/dpdk-test.log
	hold_pid=
	trap hold_cleanup EXIT
}

hold_start() {
	local dpdk_test=$1 command=$2 what=$3 rc
	local env_args=()

	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		env_args+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	env PCPU_TEL_DONE="$hold_done" DPDK_TEST="$command" \
		"${env_args[@]}" stdbuf -oL "$dpdk_test" \
		--file-prefix="$prefix" "$@" >"$log" 2>&1 &
	hold_pid=$!
	for _ in $(seq 1 300); do
		grep -q PCPU_TEL_READY "$log" && return 0
		if ! kill -0 "$hold_pid" 2>/dev/null; then
			wait "$hold_pid"
			rc=$?
			hold_pid=
			cat "$log"
			# a test that cannot run here (no hugepages) skips
			[ $rc -eq 77 ] && exit 77
			echo "FAIL: dpdk-test exited ($rc) before $what was ready"
			exit 1
		fi
		sleep 0.1
	done
	echo "FAIL: no ready line from dpdk-test:"
	cat "$log"
	exit 1
}

hold_ready_field() {
	sed -n "s/.*PCPU_TEL_READY.*$1=\\([0-9]*\\).*/\\1/p" "$log"
}

hold_stop() {
	touch "$hold_done"
	wait "$hold_pid"
	test_rc=$?
	hold_pid=
}
