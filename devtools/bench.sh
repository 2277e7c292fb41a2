#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Run dpdk-test-pcpu-perf (make bench / make bench-smoke / make bench-docs).
#
#   devtools/bench.sh full    the whole suite (6 to 9 minutes on a shared
#                             2-CPU machine, dpdk-flowcount's runs included):
#                             JSON, the targets table and every
#                             table in $BUILDDIR/bench/results.txt (printed),
#                             figures in $BUILDDIR/bench/img/; nothing
#                             outside $BUILDDIR is written
#   devtools/bench.sh smoke   every case, briefly (about 20 s), in
#                             $BUILDDIR/bench-smoke/: checks that every case
#                             ran and prints the targets table unjudged
#   devtools/bench.sh docs    the programmer's guide's tables and figures
#                             (doc/guides/prog_guide/bench_results.rst and
#                             img/bench_*.png) from the last full run;
#                             runs nothing
#
# Environment: BUILDDIR (default build), BENCH_OUT (default
# $BUILDDIR/bench, or $BUILDDIR/bench-smoke), BENCH_FILTER (a Google
# Benchmark filter regex replacing both runs' own).
#
# Two processes: one with 2 lcores on 2 CPUs (access, allocation, cached,
# churn, init, reclaim, the "pcpu" mempool ops, aliasing of copies) and
# one with 8 lcores floating over the same CPUs (pairs and init with 8
# lcores that have memory, scaling to 1/2/4/8 lcores; more lcores than
# CPUs are reported as oversubscribed). EAL memory: --no-huge (see below).
# The CPU model and the load average at the start and end of each run go
# into $OUT/environment.txt and every results file.

set -euo pipefail

mode=${1:-full}
case "$mode" in
full|smoke|docs) ;;
*)
	echo "usage: $0 full|smoke|docs" >&2
	exit 2
	;;
esac

