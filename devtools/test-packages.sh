#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Build the Debian packages from the tree and prove they work for a user:
#
#   devtools/test-packages.sh [OUT_DIR]          (make deb: OUT_DIR build-deb)
#
# 1. copy the tree's files (git ls-files, or the tree without build
#    directories) into OUT_DIR/pcpu-mempool-VERSION and run
#    dpkg-buildpackage -us -uc there (source and binary packages land in
#    OUT_DIR); the four packages must be there;
# 2. lintian on the .changes: an error fails, warnings are printed;
# 3. apt-get --simulate install of the .debs: their dependencies resolve;
# 4. unpack the packages into a clean prefix, OUT_DIR/root (dpkg-deb -x;
#    nothing touches the system), then devtools/test-consumer.sh --root:
#    the out-of-tree consumers build with the packaged .pc files and run;
# 5. run the packaged dpdk-test-pcpu pcpu_autotest (--no-huge), and check
#    that the doc package has both HTML trees.
#
# The packages' own test run (dh_auto_test: the unit and fast suites) is
# skipped with DEB_BUILD_OPTIONS=nocheck unless PCPU_DEB_CHECK=1: CI has
# just run the same suites on the same tree (make test), and running them
# again would double its test time. DEB_BUILD_OPTIONS from the environment
# is used as given. Exit 0 on success, 1 on failure.

set -euo pipefail

die() {
	echo "test-packages: FAIL: $*" >&2
	exit 1
}

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/pcpu-mempool-$version

for t in dpkg-buildpackage lintian dh; do
	command -v "$t" > /dev/null ||
		die "$t not found (devtools/deps.sh installs the packaging tools)"
done

t0=$(date +%s)
step() {
	echo "test-packages: [$(( $(date +%s) - t0 )) s] $*"
}

# 1. a clean copy of the tree, then the packages
rm -rf "$src" "$out/root" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo \
	"$out"/*.dsc "$out"/*.tar.*
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 -r sh -c \
			'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$top" --exclude='./build*' --exclude='./obj-*' -cf - . |
		tar -C "$src" -xf -
fi
if [ -z "${DEB_BUILD_OPTIONS+set}" ]; then
	DEB_BUILD_OPTIONS="parallel=$(nproc)"
	[ "${PCPU_DEB_CHECK:-0}" = 1 ] || DEB_BUILD_OPTIONS="nocheck $DEB_BUILD_OPTIONS"
fi
export DEB_BUILD_OPTIONS
step "dpkg-buildpackage -us -uc in $src (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)"
(cd "$src" && dpkg-buildpackage -us -uc) > "$out/build.log" 2>&1 ||
	{ tail -40 "$out/build.log" >&2; die "dpkg-buildpackage failed (log: $out/build.log)"; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
debs=()
for p in libpcpu-mempool0:$arch libpcpu-mempool-dev:$arch \
		pcpu-mempool-tools:$arch pcpu-mempool-doc:all; do
	f=$out/${p%%:*}_${version}_${p##*:}.deb
	[ -f "$f" ] || die "no package ${p%%:*} ($f)"
	debs+=("$f")
	echo "test-packages:   $(basename "$f"): $(dpkg-deb -c "$f" | grep -vc '/$') files"
done
changes=$out/pcpu-mempool_${version}_$arch.changes

# 2. lintian: errors fail, the rest is reported
step "lintian"
lintian --display-info "$changes" > "$out/lintian.txt" 2>&1 || true
grep -v '^running with root privileges' "$out/lintian.txt" |
	sed 's/^/test-packages:   lintian: /' || true
if grep -q '^E: ' "$out/lintian.txt"; then
	die "lintian reports errors ($out/lintian.txt)"
fi
echo "test-packages:   lintian: $(grep -c '^E: ' "$out/lintian.txt") errors," \
	"$(grep -c '^W: ' "$out/lintian.txt") warnings"

# 3. the dependencies of the packages resolve on this system
step "apt-get --simulate install of the packages"
apt-get install --simulate --no-install-recommends "${debs[@]}" \
	> "$out/apt-simulate.log" 2>&1 ||
	{ cat "$out/apt-simulate.log" >&2; die "the packages' dependencies do not resolve"; }

# 4. a clean prefix with the packages unpacked, and the consumers
step "unpack into $out/root and build the consumers against the packaged .pc"
for f in "${debs[@]}"; do
	dpkg-deb -x "$f" "$out/root"
done
"$top/devtools/test-consumer.sh" --root "$out/root" > "$out/consumer.log" 2>&1 ||
	{ cat "$out/consumer.log" >&2; die "the consumers do not build or run against the packages"; }
grep '^test-consumer: ' "$out/consumer.log" | grep -v 'flags: \|libs: ' |
	sed 's/^/test-packages:   /'

# 5. the packaged autotests, and the docs
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
cpus=$(python3 -c 'import os; print(",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))')
step "dpdk-test-pcpu pcpu_autotest from the package"
rc=0
LD_LIBRARY_PATH=$out/root/usr/lib/$multiarch \
	"$out/root/usr/bin/dpdk-test-pcpu" --no-huge -m 512 --no-pci \
	--lcores="(0-3)@($cpus)" --file-prefix="pcpu-deb-$$" pcpu_autotest \
	> "$out/autotest.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && grep -q '^Test OK' "$out/autotest.log" ||
	{ tail -30 "$out/autotest.log" >&2; die "dpdk-test-pcpu pcpu_autotest: status $rc"; }
echo "test-packages:   pcpu_autotest: $(awk '/^ \+ Tests Passed :/ { p += $NF }
	/^ \+ Tests Total :/ { t += $NF } END { print p " of " t }' "$out/autotest.log")" \
	"test cases passed, Test OK"
libs=$(LD_LIBRARY_PATH=$out/root/usr/lib/$multiarch ldd "$out/root/usr/bin/dpdk-test-pcpu")
case "$libs" in
*"not found"*) die "dpdk-test-pcpu has unresolved libraries: $libs" ;;
*"$out/root/usr/lib/$multiarch/librte_pcpu_mempool.so.0"*) ;;
*) die "dpdk-test-pcpu did not use the packaged librte_pcpu_mempool.so.0" ;;
esac
LD_LIBRARY_PATH=$out/root/usr/lib/$multiarch \
	"$out/root/usr/bin/dpdk-pcpu-info" -- --help > "$out/pcpu-info.log" 2>&1 &&
	grep -q -- '--json' "$out/pcpu-info.log" ||
	{ cat "$out/pcpu-info.log" >&2; die "dpdk-pcpu-info --help from the package"; }
for d in api guides; do
	[ -f "$out/root/usr/share/doc/pcpu-mempool-doc/$d/html/index.html" ] ||
		die "pcpu-mempool-doc has no $d/html/index.html"
done
step "OK: 4 packages built, lintian without errors, consumers and pcpu_autotest pass"
