#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Build the libFuzzer targets with clang (ASan + UBSan + libFuzzer, in
# $FUZZ_BUILDDIR, default build-fuzz) and run each for SECONDS (default 60).
#
#   devtools/fuzz.sh [SECONDS] [TARGET...]
#
# Targets: fuzz_pcpu (allocator, caches and pools against a model) and
# fuzz_flow_parse (the dpdk-flowcount parser). Corpora:
#   app/test/fuzz/corpus/<target>/    seeds and regressions (read only here;
#                                     replayed by the fuzz_replay_* tests)
#   <builddir>/corpus/<target>/       what libFuzzer finds (kept between runs)
#   <builddir>/seeds/flow_parse/      frames of ../shared/data/pcap/malformed
#                                     (extracted now; skipped when absent)
# A crash leaves <builddir>/artifacts/<target>-crash-*; the script prints
# it and exits 1. Add the file to app/test/fuzz/corpus/<target>/ (with the
# fix) so the replay test keeps it from coming back.
#
# FUZZ_JOBS (default: 2 when the machine has 2 CPUs or more, else 1) targets
# run at once.
#
# Exit: 0 no crash, 1 a crash or a build error, 77 clang/libFuzzer missing.

set -uo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."
TOP=$PWD
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_pcpu fuzz_flow_parse)
B=${FUZZ_BUILDDIR:-build-fuzz}
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}

if ! command -v "$CLANG" >/dev/null 2>&1 ||
   ! command -v "$CLANGXX" >/dev/null 2>&1; then
	echo "fuzz: $CLANG/$CLANGXX not found (apt-get install clang libclang-rt-14-dev)"
	exit 77
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	"$CLANG" -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	echo "fuzz: $CLANG cannot link libFuzzer (apt-get install libclang-rt-14-dev)"
	exit 77
fi

if [ ! -f "$B/build.ninja" ]; then
	# Everything sanitized; app/test/fuzz/meson.build builds the library
	# again with coverage counters for the targets, which link libFuzzer.
	CC=$CLANG CXX=$CLANGXX meson setup "$B" \
		-Dfuzz=true -Dtests=false -Dexamples=false \
		-Dbenchmarks=disabled -Dbuildtype=debugoptimized \
		-Ddefault_library=static \
		-Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
ninja -C "$B" || exit 1

mkdir -p "$B/artifacts"
# Leaks: EAL keeps its memory until exit (no rte_eal_cleanup() in a
# fuzzer), so LeakSanitizer's report at exit would be EAL's, not ours; the
# model checks our own accounting after every input instead.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

jobs=${FUZZ_JOBS:-$( [ "$(nproc)" -ge 2 ] && echo 2 || echo 1 )}

# Run one target; its output goes to <builddir>/<target>.log.
run_target() {
	local t=$1 name=${1#fuzz_} corpus seeds extra start trc
	corpus=$B/corpus/$name
	seeds=("$TOP/app/test/fuzz/corpus/$name")
	mkdir -p "$corpus"
	if [ "$name" = flow_parse ]; then
		if [ -d "$TOP/../shared/data/pcap/malformed" ]; then
			python3 "$TOP/devtools/pcap-corpus.py" "$B/seeds/$name" \
				"$TOP/../shared/data/pcap/malformed" || return 1
			seeds+=("$B/seeds/$name")
		else
			echo "fuzz: ../shared/data/pcap/malformed absent: no pcap seeds"
		fi
	fi
	# fuzz_pcpu: EAL and the pools keep memory between inputs, so
	# libFuzzer's leak check would rerun inputs for nothing; short scripts
	# (every operation is followed by full audits).
	extra=()
	if [ "$name" = pcpu ]; then
		extra=(-detect_leaks=0 -max_len=512)
	fi
	echo "fuzz: $t for $secs s (corpus $corpus, seeds ${seeds[*]})"
	start=$(date +%s)
	"$B/app/test/fuzz/$t" -max_total_time="$secs" -timeout=20 \
		"${extra[@]}" \
		-rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$name-" \
		"$corpus" "${seeds[@]}" > "$B/$t.log" 2>&1
	trc=$?
	grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added|Done)' \
		"$B/$t.log" | sed "s/^/fuzz: $t: /"
	echo "fuzz: $t exit $trc after $(( $(date +%s) - start )) s"
	if [ $trc -ne 0 ]; then
		tail -n 60 "$B/$t.log"
		ls -l "$B/artifacts/$name-"* 2>/dev/null
		echo "fuzz: $t FAILED: add the artifact above to" \
			"app/test/fuzz/corpus/$name/ with the fix"
		return 1
	fi
	return 0
}

rc=0
pids=()
for t in "${targets[@]}"; do
	if [ "$jobs" -gt 1 ]; then
		run_target "$t" &
		pids+=($!)
	else
		run_target "$t" || rc=1
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
exit $rc
