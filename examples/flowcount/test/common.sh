# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Helpers for the dpdk-flowcount script tests (sourced).
# Environment (set by meson): FLOWCOUNT (the binary), PCAP_DIR
# (<repo>/../shared/data/pcap), DEMO_DIR (examples/flowcount/data).

set -u
SKIP=77
TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(cd "$TEST_DIR/.." && pwd)
: "${FLOWCOUNT:?FLOWCOUNT must name the dpdk-flowcount binary}"
: "${PCAP_DIR:=$SRC_DIR/../../../shared/data/pcap}"
: "${DEMO_DIR:=$SRC_DIR/data}"
PYTHON=$(command -v python3)
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

# in an AddressSanitizer build (meson -Db_sanitize=address) any report
# fails the run; leak reports are off: EAL keeps memory until exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

TMP=$(mktemp -d /tmp/flowcount-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
RUN_ID=0

need_pcap_dir() {
	if [ ! -d "$PCAP_DIR" ]; then
		echo "SKIP: $PCAP_DIR not found"
		exit $SKIP
	fi
}

# prepare SRC DST: a classic pcap libpcap reads as the oracle does
prepare() {
	"$PYTHON" "$TEST_DIR/pcap_prepare.py" "$1" "$2"
}

# run_fc EAL-LCORE-ARGS... -- APP-ARGS...: EAL options common to all tests
# are added; a unique file prefix keeps runs apart (FC_FILE_PREFIX
# overrides it).
run_fc() {
	RUN_ID=$((RUN_ID + 1))
	FC_PREFIX=${FC_FILE_PREFIX:-fctest$$_$RUN_ID}
	timeout -k 5 "${FC_TIMEOUT:-60}" "$FLOWCOUNT" --no-huge -m 512 \
		--no-pci --file-prefix "$FC_PREFIX" --log-level=pmd.net.pcap:error \
		"$@"
}

# start_fc ARGS...: run_fc in the background; FC_PID is the pid that
# signals reach (timeout forwards them to dpdk-flowcount, and with -k
# kills it that long after a forwarded one: a graceful stop writes the
# dump and the summary, which takes seconds on a loaded machine)
start_fc() {
	RUN_ID=$((RUN_ID + 1))
	FC_PREFIX=${FC_FILE_PREFIX:-fctest$$_$RUN_ID}
	( exec timeout -k 30 "${FC_TIMEOUT:-60}" "$FLOWCOUNT" --no-huge -m 512 \
		--no-pci --file-prefix "$FC_PREFIX" \
		--log-level=pmd.net.pcap:error "$@" ) &
	FC_PID=$!
}

# captures under the shared folders, sorted
list_captures() {
	local d
	for d in "$@"; do
		ls "$PCAP_DIR/$d"/*.pcap "$PCAP_DIR/$d"/*.pcapng 2>/dev/null
	done | sort
}

# double_csv IN: the same CSV with packets and bytes doubled
double_csv() {
	awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
		{ $7 *= 2; $8 *= 2; print }' "$1"
}

# fc_summary_port LOG PORT COLUMN: a column of PORT's row in the final
# summary (2 rx-pkts, 3 tx-pkts, 4 tx-drop, 5 no-route, 6 ttl-exceeded,
# 7 bad-ip)
fc_summary_port() {
	awk -v p="$2" -v c="$3" '/summary after/ { s = 1 }
		s && /^ *port +rx-pkts/ { t = 1; next }
		/^total:/ { t = 0 }
		s && t && $1 == p { print $c }' "$1"
}

# fc_bucket LOG NAME: packets of bucket NAME (non-ip, malformed, overflow)
# in the final summary
fc_bucket() {
	sed -n '/summary after/,$p' "$1" | sed -n 's/^buckets: //p' |
		tr ',' '\n' | awk -v n="$2" '$1 == n { print $2 }'
}
