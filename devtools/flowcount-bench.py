#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""dpdk-flowcount side by side with DPDK's own l3fwd (printed, not pass/fail).

Run through devtools/flowcount-bench.sh; see its header and the sample
application guide (Speed) for what is measured and how.
"""

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

L3FWD_SRC = '/usr/share/dpdk/examples'

# The changes the virtual ports need, applied to a copy of Debian's l3fwd
# sources at build time (nothing of DPDK's code is kept in the tree):
# - the RX checksum offload l3fwd asks for is masked by the port's
#   capabilities (net_pcap and net_null have none, and
#   rte_eth_dev_configure() refuses what a port cannot do), for the port
#   and for its RX queues;
# - the lower bound of the mbuf pool (8192) is read from the environment,
#   L3FWD_MIN_MBUFS: net_pcap with infinite_rx=1 keeps the whole capture in
#   mbufs of the RX queue's pool.
L3FWD_SEDS = [
    r's/^\(\t*\)local_port_conf\.rx_adv_conf\.rss_conf\.rss_hf &=/'
    r'\1local_port_conf.rxmode.offloads \&= dev_info.rx_offload_capa;\n&/',
    r's/rxq_conf\.offloads = port_conf\.rxmode\.offloads;/'
    r'rxq_conf.offloads = port_conf.rxmode.offloads \& '
    r'dev_info.rx_offload_capa;/',
    r's/(unsigned)8192)/(unsigned)(getenv("L3FWD_MIN_MBUFS") != NULL ? '
    r'strtoul(getenv("L3FWD_MIN_MBUFS"), NULL, 0) : 8192))/',
]

# case name -> (program, arguments after the common ones)
CASES = {
    'l3fwd-L': ('l3fwd', ['-L']),
    'l3fwd-E': ('l3fwd', ['-E']),
    'no-count': ('flowcount', ['--no-count']),
    'count': ('flowcount', []),
    'lookup-only': ('flowcount', ['--lookup-only']),
    'floor': ('flowcount', ['--count-floor']),
    'atomic': ('flowcount', ['--counters', 'atomic']),
    'array': ('flowcount', ['--counters', 'array']),
}

# (numerator, denominator, target, what): per-packet CPU time ratios
TARGETS = [
    ('no-count', 'l3fwd-L', 1.05, 'forwarding path vs l3fwd LPM'),
    ('count', 'l3fwd-E', 0.70, 'counting vs l3fwd exact match'),
    ('count', 'l3fwd-L', 1.30, 'counting vs l3fwd LPM (moonshot)'),
    ('floor', 'l3fwd-L', None, 'one line per packet vs l3fwd LPM'),
    ('floor', 'l3fwd-E', None, 'one line per packet vs l3fwd exact match'),
    ('count', 'floor', 1.10, 'counting vs one line per packet (proposed)'),
    ('count', 'best-scheme', 1.02, 'percpu vs best counter scheme'),
    ('atomic', 'count', None, 'shared atomics vs percpu'),
    ('array', 'count', None, 'per-lcore arrays vs percpu'),
    ('lookup-only', 'count', None, 'lookup only vs counting'),
]


def log(msg):
    print(msg, flush=True)


def cpu_model():
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown CPU'


def loadavg():
    return ' '.join(open('/proc/loadavg').read().split()[:3])


def build_l3fwd(build_dir):
    """Copy Debian's l3fwd and ../common into BUILD/l3fwd-bench, patch what
    the virtual ports need, build with its Makefile; cached by a stamp."""
    src = os.path.join(L3FWD_SRC, 'l3fwd')
    if not os.path.isfile(os.path.join(src, 'main.c')):
        sys.exit(f'bench: {src} missing (apt-get install dpdk-doc)')
    top = os.path.join(build_dir, 'l3fwd-bench')
    binary = os.path.join(top, 'l3fwd', 'build', 'l3fwd')
    h = hashlib.sha256()
    for name in sorted(os.listdir(src)):
        h.update(open(os.path.join(src, name), 'rb').read())
    h.update('\n'.join(L3FWD_SEDS).encode())
    stamp = os.path.join(top, 'stamp')
    if os.path.exists(binary) and os.path.exists(stamp) and \
            open(stamp).read() == h.hexdigest():
        return binary
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    shutil.copytree(src, os.path.join(top, 'l3fwd'))
    shutil.copytree(os.path.join(L3FWD_SRC, 'common'),
                    os.path.join(top, 'common'))
    main_c = os.path.join(top, 'l3fwd', 'main.c')
    before = open(main_c).read()
    subprocess.run(['sed', '-i'] + sum([['-e', s] for s in L3FWD_SEDS], [])
                   + [main_c], check=True)
    after = open(main_c).read()
    for needle in ('local_port_conf.rxmode.offloads &= '
                   'dev_info.rx_offload_capa;',
                   'port_conf.rxmode.offloads & dev_info.rx_offload_capa;',
                   'getenv("L3FWD_MIN_MBUFS")'):
        if needle not in after or needle in before:
            sys.exit(f'bench: patching l3fwd failed ({needle}): '
                     'DPDK sources changed?')
    log(f'bench: building l3fwd in {top} (make, pkg-config libdpdk)')
    r = subprocess.run(['make', '-C', os.path.join(top, 'l3fwd'), '-j2'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0 or not os.path.exists(binary):
        sys.exit('bench: l3fwd build failed:\n' + r.stdout[-3000:])
    open(stamp, 'w').write(h.hexdigest())
    return binary


def ip_checksum(hdr):
    s = sum(struct.unpack('!10H', hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def flow_tuple(i):
    """Flow i: 10.x.y.z -> 198.18.1.1, UDP, ports from i."""
    return (0x0a000000 + i, 1024 + i % 50000, 9000 + i // 50000)


def write_capture(path, order):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, i in enumerate(order):
            src, sport, dport = flow_tuple(i)
            payload = b'\0' * 18
            udp = struct.pack('!HHHH', sport, dport, 8 + len(payload), 0) + \
                payload
            ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp),
                                       0, 0, 64, 17, 0, struct.pack('!I', src),
                                       bytes([198, 18, 1, 1])))
            ip[10:12] = struct.pack('!H', ip_checksum(bytes(ip)))
            eth = bytes.fromhex('020000000000020000000099') + b'\x08\x00' + \
                bytes(ip) + udp
            f.write(struct.pack('<IIII', n // 1000000, n % 1000000, len(eth),
                                len(eth)) + eth)


def make_inputs(work, flows):
    """Captures (round robin, Zipf) and rule files."""
    rr = list(range(flows))
    rng = random.Random(2026)
    # Zipf (s = 1) over the flows, hot flows spread over the key space
    perm = list(range(flows))
    rng.shuffle(perm)
    weights = [1.0 / (k + 1) for k in range(flows)]
    zipf = [perm[k] for k in rng.choices(range(flows), weights, k=flows)]
    write_capture(os.path.join(work, 'rr.pcap'), rr)
    write_capture(os.path.join(work, 'zipf.pcap'), zipf)
    # LPM rules, l3fwd's syntax, for l3fwd -L and dpdk-flowcount alike
    with open(os.path.join(work, 'lpm4.cfg'), 'w') as f:
        f.write('R198.18.0.0/24 0\nR198.18.1.0/24 1\n')
    with open(os.path.join(work, 'lpm6.cfg'), 'w') as f:
        f.write('R2001:200::/64 0\nR2001:200:0:1::/64 1\n')
    # exact-match rules: every flow of the capture, to port 1
    with open(os.path.join(work, 'em4.cfg'), 'w') as f:
        for i in range(flows):
            src, sport, dport = flow_tuple(i)
            f.write(f'R198.18.1.1 {src >> 24}.{(src >> 16) & 255}.'
                    f'{(src >> 8) & 255}.{src & 255} {dport} {sport} 0x11 1\n')
    with open(os.path.join(work, 'em6.cfg'), 'w') as f:
        f.write('R2001:200:0:1::1 2001:200::1 9 9 0x11 1\n')
    return {'rr': len(rr), 'zipf': len(zipf)}, len(set(zipf))


class Telemetry:
    """DPDK's telemetry socket (v2) of one process."""

    def __init__(self, prefix):
        self.path = f'/var/run/dpdk/{prefix}/dpdk_telemetry.v2'
        self.sock = None

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(self.path)
        s.recv(4096)  # greeting
        self.sock = s

    def query(self, cmd):
        self.sock.send(cmd.encode())
        return json.loads(self.sock.recv(1 << 16).decode())

    def close(self):
        if self.sock is not None:
            self.sock.close()


