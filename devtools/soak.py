#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""The soak: the library under load for minutes, audited every second,
its memory sampled and judged (make soak SOAK_MINUTES=N).

    devtools/soak.py [--minutes M] [--build DIR] [--out DIR]

Two processes run together for M minutes (default 1) on the first two
CPUs this process may use:

- dpdk-test pcpu_soak_autotest, 8 lcores: allocations and frees of random
  sizes and alignments, pool gets and puts, RCU-deferred puts read by a
  QSBR reader, a thread registering and unregistering as an lcore; it
  stops every second for the allocator's and the pools' audits and writes
  one line of its memory (populated bytes, resident bytes) per second;
- dpdk-flowcount, 2 lcores, on net_pcap with infinite_rx=1 replaying a
  capture this script writes (20000 IPv4 and IPv6 UDP flows, 64 to 200
  bytes), flows aged after 5 ms, so that flow counters are taken from
  and given back to their pool all the time; every second this script
  asks it over telemetry for /pcpu/audit, /pcpu/stats and
  /flowcount/stats, and reads its resident memory from /proc.

It fails on: an audit failure or an error in either process, a process
that stops early or exits with an error, dpdk-flowcount counting nothing
or ending with totals that disagree with its per-flow dump, and memory
growth beyond the bound: for each process and each of populated bytes
and resident bytes, the largest sample of the last third of the run may
exceed the largest of the middle third by at most 10 % plus 1 MiB
(populated) or 4 MiB (resident). Memory that levels off after the first
third passes; memory that keeps growing fails. The slope over the second
half is reported too.

Writes into OUT (default BUILD/soak): soak.pcap, pcpu_soak.csv,
flowcount.csv, flows.csv (dpdk-flowcount's dump), memory.png (the
curves) and summary.txt (printed at the end). Exit 0 when it passed.
"""

import argparse
import csv
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

NB_FLOWS = 20000
MIB = 1 << 20
# the bound: last third's peak <= middle third's peak * (1 + GROWTH) + slack
GROWTH = 0.10
SLACK = {"populated": 1 * MIB, "rss": 4 * MIB}


def write_pcap(path, nb_flows, seed=1):
    """A classic pcap of nb_flows UDP frames, one per flow: IPv4 (to
    192.168.0.1:53) and every fifth IPv6 (to [2001:db8::1]:4789)."""
    def ip4sum(h):
        s = sum(struct.unpack("!10H", h))
        s = (s >> 16) + (s & 0xffff)
        s += s >> 16
        return ~s & 0xffff

    rnd = random.Random(seed)
    eth4 = bytes.fromhex("020000000002020000000001") + b"\x08\x00"
    eth6 = bytes.fromhex("020000000002020000000001") + b"\x86\xdd"
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(nb_flows):
            size = rnd.choice((64, 96, 128, 200))
            sport = 1024 + i % 60000
            if i % 5 == 4:
                plen = size - 14 - 40
                src = bytes.fromhex("20010db8") + bytes(8) + i.to_bytes(4, "big")
                dst = bytes.fromhex("20010db8") + bytes(11) + b"\x01"
                frame = (eth6 + struct.pack("!IHBB", 6 << 28, plen, 17, 64) +
                         src + dst + struct.pack("!HHHH", sport, 4789, plen, 0) +
                         bytes(plen - 8))
            else:
                plen = size - 14
                src = bytes((10, (i >> 16) & 255, (i >> 8) & 255, i & 255))
                h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, plen, i & 0xffff, 0,
                                64, 17, 0, src, bytes((192, 168, 0, 1)))
                h = h[:10] + struct.pack("!H", ip4sum(h)) + h[12:]
                frame = (eth4 + h + struct.pack("!HHHH", sport, 53, plen - 20, 0) +
                         bytes(plen - 28))
            f.write(struct.pack("<IIII", 1700000000, i, len(frame), len(frame)))
            f.write(frame)


def runtime_dir(prefix):
    """EAL's runtime directory of a file prefix (as eal_get_runtime_dir())."""
    if os.getuid() == 0:
        base = "/var/run"
    else:
        base = os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


class Telemetry:
    """A client of DPDK's telemetry socket (dpdk_telemetry.v2)."""

    def __init__(self, prefix, timeout):
        path = os.path.join(runtime_dir(prefix), "dpdk_telemetry.v2")
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        hello = json.loads(self.s.recv(4096).decode())
        self.max_len = hello.get("max_output_len", 16384)

    def query(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(self.max_len).decode())[cmd]

    def close(self):
        self.s.close()


