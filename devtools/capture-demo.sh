#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Record the demo capture of dpdk-flowcount: real traffic between real
# clients and servers on this machine's loopback, captured with tcpdump,
# and its expected per-flow counts made by an independent tool (tshark).
#
#   devtools/capture-demo.sh [OUTDIR]     (root; default
#                                          examples/flowcount/data)
#
# Traffic (TCP and UDP, IPv4 and IPv6, ICMP):
#   - python3 -m http.server on both stacks, fetched by curl over 127.0.0.1
#     and [::1] (small pages and a 20 KB file);
#   - a UDP echo server (socat) on 127.0.0.1 and [::1] with socat clients;
#   - DNS queries by dig to a local UDP responder (socat, echoing);
#   - ping and ping -6 to the loopback addresses.
#
# Writes OUTDIR/demo.pcap (Ethernet link type, at most 2 MB) and
# OUTDIR/demo.flows.csv (FLOWKEY.md CSV from tshark fields, aggregated and
# sorted here with Python's ipaddress, without the project's parser or the
# reference oracle). When ../shared/tools/flow_oracle.py exists, its output
# on the capture is compared with the tshark counts and the result printed.

set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/examples/flowcount/data}
PYTHON=/usr/bin/python3
[ -x $PYTHON ] || PYTHON=$(command -v python3)
HTTP_PORT=18080
UDP_PORT=15353
DNS_PORT=15354
MAX_BYTES=$((2 * 1024 * 1024))

for t in tcpdump tshark capinfos curl socat dig ping; do
	command -v $t > /dev/null || {
		echo "$0: $t is missing (apt-get install tcpdump tshark curl" \
			"socat dnsutils iputils-ping)" >&2
		exit 1
	}
done
[ "$(id -u)" = 0 ] || { echo "$0: tcpdump on lo needs root" >&2; exit 1; }

mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/capture-demo.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2> /dev/null || true
	done
	wait 2> /dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# content served over HTTP
mkdir -p "$WORK/www"
echo "<html><body>pcpu_mempool flowcount demo</body></html>" \
	> "$WORK/www/index.html"
head -c 20000 /dev/urandom | base64 > "$WORK/www/data.txt"

FILTER="(tcp port $HTTP_PORT) or (udp port $UDP_PORT) or"
FILTER="$FILTER (udp port $DNS_PORT) or icmp or icmp6"
tcpdump -i lo -U -n -w "$WORK/demo.pcap" "$FILTER" 2> "$WORK/tcpdump.log" &
TCPDUMP=$!
PIDS+=($TCPDUMP)

# servers
(cd "$WORK/www" && exec $PYTHON -m http.server --bind :: $HTTP_PORT) \
	> "$WORK/http.log" 2>&1 &
PIDS+=($!)
socat UDP4-RECVFROM:$UDP_PORT,bind=127.0.0.1,fork EXEC:cat &
PIDS+=($!)
socat UDP6-RECVFROM:$UDP_PORT,bind=[::1],fork EXEC:cat &
PIDS+=($!)
socat UDP4-RECVFROM:$DNS_PORT,bind=127.0.0.1,fork EXEC:cat &
PIDS+=($!)
socat UDP6-RECVFROM:$DNS_PORT,bind=[::1],fork EXEC:cat &
PIDS+=($!)
sleep 1.5   # tcpdump and the servers are up

# clients
for i in 1 2 3; do
	curl -s -o /dev/null http://127.0.0.1:$HTTP_PORT/
	curl -s -o /dev/null -g "http://[::1]:$HTTP_PORT/index.html"
done
curl -s -o /dev/null http://127.0.0.1:$HTTP_PORT/data.txt
curl -s -o /dev/null -g "http://[::1]:$HTTP_PORT/data.txt"
for i in 1 2 3; do
	echo "hello over udp4 $i" | socat -T1 - UDP4:127.0.0.1:$UDP_PORT \
		> /dev/null
	head -c $((200 * i)) /dev/zero | tr '\0' x |
		socat -T1 - UDP6:[::1]:$UDP_PORT > /dev/null
done
for name in example.org pcpu.test flowcount.test; do
	dig +tries=1 +time=1 @127.0.0.1 -p $DNS_PORT $name A > /dev/null || true
	dig +tries=1 +time=1 @::1 -p $DNS_PORT $name AAAA > /dev/null || true
