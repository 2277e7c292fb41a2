#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Write the Ethernet frames of pcap files as libFuzzer seed inputs.

    devtools/pcap-corpus.py OUT_DIR PCAP_OR_DIR...

Each frame becomes one file in OUT_DIR: a 0 byte (fuzz_flow_parse: "one
segment") followed by the captured bytes, named <pcap>-<index>. Classic
pcap only (either byte order, micro- or nanosecond), link type Ethernet;
other files are skipped with a note. Prints how many frames it wrote.
"""

import os
import struct
import sys

MAGICS = {
    b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
    b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">",
}
LINKTYPE_ETHERNET = 1


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24 or data[:4] not in MAGICS:
        print("%s: not a classic pcap, skipped" % path)
        return
    e = MAGICS[data[:4]]
    # the top bits may carry FCS information (pcap LinkType field)
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x03FFFFFF
    if linktype != LINKTYPE_ETHERNET:
        print("%s: link type %d, not Ethernet, skipped" % (path, linktype))
        return
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        off += 16
        if incl > len(data) - off:
            incl = len(data) - off  # truncated capture: keep what is there
        yield data[off:off + incl]
        off += incl


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    paths = []
    for p in sys.argv[2:]:
        if os.path.isdir(p):
            paths += sorted(os.path.join(p, n) for n in os.listdir(p)
                            if n.endswith(".pcap"))
        elif os.path.exists(p):
            paths.append(p)
    n = 0
    for p in paths:
        base = os.path.basename(p)
        for i, fr in enumerate(frames(p)):
            with open(os.path.join(out, "%s-%d" % (base, i)), "wb") as f:
                f.write(b"\0" + fr)
            n += 1
    print("pcap-corpus: %d frames from %d files into %s" % (n, len(paths), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