def worker_tids(pid, workers):
    # DPDK 22.11 names them rte-worker-N, later releases lcore-worker-N
    names = {f'{p}-worker-{w}' for w in workers for p in ('rte', 'lcore')}
    out = []
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            comm = open(f'/proc/{pid}/task/{tid}/comm').read().strip()
        except OSError:
            continue
        if comm in names:
            out.append(tid)
    return out


def cpu_ns(pid, tids):
    total = 0
    for tid in tids:
        total += int(open(f'/proc/{pid}/task/{tid}/schedstat').read().split()[0])
    return total


def run_case(opts, bins, work, case, workers, mix, npkts, seq):
    prog, extra = CASES[case]
    prefix = f'fcbench{os.getpid()}_{seq}'
    wl = list(range(1, workers + 1))
    lcores = '0@0,1@1' if workers == 1 else '0@0,1@0,2@1'
    cap = os.path.join(work, f'{mix}.pcap')
    # the pcap ports need a TX queue per lcore in l3fwd (never used)
    txq = ',tx_pcap=/dev/null' * (workers + 1)
    if opts.layout == 'queues':
        # one net_pcap port, an RX queue per worker, the capture on each
        vdev = f'net_pcap0,rx_pcap={cap},infinite_rx=1' + \
            f',rx_pcap={cap}' * (workers - 1) + txq
        vdevs = ['--vdev', vdev, '--vdev', 'net_null0']
        portmask = '0x3'
        config = ','.join(f'(0,{q},{q + 1})' for q in range(workers))
    else:
        # a net_pcap port per worker (ports 0, 2, ...), net_null port 1
        vdevs = ['--vdev', f'net_pcap0,rx_pcap={cap},infinite_rx=1' + txq,
                 '--vdev', 'net_null0']
        pcap_ports = [0]
        for w in range(1, workers):
            vdevs += ['--vdev', f'net_pcap{w},rx_pcap={cap},infinite_rx=1' +
                      txq]
            pcap_ports.append(w + 1)
        portmask = hex((1 << (workers + 1)) - 1)
        config = ','.join(f'({p},0,{i + 1})'
                          for i, p in enumerate(pcap_ports))
    mbufs = workers * npkts + 32768
    eal = ['--lcores', lcores, '--no-pci', '--file-prefix', prefix,
           '--log-level=pmd.net.pcap:error'] + vdevs + opts.mem
    env = dict(os.environ)
    if prog == 'l3fwd':
        rules = ['--rule_ipv4', os.path.join(work, 'em4.cfg' if case ==
                                             'l3fwd-E' else 'lpm4.cfg'),
                 '--rule_ipv6', os.path.join(work, 'em6.cfg' if case ==
                                             'l3fwd-E' else 'lpm6.cfg')]
        cmd = [bins['l3fwd']] + eal + ['--', '-p', portmask] + extra + \
            ['--parse-ptype', '--config', config] + rules
        env['L3FWD_MIN_MBUFS'] = str(mbufs)
    else:
        cmd = [bins[prog]] + eal + [
            '--', '-p', portmask, '--config', config,
            '--rule_ipv4', os.path.join(work, 'lpm4.cfg'),
            '--rule_ipv6', os.path.join(work, 'lpm6.cfg'),
            '--stats-interval', '0', '--mbufs', str(mbufs)]
        # the flow table's options, before the case's own (which win)
        if '--no-count' not in extra:
            cmd += ['--flow-timeout', '0',
                    '--max-flows', str(opts.flows + 1024)]
        cmd += extra
    logf = open(os.path.join(work, f'{case}.log'), 'w')
    p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                         env=env)
    tel = Telemetry(prefix)
    result = None
    try:
        deadline = time.time() + 120
        tids = []
        # started: telemetry answers and packets go out of port 1
        while time.time() < deadline and p.poll() is None:
            try:
                if tel.sock is None:
                    tel.connect()
                st = tel.query('/ethdev/stats,1')['/ethdev/stats']
                tids = worker_tids(p.pid, wl)
                if st['opackets'] > 0 and len(tids) == workers:
                    break
            except (OSError, ValueError, KeyError, TypeError):
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError(f'{case} did not start')
        # warm-up: every flow inserted, caches settled
        time.sleep(opts.warmup)
        t0, c0 = time.time(), cpu_ns(p.pid, tids)
        o0 = tel.query('/ethdev/stats,1')['/ethdev/stats']['opackets']
        time.sleep(opts.seconds)
        t1, c1 = time.time(), cpu_ns(p.pid, tids)
        o1 = tel.query('/ethdev/stats,1')['/ethdev/stats']['opackets']
        pk = o1 - o0
        if pk <= 0:
            raise RuntimeError(f'{case}: no packets forwarded')
        result = {'mpps': pk / (t1 - t0) / 1e6, 'ns': (c1 - c0) / pk,
                  'pkts': pk}
    except RuntimeError as e:
        log(f'bench: {e}; log tail:')
        logf.flush()
        log(''.join(open(logf.name).readlines()[-8:]))
    finally:
        tel.close()
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        logf.close()
    return result


