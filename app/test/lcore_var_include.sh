#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# The opt-in <rte_lcore_var.h> of lib/pcpu_mempool/lcore_var never shadows
# DPDK's own (DPDK 24.11 and later), whatever the order of the include
# path, and provides the API itself with an older DPDK:
#
#   lcore_var_include.sh "CC [ARGS]" "CXX [ARGS]" COMPAT_DIR LIB_DIR
#
# A stand-in for DPDK 24.11 is two headers in a temporary directory: an
# rte_version.h saying 24.11.0 and an rte_lcore_var.h that defines a marker.
# Each case compiles (and the ENOTSUP case runs) a small program; the real
# DPDK's other headers come from pkg-config libdpdk. Both headers must
# also compile alone as C11 and C++11 with -Wall -Wextra -Wpedantic, as
# the library's other installed headers do (DPDK's as system headers).
# Exit 0 on success.

set -eu

cc=$1
cxx=$2
compat=$3
lib=$4
dpdk_cflags=$(pkg-config --cflags libdpdk)
dpdk_libs=$(pkg-config --libs libdpdk)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcpu-lcore-var-inc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/ver" "$tmp/dpdk2411"
cat > "$tmp/ver/rte_version.h" <<'H'
#define RTE_VERSION_NUM(a, b, c, d) ((a) << 24 | (b) << 16 | (c) << 8 | (d))
#define RTE_VERSION RTE_VERSION_NUM(24, 11, 0, 0)
H
cat > "$tmp/dpdk2411/rte_lcore_var.h" <<'H'
#define STAND_IN_DPDK_2411_LCORE_VAR 1
H
cat > "$tmp/dpdk.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <rte_errno.h>
#include <rte_lcore_var.h>
#include <rte_pcpu_lcore_var.h>
#ifndef STAND_IN_DPDK_2411_LCORE_VAR
#error "DPDK's own rte_lcore_var.h was shadowed"
#endif
#ifdef RTE_PCPU_LCORE_VAR_STATIC_ASSERT
#error "pcpu_mempool's lcore variables defined next to DPDK's"
#endif
int main(void)
{
	int x;

	if (rte_pcpu_lcore_var_free(&x) != -1 || rte_errno != ENOTSUP)
		return 1;
	printf("free with DPDK's lcore variables: ENOTSUP\n");
	return 0;
}
C
cat > "$tmp/compat.c" <<'C'
#include <rte_lcore_var.h>
#ifndef RTE_LCORE_VAR_FOREACH
#error "no lcore variable API with this DPDK"
#endif
#ifndef RTE_PCPU_LCORE_VAR_STATIC_ASSERT
#error "not pcpu_mempool's lcore variables"
#endif
int main(void) { return 0; }
C

fail() {
	echo "lcore_var_include: FAIL: $*" >&2
	exit 1
}

# shellcheck disable=SC2086
for order in compat-first dpdk-first; do
	if [ $order = compat-first ]; then
		inc="-I$tmp/ver -I$compat -I$lib -I$tmp/dpdk2411"
	else
		inc="-I$tmp/ver -I$tmp/dpdk2411 -I$compat -I$lib"
	fi
	$cc -DALLOW_EXPERIMENTAL_API -Werror $inc $dpdk_cflags \
		"$tmp/dpdk.c" -o "$tmp/dpdk-$order" $dpdk_libs ||
		fail "stand-in DPDK 24.11, $order"
	"$tmp/dpdk-$order" || fail "stand-in DPDK 24.11, $order: free is not ENOTSUP"
	echo "lcore_var_include: stand-in DPDK 24.11, $order: DPDK's header used"
done
# shellcheck disable=SC2086
$cc -DALLOW_EXPERIMENTAL_API -Werror -I"$compat" -I"$lib" $dpdk_cflags \
	-c "$tmp/compat.c" -o "$tmp/compat.o" ||
	fail "DPDK $(pkg-config --modversion libdpdk): no API from <rte_lcore_var.h>"
echo "lcore_var_include: DPDK $(pkg-config --modversion libdpdk): pcpu_mempool's API"

dpdk_sys=$(pkg-config --cflags-only-I libdpdk | sed 's/-I/-isystem /g')
dpdk_other=$(pkg-config --cflags-only-other libdpdk)
for h in rte_lcore_var.h rte_pcpu_lcore_var.h; do
	echo "#include <$h>" > "$tmp/alone.c"
	cp "$tmp/alone.c" "$tmp/alone.cpp"
	# shellcheck disable=SC2086
	$cc -std=c11 -Wall -Wextra -Wpedantic -Werror -DALLOW_EXPERIMENTAL_API \
		$dpdk_other $dpdk_sys -I"$compat" -I"$lib" \
		-fsyntax-only "$tmp/alone.c" || fail "$h alone as C11"
	# shellcheck disable=SC2086
	$cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror -DALLOW_EXPERIMENTAL_API \
		$dpdk_other $dpdk_sys -I"$compat" -I"$lib" \
		-fsyntax-only "$tmp/alone.cpp" || fail "$h alone as C++11"
done
echo "lcore_var_include: both headers compile alone as C11 and C++11, -Wpedantic"
echo "lcore_var_include: OK"
