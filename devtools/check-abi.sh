#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Compare the ABI of librte_pcpu_mempool.so with the reference dump
# committed in devtools/abi/, so that an unintended ABI change fails CI:
#
#   devtools/check-abi.sh            build, dump, abidiff against the
#                                    reference; exit 1 on any difference
#   devtools/check-abi.sh --update   build, dump, and replace the reference
#
# An intended ABI change (a new, removed or changed function, a changed
# public structure or exported variable, a new symbol version) is one
# whose commit also regenerates the dump: run --update and commit
# devtools/abi/ in the same commit as the change.
#
# The dump must come out the same on every machine with the same Debian
# 12 toolchain, so everything that shapes it is fixed here: a fresh build
# of the library alone in build-abi/ at the top of the tree (the source
# paths recorded in the debug info are relative to it), gcc, buildtype
# debugoptimized (-O2 -g: abidw reads the types from DWARF), no CFLAGS or
# LDFLAGS from the environment, and abidw with locations, paths and
# non-exported interfaces left out and hash-style type ids (so that a
# change shows as a small diff of the dump). devtools/abi/toolchain.txt
# records the versions of gcc, DPDK and libabigail that made the
# reference; a difference is printed (the dump may then differ for that
# reason alone). Needs abigail-tools (abidw, abidiff).

set -euo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."
top=$PWD
ref_dir=$top/devtools/abi
ref=$ref_dir/librte_pcpu_mempool.abi
toolchain_ref=$ref_dir/toolchain.txt
b=build-abi

mode=check
case "${1:-}" in
"") ;;
--update) mode=update ;;
*)
	echo "usage: $0 [--update]" >&2
	exit 2
	;;
esac

for t in abidw abidiff gcc meson ninja; do
	command -v "$t" > /dev/null ||
		{ echo "check-abi: $t not found (devtools/deps.sh installs it)" >&2; exit 1; }
done

toolchain() {
	echo "gcc: $(gcc --version | head -1)"
	echo "libdpdk: $(pkg-config --modversion libdpdk)"
	echo "libabigail: $(abidw --version | awk '{ print $NF }')"
}

rm -rf "$b"
env -u CFLAGS -u CPPFLAGS -u LDFLAGS CC=gcc meson setup "$b" \
	-Dbuildtype=debugoptimized -Dtests=false -Dexamples=false \
	-Dbenchmarks=disabled -Ddocs=false -Dfuzz=false -Dpcpu_debug=false \
	> "$b.setup.log" 2>&1 ||
	{ cat "$b.setup.log" >&2; rm -f "$b.setup.log"; exit 1; }
mv "$b.setup.log" "$b/setup.log"
ninja -C "$b" > "$b/build.log" 2>&1 || { cat "$b/build.log" >&2; exit 1; }
meson install -C "$b" --no-rebuild --quiet --destdir "$top/$b/stage" \
	> "$b/install.log" 2>&1 || { cat "$b/install.log" >&2; exit 1; }

lib=$(find "$b/stage" -name 'librte_pcpu_mempool.so.*.*' -type f | head -1)
inc=$(find "$b/stage" -name rte_pcpu.h -printf '%h\n' | head -1)
[ -n "$lib" ] && [ -n "$inc" ] ||
	{ echo "check-abi: the staged install has no library or headers" >&2; exit 1; }

new=$b/librte_pcpu_mempool.abi
abidw --no-corpus-path --no-comp-dir-path --no-show-locs \
	--exported-interfaces-only --type-id-style hash \
	--headers-dir "$inc" --drop-private-types \
	--out-file "$new" "$lib"
toolchain > "$b/toolchain.txt"

if [ "$mode" = update ]; then
	mkdir -p "$ref_dir"
	cp "$new" "$ref"
	cp "$b/toolchain.txt" "$toolchain_ref"
	echo "check-abi: wrote $(realpath --relative-to="$top" "$ref") ($(wc -c < "$ref") bytes) from $lib"
	sed 's/^/check-abi:   /' "$toolchain_ref"
	echo "check-abi: commit devtools/abi/ together with the ABI change"
	exit 0
fi

[ -f "$ref" ] || { echo "check-abi: no reference dump $ref (run $0 --update)" >&2; exit 1; }
if ! cmp -s "$b/toolchain.txt" "$toolchain_ref"; then
	echo "check-abi: note: the reference was made with another toolchain:"
	diff "$toolchain_ref" "$b/toolchain.txt" | sed 's/^/check-abi:   /' || true
fi

rc=0
abidiff "$ref" "$new" > "$b/abidiff.txt" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$b/abidiff.txt"
	# abidiff's status is a bit mask: 1 error, 2 usage, 4 change,
	# 8 incompatible change
	echo "check-abi: FAIL: the ABI differs from devtools/abi/ (abidiff status $rc)." >&2
	echo "check-abi: if the change is intended, run devtools/check-abi.sh --update" \
		"and commit devtools/abi/ with it." >&2
	exit 1
fi
echo "check-abi: OK: the ABI of $(basename "$lib") matches devtools/abi/" \
	"($(grep -c '<elf-symbol ' "$new") exported symbols)"
