#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# valgrind memcheck over the CUnit unit tests (meson suite 'unit') of a
# configured, non-sanitized build: any memory error or leak fails the run.
#
#   devtools/valgrind.sh [BUILD_DIR]        (default build)
#
# Ends with a "valgrind: N passed, N failed" line.

set -uo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."
B=${1:-build}

if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed (apt-get install valgrind)" >&2
	exit 77
fi
if meson introspect --buildoptions "$B" 2>/dev/null |
	grep -q '"name": "b_sanitize", "value": "[a-mo-z]'; then
	echo "valgrind: $B is a sanitizer build; use a plain one" >&2
	exit 2
fi
ninja -C "$B" || exit 1

# Definite, indirect and possible leaks count as errors (exit code 1).
# Add --track-origins=yes by hand to find where an uninitialised value
# came from (it doubles the run time).
wrapper="valgrind --error-exitcode=1 --leak-check=full"
wrapper+=" --errors-for-leak-kinds=definite,indirect,possible"
wrapper+=" --show-leak-kinds=definite,indirect,possible -q"
# meson names the log after the wrapper: meson-logs/testlog-valgrind.json
log=$B/meson-logs/testlog-valgrind.json
rm -f "$log"
meson test -C "$B" --suite unit --print-errorlogs --wrapper "$wrapper" \
	--timeout-multiplier 4
meson_rc=$?
if [ ! -f "$log" ]; then
	echo "valgrind: meson test ran no test (exit $meson_rc)" >&2
	echo "valgrind: 0 passed, 1 failed"
	exit 1
fi
python3 - "$log" <<'PY'
import json, sys
n = {"ok": 0, "failed": 0}
for line in open(sys.argv[1]):
	if line.strip():
		r = json.loads(line)["result"]
		n["ok" if r in ("OK", "EXPECTEDFAIL", "SKIP") else "failed"] += 1
print("valgrind: %d passed, %d failed" % (n["ok"], n["failed"]))
sys.exit(1 if n["failed"] else 0)
PY
py_rc=$?
[ $py_rc -eq 0 ] && [ $meson_rc -eq 0 ]