def rss_bytes(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def judge(name, t, v, slack):
    """The growth bound on one series; returns (ok, text)."""
    n = len(v)
    if n < 6:
        return False, "%s: %d samples, too few to judge" % (name, n)
    mid = v[n // 3:2 * n // 3]
    last = v[2 * n // 3:]
    bound = max(mid) * (1 + GROWTH) + slack
    # least-squares slope over the second half, bytes per minute
    th, vh = t[n // 2:], v[n // 2:]
    mt, mv = sum(th) / len(th), sum(vh) / len(vh)
    den = sum((x - mt) ** 2 for x in th)
    slope = sum((x - mt) * (y - mv) for x, y in zip(th, vh)) / den * 60 \
        if den else 0.0
    ok = max(last) <= bound
    text = ("%s: first %.2f MiB, min %.2f, max %.2f, last %.2f MiB; "
            "peak of the last third %.2f MiB %s bound %.2f MiB (middle "
            "third's peak %.2f MiB + 10 %% + %.0f MiB); slope over the "
            "second half %+.3f MiB/min" %
            (name, v[0] / MIB, min(v) / MIB, max(v) / MIB, v[-1] / MIB,
             max(last) / MIB, "<=" if ok else ">", bound / MIB,
             max(mid) / MIB, slack / MIB, slope / MIB))
    return ok, text


def plot(path, series, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    for ax, key, label in ((axes[0], "populated", "populated bytes (MiB)"),
                           (axes[1], "rss", "resident memory (MiB)")):
        for proc, (t, d) in series.items():
            ax.plot(t, [x / MIB for x in d[key]], label=proc, linewidth=1)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.legend(loc="lower right")
    axes[1].set_xlabel("time (s)")
    axes[0].set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(build, "soak"))
    os.makedirs(out, exist_ok=True)
    seconds = max(int(a.minutes * 60), 10)
    dpdk_test = os.path.join(build, "app", "test", "dpdk-test")
    flowcount = os.path.join(build, "examples", "flowcount", "dpdk-flowcount")
    for exe in (dpdk_test, flowcount):
        if not os.access(exe, os.X_OK):
            sys.exit("soak: %s not built (make build)" % exe)
    cpus = sorted(os.sched_getaffinity(0))[:2]
    cpu_list = ",".join(map(str, cpus))
    pcap = os.path.join(out, "soak.pcap")
    write_pcap(pcap, NB_FLOWS)
    tag = "%d" % os.getpid()
    fc_prefix, test_prefix = "soak_fc" + tag, "soak_test" + tag
    soak_csv = os.path.join(out, "pcpu_soak.csv")
    fc_csv = os.path.join(out, "flowcount.csv")
    dump = os.path.join(out, "flows.csv")
    failures = []

    print("soak: %d s; dpdk-flowcount and pcpu_soak_autotest on CPUs %s; "
          "output in %s" % (seconds, cpu_list, out), flush=True)
    fc_log = open(os.path.join(out, "flowcount.log"), "w")
    fc = subprocess.Popen(
        [flowcount, "--lcores", "0@%d,1@%d" % (cpus[0], cpus[-1]),
         "--no-huge", "-m", "512", "--no-pci", "--file-prefix", fc_prefix,
         "--log-level=pmd.net.pcap:error",
         "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "--",
         "--stats-interval", "0", "--flow-timeout", "5",
         "--max-flows", "16384", "--mbufs", "32768",
         "--flow-dump", dump],
        stdout=fc_log, stderr=subprocess.STDOUT)
    test_log = open(os.path.join(out, "pcpu_soak.log"), "w")
    test = None
    tel = None
    samples = []
    try:
        tel = Telemetry(fc_prefix, 60)
        # its commands exist once its ports and workers are set up
        ready = time.monotonic() + 60
        while not isinstance(tel.query("/flowcount/stats"), dict):
            if time.monotonic() > ready or fc.poll() is not None:
                raise RuntimeError("dpdk-flowcount did not start: see " +
                                   fc_log.name)
            time.sleep(0.2)
        env = dict(os.environ, DPDK_TEST="pcpu_soak_autotest",
                   PCPU_SOAK_SECONDS=str(seconds), PCPU_SOAK_CSV=soak_csv)
        test = subprocess.Popen(
            [dpdk_test, "--no-huge", "-m", "512", "--no-pci",
             "--file-prefix", test_prefix,
             "--lcores", "(0-7)@(%s)" % cpu_list],
            env=env, stdout=test_log, stderr=subprocess.STDOUT)
        start = time.monotonic()
        deadline = start + seconds + 120
        while test.poll() is None:
            if time.monotonic() > deadline:
                failures.append("pcpu_soak_autotest did not end in time")
                test.kill()
                break
            if fc.poll() is not None:
                failures.append("dpdk-flowcount stopped early (exit %d)" %
                                fc.returncode)
                break
            t = time.monotonic() - start
            audit = tel.query("/pcpu/audit")
            stats = tel.query("/pcpu/stats")
            fcs = tel.query("/flowcount/stats")
            rss = rss_bytes(fc.pid)
            samples.append((t, stats["populated_bytes"], rss,
                            fcs["rx_pkts"], fcs["flows_created"],
                            fcs["flows_live"], audit["allocator"],
                            audit["pool_failures"]))
            if audit["allocator"] != 0 or audit["pool_failures"] != 0:
                failures.append("dpdk-flowcount audit failed at %.0f s: %s"
                                % (t, json.dumps(audit)))
                break
            time.sleep(max(0.0, 1.0 - (time.monotonic() - start - t)))
        if test.poll() is None:
            test.wait()
        if test.returncode != 0:
            failures.append("pcpu_soak_autotest failed (exit %d): see %s" %
                            (test.returncode, test_log.name))
    finally:
        if tel is not None:
            tel.close()
        if fc.poll() is None:
            fc.send_signal(signal.SIGINT)
            try:
                fc.wait(60)
            except subprocess.TimeoutExpired:
                fc.kill()
                fc.wait()
                failures.append("dpdk-flowcount did not stop on SIGINT")
        if test is not None and test.poll() is None:
            test.kill()
        fc_log.close()
        test_log.close()
    if fc.returncode not in (0, None) and not any("flowcount" in f
                                                   for f in failures):
        failures.append("dpdk-flowcount exited with %d: see %s" %
                        (fc.returncode, fc_log.name))

    with open(fc_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("seconds", "populated_bytes", "rss_bytes", "rx_pkts",
                    "flows_created", "flows_live", "audit_allocator",
                    "audit_pool_failures"))
        for s in samples:
            w.writerow(("%.1f" % s[0],) + s[1:])

    # dpdk-flowcount's own totals against its dump
    summary = open(fc_log.name).read()
    if len(samples) < 2 or samples[-1][3] <= samples[0][3]:
        failures.append("dpdk-flowcount received no packets")
    try:
        rows = list(csv.reader(open(dump)))[1:]
        dumped = sum(int(r[6]) for r in rows)
        total = None
        for line in summary.splitlines():
            if line.startswith("total: rx "):
                total = int(line.split()[2])
        flows = sum(1 for r in rows if r[0].startswith("ipv"))
        if total is None or dumped != total:
            failures.append("dpdk-flowcount: %s packets in its dump, %s "
                            "received" % (dumped, total))
        if flows != NB_FLOWS:
            failures.append("dpdk-flowcount: %d flows in its dump, the "
                            "capture has %d" % (flows, NB_FLOWS))
    except (OSError, ValueError, IndexError) as e:
        failures.append("dpdk-flowcount's dump %s: %s" % (dump, e))

    series = {}
    lines = []
    try:
        rows = list(csv.DictReader(open(soak_csv)))
        series["pcpu_soak_autotest"] = (
            [float(r["seconds"]) for r in rows],
            {"populated": [int(r["populated_bytes"]) for r in rows],
             "rss": [int(r["rss_bytes"]) for r in rows]})
        lines.append("pcpu_soak_autotest: %d audits clean, %s allocations, "
                     "%s pool gets, %s RCU pool gets, %s registrations" %
                     (len(rows), rows[-1]["allocs"], rows[-1]["pool_gets"],
                      rows[-1]["rcu_gets"], rows[-1]["registrations"])
                     if rows else "pcpu_soak_autotest: no sample")
    except (OSError, KeyError, ValueError) as e:
        failures.append("%s: %s" % (soak_csv, e))
    if samples:
        series["dpdk-flowcount"] = (
            [s[0] for s in samples],
            {"populated": [s[1] for s in samples],
             "rss": [s[2] or 0 for s in samples]})
        lines.append("dpdk-flowcount: %d audits clean, %d packets, %d flows "
                     "created (and aged), %d live at the end" %
                     (len(samples), samples[-1][3], samples[-1][4],
                      samples[-1][5]))
    for proc, (t, d) in series.items():
        for key in ("populated", "rss"):
            ok, text = judge("%s %s" % (proc, key), t, d[key], SLACK[key])
            lines.append(text)
            if not ok:
                failures.append("memory growth beyond the bound: " + text)
    png = os.path.join(out, "memory.png")
    if series:
        plot(png, series, "make soak: %d s, one sample per second" % seconds)
        lines.append("memory curve: %s (data: %s, %s)" % (png, soak_csv,
                                                          fc_csv))
    verdict = ("soak: PASSED" if not failures else
               "soak: FAILED\n  " + "\n  ".join(failures))
    text = "\n".join(lines + [verdict]) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
