#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Frames for the forwarding test of dpdk-flowcount, and their check.

  fwd_frames.py gen IN.pcap
      writes the input capture (see FRAMES: what each frame is and what
      must become of it)
  fwd_frames.py ip
      prints how many of them are IP frames (a flow each)
  fwd_frames.py check IN.pcap OUT.pcap SRC_MAC DST_MAC DEFAULT_ROUTES
      checks, frame by frame, that OUT.pcap (what port 1 sent) holds
      exactly the frames of IN.pcap that must be forwarded, in order, each
      with DST_MAC and SRC_MAC, TTL or hop limit one less, a valid IPv4
      header checksum and every other byte unchanged; prints the drops
      expected by reason as "expect REASON N" lines, then the frames and
      bytes received ("expect rx N", "expect rx-bytes N").
"""

import struct
import sys

SRC_IN = bytes.fromhex('020000000099')
DST_IN = bytes.fromhex('020000000098')


def csum(b):
    s = 0
    for i in range(0, len(b), 2):
        s += (b[i] << 8) | b[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ipv4(dst, ttl, proto=17, l4=b'', opts=b'', tot=None, frag=0, ident=1,
         src='10.1.0.1'):
    ihl = 5 + len(opts) // 4
    if tot is None:
        tot = ihl * 4 + len(l4)
    h = bytearray(struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, 0, tot, ident,
                              frag, ttl, proto, 0, bytes(map(int,
                                                             src.split('.'))),
                              bytes(map(int, dst.split('.')))) + opts)
    h[10:12] = struct.pack('!H', (~csum(bytes(h))) & 0xffff)
    return bytes(h) + l4


def ipv6(dst, hop, l4=b'', nh=17, src='2001:db8::1'):
    import ipaddress
    return struct.pack('!IHBB', 0x60000000, len(l4), nh, hop) + \
        ipaddress.IPv6Address(src).packed + \
        ipaddress.IPv6Address(dst).packed + l4


UDP = struct.pack('!HHHH', 1000, 2000, 12, 0) + b'abcd'
TCP = struct.pack('!HHIIHHHH', 1000, 80, 1, 0, 0x5002, 512, 0, 0)


def eth(payload, etype=0x0800, vlan=None):
    h = DST_IN + SRC_IN
    if vlan is not None:
        h += struct.pack('!HH', 0x8100, vlan)
    return h + struct.pack('!H', etype) + payload


def ident_for_checksum(want):
    """An IP id that gives the header checksum @want (the RFC 1624 corner:
    0xFEFF becomes 0x0000 after the TTL decrement)."""
    for ident in range(65536):
        h = ipv4('198.18.1.11', 64, ident=ident, l4=UDP)
        if struct.unpack('!H', h[10:12])[0] == want:
            return ident
    raise SystemExit('no IP id gives that checksum')


# (frame, fate): fate is 'fwd', 'ttl', 'no-route' (forwarded with the
# default routes), 'bad-ip', 'non-ip' or 'malformed'
def frames():
    return [
        (eth(ipv4('198.18.1.5', 64, l4=UDP)), 'fwd'),
        (eth(ipv4('198.18.1.6', 2, proto=6, l4=TCP)), 'fwd'),
        (eth(ipv4('198.18.1.7', 1, l4=UDP)), 'ttl'),
        (eth(ipv4('198.18.1.8', 0, l4=UDP)), 'ttl'),
        (eth(ipv4('192.0.2.1', 64, l4=UDP)), 'no-route'),
        (eth(ipv4('198.18.1.9', 30, l4=UDP, opts=b'\x01\x01\x01\x00')),
         'fwd'),
        (eth(ipv4('198.18.1.11', 64, l4=UDP,
                  ident=ident_for_checksum(0xfeff))), 'fwd'),
        (eth(ipv4('198.18.1.10', 64, l4=UDP), vlan=7), 'fwd'),
        (eth(ipv6('2001:db8:1::5', 64, l4=UDP), 0x86dd), 'fwd'),
        (eth(ipv6('2001:db8:1::6', 1, l4=UDP), 0x86dd), 'ttl'),
        (eth(ipv6('2001:db9::1', 64, l4=UDP), 0x86dd), 'no-route'),
        (eth(b'\x00\x01\x08\x00\x06\x04\x00\x01' + b'\0' * 20, 0x0806),
         'non-ip'),
        (eth(ipv4('198.18.1.12', 64, l4=UDP)[:10]), 'malformed'),
        (eth(ipv4('198.18.1.13', 64, l4=UDP, tot=10)), 'bad-ip'),
        (eth(ipv4('198.18.1.14', 9, l4=b'\0' * 8, frag=100)), 'fwd'),
    ]


def write_pcap(path, pkts):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(pkts):
            f.write(struct.pack('<IIII', 0, i, len(p), len(p)) + p)


def read_pcap(path):
    data = open(path, 'rb').read()
    magic = struct.unpack('<I', data[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        raise SystemExit(f'{path}: not a little-endian classic pcap')
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack('<IIII', data[off:off + 16])[2]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def expected_out(pkt, src_mac, dst_mac):
    """What @pkt must look like when sent: MACs, TTL/hop limit, checksum."""
    b = bytearray(pkt)
    b[0:6] = dst_mac
    b[6:12] = src_mac
    l3 = 14
    etype = struct.unpack('!H', b[12:14])[0]
    if etype == 0x8100:
        l3 = 18
        etype = struct.unpack('!H', b[16:18])[0]
    if etype == 0x0800:
        b[l3 + 8] -= 1
    else:
        b[l3 + 7] -= 1
    return bytes(b), l3, etype


def check(argv):
    inp, outp, src_s, dst_s, default = argv
    src_mac = bytes.fromhex(src_s.replace(':', ''))
    dst_mac = bytes.fromhex(dst_s.replace(':', ''))
    default = default == '1'
    fates = [f for _, f in frames()]
    sent = [p for p, f in zip(read_pcap(inp), fates)
            if f == 'fwd' or (f == 'no-route' and default)]
    out = read_pcap(outp)
    errors = []
    if len(out) != len(sent):
        errors.append(f'{len(out)} frames sent, want {len(sent)}')
    for i, (got, pkt) in enumerate(zip(out, sent)):
        want, l3, etype = expected_out(pkt, src_mac, dst_mac)
        if etype == 0x0800:
            ihl = (got[l3] & 0xf) * 4
            if csum(got[l3:l3 + ihl]) != 0xffff:
                errors.append(f'frame {i}: IPv4 header checksum invalid')
            # the checksum is checked above; compare the rest
            want = want[:l3 + 10] + got[l3 + 10:l3 + 12] + want[l3 + 12:]
        if got != want:
            errors.append(f'frame {i}: {got.hex()} != {want.hex()}')
    for e in errors:
        print('FAIL:', e)
    counts = {}
    for f in fates:
        if f == 'no-route' and default:
            f = 'fwd'
        counts[f] = counts.get(f, 0) + 1
    for reason in ('fwd', 'ttl', 'no-route', 'bad-ip', 'non-ip', 'malformed'):
        print(f'expect {reason} {counts.get(reason, 0)}')
    print(f'expect rx {len(fates)}')
    print(f'expect rx-bytes {sum(len(p) for p, _ in frames())}')
    return 1 if errors else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'gen':
        write_pcap(sys.argv[2], [p for p, _ in frames()])
        return 0
    if len(sys.argv) == 2 and sys.argv[1] == 'ip':
        print(sum(1 for _, f in frames() if f not in ('non-ip',
                                                      'malformed')))
        return 0
    if len(sys.argv) == 7 and sys.argv[1] == 'check':
        return check(sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
