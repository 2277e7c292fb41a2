#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Install the Debian packages (Debian 12, 13 or unstable: the same names)
# the project needs to build, test, benchmark and document itself.
#
#   devtools/deps.sh           install what is missing (root), or print the
#                              apt command and exit 1 (not root)
#   devtools/deps.sh --check   exit 0 when everything is installed, else 1
#   devtools/deps.sh --list    print the package names, one per line
#
# When every package is already installed it returns at once, without
# touching apt, so repeated `make test` runs stay fast.

set -euo pipefail

# What each package is for:
#   make meson ninja-build pkg-config gcc g++   build
#   libdpdk-dev                DPDK 22.11 headers, libraries, libdpdk.pc
#   dpdk dpdk-dev              runtime usertools (dpdk-hugepages.py) and
#                              dev tools (dpdk-telemetry.py, dpdk-test)
#   libnuma-dev                NUMA placement of each lcore's pages
#   libcunit1-dev              CUnit unit tests
#   libbenchmark-dev           dpdk-test-pcpu-perf (Google Benchmark)
#   libpcap-dev                net_pcap input for dpdk-flowcount
#   dpdk-doc                   DPDK's l3fwd sources, which make bench builds
#                              to run beside dpdk-flowcount
#   doxygen python3-sphinx     make docs
#   python3-matplotlib         benchmark plots
#   tshark tcpdump             capture tools and reference flow counts
#   valgrind clang libclang-rt-dev   memcheck, sanitizers, libFuzzer
#   abigail-tools              abidw/abidiff: devtools/check-abi.sh
#   dpkg-dev debhelper lintian  Debian packages: devtools/test-packages.sh
#   libsystemd-dev             a static link of DPDK (devtools/test-consumer.sh):
#                              a driver's dbus-1.pc lists -lsystemd
PACKAGES=(
	make meson ninja-build pkg-config gcc g++
	libdpdk-dev dpdk dpdk-dev
	libnuma-dev libcunit1-dev libbenchmark-dev libpcap-dev dpdk-doc
	doxygen python3-sphinx python3-matplotlib
	tshark tcpdump
	valgrind clang libclang-rt-dev
	abigail-tools
	dpkg-dev debhelper lintian
	libsystemd-dev
)

missing_packages() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		case "$status" in
		ii*) ;;
		*) echo "$p" ;;
		esac
	done
}

mode=${1:-install}
case "$mode" in
--list)
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
	;;
--check|install|--install) ;;
*)
	echo "usage: $0 [--check|--list]" >&2
	exit 2
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: dpkg-query not found; this script is for Debian." >&2
	echo "deps: install by other means: ${PACKAGES[*]}" >&2
	exit 1
fi

mapfile -t missing < <(missing_packages)
if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} Debian packages are installed"
	exit 0
fi

echo "deps: missing: ${missing[*]}"
if [ "$mode" = "--check" ]; then
	exit 1
fi

apt_cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: not root; run as root:" >&2
	echo "  apt-get update && $apt_cmd" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# tshark's package asks whether non-root users may capture; keep the default
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections 2>/dev/null || true
apt-get update </dev/null
# shellcheck disable=SC2086
$apt_cmd </dev/null

mapfile -t missing < <(missing_packages)
if [ "${#missing[@]}" -ne 0 ]; then
	echo "deps: still missing after apt-get: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installed"
