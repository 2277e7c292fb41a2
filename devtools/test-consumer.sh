#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Prove that an out-of-tree application builds and runs against the
# *installed* library with nothing but pkg-config:
#
#   devtools/test-consumer.sh BUILD_DIR [CONSUMER_C]
#   devtools/test-consumer.sh --root ROOT [CONSUMER_C]
#
# 1. meson install BUILD_DIR into a temporary staging directory (--destdir,
#    no rebuild, nothing touches the real prefix); or, with --root, use
#    ROOT, a clean directory where the Debian packages were unpacked
#    (prefix /usr, devtools/test-packages.sh);
# 2. relocate the staged .pc files (their prefix points at the real
#    prefix) into a private PKG_CONFIG_PATH;
# 3. check that the .pc file does not opt consumers into experimental APIs:
#    CONSUMER_C (which calls experimental functions) must draw DPDK's
#    "not yet part of stable ABI" warning without -DALLOW_EXPERIMENTAL_API
#    and build clean under -Werror with it, as with DPDK's own libdpdk.pc;
# 4. cc -DALLOW_EXPERIMENTAL_API CONSUMER_C $(pkg-config --cflags --libs
#    libpcpu_mempool);
# 5. run it with --no-huge -m 256 --no-pci and check its verdict line;
# 6. the same with app/test/consumer/meson.build, a meson project of its
#    own that says dependency('libpcpu_mempool') and nothing more;
# 7. lcore_var_consumer.c beside CONSUMER_C, a program written to DPDK
#    24.11's rte_lcore_var documentation, built with cc and the opt-in
#    libpcpu_mempool_lcore_var.pc and by that meson project, and run;
# 8. mempool_ops_consumer.c beside it, a stock rte_mempool with the "pcpu"
#    ops, built with cc and pkg-config's flags for libdpdk and the library
#    and by the meson project, and run: with Debian's driver plugins
#    loaded, the ops must be registered;
# 9. the same program linked statically (pkg-config --static, with gcc
#    and with clang, which unlike Debian's gcc does not link --as-needed by
#    default): it must need no librte_*.so, hold the telemetry commands
#    (registered from a constructor that nothing refers to) and run.
# 10. CONSUMER_C (and the rte_lcore_var program, built only) against
#    BUILD_DIR itself, as README's "link against the build tree" says:
#    the -uninstalled .pc files of BUILD_DIR/meson-uninstalled and an
#    rpath; it must load the tree's library and run.
#
# Environment: MESON (default: meson), CC (default: cc), KEEP_TMP=1 keeps
# the staging directory. Exit 0 on success, 1 on failure.

set -euo pipefail

die() {
	echo "test-consumer: FAIL: $*" >&2
	exit 1
}

