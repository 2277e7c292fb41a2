#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Prepare a capture for a libpcap reader (net_pcap, the parser unit test).

Usage: pcap_prepare.py IN OUT

- pcapng is converted to classic pcap with `editcap -F pcap`, as the
  reference oracle (shared/tools/flow_oracle.py) does;
- when a record holds more bytes than the snapshot length in the file
  header (fuzzed captures do), libpcap cuts the record at the snapshot
  length, while the reference counts every byte of the record. The header's
  snapshot length is then raised to 262144 (libpcap's largest for
  Ethernet); the records are copied unchanged. A note goes to stderr.

OUT is always written (a plain copy when nothing needs doing).
Exit 0, or 1 on error.
"""
import shutil
import struct
import subprocess
import sys

MAX_SNAPLEN = 262144


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    src, dst = argv[1], argv[2]
    with open(src, 'rb') as f:
        magic = f.read(4)
    if magic == b'\x0a\x0d\x0d\x0a':
        subprocess.run(['editcap', '-F', 'pcap', src, dst], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        shutil.copyfile(src, dst)
    with open(dst, 'r+b') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return 0
        if hdr[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
            e = '<'
        elif hdr[:4] in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
            e = '>'
        else:
            print(f'{src}: not a pcap file', file=sys.stderr)
            return 1
        snaplen = struct.unpack(e + 'I', hdr[16:20])[0]
        longest = 0
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            caplen = struct.unpack(e + 'I', rec[8:12])[0]
            longest = max(longest, caplen)
            f.seek(caplen, 1)
        if longest > snaplen and snaplen < MAX_SNAPLEN:
            f.seek(16)
            f.write(struct.pack(e + 'I', MAX_SNAPLEN))
            print(f'{src}: note: a record holds {longest} bytes, header '
                  f'snaplen {snaplen}: raised to {MAX_SNAPLEN}',
                  file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
