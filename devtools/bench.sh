#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Run dpdk-test-pcpu-perf (make bench / make bench-smoke).
#
#   devtools/bench.sh full    the whole suite (at most 10 minutes on a
#                             2-CPU machine), JSON in $BUILDDIR/bench/,
#                             then figures and the ratio table for the
#                             programmer's guide (devtools/bench_report.py)
#   devtools/bench.sh smoke   every case, briefly (under a minute); checks
#                             that every case ran, asserts nothing on speed
#
# Environment: BUILDDIR (default build), BENCH_OUT (default
# $BUILDDIR/bench), BENCH_DOCDIR (where full mode writes figures and the
# table; default doc/guides/prog_guide of this tree, empty = none),
# BENCH_FILTER (a Google Benchmark filter regex replacing both runs' own).
#
# Two processes: one with 2 lcores on 2 CPUs (access, allocation, cached,
# churn, init, reclaim) and one with 8 lcores floating over the same CPUs
# (init with 8 lcores that have memory, scaling to 1/2/4/8 lcores; more
# lcores than CPUs are reported as oversubscribed). EAL memory: --no-huge
# (see below).

set -euo pipefail

mode=${1:-full}
case "$mode" in
full|smoke) ;;
*)
	echo "usage: $0 full|smoke" >&2
	exit 2
	;;
esac

TOP=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
BUILDDIR=${BUILDDIR:-build}
[[ $BUILDDIR = /* ]] || BUILDDIR=$PWD/$BUILDDIR
BIN=$BUILDDIR/app/test-pcpu-perf/dpdk-test-pcpu-perf
OUT=${BENCH_OUT:-$BUILDDIR/bench}
DOCDIR=${BENCH_DOCDIR-$TOP/doc/guides/prog_guide}
# Debian's python has matplotlib; a pyenv python earlier on PATH may not
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ ! -x "$BIN" ]; then
	echo "bench: $BIN is missing: is Google Benchmark (libbenchmark-dev)" \
		"installed? (meson option -Dbenchmarks)" >&2
	exit 1
fi
mkdir -p "$OUT"

# The first two CPUs this process may run on.
cpus=()
list=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
IFS=, read -r -a ranges <<< "$list"
for r in "${ranges[@]}"; do
	lo=${r%-*}
	hi=${r#*-}
	for ((c = lo; c <= hi && ${#cpus[@]} < 2; c++)); do
		cpus+=("$c")
	done
done
[ ${#cpus[@]} -ge 2 ] || cpus+=("${cpus[0]}")
c0=${cpus[0]}
c1=${cpus[1]}

# EAL memory on 4 KiB pages: hugepages are shared with whatever else
# runs on the machine, and a run that finds them gone half-way measures
# nothing; the baselines on the EAL heap (rte_mempool, rte_zmalloc) and the
# library (whose automatic page mode follows the EAL's) then use the same
# page size. The cases about 2 MiB pages ask the library for them
# explicitly and report themselves skipped when none are free.
mem_args=(--no-huge -m 1024)
naive_mb=256

if [ "$mode" = smoke ]; then
	extra=(--smoke)
	limit2=40
	limit8=20
else
	extra=()
	limit2=420
	limit8=170
fi

# BENCH_FILTER replaces each run's own filter
filter_args() {
	echo "--benchmark_filter=${BENCH_FILTER:-$1}"
}

rc=0
run() {
	local tag=$1 limit=$2 lcores=$3 filter=$4 json="$OUT/results-$1.json"
	local cmd=("$BIN" --lcores="$lcores" --no-pci --no-telemetry
		--file-prefix="pcpu_bench_$$_$tag" "${mem_args[@]}"
		-- "${extra[@]}" --naive-mb=$naive_mb
		"$(filter_args "$filter")"
		--benchmark_out="$json" --benchmark_out_format=json
		--benchmark_counters_tabular=false)

	echo "bench ($mode, $tag, load $(cut -d' ' -f1-3 /proc/loadavg)):" \
		"${cmd[*]}"
	rm -f "$json"
	if ! timeout --kill-after=10 "$limit" "${cmd[@]}" \
			> "$OUT/bench-$tag.log" 2>&1; then
		echo "bench: $tag run failed or exceeded ${limit} s; last lines:" >&2
		tail -20 "$OUT/bench-$tag.log" >&2
		rc=1
	fi
	grep -E '^(access|alloc|cached|churn|init|reclaim|scaling)/' \
		"$OUT/bench-$tag.log" | cut -c1-200 | head -400 || true
}

load=$(cut -d' ' -f1 /proc/loadavg)
if [ "$mode" = full ] && awk -v l="$load" 'BEGIN { exit !(l >= 1.0) }'; then
	echo "bench: load average $load: other work shares the CPUs," \
		"figures will be noisy (each is the best of several windows)"
fi
start=$(date +%s)
run 2lcores "$limit2" "0@$c0,1@$c1" \
	'^(access|alloc_nocache|alloc_cache|cached|churn|init|reclaim)/'
run 8lcores "$limit8" "(0-7)@($c0,$c1)" '^(init|scaling)/'
echo "bench: $mode runs took $(( $(date +%s) - start )) s"

# The flowcount example's own speed figure (issue: counting costs at most
# 10 %), printed beside ours when the example is built.
fc_args=()
if [ "$mode" = full ] && [ -x "$TOP/devtools/flowcount-bench.sh" ] &&
		[ -x "$BUILDDIR/examples/flowcount/dpdk-flowcount" ]; then
	echo "bench: devtools/flowcount-bench.sh $BUILDDIR 100000 3"
	if timeout --kill-after=10 150 "$TOP/devtools/flowcount-bench.sh" \
			"$BUILDDIR" 100000 3 > "$OUT/flowcount.txt" 2>&1; then
		fc_args=(--flowcount "$OUT/flowcount.txt")
	else
		echo "bench: flowcount-bench.sh failed (not counted):" >&2
		tail -5 "$OUT/flowcount.txt" >&2
	fi
fi

jsons=("$OUT/results-2lcores.json" "$OUT/results-8lcores.json")
if [ "$mode" = smoke ]; then
	"$PY" "$TOP/devtools/bench_report.py" --check \
		--merged "$OUT/results.json" "${jsons[@]}" || rc=1
else
	report=(--merged "$OUT/results.json" --text "$OUT/results.txt")
	if [ -n "$DOCDIR" ]; then
		report+=(--figures "$DOCDIR/img" --rst "$DOCDIR/bench_results.rst")
	fi
	"$PY" "$TOP/devtools/bench_report.py" --check "${report[@]}" \
		"${fc_args[@]}" "${jsons[@]}" || rc=1
	[ -f "$OUT/results.txt" ] && cat "$OUT/results.txt"
fi
exit $rc
