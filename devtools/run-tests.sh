#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Run the test suites of a configured build and end with one line
#   N passed, N failed[, N skipped]
# counted from meson's own results (BUILD_DIR/meson-logs/testlog.json).
#
#   devtools/run-tests.sh BUILD_DIR [meson test args...]
#
# Without extra arguments it runs the suites 'unit' and 'fast-tests' (those
# that exist in the build); extra arguments replace that selection, e.g.
#   devtools/run-tests.sh build --suite perf-tests
# Exit status: 0 when nothing failed, 1 otherwise (a failed build or a
# meson error counts as a failure even if no test result was written).

set -uo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 BUILD_DIR [meson test args...]" >&2
	exit 2
fi
build=$1
shift
meson=${MESON:-meson}

if [ ! -f "$build/meson-private/coredata.dat" ]; then
	echo "run-tests: '$build' is not a configured meson build directory" >&2
	exit 2
fi

if [ $# -gt 0 ]; then
	args=("$@")
else
	# select only suites that exist: meson rejects none, but say so
	mapfile -t suites < <("$meson" introspect --tests "$build" |
		python3 -c '
import json, sys
s = set()
for t in json.load(sys.stdin):
	s.update(x.split(":")[-1] for x in t["suite"])
for want in ("unit", "fast-tests"):
	if want in s:
		print(want)')
	args=()
	for s in "${suites[@]}"; do
		args+=(--suite "$s")
	done
	if [ ${#args[@]} -eq 0 ]; then
		echo "run-tests: no 'unit' or 'fast-tests' tests in $build" >&2
		echo "0 passed, 0 failed"
		exit 1
	fi
fi

log=$build/meson-logs/testlog.json
rm -f "$log"
"$meson" test -C "$build" --print-errorlogs "${args[@]}"
meson_rc=$?

if [ ! -f "$log" ]; then
	echo "run-tests: meson test ran no tests (exit $meson_rc: a build error," \
		"or no test matched)" >&2
	echo "0 passed, 0 failed"
	exit 1
fi

# testlog.json: one JSON object per test run, "result" among OK, SKIP,
# EXPECTEDFAIL, FAIL, UNEXPECTEDPASS, TIMEOUT, ERROR
summary=$(python3 - "$log" <<'EOF'
import json, sys
passed = failed = skipped = 0
failures = []
for line in open(sys.argv[1]):
	line = line.strip()
	if not line:
		continue
	t = json.loads(line)
	r = t["result"]
	if r in ("OK", "EXPECTEDFAIL"):
		passed += 1
	elif r == "SKIP":
		skipped += 1
	else:
		failed += 1
		failures.append(t)
# a log keeps only the end of the output: the failed tests' telling lines
# go last, just above the summary
for t in failures:
	out = (t.get("stdout") or "").splitlines()
	tell = [l for l in out if "FAIL" in l or "fail" in l or "error" in l.lower()]
	rc = t.get("returncode")
	how = "killed by signal %d" % -rc if isinstance(rc, int) and rc < 0 \
		else "exit %s" % rc
	print("--- %s (%s, %s): %s" % (t["name"], t["result"], how,
		" ".join(t["command"])))
	for l in (tell[-6:] if tell else out[-6:]):
		print("    " + l[:300])
s = "%d passed, %d failed" % (passed, failed)
if skipped:
	s += ", %d skipped" % skipped
print(s)
sys.exit(1 if failed else 0)
EOF
)
parse_rc=$?

if [ $parse_rc -eq 0 ] && [ $meson_rc -ne 0 ]; then
	echo "run-tests: meson test exited with $meson_rc" >&2
fi
echo "$summary"
if [ $parse_rc -ne 0 ] || [ $meson_rc -ne 0 ]; then
	exit 1
fi
exit 0