def spread(v):
    if not v:
        return 'n/a'
    return f'{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})'


def number(kind, low, strict=False):
    """An argparse type: a number of @kind, at least @low (above it when
    @strict)."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not math.isfinite(v):
            raise argparse.ArgumentTypeError(f'{text!r} is not a number')
        if v < low or (strict and v == low):
            raise argparse.ArgumentTypeError(
                f'{text} must be {"above" if strict else "at least"} {low}')
        return v
    return parse


def one_of(allowed, kind=str):
    """An argparse type: a comma-separated list of values of @allowed."""
    def parse(text):
        try:
            vals = [kind(x) for x in text.split(',')]
        except ValueError:
            vals = None
        if not vals or any(v not in allowed for v in vals):
            raise argparse.ArgumentTypeError(
                f'{text!r}: a comma-separated list of '
                f'{", ".join(str(a) for a in allowed)}')
        return vals
    return parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build', nargs='?', default='build')
    ap.add_argument('legacy', nargs='*', help=argparse.SUPPRESS)
    ap.add_argument('--smoke', action='store_true')
    ap.add_argument('--flows', type=number(int, 1))
    ap.add_argument('--seconds', type=number(float, 0, strict=True))
    ap.add_argument('--warmup', type=number(float, 0))
    ap.add_argument('--rounds', type=number(int, 1))
    ap.add_argument('--workers', type=one_of((1, 2), int), default='1,2')
    ap.add_argument('--mixes', type=one_of(('rr', 'zipf')), default='rr,zipf')
    ap.add_argument('--cases', default=','.join(CASES))
    ap.add_argument('--no-huge', action='store_true')
    ap.add_argument('--layout', choices=('ports', 'queues'), default='ports',
                    help='workers read a net_pcap port each (default) or '
                    'the RX queues of one')
    ap.add_argument('--case', action='append', default=[],
                    metavar='NAME=ARG,ARG',
                    help='an extra dpdk-flowcount case with these options')
    ap.add_argument('--base', metavar='BINARY',
                    help='another dpdk-flowcount (e.g. a build of the '
                    'previous commit): its --no-count and counting runs '
                    'are added as cases base-no-count and base-count')
    opts = ap.parse_args()
    for spec in opts.case:
        name, _, args = spec.partition('=')
        CASES[name] = ('flowcount', [a for a in args.split(',') if a])
    if opts.base:
        CASES['base-no-count'] = ('base', ['--no-count'])
        CASES['base-count'] = ('base', [])
        TARGETS.extend([
            ('no-count', 'base-no-count', None, 'forwarding path vs base'),
            ('count', 'base-count', None, 'counting vs base'),
        ])
    added = [x.partition('=')[0] for x in opts.case] + \
        [c for c in CASES if CASES[c][0] == 'base']
    if added and opts.cases == ','.join(c for c in CASES if c not in added):
        opts.cases = ','.join(CASES)
    # legacy positionals: BUILD FLOWS SECONDS [ROUNDS], checked as the
    # options are
    legacy = opts.legacy + [None] * 3
    for i, (name, check) in enumerate((('FLOWS', number(int, 1)),
                                       ('SECONDS', number(float, 0, True)),
                                       ('ROUNDS', number(int, 1)))):
        if legacy[i] is not None:
            try:
                legacy[i] = check(legacy[i])
            except argparse.ArgumentTypeError as e:
                ap.error(f'argument {name}: {e}')
    smoke = opts.smoke
    opts.flows = opts.flows or legacy[0] or (20000 if smoke else 100000)
    opts.seconds = opts.seconds or legacy[1] or (0.5 if smoke else 3.0)
    opts.rounds = opts.rounds or legacy[2] or (1 if smoke else 3)
    opts.warmup = opts.warmup if opts.warmup is not None else \
        (0.3 if smoke else 1.0)
    workers = opts.workers
    mixes = opts.mixes
    cases = opts.cases.split(',')
    for c in cases:
        if c not in CASES:
            sys.exit(f'bench: unknown case {c} ({", ".join(CASES)})')
    bins = {'flowcount': os.path.join(opts.build, 'examples', 'flowcount',
                                      'dpdk-flowcount')}
    if opts.base:
        bins['base'] = opts.base
    for b in bins.values():
        if not os.access(b, os.X_OK):
            sys.exit(f'bench: {b} not built')
    if any(CASES[c][0] == 'l3fwd' for c in cases):
        bins['l3fwd'] = build_l3fwd(opts.build)

    # memory: hugepages when enough are free (as DPDK is deployed), else
    # --no-huge; every case of the run gets the same
    mem_mb = (2 * opts.flows * 2500) // (1 << 20) + 768
    try:
        free = int(open('/sys/kernel/mm/hugepages/hugepages-2048kB/'
                        'free_hugepages').read())
    except OSError:
        free = 0
    if not opts.no_huge and free * 2 >= mem_mb + 512:
        opts.mem = ['-m', str(mem_mb), '--huge-unlink']
        memdesc = f'2 MiB hugepages (-m {mem_mb}, {free} free at start)'
    else:
        opts.mem = ['--no-huge', '-m', str(mem_mb)]
        memdesc = f'--no-huge -m {mem_mb} ({free} hugepages free)'

    work = tempfile.mkdtemp(prefix='flowcount-bench.')
    try:
        npkts, zipf_flows = make_inputs(work, opts.flows)
        layout = ''
        if 2 in workers:
            layout = '; 2 workers read ' + (
                'a net_pcap port each' if opts.layout == 'ports' else
                'the two RX queues of one net_pcap port')
        log(f'dpdk-flowcount vs l3fwd: {opts.flows} flows, 64-byte UDP '
            f'frames, net_pcap infinite_rx=1 -> net_null{layout}')
        log(f'CPU: {cpu_model()}, {os.cpu_count()} CPUs; load average '
            f'{loadavg()} at start; memory: {memdesc}')
        log(f'{opts.rounds} round(s), cases interleaved, {opts.warmup:g} s '
            f'warm-up + {opts.seconds:g} s measured per run; mixes: rr = '
            f'round robin, zipf = Zipf s=1 ({zipf_flows} distinct flows in '
            f'{npkts["zipf"]} packets)')
        res = {}
        seq = 0
        for r in range(opts.rounds):
            order = cases[r % len(cases):] + cases[:r % len(cases)]
            for w in workers:
                for mix in mixes:
                    for c in order:
                        seq += 1
                        out = run_case(opts, bins, work, c, w, mix,
                                       npkts[mix], seq)
                        res.setdefault((c, w, mix), []).append(out)
                        if out is not None:
                            log(f'run,{r + 1},{c},{w},{mix},'
                                f'{out["mpps"]:.3f},{out["ns"]:.2f}')
        log(f'load average at the end: {loadavg()}')
        report(res, cases, workers, mixes, opts.smoke)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(res, cases, workers, mixes, smoke=False):
    log('')
    log('Per case: Mpps over wall time, and CPU time of the worker '
        'threads per packet (ns), median (min-max) over the rounds')
    log(f'{"case":<12} {"workers":>7} {"mix":<5} {"Mpps (wall)":<22} '
        f'{"ns/pkt (CPU)":<22}')
    for w in workers:
        for mix in mixes:
            for c in cases:
                v = [x for x in res.get((c, w, mix), []) if x is not None]
                log(f'{c:<12} {w:>7} {mix:<5} '
                    f'{spread([x["mpps"] for x in v]):<22} '
                    f'{spread([x["ns"] for x in v]):<22}')
    log('')
    log('Targets: per-packet CPU time ratios, median (min-max) of the '
        'per-round ratios' + ('; smoke run: not judged' if smoke
                              else ''))
    log(f'{"comparison":<26} {"workers":>7} {"mix":<5} {"ratio":<22} '
        f'{"target":<8} {"result":<8}meaning')
    for num, den, target, what in TARGETS:
        for w in workers:
            for mix in mixes:
                rn = res.get((num, w, mix), [])
                ratios = []
                for i, a in enumerate(rn):
                    if a is None:
                        continue
                    if den == 'best-scheme':
                        alts = [res.get((s, w, mix), [None] * (i + 1))[i]
                                for s in ('count', 'atomic', 'array')
                                if (s, w, mix) in res]
                        alts = [b['ns'] for b in alts if b is not None]
                        if len(alts) < 2:
                            continue
                        ratios.append(a['ns'] / min(alts))
                    else:
                        rd = res.get((den, w, mix), [])
                        if i < len(rd) and rd[i] is not None:
                            ratios.append(a['ns'] / rd[i]['ns'])
                if not ratios:
                    continue
                if target is None:
                    verdict = '-'
                    tgt = 'shown'
                elif smoke:
                    # one short round of 20,000 flows: shown, not judged
                    verdict = '-'
                    tgt = f'<= {target:.2f}'
                else:
                    tgt = f'<= {target:.2f}'
                    verdict = 'met' if statistics.median(ratios) <= target \
                        else 'NOT met'
                log(f'{num + " / " + den:<26} {w:>7} {mix:<5} '
                    f'{spread(ratios):<22} {tgt:<8} {verdict:<8}{what}')


if __name__ == '__main__':
    main()
