#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Prove that a fresh meson project with this repository as a subproject
# builds and runs an application with dependency('libpcpu_mempool') alone,
# and gets nothing but the library from it:
#
#   devtools/test-subproject.sh
#
# 1. a parent project in a temporary directory: app/test/consumer's
#    meson.build and sources, this tree's files (git ls-files, or a copy
#    without build directories) in subprojects/pcpu_mempool, and the
#    three-line subprojects/pcpu_mempool.wrap that provides the
#    dependency names;
# 2. meson setup --force-fallback-for (an installed copy must not win)
#    and ninja, with -Werror;
# 3. check that the subproject built only its library (no dpdk-test,
#    benchmark, example, fuzz or docs target) and installs only the
#    library, its headers and its pkg-config files (meson install
#    --destdir into the temporary directory);
# 4. check that the consumer draws DPDK's experimental-API warning when
#    its own -DALLOW_EXPERIMENTAL_API is removed from its compile command
#    (the subproject does not opt it in, as the .pc file does not);
# 5. run the consumer, lcore_var_consumer (a program written to DPDK
#    24.11's rte_lcore_var documentation, through the opt-in dependency
#    libpcpu_mempool_lcore_var) and mempool_ops_consumer (a stock
#    rte_mempool with the "pcpu" ops) and check their verdicts.
#
# Environment: MESON (default: meson), KEEP_TMP=1 keeps the directory.
# Exit 0 on success, 1 on failure.

set -euo pipefail

die() {
	echo "test-subproject: FAIL: $*" >&2
	exit 1
}

top=$(cd "$(dirname "$0")/.." && pwd)
meson=${MESON:-meson}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcpu-subproject.XXXXXX")
cleanup() {
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "test-subproject: kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

parent=$tmp/parent
sub=$parent/subprojects/pcpu_mempool
mkdir -p "$sub"
cp "$top"/app/test/consumer/meson.build "$top"/app/test/consumer/*.c "$parent/"

# the tree as a checkout of it would be: tracked and new files, no builds
if git -C "$top" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 -r sh -c \
			'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$top" --null -T - -cf - | tar -C "$sub" -xf -
else
	tar -C "$top" --exclude='./build*' --exclude='./obj-*' \
		--exclude='./debian' -cf - . | tar -C "$sub" -xf -
fi
[ -f "$sub/meson.build" ] || die "could not copy the tree into $sub"

cat > "$parent/subprojects/pcpu_mempool.wrap" <<'WRAP'
[wrap-file]
directory = pcpu_mempool

[provide]
dependency_names = libpcpu_mempool, libpcpu_mempool_lcore_var
WRAP

b=$parent/build
"$meson" setup "$b" "$parent" -Dwerror=true \
	--force-fallback-for=libpcpu_mempool,libpcpu_mempool_lcore_var \
	> "$tmp/setup.log" 2>&1 ||
	{ cat "$tmp/setup.log" >&2; die "meson setup of the parent failed"; }
grep -q "^Executing subproject pcpu_mempool" "$tmp/setup.log" &&
	grep -q "^Dependency libpcpu_mempool found: YES .*(overridden)" "$tmp/setup.log" ||
	{ cat "$tmp/setup.log" >&2; die "dependency('libpcpu_mempool') was not served by the subproject"; }
ninja -C "$b" > "$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log" >&2; die "the parent does not build"; }
echo "test-subproject: parent built ($(grep -c '^\[' "$tmp/build.log") ninja steps)"

# what the subproject defines: the library only
targets=$("$meson" introspect --targets "$b" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
	if t["subproject"] == "pcpu_mempool" and t["build_by_default"]:
		print(t["name"])' | sort | tr '\n' ' ')
echo "test-subproject: subproject targets built by default: $targets"
[ "$targets" = "rte_pcpu_mempool rte_pcpu_mempool " ] ||
	die "the subproject builds more than its library: $targets"

"$meson" install -C "$b" --no-rebuild --quiet --destdir "$tmp/stage" \
	> "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; die "meson install failed"; }
installed=$(cd "$tmp/stage" && find . -type f -o -type l |
	sed 's|^\./[^/]*/[^/]*/||; s|^lib/[^/]*/|lib/|' | sort | tr '\n' ' ')
echo "test-subproject: installed: $installed"
unexpected=$(cd "$tmp/stage" && find . \( -type f -o -type l \) \
	! -path '*/lib/*librte_pcpu_mempool.so*' \
	! -path '*/lib/*librte_pcpu_mempool.a' \
	! -path '*/include/*.h' \
	! -path '*/pkgconfig/libpcpu_mempool*.pc' | sort)
[ -z "$unexpected" ] || die "the subproject installs more than the library: $unexpected"
for f in rte_pcpu.h rte_pcpu_mempool.h; do
	find "$tmp/stage" -path "*/include/$f" | grep -q . ||
		die "the subproject does not install $f"
done
find "$tmp/stage" -name libpcpu_mempool.pc | grep -q . ||
	die "the subproject does not install libpcpu_mempool.pc"

# the consumer's own opt-in is the only ALLOW_EXPERIMENTAL_API it gets
python3 - "$b" "$tmp/noexp.sh" <<'PY'
import json, shlex, sys
build, out = sys.argv[1], sys.argv[2]
for c in json.load(open(build + "/compile_commands.json")):
	if c["file"].endswith("consumer.c") and "subprojects" not in c["file"]:
		args = shlex.split(c["command"])
		n = args.count("-DALLOW_EXPERIMENTAL_API")
		if n != 1:
			sys.exit("consumer.c is compiled with %d ALLOW_EXPERIMENTAL_API, want its own 1" % n)
		args = [a for a in args if a != "-DALLOW_EXPERIMENTAL_API"]
		i = args.index("-o")
		args[i + 1] = build + "/noexp.o"
		open(out, "w").write("cd %s && %s\n" % (shlex.quote(c["directory"]),
			" ".join(shlex.quote(a) for a in args)))
		break
else:
	sys.exit("no compile command for consumer.c")
PY
if bash "$tmp/noexp.sh" > "$tmp/noexp.log" 2>&1; then
	die "without its ALLOW_EXPERIMENTAL_API the consumer built: no warning for experimental calls"
fi
grep -q "is deprecated: Symbol is not yet part of stable ABI" "$tmp/noexp.log" ||
	{ cat "$tmp/noexp.log" >&2; die "the build without ALLOW_EXPERIMENTAL_API failed for another reason"; }
echo "test-subproject: without the consumer's -DALLOW_EXPERIMENTAL_API:" \
	"$(grep -c 'not yet part of stable ABI' "$tmp/noexp.log") experimental-API warnings, as expected"

cpus=$(python3 -c 'import os; print(",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))')
for name in consumer lcore_var_consumer mempool_ops_consumer; do
	rc=0
	out=$("$b/$name" --no-huge -m 256 --no-pci --lcores="(0-3)@($cpus)" \
		--file-prefix="pcpu-subproject-$name-$$" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || { echo "$out" >&2; die "$name exited with status $rc"; }
	echo "$out" | grep -Eq "^$name: lcores=4 sum=([0-9]+) expected=\\1 OK\$" ||
		{ echo "$out" >&2; die "$name printed no '$name: lcores=4 ... OK' line"; }
	echo "test-subproject: $(echo "$out" | tail -1)"
done
echo "test-subproject: OK"
