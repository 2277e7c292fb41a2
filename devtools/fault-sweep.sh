#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# The fault sweep: build the library with its failure points
# (-Dfault_injection=true) and AddressSanitizer+UBSan in a build directory
# of its own, then run pcpu_fault_sweep (app/test/test_pcpu_fault.c), which
# makes every call of every failure point fail in turn in every scenario,
# checks the errors, the audits and that nothing leaks, and prints a table
# of failure points by scenario. EAL runs with --no-huge, 4 lcores on two
# CPUs; the attach scenarios start a primary process with EAL hugepages
# (64 free 2 MiB pages, else they are left out, as the sweep says) and
# its secondary processes.
#
#   devtools/fault-sweep.sh [BUILD_DIR]        (default build-fault)
#
# Environment: WERROR (true|false, default true), MESON_OPTS, and
# FAULT_SWEEP_ARGS, the sweep's own options (e.g. "-s pool_cache -v").
# Exit 0 when no run broke a rule.

set -uo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."
B=${1:-build-fault}
WERROR=${WERROR:-true}

if [ ! -f "$B/build.ninja" ]; then
	# b_lundef=false: the sanitizer runtimes resolve symbols at run time
	meson setup "$B" -Dwerror="$WERROR" -Dbuildtype=debugoptimized \
		-Dfault_injection=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbenchmarks=disabled -Dexamples=false \
		${MESON_OPTS:-} || exit 1
fi
# the sweep and the static library it links, nothing else
ninja -C "$B" app/test/pcpu_fault_sweep || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cpus=$(python3 -c \
	'import os; print(",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))')
# shellcheck disable=SC2086
exec "$B/app/test/pcpu_fault_sweep" --no-huge -m 512 --no-pci \
	--file-prefix=pcpu_fault_sweep --lcores="(0-3)@($cpus)" \
	--log-level=lib.eal:warning -- ${FAULT_SWEEP_ARGS:-}