root=
if [ "${1:-}" = --root ]; then
	[ $# -ge 2 ] || { echo "usage: $0 --root ROOT [CONSUMER_C]" >&2; exit 2; }
	root=$(cd "$2" && pwd) || die "no directory '$2'"
	shift 2
	set -- "$root" "$@"
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 BUILD_DIR [CONSUMER_C] | --root ROOT [CONSUMER_C]" >&2
	exit 2
fi
build=$(cd "$1" && pwd) || die "no build directory '$1'"
src=${2:-$(cd "$(dirname "$0")/.." && pwd)/app/test/consumer/consumer.c}
[ -f "$src" ] || die "no consumer source '$src'"
meson=${MESON:-meson}
cc=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcpu-consumer.XXXXXX")
cleanup() {
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "test-consumer: kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

if [ -n "$root" ]; then
	# unpacked packages: Debian's layout
	prefix=/usr
	libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
		gcc -print-multiarch)
	includedir=/usr/include
	dest=$root
	echo "test-consumer: packages unpacked in $root, libdir $libdir"
else
	# where the build installs to
	read -r prefix libdir includedir < <(
		"$meson" introspect --buildoptions "$build" | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["libdir"], o["includedir"])')
	case "$libdir" in /*) ;; *) libdir=$prefix/$libdir ;; esac
	case "$includedir" in /*) ;; *) includedir=$prefix/$includedir ;; esac
	echo "test-consumer: build $build, prefix $prefix, libdir $libdir"

	dest=$tmp/stage
	"$meson" install -C "$build" --no-rebuild --quiet --destdir "$dest" \
		> "$tmp/install.log" 2>&1 ||
		{ cat "$tmp/install.log" >&2; die "meson install failed"; }
fi

pc=$dest$libdir/pkgconfig/libpcpu_mempool.pc
[ -f "$pc" ] || die "meson install did not install $libdir/pkgconfig/libpcpu_mempool.pc"
for f in rte_pcpu.h rte_pcpu_mempool.h; do
	[ -f "$dest$includedir/$f" ] || die "header $includedir/$f not installed"
done
ls "$dest$libdir"/librte_pcpu_mempool.so* > /dev/null 2>&1 ||
	die "shared library not installed in $libdir"

# shellcheck disable=SC2016 # a literal ${pcfiledir}
if grep -q '^prefix=${pcfiledir}' "$pc"; then
	# relocatable (-Dpkgconfig.relocatable=true): use it where it is
	pcdir=$dest$libdir/pkgconfig
else
	# The staged files name the real prefix; point copies at the stage.
	pcdir=$tmp/pkgconfig
	mkdir -p "$pcdir"
	for f in "$(dirname "$pc")"/libpcpu_mempool*.pc; do
		grep -q "^prefix=$prefix\$" "$f" ||
			die "$f: prefix is not $prefix: $(grep '^prefix=' "$f")"
		sed "s|^prefix=.*|prefix=$dest$prefix|" "$f" \
			> "$pcdir/$(basename "$f")"
	done
fi
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}

cflags=$(pkg-config --cflags libpcpu_mempool) ||
	die "pkg-config --cflags libpcpu_mempool failed"
libs=$(pkg-config --libs libpcpu_mempool) ||
	die "pkg-config --libs libpcpu_mempool failed"
echo "test-consumer: cflags: $cflags"
echo "test-consumer: libs: $libs"
want_inc=$(realpath -m "$dest$includedir")
found_inc=0
for f in $cflags; do
	case "$f" in
	-I*) [ "$(realpath -m "${f#-I}")" = "$want_inc" ] && found_inc=1 ;;
	esac
done
[ "$found_inc" = 1 ] ||
	die "cflags do not name the installed include directory $want_inc"

case " $cflags " in
*ALLOW_EXPERIMENTAL_API*)
	die "the .pc file opts every consumer into experimental APIs: $cflags" ;;
esac
warn_flags=(-std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror)

# shellcheck disable=SC2086
if "$cc" "${warn_flags[@]}" $cflags -c "$src" -o "$tmp/consumer.o" \
		2> "$tmp/noexp.log"; then
	die "the consumer built without ALLOW_EXPERIMENTAL_API: no warning for its experimental calls"
fi
grep -q "is deprecated: Symbol is not yet part of stable ABI" "$tmp/noexp.log" ||
	{ cat "$tmp/noexp.log" >&2; die "the build without ALLOW_EXPERIMENTAL_API failed for another reason"; }
echo "test-consumer: without -DALLOW_EXPERIMENTAL_API: $(grep -c 'not yet part of stable ABI' "$tmp/noexp.log") experimental-API warnings, as expected"

# shellcheck disable=SC2086
"$cc" "${warn_flags[@]}" -DALLOW_EXPERIMENTAL_API \
	$cflags "$src" -o "$tmp/consumer" $libs ||
	die "the consumer does not build against the installed library"

# run it against the staged library, not a build-tree or system one
rc=0
out=$(LD_LIBRARY_PATH=$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$tmp/consumer" --no-huge -m 256 --no-pci \
	--file-prefix="pcpu-consumer-$$" 2>&1) || rc=$?
echo "$out"
[ "$rc" -eq 0 ] || die "the consumer exited with status $rc"
# capture first: grep -q would stop reading early and, with pipefail,
# ldd's SIGPIPE would fail the check at random
deps=$(LD_LIBRARY_PATH=$dest$libdir ldd "$tmp/consumer")
case "$deps" in
*"$dest$libdir/librte_pcpu_mempool.so"*) ;;
*) die "the consumer did not load the installed librte_pcpu_mempool.so" ;;
esac
echo "$out" | grep -Eq '^consumer: lcores=[0-9]+ sum=([0-9]+) expected=\1 OK$' ||
	die "no matching 'consumer: ... OK' line"

run_consumer() { # NAME EXE: run, print its verdict, check it
	local name=$1 exe=$2 out rc=0

	out=$(LD_LIBRARY_PATH=$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		"$exe" --no-huge -m 256 --no-pci --lcores="(0-3)@(${cpus})" \
		--file-prefix="pcpu-consumer-$name-$$" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || { echo "$out" >&2; die "$name exited with status $rc"; }
	echo "$out" | grep -Eq "^$name: lcores=4 sum=([0-9]+) expected=\\1 OK\$" ||
		{ echo "$out" >&2; die "$name printed no '$name: lcores=4 ... OK' line"; }
	echo "test-consumer: $(echo "$out" | tail -1)"
}
cpus=$(python3 -c 'import os; print(",".join(str(c) for c in sorted(os.sched_getaffinity(0))[:2]))')

# DPDK 24.11's lcore variables through the opt-in .pc, when the program
# written to their documentation is beside CONSUMER_C
lv_src=$(dirname "$src")/lcore_var_consumer.c
if [ -f "$lv_src" ]; then
	pkg-config --exists libpcpu_mempool_lcore_var ||
		die "libpcpu_mempool_lcore_var.pc not installed"
	# shellcheck disable=SC2046,SC2086
	"$cc" "${warn_flags[@]}" -DALLOW_EXPERIMENTAL_API \
		$(pkg-config --cflags libpcpu_mempool_lcore_var) "$lv_src" \
		-o "$tmp/lcore_var_consumer" \
		$(pkg-config --libs libpcpu_mempool_lcore_var) ||
		die "the rte_lcore_var program does not build with libpcpu_mempool_lcore_var"
	run_consumer lcore_var_consumer "$tmp/lcore_var_consumer"
fi

# A stock rte_mempool with the "pcpu" ops, linked with pkg-config's
# flags for libdpdk and for the library: Debian's driver plugins, loaded
# by rte_eal_init(), register their mempool ops beside the library's
mo_src=$(dirname "$src")/mempool_ops_consumer.c
if [ -f "$mo_src" ]; then
	# shellcheck disable=SC2046,SC2086
	"$cc" "${warn_flags[@]}" -DALLOW_EXPERIMENTAL_API \
		$(pkg-config --cflags libdpdk) $cflags "$mo_src" \
		-o "$tmp/mempool_ops_consumer" $(pkg-config --libs libdpdk) \
		$libs || die "the mempool ops program does not build"
	run_consumer mempool_ops_consumer "$tmp/mempool_ops_consumer"
fi

# A static link: libpcpu_mempool.pc puts the whole archive first and the
# shared library (libpcpu_mempool-libs.pc) after it, --as-needed, so that
# the archive's definitions leave the shared object unneeded. A program
# needing both would run two copies of the library, each with its state.
if [ -f "$mo_src" ] &&
		[ -f "$dest$libdir/librte_pcpu_mempool.a" ]; then
	for scc in "$cc" clang; do
		command -v "$scc" > /dev/null || continue
		exe=$tmp/mempool_ops_static_$(basename "$scc")
		# shellcheck disable=SC2046
		"$scc" -DALLOW_EXPERIMENTAL_API \
			$(pkg-config --static --cflags libpcpu_mempool) "$mo_src" \
			-o "$exe" $(pkg-config --static --libs libpcpu_mempool) \
			> "$tmp/static.log" 2>&1 ||
			{ cat "$tmp/static.log" >&2; die "the static link with $scc failed"; }
		needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
		case " $(echo $needed) " in
		*" librte_"*)
			die "the static link with $scc needs shared DPDK or library objects: $(echo $needed)" ;;
		esac
		syms=$(nm "$exe")
		case "$syms" in
		*" pcpu_telemetry_init"*) ;;
		*) die "the static link with $scc left the telemetry commands out" ;;
		esac
		echo "test-consumer: static link with $scc: no librte_*.so needed, telemetry in"
		run_consumer mempool_ops_consumer "$exe"
	done
fi

# The build tree, as README's "link against the build tree" does: the
# -uninstalled .pc files of BUILD_DIR/meson-uninstalled and an rpath into
# the tree, nothing installed (not for unpacked packages, which have no
# build tree)
if [ -z "$root" ]; then
	upc=$build/meson-uninstalled
	[ -f "$upc/libpcpu_mempool-uninstalled.pc" ] ||
		die "no $upc/libpcpu_mempool-uninstalled.pc"
	# shellcheck disable=SC2046
	PKG_CONFIG_PATH=$upc "$cc" "${warn_flags[@]}" -DALLOW_EXPERIMENTAL_API \
		-o "$tmp/consumer_tree" "$src" \
		$(PKG_CONFIG_PATH=$upc pkg-config --cflags --libs libpcpu_mempool) \
		-Wl,-rpath,"$build/lib/pcpu_mempool" ||
		die "the consumer does not build against the build tree with $upc"
	deps=$(env -u LD_LIBRARY_PATH ldd "$tmp/consumer_tree")
	case "$deps" in
	*"$build/lib/pcpu_mempool/librte_pcpu_mempool.so"*) ;;
	*) die "the build-tree consumer did not load $build/lib/pcpu_mempool/librte_pcpu_mempool.so" ;;
	esac
	rc=0
	out=$(env -u LD_LIBRARY_PATH "$tmp/consumer_tree" --no-huge -m 256 \
		--no-pci --file-prefix="pcpu-consumer-tree-$$" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || { echo "$out" >&2; die "the build-tree consumer exited with status $rc"; }
	echo "$out" | grep -Eq '^consumer: lcores=[0-9]+ sum=([0-9]+) expected=\1 OK$' ||
		{ echo "$out" >&2; die "the build-tree consumer printed no 'consumer: ... OK' line"; }
	if [ -f "$lv_src" ]; then
		# shellcheck disable=SC2046
		"$cc" "${warn_flags[@]}" -DALLOW_EXPERIMENTAL_API \
			-o "$tmp/lcore_var_tree" "$lv_src" \
			$(PKG_CONFIG_PATH=$upc pkg-config --cflags --libs \
			libpcpu_mempool_lcore_var) \
			-Wl,-rpath,"$build/lib/pcpu_mempool" ||
			die "the rte_lcore_var program does not build against the build tree"
	fi
	echo "test-consumer: build tree ($upc): built, loads the tree's library, $(echo "$out" | tail -1)"
fi

# The meson route: the example project next to the consumer's source, when
# it is there (a CONSUMER_C of your own is tested with cc only).
mproj=$(dirname "$src")
if [ -f "$mproj/meson.build" ]; then
	"$meson" setup "$tmp/mbuild" "$mproj" -Dwerror=true \
		> "$tmp/msetup.log" 2>&1 ||
		{ cat "$tmp/msetup.log" >&2; die "meson setup of $mproj failed"; }
	grep -q "^Run-time dependency libpcpu_mempool found: YES" "$tmp/msetup.log" ||
		{ cat "$tmp/msetup.log" >&2; die "meson did not find libpcpu_mempool with pkg-config"; }
	ninja -C "$tmp/mbuild" > "$tmp/mbuild.log" 2>&1 ||
		{ cat "$tmp/mbuild.log" >&2; die "the meson consumer does not build"; }
	echo "test-consumer: meson project $mproj:"
	run_consumer consumer "$tmp/mbuild/consumer"
	if [ -f "$lv_src" ]; then
		run_consumer lcore_var_consumer "$tmp/mbuild/lcore_var_consumer"
	fi
	if [ -f "$mo_src" ]; then
		run_consumer mempool_ops_consumer \
			"$tmp/mbuild/mempool_ops_consumer"
	fi
fi
echo "test-consumer: OK"
