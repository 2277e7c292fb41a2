#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# pmd_send.py IFACE DST_MAC [SCALE]: send a fixed set of Ethernet frames of
# three known 5-tuples (IPv4/UDP, IPv4/TCP, IPv6/UDP) out of IFACE through an
# AF_PACKET raw socket, and print the --flow-dump CSV rows that
# dpdk-flowcount must write for them (sorted as the dump sorts them).
# Each flow's frames all have one length, so the expected byte count is
# packets x length. The flows are interleaved round robin and sent in small
# paced batches, so that the kernel socket ring of a PMD reading the other
# end (net_af_packet, net_tap) never overflows. SCALE (default 1)
# multiplies the packet counts. Needs CAP_NET_RAW.

import socket
import struct
import sys
import time

SRC_MAC = bytes.fromhex('020000fc0001')

# (family, proto, src, dst, sport, dport, payload bytes, packets)
FLOWS = [
    ('ipv4', 17, '198.51.100.1', '203.0.113.7', 40001, 5353, 100, 300),
    ('ipv4', 6, '198.51.100.2', '203.0.113.8', 40002, 8080, 50, 200),
    ('ipv6', 17, '2001:db8::1', '2001:db8:0:1::2', 40003, 4789, 200, 100),
]


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def l4(proto, sport, dport, payload):
    if proto == 17:
        return struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + \
            payload
    # TCP: 20-byte header, ACK|PSH, fixed sequence numbers
    return struct.pack('!HHIIBBHHH', sport, dport, 1000, 2000, 5 << 4,
                       0x18, 65535, 0, 0) + payload


def frame(dst_mac, fam, proto, src, dst, sport, dport, plen):
    payload = bytes((i * 7) & 0xff for i in range(plen))
    seg = l4(proto, sport, dport, payload)
    if fam == 'ipv4':
        hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(seg), 1, 0x4000,
                          64, proto, 0, socket.inet_pton(socket.AF_INET, src),
                          socket.inet_pton(socket.AF_INET, dst))
        hdr = hdr[:10] + struct.pack('!H', csum(hdr)) + hdr[12:]
        return dst_mac + SRC_MAC + b'\x08\x00' + hdr + seg
    hdr = struct.pack('!IHBB16s16s', 6 << 28, len(seg), proto, 64,
                      socket.inet_pton(socket.AF_INET6, src),
                      socket.inet_pton(socket.AF_INET6, dst))
    return dst_mac + SRC_MAC + b'\x86\xdd' + hdr + seg


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit('usage: pmd_send.py IFACE DST_MAC [SCALE]')
    iface = sys.argv[1]
    dst_mac = bytes.fromhex(sys.argv[2].replace(':', ''))
    scale = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    todo = []
    rows = []
    for fam, proto, src, dst, sport, dport, plen, npkts in FLOWS:
        f = frame(dst_mac, fam, proto, src, dst, sport, dport, plen)
        todo.append([f, npkts * scale])
        rows.append((fam, proto, src, dst, sport, dport, npkts * scale,
                     npkts * scale * len(f)))

    # protocol 0: this socket only sends, it receives nothing
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((iface, 0))
    sent = 0
    while any(n for _, n in todo):
        for t in todo:
            if t[1] > 0:
                if s.send(t[0]) != len(t[0]):
                    sys.exit('pmd_send.py: short send on %s' % iface)
                t[1] -= 1
                sent += 1
                if sent % 16 == 0:
                    time.sleep(0.002)
    s.close()

    rows.sort(key=lambda r: (r[0], r[1],
                             socket.inet_pton(socket.AF_INET if r[0] == 'ipv4'
                                              else socket.AF_INET6, r[2]),
                             socket.inet_pton(socket.AF_INET if r[0] == 'ipv4'
                                              else socket.AF_INET6, r[3]),
                             r[4], r[5]))
    for r in rows:
        print(','.join(str(x) for x in r))


if __name__ == '__main__':
    main()