TOP=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
BUILDDIR=${BUILDDIR:-build}
[[ $BUILDDIR = /* ]] || BUILDDIR=$PWD/$BUILDDIR
BIN=$BUILDDIR/app/test-pcpu-perf/dpdk-test-pcpu-perf
if [ "$mode" = smoke ]; then
	OUT=${BENCH_OUT:-$BUILDDIR/bench-smoke}
else
	OUT=${BENCH_OUT:-$BUILDDIR/bench}
fi
DOCDIR=$TOP/doc/guides/prog_guide
# Debian's python has matplotlib; a pyenv python earlier on PATH may not
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
REPORT=$TOP/devtools/bench_report.py
jsons=("$OUT/results-2lcores.json" "$OUT/results-8lcores.json")

# make bench-docs: the guide's copy of the last full run
if [ "$mode" = docs ]; then
	if ! grep -qx 'mode=full' "$OUT/environment.txt" 2> /dev/null; then
		echo "bench: no full run in $OUT: run 'make bench' first" >&2
		exit 1
	fi
	fc=()
	[ -f "$OUT/flowcount.txt" ] && fc=(--flowcount "$OUT/flowcount.txt")
	[ -f "$OUT/mp-sum.txt" ] && fc+=(--mp "$OUT/mp-sum.txt")
	"$PY" "$REPORT" --env "$OUT/environment.txt" "${fc[@]}" \
		--rst "$DOCDIR/bench_results.rst" --figures "$DOCDIR/img" \
		"${jsons[@]}"
	echo "bench: wrote $DOCDIR/bench_results.rst and $DOCDIR/img/bench_*.png"
	exit 0
fi

if [ ! -x "$BIN" ]; then
	echo "bench: $BIN is missing: is Google Benchmark (libbenchmark-dev)" \
		"installed? (meson option -Dbenchmarks)" >&2
	exit 1
fi
mkdir -p "$OUT"
rm -f "$OUT"/results* "$OUT"/flowcount*.txt "$OUT"/mp-sum.* \
	"$OUT"/img/bench_*.png

# The first two CPUs this process may run on.
cpus=()
allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
IFS=, read -r -a ranges <<< "$allowed"
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

loadavg() {
	cut -d' ' -f1-3 /proc/loadavg
}

env_file=$OUT/environment.txt
{
	echo "mode=$mode"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' \
		/proc/cpuinfo)"
	echo "nb_cpus=$(nproc)"
	echo "cpus_allowed=$allowed"
	echo "kernel=$(uname -r)"
	echo "commit=$(git -C "$TOP" describe --always --dirty 2> /dev/null ||
		echo unknown)"
} > "$env_file"

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
	limit2=120
	limit8=60
else
	extra=()
	limit2=900
	limit8=400
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
	local t0=$SECONDS

	echo "load_start_$tag=$(loadavg)" >> "$env_file"
	echo "bench ($mode, $tag, load $(loadavg)): ${cmd[*]}"
	if ! timeout --kill-after=10 "$limit" "${cmd[@]}" \
			> "$OUT/bench-$tag.log" 2>&1; then
		echo "bench: $tag run failed or exceeded ${limit} s; last lines:" >&2
		tail -20 "$OUT/bench-$tag.log" >&2
		rc=1
	fi
	echo "load_end_$tag=$(loadavg)" >> "$env_file"
	echo "bench: $tag: $(grep -c '/manual_time ' "$OUT/bench-$tag.log" ||
		true) cases in $((SECONDS - t0)) s, load at the end $(loadavg)"
}

# dpdk-flowcount beside DPDK's l3fwd (its targets: forwarding and counting
# against l3fwd's LPM and exact-match paths, percpu counters against the
# other schemes), quoted and judged with ours. Its script is the
# example's; this is the one place that calls it (about 5 minutes full,
# under a minute smoke, plus the first build of l3fwd).
flowcount_bench() {
	if [ "$mode" = smoke ]; then
		timeout --kill-after=10 300 \
			"$TOP/devtools/flowcount-bench.sh" --smoke "$BUILDDIR"
	else
		timeout --kill-after=10 900 \
			"$TOP/devtools/flowcount-bench.sh" --rounds 2 \
			--seconds 2 "$BUILDDIR"
	fi
}

start=$SECONDS
run 2lcores "$limit2" "0@$c0,1@$c1" \
	'^(access|alloc_nocache|alloc_cache|alloc_vs_pool|cached|cached_nocache|churn|init|reclaim|mempool_ops|alias|backing|owner)/'
run 8lcores "$limit8" "(0-7)@($c0,$c1)" '^(cached/size:16/lcores:1|init|scaling)'

fc_args=()
if [ -x "$TOP/devtools/flowcount-bench.sh" ] &&
		[ -x "$BUILDDIR/examples/flowcount/dpdk-flowcount" ]; then
	echo "bench: devtools/flowcount-bench.sh (load $(loadavg))"
	if flowcount_bench > "$OUT/flowcount.txt" 2>&1; then
		fc_args=(--flowcount "$OUT/flowcount.txt")
		echo "flowcount=ran" >> "$env_file"
	else
		fc_rc=$?
		echo "bench: flowcount-bench.sh failed, exit $fc_rc (124: time" \
			"limit), not counted:" >&2
		tail -5 "$OUT/flowcount.txt" >&2
		mv "$OUT/flowcount.txt" "$OUT/flowcount-failed.txt"
		echo "flowcount=failed (exit $fc_rc)" >> "$env_file"
	fi
fi
# A secondary process summing a million flows' counters of a primary
# (pcpu_mp_perf_autotest: its time printed beside the primary's own). A
# secondary needs a primary with EAL hugepages (DPDK 22.11), so this one
# run takes 256 MiB of them, and is skipped without them.
mp_args=()
mp_test=$BUILDDIR/app/test/dpdk-test
if [ -x "$mp_test" ] && [ "$("$TOP/app/test/hugepages-run.sh" --free-mb)" -ge 600 ]; then
	echo "bench: pcpu_mp_perf_autotest (load $(loadavg))"
	if timeout --kill-after=10 120 "$mp_test" --lcores="(0-2)@($c0,$c1)" \
			--no-pci --no-telemetry -m 256 \
			--file-prefix="pcpu_bench_mp_$$" pcpu_mp_perf_autotest \
			> "$OUT/mp-sum.log" 2>&1 &&
			grep '^mp-sum:' "$OUT/mp-sum.log" > "$OUT/mp-sum.txt"; then
		mp_args=(--mp "$OUT/mp-sum.txt")
		echo "mp_sum=ran" >> "$env_file"
	else
		echo "bench: pcpu_mp_perf_autotest failed; last lines:" >&2
		tail -5 "$OUT/mp-sum.log" >&2
		echo "mp_sum=failed" >> "$env_file"
		rc=1
	fi
	# its primary, mapped by the secondary, leaves its hugepage files
	"$TOP/devtools/hugepage-files.sh" remove "pcpu_bench_mp_$$"
else
	echo "mp_sum=skipped (no 600 MiB of free hugepages)" >> "$env_file"
fi
echo "load_end=$(loadavg)" >> "$env_file"
echo "bench: $mode runs took $((SECONDS - start)) s"

smoke_args=()
[ "$mode" = smoke ] && smoke_args=(--smoke)
"$PY" "$REPORT" --check "${smoke_args[@]}" --env "$env_file" \
	"${fc_args[@]}" "${mp_args[@]}" --merged "$OUT/results.json" \
	--text "$OUT/results.txt" --rst "$OUT/results.rst" \
	--img-prefix img/ --figures "$OUT/img" "${jsons[@]}" || rc=1
[ -f "$OUT/results.txt" ] && cat "$OUT/results.txt"
echo "bench: results in $OUT (results.txt, results.json, img/);" \
	"'make bench-docs' copies a full run into the programmer's guide"
exit $rc
