#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# The sanitizer gate: build library, tests and example with
# AddressSanitizer and UndefinedBehaviorSanitizer in their own build
# directory and run the unit and fast tests that use no hugepages
# (--no-huge; the -huge variants are left out: ASan's shadow and EAL's
# hugepage mappings are not tested together).
#
#   devtools/test-asan.sh [BUILD_DIR]        (default build-asan)
#
# Environment: WERROR (true|false, default true), MESON_OPTS.
# Ends with run-tests.sh's "N passed, N failed" line; exit 0 when nothing
# failed.

set -uo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."
B=${1:-build-asan}
WERROR=${WERROR:-true}

if [ ! -f "$B/build.ninja" ]; then
	# b_lundef=false: the sanitizer runtimes resolve symbols of the
	# shared library at run time.
	meson setup "$B" -Dwerror="$WERROR" -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dbenchmarks=disabled ${MESON_OPTS:-} || exit 1
fi
ninja -C "$B" || exit 1

# Every error is fatal and prints a stack. Leak detection stays on: with
# --no-huge, EAL's memory is ordinary mmap()ed memory that LeakSanitizer
# does not track, and the tests release what they allocate (verified on
# real runs: no leak report). Only a UBSan report does not stop the
# process by itself, hence halt_on_error. verify_asan_link_order=0: the
# telemetry test starts dpdk-test under stdbuf(1), whose LD_PRELOAD
# library comes before the ASan runtime (harmless: it is not
# instrumented and intercepts nothing ASan needs).
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

mapfile -t tests < <(meson introspect --tests "$B" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
	suites = [s.split(":")[-1] for s in t["suite"]]
	# consumer: an uninstrumented program linking the installed
	# (instrumented) library cannot load the ASan runtime first; it
	# tests packaging, which the plain build covers, as does
	# consumer_subproject (a fresh, uninstrumented parent project)
	if ("fast-tests" in suites or "unit" in suites) and \
			not t["name"].endswith("-huge") and \
			t["name"] not in ("consumer", "consumer_subproject"):
		print(t["name"])')
if [ ${#tests[@]} -eq 0 ]; then
	echo "test-asan: no tests in $B" >&2
	exit 1
fi
echo "test-asan: ${#tests[@]} tests: ${tests[*]}"
# sanitized runs are slower: a longer timeout
exec ./devtools/run-tests.sh "$B" --timeout-multiplier 3 "${tests[@]}"
