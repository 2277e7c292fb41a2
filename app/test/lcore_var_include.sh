#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# What <rte_lcore_var.h> is to a consumer of libpcpu_mempool_lcore_var:
# DPDK's own with DPDK 24.11 and later, in either order of the include
# path, and pcpu_mempool's compat layer with an older DPDK:
#
#   lcore_var_include.sh "CC [ARGS]" "CXX [ARGS]" "LCORE_VAR_IFLAGS" LIB_DIR
#
# LCORE_VAR_IFLAGS is the dependency's include path (-I options), LIB_DIR
# the library's header directory (pcpu_compat.h says which DPDK this is).
# Each case compiles and runs a small program; DPDK's headers and
# libraries come from pkg-config libdpdk. Every header of the dependency
# must also compile alone as C11 and C++11 with -Wall -Wextra -Wpedantic,
# as the library's other installed headers do (DPDK's as system headers).
# Exit 0 on success.

set -eu

cc=$1
cxx=$2
iflags=$3
lib=$4
dpdk_cflags=$(pkg-config --cflags libdpdk)
dpdk_libs=$(pkg-config --libs libdpdk)
dpdk_version=$(pkg-config --modversion libdpdk)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcpu-lcore-var-inc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/which.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <rte_errno.h>
#include <rte_lcore_var.h>
#include <rte_pcpu_lcore_var.h>
#include "pcpu_compat.h"
#ifndef RTE_LCORE_VAR_FOREACH
#error "no lcore variable API from <rte_lcore_var.h>"
#endif
#ifdef PCPU_HAVE_RTE_LCORE_VAR
/* DPDK's header (its include guard), and nothing of the compat layer */
#ifndef RTE_LCORE_VAR_H
#error "<rte_lcore_var.h> is not DPDK's own"
#endif
#ifdef RTE_PCPU_LCORE_VAR_STATIC_ASSERT
#error "pcpu_mempool's lcore variables defined next to DPDK's"
#endif
#define WHICH "DPDK's own"
#else
#ifndef RTE_PCPU_LCORE_VAR_STATIC_ASSERT
#error "<rte_lcore_var.h> is not pcpu_mempool's compat layer"
#endif
#define WHICH "pcpu_mempool's compat layer"
#endif
int main(void)
{
	int x;

#ifdef PCPU_HAVE_RTE_LCORE_VAR
	/* DPDK's lcore variables cannot be freed */
	rte_errno = 0;
	if (rte_pcpu_lcore_var_free(NULL) != 0 ||
	    rte_pcpu_lcore_var_free(&x) != -1 || rte_errno != ENOTSUP)
		return 1;
	printf("%s, free: ENOTSUP\n", WHICH);
#else
	(void)x;
	printf("%s\n", WHICH);
#endif
	return 0;
}
C

fail() {
	echo "lcore_var_include: FAIL: $*" >&2
	exit 1
}

# shellcheck disable=SC2086
for order in package-first dpdk-first; do
	if [ $order = package-first ]; then
		inc="$iflags -I$lib $dpdk_cflags"
	else
		inc="$dpdk_cflags $iflags -I$lib"
	fi
	$cc -DALLOW_EXPERIMENTAL_API -Werror $inc "$tmp/which.c" \
		-o "$tmp/which-$order" $dpdk_libs ||
		fail "DPDK $dpdk_version, $order"
	out=$("$tmp/which-$order") ||
		fail "DPDK $dpdk_version, $order: the free is not ENOTSUP"
	echo "lcore_var_include: DPDK $dpdk_version, $order: <rte_lcore_var.h> is $out"
done

dpdk_sys=$(pkg-config --cflags-only-I libdpdk | sed 's/-I/-isystem /g')
dpdk_other=$(pkg-config --cflags-only-other libdpdk)
for h in rte_lcore_var.h rte_pcpu_lcore_var.h; do
	echo "#include <$h>" > "$tmp/alone.c"
	cp "$tmp/alone.c" "$tmp/alone.cpp"
	# shellcheck disable=SC2086
	$cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic \
		-Werror -DALLOW_EXPERIMENTAL_API $dpdk_other $iflags -I"$lib" $dpdk_sys \
		-fsyntax-only "$tmp/alone.c" || fail "$h alone as C11"
	# shellcheck disable=SC2086
	$cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror -DALLOW_EXPERIMENTAL_API \
		$dpdk_other $iflags -I"$lib" $dpdk_sys \
		-fsyntax-only "$tmp/alone.cpp" || fail "$h alone as C++11"
done
echo "lcore_var_include: <rte_lcore_var.h> and <rte_pcpu_lcore_var.h> compile alone as C11 and C++11, -Wpedantic"
echo "lcore_var_include: OK"