done
ping -c 3 -i 0.2 127.0.0.1 > /dev/null
ping -6 -c 3 -i 0.2 ::1 > /dev/null
sleep 1

kill -INT $TCPDUMP
wait $TCPDUMP 2> /dev/null || true
cat "$WORK/tcpdump.log" >&2

# checks: Ethernet frames, size, frames that net_pcap hands over whole
if ! capinfos -E "$WORK/demo.pcap" | grep -q 'Ethernet'; then
	echo "$0: the capture is not Ethernet:" >&2
	capinfos -E "$WORK/demo.pcap" >&2
	exit 1
fi
size=$(stat -c %s "$WORK/demo.pcap")
if [ "$size" -gt $MAX_BYTES ]; then
	echo "$0: capture is $size bytes, more than 2 MB" >&2
	exit 1
fi
# net_pcap keeps packet lengths in 16 bits: refuse bigger frames
big=$(tshark -r "$WORK/demo.pcap" -T fields -e frame.cap_len |
	awk '$1 > 65535' | wc -l)
if [ "$big" -ne 0 ]; then
	echo "$0: $big frames are longer than 65535 bytes" >&2
	exit 1
fi

# expected counts from tshark's dissection (FLOWKEY.md rules for this
# traffic: no VLAN, no IPv6 extension headers, no fragments)
tshark -r "$WORK/demo.pcap" -T fields -E separator=/t -E occurrence=f \
	-e frame.cap_len -e eth.type -e ip.proto -e ip.src -e ip.dst \
	-e ip.frag_offset -e ipv6.nxt -e ipv6.src -e ipv6.dst \
	-e tcp.srcport -e tcp.dstport -e udp.srcport -e udp.dstport \
	> "$WORK/fields.tsv"
$PYTHON - "$WORK/fields.tsv" > "$WORK/demo.flows.csv" <<'PY'
import ipaddress
import sys
from collections import defaultdict

flows = defaultdict(lambda: [0, 0])
special = defaultdict(lambda: [0, 0])
for line in open(sys.argv[1]):
    (cap_len, etype, proto4, src4, dst4, frag, nxt6, src6, dst6,
     tsp, tdp, usp, udp_) = line.rstrip('\n').split('\t')
    n = int(cap_len)
    if src4:
        fam, proto, src, dst = 4, int(proto4), src4, dst4
        nonfirst = frag not in ('', '0')
    elif src6:
        fam, proto, src, dst = 6, int(nxt6), src6, dst6
        nonfirst = False
    else:
        special['non-ip'][0] += 1
        special['non-ip'][1] += n
        continue
    sp = dp = 0
    if not nonfirst and proto == 6 and tsp:
        sp, dp = int(tsp), int(tdp)
    elif not nonfirst and proto == 17 and usp:
        sp, dp = int(usp), int(udp_)
    key = (fam, proto, ipaddress.ip_address(src), ipaddress.ip_address(dst),
           sp, dp)
    flows[key][0] += 1
    flows[key][1] += n

print('family,proto,src,dst,sport,dport,packets,bytes')
for k in sorted(flows):
    fam, proto, src, dst, sp, dp = k
    print(f'ipv{fam},{proto},{src},{dst},{sp},{dp},{flows[k][0]},{flows[k][1]}')
for name in ('non-ip', 'malformed'):
    if name in special:
        print(f'{name},,,,,,{special[name][0]},{special[name][1]}')
PY

cp "$WORK/demo.pcap" "$OUT/demo.pcap"
cp "$WORK/demo.flows.csv" "$OUT/demo.flows.csv"
echo "wrote $OUT/demo.pcap ($size bytes," \
	"$(capinfos -c -M "$OUT/demo.pcap" | awk '/Number of packets/ {print $NF}')" \
	"frames) and $OUT/demo.flows.csv" \
	"($(($(wc -l < "$OUT/demo.flows.csv") - 1)) rows)"

ORACLE=$SRC/../shared/tools/flow_oracle.py
if [ -f "$ORACLE" ]; then
	if $PYTHON "$ORACLE" "$OUT/demo.pcap" | cmp -s - "$OUT/demo.flows.csv"
	then
		echo "tshark counts equal the reference oracle's output"
	else
		echo "tshark counts DIFFER from the reference oracle's output:"
		$PYTHON "$ORACLE" "$OUT/demo.pcap" |
			diff - "$OUT/demo.flows.csv" || true
	fi
fi
