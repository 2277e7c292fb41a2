#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Turn dpdk-test-pcpu-perf JSON into the targets table, tables and figures.

    bench_report.py [--check] [--smoke] [--env FILE] [--flowcount FILE]
                    [--mp FILE]
                    [--merged OUT.json] [--text OUT.txt] [--rst OUT.rst]
                    [--figures DIR] [--img-prefix P] RESULTS.json...

--check       exit 1 unless every case ran (errors fail; cases that
              report themselves skipped, e.g. no free hugepages, pass)
--smoke       the runs were `make bench-smoke`: print the targets table
              without judging it
--env         key=value lines devtools/bench.sh wrote (CPU model, load at
              the start and end of each run, commit), printed with the
              figures
--flowcount   output of devtools/flowcount-bench.sh, quoted and checked
              against its targets (issue rows: forwarding and counting
              vs DPDK's l3fwd, percpu vs the other counter schemes)
--mp          the 'mp-sum:' line of pcpu_mp_perf_autotest (a secondary
              process summing a million flows' counters), quoted
--merged      write all runs (and the environment) into one JSON file
--text        plain-text tables (what `make bench` prints)
--rst         reStructuredText tables for the programmer's guide
--figures     PNG figures (needs matplotlib: Debian's python3-matplotlib)
--img-prefix  path of the figures as the .rst names them (default img/)

Every figure is a median over interleaved rounds (or windows) with its
range, printed "median [lowest-highest]"; ratios are medians of the
per-round ratios. A target is met when the median, as printed (three
significant digits), meets it.
"""

import argparse
import json
import math
import os
import re
import sys

SEED_LINUX = {4: (490, 70), 16: (515, 75), 64: (610, 80), 256: (950, 100),
              1024: (3520, 200)}
SCHEMES = ['pcpu', 'pcpu_side_table', 'tls', 'static_array',
           'lcore_var_layout', 'zmalloc_table', 'vpp_vectors',
           'atomic_shared']
SCHEME_TITLE = {
    'pcpu': 'RTE_PCPU',
    'pcpu_side_table': 'RTE_PCPU, side table',
    'tls': 'TLS',
    'static_array': 'static [lcore][obj]',
    'lcore_var_layout': 'lcore_var layout',
    'zmalloc_table': 'zmalloc table',
    'vpp_vectors': 'VPP vectors',
    'atomic_shared': 'shared atomics',
}
OBJS = (1, 100, 10000, 100000, 1000000)


# ---------------------------------------------------------------- data

class Stat:
    """A median with its range; unit is appended when printed."""

    def __init__(self, med, lo=None, hi=None, unit=''):
        self.med, self.lo, self.hi, self.unit = med, lo, hi, unit

    def text(self, spread=True):
        s = fmt(self.med) + self.unit
        if spread and self.lo is not None and self.hi is not None and \
                (self.lo != self.med or self.hi != self.med):
            s += ' [%s-%s]' % (fmt(self.lo), fmt(self.hi))
        return s

    def inverse(self):
        inv = [None if v in (None, 0) else 1.0 / v
               for v in (self.med, self.hi, self.lo)]
        return Stat(inv[0], inv[1], inv[2], self.unit)


def fmt(v, digits=3):
    if v is None:
        return 'n/a'
    if isinstance(v, str):
        return v
    if v == 0:
        return '0'
    mag = math.floor(math.log10(abs(v)))
    dec = max(0, digits - 1 - mag)
    return '%.*f' % (min(dec, 3), v)


def rounded(v, digits=3):
    """v as printed by fmt(): what a target is judged on."""
    return None if v is None else float(fmt(v, digits))


class Results:
    def __init__(self, paths):
        self.runs = []
        self.idx = {}
        for p in paths:
            if not os.path.exists(p):
                print('bench_report: %s missing' % p, file=sys.stderr)
                continue
            with open(p, encoding='utf-8') as f:
                try:
                    d = json.load(f)
                except ValueError as e:
                    print('bench_report: %s: %s' % (p, e), file=sys.stderr)
                    continue
            tag = os.path.basename(p).replace('results-', '').replace(
                '.json', '')
            for b in d.get('benchmarks', []):
                b['name'] = b['name'].replace('/iterations:1', '').replace(
                    '/manual_time', '')
                b['run'] = tag
                self.idx[(tag, b['name'])] = b
            self.runs.append((tag, d))

    def case(self, run, name):
        """The case's counters, or None if it is missing, failed or
        skipped."""
        b = self.idx.get((run, name))
        if b is None or b.get('error_occurred') or b.get('skipped'):
            return None
        return b

    def why_missing(self, run, name):
        b = self.idx.get((run, name))
        if b is None:
            return 'no data'
        if b.get('error_occurred'):
            return 'error: %s' % b.get('error_message', '')
        return b.get('label', 'skipped')

    def stat(self, run, name, counter, unit=''):
        b = self.case(run, name)
        if b is None or counter not in b:
            return None
        return Stat(b[counter], b.get(counter + '_lo'),
                    b.get(counter + '_hi'), unit)

    def value(self, run, name, counter):
        b = self.case(run, name)
        return None if b is None else b.get(counter)

    def oversubscribed(self, run, name):
        return bool(self.value(run, name, 'oversubscribed'))


# ------------------------------------------------------------- targets

class J:
    """A figure read from a case's counters."""

    def __init__(self, run, case, counter, unit=''):
        self.run, self.case, self.counter, self.unit = (run, case, counter,
                                                        unit)

    def get(self, res, ctx):
        return res.stat(self.run, self.case, self.counter, self.unit)

    def why(self, res, ctx):
        return res.why_missing(self.run, self.case)


class Flowcount:
    """A ratio of devtools/flowcount-bench.sh's targets table: comparison
    (e.g. 'count / l3fwd-L'), workers and traffic mix."""

    def __init__(self, comparison, workers, mix):
        self.comparison, self.workers, self.mix = comparison, workers, mix

    def get(self, res, ctx):
        for comp, w, mix, stat in flowcount_rows(ctx.get('flowcount') or ''):
            if (comp, w, mix) == (self.comparison, self.workers, self.mix):
                return stat
        return None

    def why(self, res, ctx):
        if ctx.get('flowcount'):
            return 'no row for %s, %d workers, %s' % (
                self.comparison, self.workers, self.mix)
        state = ctx.get('env', {}).get('flowcount')
        return 'flowcount-bench.sh %s' % (state or 'not run')


class MpSum:
    """A figure of pcpu_mp_perf_autotest's line (bench.sh --mp): 'mp-sum:
    flows=1000000 lcores=3 rounds=9 secondary_ms=52.9 [24.6-65.9] ...'."""

    def __init__(self, key, unit=''):
        self.key, self.unit = key, unit

    def get(self, res, ctx):
        m = re.search(r'\b%s=([\d.]+)(?: \[([\d.]+)-([\d.]+)\])?' %
                      self.key, ctx.get('mp') or '')
        if not m:
            return None
        lo = float(m.group(2)) if m.group(2) else None
        hi = float(m.group(3)) if m.group(3) else None
        return Stat(float(m.group(1)), lo, hi, self.unit)

    def why(self, res, ctx):
        return 'pcpu_mp_perf_autotest %s' % (
            ctx.get('env', {}).get('mp_sum') or 'not run')


class SeedFallback(J):
    """A seed-table figure on 2 MiB pages, or on 4 KiB pages when the 2 MiB
    case was skipped (no free hugepages)."""

    def __init__(self, kind, size, counter):
        J.__init__(self, '2lcores', '%s/pcpu_2m/size:%d' % (kind, size),
                   counter, ' ms')
        self.fallback = 'alloc_nocache/pcpu/size:%d' % size

    def get(self, res, ctx):
        s = J.get(self, res, ctx)
        if s is None and self.case.startswith('alloc_nocache'):
            s = res.stat('2lcores', self.fallback, self.counter, ' ms')
            if s is not None:
                s.unit = ' ms (4 KiB pages)'
        return s


def le(limit):
    return ('<=', limit)


def ge(limit):
    return ('>=', limit)


def lt(limit):
    return ('<', limit)


def T(figure, target, *checks):
    """A row: figure, target text, then (source, (op, limit)) checks;
    met when every check is."""
    return (figure, target, checks)


SEED_SIZES = (4, 16, 64, 256, 1024)

# The targets table: one row per target, in the order printed. Add a
# target with one line here (its case must print the counter).
TARGETS = [
    T('default pool (zero on get) get+put vs rte_mempool, 2 lcores',
      '<= 1.2x',
      (J('2lcores', 'cached/size:16/lcores:2',
         'pool_get_put_over_rte_mempool', 'x'), le(1.2))),
    T('the same with 8 lcores on 2 CPUs, 16 B (1 running, 8 with memory)',
      '<= 20 ns per pair',
      (J('8lcores', 'cached/size:16/lcores:1', 'pool_get_put_ns', ' ns'),
       le(20))),
] + [
    T('rte_pcpu_alloc 2^20 x %d B, warm, caches on, vs the pool\'s get' % s,
      '<= 1.5x',
      (J('2lcores', 'alloc_vs_pool/size:%d' % s, 'alloc_over_pool_get',
         'x'), le(1.5)))
    for s in (16, 64, 256)
] + [
    T('counter update, 1 M objects, %s, handle in the stream, %d lcore%s, '
      'vs VPP-style vectors' % (order, lc, 's' if lc > 1 else ''),
      '<= %gx' % lim,
      (J('2lcores', 'access/objs:1000000/%s/lcores:%d' % (o, lc),
         'pcpu_over_vpp_vectors', 'x'), le(lim)))
    for o, order, lim in (('rand', 'random', 1.05),
                          ('seq', 'sequential', 1.1))
    for lc in (1, 2)
] + [
    T('RTE_PCPU() increment vs TLS, %d lcore%s' % (lc,
                                                  's' if lc > 1 else ''),
      '<= 1.0x',
      (J('2lcores', 'access/objs:1/seq/lcores:%d' % lc, 'pcpu_over_tls',
         'x'), le(1.0)))
    for lc in (1, 2)
] + [
    T('2^20 x %d B, no caches, 2 MiB pages: alloc, free' % s,
      '<= %g ms, <= %g ms (0.2x Linux)' % (la / 5, lf / 5),
      (SeedFallback('alloc_nocache', s, 'alloc_ms'), le(la / 5)),
      (SeedFallback('alloc_nocache', s, 'free_ms'), le(lf / 5)))
    for s, (la, lf) in sorted(SEED_LINUX.items())
] + [
    T('2^20 x %d B, caches on, 2 MiB pages: alloc, free' % s,
      '<= %g ms, <= %g ms (0.2x Linux)' % (la / 5, lf / 5),
      (SeedFallback('alloc_cache', s, 'alloc_ms'), le(la / 5)),
      (SeedFallback('alloc_cache', s, 'free_ms'), le(lf / 5)))
    for s, (la, lf) in sorted(SEED_LINUX.items())
] + [
    T('2^20 x 4 B aligned to 8 B, no caches, 4 KiB pages: alloc', '< 500 ms',
      (J('2lcores', 'alloc_nocache/pcpu_aligned/size:4/align:8', 'alloc_ms',
         ' ms'), lt(500))),
] + [
    T('pool get+put (zero on get), %d lcore%s: per lcore' % (
        lc, 's' if lc > 1 else ''), '>= 30 M pairs/s',
      (J('2lcores', 'cached/size:16/lcores:%d' % lc, 'pool_get_put_ns',
         ' ns'), ('ns>=Mops', 30)))
    for lc in (1, 2)
] + [
    T('pool get+put (zero on get) vs rte_mempool, 1 lcore', '<= 1.5x',
      (J('2lcores', 'cached/size:16/lcores:1',
         'pool_get_put_over_rte_mempool', 'x'), le(1.5))),
] + [
    T('churn, %s pages, %d producer%s: alloc, free, peak per lcore' % (
        pages, p, 's' if p > 1 else ''),
      '>= 14.2 M/s, >= 36.2 M/s, <= %g MiB' % lim,
      (J('2lcores', 'churn/pcpu/pages:%s/producers:%d' % (pages, p),
         'alloc_Mps', ' M/s'), ge(14.2)),
      (J('2lcores', 'churn/pcpu/pages:%s/producers:%d' % (pages, p),
         'free_Mps', ' M/s'), ge(36.2)),
      (J('2lcores', 'churn/pcpu/pages:%s/producers:%d' % (pages, p),
         'peak_MiB_per_lcore', ' MiB'), le(lim)))
    for pages, lim in (('4K', 1.0), ('2M', 4.0)) for p in (1, 2)
] + [
    T('rte_mempool get+put, "pcpu" ops vs ring_mp_mc, cache 256, %d lcore%s' %
      (lc, 's' if lc > 1 else ''), '<= 1.05x',
      (J('2lcores', 'mempool_ops/get_put/size:16/lcores:%d' % lc,
         'pcpu_ops_over_rte_mempool', 'x'), le(1.05)))
    for lc in (1, 2)
] + [
    T('alloc+free charged to an owner vs to the root, %d B, 1 lcore' % s,
      '<= 1.05x',
      (J('2lcores', 'owner/pairs/size:%d/lcores:1' % s, 'owner_over_root',
         'x'), le(1.05)))
    for s in (16, 64, 256, 1024)
] + [
    T('alloc+free charged to an owner with a limit vs to the root, '
      '%d B, %d lcore%s' % (s, lc, 's' if lc > 1 else ''), '<= 1.05x',
      (J('2lcores', 'owner/pairs/size:%d/lcores:%d' % (s, lc),
         'limited_owner_over_root', 'x'), le(1.05)))
    for s in (16, 256) for lc in (1, 2)
] + [
    T('chunks with owners vs without, one workload', 'the same',
      (J('2lcores', 'owner/utilisation', 'same_chunks'), ('flag', 1))),
] + [
    T('reclaim, 4 KiB pages: final populated over pages with a live object',
      '<= 1.1x (+ 1 chunk)',
      (J('2lcores', 'reclaim/pages:4K', 'bound_met'), ('flag', 1))),
] + [
    T('a shared percpu area (secondary processes read it) vs a private '
      'one: RTE_PCPU() increment, %s' % what, '<= 1.05x',
      (J('2lcores', 'backing/access/objs:%d' % n, 'shared_over_private_ns',
         'x'), le(1.05)))
    for n, what in ((1, '1 object'), (1000000, '1 M objects'))
] + [
    T('RTE_PCPU() increment vs TLS, shared area, 1 lcore', '<= 1.0x',
      (J('2lcores', 'backing/access/objs:1', 'shared_over_tls', 'x'),
       le(1.0))),
] + [
    T('shared vs private area: %s over 100,000 objects' % fn, '<= 1.05x',
      (J('2lcores', 'backing/readers/objs:100000',
         'shared_over_private_%s_ns' % key, 'x'), le(1.05)))
    for fn, key in (('rte_pcpu_sum_u64()', 'sum'),
                    ('RTE_PCPU_FOREACH()', 'foreach'))
] + [
    T('%s vs the same loop without the attach check (private area)' % fn,
      '<= 1.05x',
      (J('2lcores', 'backing/readers/objs:100000',
         'private_%s_over_plain' % key, 'x'), le(1.05)))
    for fn, key in (('rte_pcpu_sum_u64()', 'sum'),
                    ('RTE_PCPU_FOREACH()', 'foreach'))
] + [
    T('shared vs private area: pool get+put (zero on get), 1 lcore',
      '<= 1.05x',
      (J('2lcores', 'backing/pool/size:16', 'shared_over_private_ns', 'x'),
       le(1.05))),
] + [
    T('shared vs private area: 2^20 x 16 B alloc, free, %s pages' % pages,
      '<= 1.10x, <= 1.10x',
      (J('2lcores', 'backing/alloc/pages:%s' % pages,
         'shared_over_private_alloc_ms', 'x'), le(1.10)),
      (J('2lcores', 'backing/alloc/pages:%s' % pages,
         'shared_over_private_free_ms', 'x'), le(1.10)))
    for pages in ('4K', '2M')
] + [
    T("a secondary process sums 1 M flows' counters (2 x u64 each, every "
      "lcore's copy; pcpu_mp_perf_autotest)", 'time printed',
      (MpSum('secondary_ms', ' ms'), ('printed', None)),
      (MpSum('secondary_over_primary', 'x (vs the primary)'),
       ('printed', None))),
] + [
    T('flowcount %s, %d worker%s, %s traffic: %s' % (
        comp, w, 's' if w > 1 else '', mix, what), '<= %.2fx' % lim,
      (Flowcount(comp, w, mix), le(lim)))
    for comp, lim, what in (
        ('no-count / l3fwd-L', 1.05, 'forwarding vs l3fwd LPM'),
        ('count / l3fwd-E', 0.70, 'counting vs l3fwd exact match'),
        ('count / l3fwd-L', 1.30, 'counting vs l3fwd LPM'),
        ('count / floor', 1.10,
         'counting vs one line per packet (proposed in place of the '
         'one above)'),
        ('count / best-scheme', 1.02, 'percpu vs best counter scheme'))
    for w in (1, 2) for mix in ('rr', 'zipf')
]


def judge(stat, check):
    """True, False, or None when there is nothing to judge."""
    op, limit = check
    if stat is None or stat.med is None:
        return None
    if op == 'ns>=Mops':
        return rounded(1e3 / stat.med) >= limit
    if op == 'flag':
        return bool(stat.med) == bool(limit)
    if op == 'printed':
        return True
    v = rounded(stat.med)
    return {'<=': v <= limit, '>=': v >= limit, '<': v < limit}[op]


def measured_text(stat, check):
    op, _ = check
    if op == 'ns>=Mops':
        inv = stat.inverse()
        inv = Stat(None if inv.med is None else inv.med * 1e3,
                   None if inv.lo is None else inv.lo * 1e3,
                   None if inv.hi is None else inv.hi * 1e3, ' M/s')
        return inv.text()
    if op == 'flag':
        return 'yes' if stat.med else 'no'
    return stat.text()


def targets_table(res, ctx, smoke):
    t = Table('Targets',
              ['figure', 'target', 'measured: median [range]', 'status'])
    t.counts = {'met': 0, 'NOT met': 0, 'no data': 0}
    for figure, target, checks in TARGETS:
        texts, verdicts, why = [], [], None
        for src, check in checks:
            s = src.get(res, ctx)
            if s is None:
                texts.append('n/a')
                verdicts.append(None)
                why = why or src.why(res, ctx)
                continue
            texts.append(measured_text(s, check))
            verdicts.append(judge(s, check))
        if any(v is None for v in verdicts):
            status = 'no data (%s)' % why if why else 'no data'
            t.counts['no data'] += 1
        elif smoke:
            status = 'not judged (smoke)'
        elif all(verdicts):
            status = 'met'
            t.counts['met'] += 1
        else:
            status = 'NOT met'
            t.counts['NOT met'] += 1
        t.add([figure, target, ', '.join(texts), status])
    t.note = ('Medians of interleaved rounds with their range; ratios are '
              'medians of the per-round ratios; a target is met when its '
              'median, as printed, meets it.' +
              (' Smoke run: one short round per case, nothing judged.'
               if smoke else ''))
    return t


# -------------------------------------------------------------- tables

class Table:
    def __init__(self, title, header, note=None):
        self.title = title
        self.header = header
        self.rows = []
        self.note = note

    def add(self, row):
        self.rows.append([fmt(c) if not isinstance(c, str) else c
                          for c in row])

    def text(self):
        w = [max(len(str(r[i])) for r in [self.header] + self.rows)
             for i in range(len(self.header))]
        lines = [self.title, '-' * len(self.title)]
        lines.append('  '.join(h.ljust(w[i]) if i == 0 else h.rjust(w[i])
                               for i, h in enumerate(self.header)))
        for r in self.rows:
            lines.append('  '.join(str(c).ljust(w[i]) if i == 0 else
                                   str(c).rjust(w[i])
                                   for i, c in enumerate(r)))
        if self.note:
            lines.append(self.note)
        return '\n'.join(lines) + '\n'

    def rst(self):
        def esc(text):
            return str(text).replace('\\', '\\\\').replace(
                '*', '\\*').replace('`', '\\`').replace('|', '\\|')

        lines = ['.. list-table:: %s' % esc(self.title),
                 '   :header-rows: 1', '']
        for r in [self.header] + self.rows:
            first = True
            for c in r:
                lines.append('   %s %s' % ('* -' if first else '  -',
                                           esc(c) if c != '' else '\\ '))
                first = False
        lines.append('')
        if self.note:
            lines.append(esc(self.note))
            lines.append('')
        return '\n'.join(lines) + '\n'


def st_text(s, spread=True):
    return 'n/a' if s is None else s.text(spread)


def access_tables(res):
    tabs = []
    for lc in (1, 2):
        t = Table('Access: ns per {packets, bytes} increment, %d lcore%s '
                  '(all schemes interleaved in one case)'
                  % (lc, 's' if lc > 1 else ''),
                  ['objects', 'order'] + [SCHEME_TITLE[s] for s in SCHEMES]
                  + ['RTE_PCPU / VPP', 'RTE_PCPU / TLS'])
        for n in OBJS:
            for order in (('seq',) if n == 1 else ('seq', 'rand')):
                name = 'access/objs:%d/%s/lcores:%d' % (n, order, lc)
                row = ['{:,}'.format(n), order]
                for s in SCHEMES:
                    row.append(st_text(res.stat('2lcores', name, s + '_ns')))
                row.append(st_text(res.stat('2lcores', name,
                                            'pcpu_over_vpp_vectors', 'x')))
                row.append(st_text(res.stat('2lcores', name,
                                            'pcpu_over_tls', 'x')))
                t.add(row)
        t.note = ('RTE_PCPU reads each handle from the stream of flow '
                  'entries, as a flow table entry carries it; "side table" '
                  'reads the object number from the stream and the handle '
                  'from a table indexed by it (a second dependent load). '
                  'Index schemes read the index from the stream, in an '
                  '8-byte slot as the handle. static: '
                  'stats[RTE_MAX_LCORE][objects] in .bss, sized for 100,000 '
                  'objects. lcore_var layout: all RTE_MAX_LCORE copies '
                  'zeroed, as rte_lcore_var_alloc() does (n/a when that does '
                  'not fit in half the available memory). Each update\'s '
                  'address is opaque to the compiler, nothing else: what a '
                  'compiled loop keeps in registers (lcore id, base, step) '
                  'stays there for every scheme. VPP vectors and the '
                  'library follow the EAL\'s pages: 4 KiB under --no-huge, '
                  '2 MiB with hugepages (the vectors as transparent '
                  'hugepages).')
        tabs.append(t)
    return tabs


def seed_table(res, case='pcpu', kind='alloc_nocache'):
    huge = case == 'pcpu_2m'
    t = Table('Allocation %s, %s pages: 2^20 objects, ms, worst of in '
              'order / alternating / reverse'
              % ('without caches (RTE_PCPU_F_NO_CACHE)'
                 if kind == 'alloc_nocache' else
                 'with cache buckets (the default)',
                 '2 MiB' if huge else '4 KiB'),
              ['size', 'alloc', 'Linux', 'ratio', 'free', 'Linux', 'ratio',
               'naive alloc', 'naive free', 'target <= 0.2x'])
    rows = []
    for size in SEED_SIZES:
        name = '%s/%s/size:%d' % (kind, case, size)
        a = res.stat('2lcores', name, 'alloc_ms')
        f = res.stat('2lcores', name, 'free_ms')
        nname = 'alloc_nocache/naive_zmalloc/size:%d' % size
        na = res.stat('2lcores', nname, 'alloc_ms')
        nf = res.stat('2lcores', nname, 'free_ms')
        ext = ' (e)' if res.value('2lcores', nname, 'extrapolated') else ''
        la, lf = SEED_LINUX[size]
        met = 'n/a'
        if a is not None and f is not None:
            met = 'met' if rounded(a.med) <= la / 5 and \
                rounded(f.med) <= lf / 5 else 'NOT met'
        t.add([str(size), st_text(a), la, None if a is None else
               a.med / la, st_text(f), lf, None if f is None else f.med / lf,
               st_text(na) + ext, st_text(nf) + ext, met])
        rows.append((size, a, f, na, nf))
    if not huge and kind == 'alloc_nocache':
        a = res.stat('2lcores', 'alloc_nocache/pcpu_aligned/size:4/align:8',
                     'alloc_ms')
        f = res.stat('2lcores', 'alloc_nocache/pcpu_aligned/size:4/align:8',
                     'free_ms')
        t.add(['4, align 8', st_text(a), 16000, None if a is None else
               a.med / 16000, st_text(f), '', '', '', '',
               'n/a' if a is None else
               ('met (< 500 ms)' if rounded(a.med) < 500 else
                'NOT met (< 500 ms)')])
    runs = res.value('2lcores', '%s/%s/size:4' % (kind, case),
                     'runs_per_order')
    t.note = ('Thread CPU time, median of %s runs per order [range], the '
              'orders taking turns, every run from empty caches. Linux: the '
              '2017 bitmap '
              'allocator cover letter (published figures, other machine). '
              'naive: rte_zmalloc_socket() per lcore per object, its own '
              'case; (e) = measured on fewer objects within the EAL memory '
              'budget and scaled to 2^20. 2 lcores with memory.%s'
              % (int(runs) if runs else '?',
                 '' if huge else ' Every run populates its pages, which '
                 'bounds allocation of 256 B and 1 KiB objects.'))
    if huge and all(r[1] is None for r in rows):
        t.note += ' Skipped: %s.' % res.why_missing(
            '2lcores', '%s/%s/size:4' % (kind, case))
    return t, rows


def alloc_pool_table(res):
    t = Table('rte_pcpu_alloc() against the library\'s own pool: 2^20 '
              'objects, warm, caches on, ms',
              ['size', 'alloc', 'pool get', 'alloc / get', 'free', 'pool put',
               'free / put', 'target'])
    for size in (16, 64, 256):
        name = 'alloc_vs_pool/size:%d' % size
        r = res.stat('2lcores', name, 'alloc_over_pool_get', 'x')
        t.add([str(size), st_text(res.stat('2lcores', name, 'alloc_ms')),
               st_text(res.stat('2lcores', name, 'pool_get_ms')),
               st_text(r), st_text(res.stat('2lcores', name, 'free_ms')),
               st_text(res.stat('2lcores', name, 'pool_put_ms')),
               st_text(res.stat('2lcores', name, 'free_over_pool_put', 'x')),
               '<= 1.5x'])
    t.note = ('The pool: rte_pcpu_mempool_create(n = 2^20, cache 256, '
              'F_PREFILL), zero on get; both sides warm (pages kept '
              'populated), rounds alternating, one object per call.')
    return t


def cached_table(res):
    t = Table('Cached get+put (alloc+free) of 16 B objects, interleaved with '
              'rte_mempool (ring_mp_mc, cache 256)',
              ['case', 'run', 'lcores running', 'M pairs/s per lcore',
               'ns/pair', 'x rte_mempool (cost)'])
    kinds = ('rte_mempool', 'pool_get_put', 'pool_get_put_no_zero',
             'pcpu_alloc_free', 'pcpu_alloc_free_nocache')
    for run, lcs in (('2lcores', (1, 2)), ('8lcores', (1,))):
        for lc in lcs:
            for k in kinds:
                name = '%s/size:16/lcores:%d' % (
                    'cached_nocache' if k.endswith('nocache') else 'cached',
                    lc)
                ns = res.stat(run, name, k + '_ns')
                if ns is None and run == '8lcores':
                    continue
                mops = None if ns is None else Stat(
                    1e3 / ns.med, 1e3 / ns.hi if ns.hi else None,
                    1e3 / ns.lo if ns.lo else None)
                t.add([k, '%s with memory' % run.replace('lcores', ''),
                       str(lc), st_text(mops), st_text(ns),
                       '1' if k == 'rte_mempool' else
                       st_text(res.stat(run, name, k + '_over_rte_mempool',
                                        'x'))])
    t.note = ('Per-lcore rate is 1000 / ns per pair. The pcpu_alloc_free_'
              'nocache case runs with RTE_PCPU_F_NO_CACHE beside its own '
              'rte_mempool rounds.')
    return t


def mempool_ops_table(res):
    t = Table('rte_mempool with the "pcpu" ops beside the same pool with '
              'ring_mp_mc (rte_mempool_create(), 16 B objects, cache 256)',
              ['case', 'ring_mp_mc', '"pcpu" ops', '"pcpu" / ring_mp_mc',
               'target'])
    for lc in (1, 2):
        name = 'mempool_ops/get_put/size:16/lcores:%d' % lc
        t.add(['get+put, ns per pair, %d lcore%s' % (lc, 's' if lc > 1
                                                      else ''),
               st_text(res.stat('2lcores', name, 'rte_mempool_ns')),
               st_text(res.stat('2lcores', name, 'pcpu_ops_ns')),
               st_text(res.stat('2lcores', name, 'pcpu_ops_over_rte_mempool',
                                'x')), '<= 1.05x'])
    name = 'mempool_ops/populate/objs:1000000'
    objs = res.value('2lcores', name, 'objs')
    for what, key in (('create + populate', 'create'), ('free', 'free')):
        t.add(['%s %s objects, ms' % (what, '{:,}'.format(int(objs))
                                       if objs else '1,000,000'),
               st_text(res.stat('2lcores', name, 'rte_mempool_%s_ms' % key)),
               st_text(res.stat('2lcores', name, 'pcpu_ops_%s_ms' % key)),
               st_text(res.stat('2lcores', name,
                                'pcpu_ops_over_rte_mempool_%s' % key, 'x')),
               '-'])
    t.note = ('get+put: the same loop on both pools, interleaved rounds, '
              'per-lcore thread CPU ns per pair; 2 lcores with memory. '
              'Populate: thread CPU time of rte_mempool_create() and '
              'rte_pcpu_mempool_ops_create() with the same arguments, then '
              'rte_mempool_free(), the two in turn per round (EAL on 4 KiB '
              'pages, so the percpu blocks are too).')
    return t


def churn_table(res):
    win = res.value('2lcores', 'churn/pcpu/pages:4K/producers:1',
                    'window_ms')
    t = Table('Churn (bench bpf_ma: 64 allocs then 64 frees, 8..512 B), '
              'median of %s ms windows [range]' % fmt(win),
              ['allocator', 'pages', 'producers', 'alloc M/s', 'free M/s',
               'on CPU', 'peak MiB/lcore', 'limit MiB', 'targets'])
    pts = []
    for v in ('pcpu', 'pcpu_nocache'):
        for pages in ('4K', '2M'):
            for p in (1, 2):
                name = 'churn/%s/pages:%s/producers:%d' % (v, pages, p)
                a = res.stat('2lcores', name, 'alloc_Mps')
                if a is None:
                    t.add([v, pages, str(p), res.why_missing('2lcores', name),
                           '', '', '', '', ''])
                    continue
                f = res.stat('2lcores', name, 'free_Mps')
                mib = res.value('2lcores', name, 'peak_MiB_per_lcore')
                lim = 1.0 if pages == '4K' else 4.0
                met = rounded(a.med) >= 14.2 and rounded(f.med) >= 36.2 and \
                    rounded(mib) <= lim
                onc = res.value('2lcores', name, 'on_cpu')
                t.add([v, pages, str(p), a.text(), f.text(),
                       'n/a' if onc is None else '%.0f %%' % (onc * 100),
                       mib, lim,
                       'n/a (no cache)' if v != 'pcpu' else
                       'met' if met else 'NOT met'])
                pts.append((v, pages, p, a, f, mib))
    t.add(['seed: Linux 6.8 large watermarks', '', '1', '14.16', '36.18',
           '', 183.71, '', ''])
    t.add(['seed: Linux 6.8 after the series', '', '1', '0.86', '37.29',
           '', 0.0, '', ''])
    t.note = ('Rates are per producer (TSC time inside the alloc and free '
              'phases, as bench bpf_ma: time a producer spent descheduled '
              'counts, so they fall with the load); memory is the peak of populated '
              'bytes divided by the lcores with memory. Targets (cached '
              'allocator): >= 14.2 M allocs/s and >= 36.2 M frees/s per '
              'producer, peak <= 1 MiB per lcore (4 KiB pages) / 4 MiB '
              '(2 MiB pages). Seed rows: Linux 6.8, 8 CPUs, other machine.')
    return t, pts


def init_table(res):
    t = Table('Pool initialisation: ns per cached get+put on one lcore (the '
              'modes interleaved); ns per object for first use',
              ['size', 'lcores w/ memory', 'zero on get', 'obj_init',
               'no init', 'first use: zero', 'obj_init', 'no init'])
    modes = ('zero_on_get', 'obj_init', 'no_init')
    for run, mem in (('2lcores', 2), ('8lcores', 8)):
        for size in (16, 64, 256, 1024, 4096):
            name = 'init/size:%d/mem_lcores:%d' % (size, mem)
            if res.case(run, name) is None:
                continue
            t.add([str(size), str(mem)] +
                  [st_text(res.stat(run, name, m + '_ns')) for m in modes] +
                  [st_text(res.stat(run, name, m + '_first_ns'))
                   for m in modes])
    t.note = ('Zeroing writes every lcore\'s copy on each get; obj_init '
              'runs once per copy when an object enters the pool. First '
              'use: create with F_PREFILL, get and put every object once.')
    return t


def reclaim_table(res):
    t = Table('Reclaim: 11,000 groups of 10 objects (64 B .. 2 KiB), free '
              '10 of every 11 groups, rte_pcpu_reclaim()',
              ['pages', 'peak kB', 'final kB', 'peak/final',
               'final / pages with a live object', 'bound met'])
    for pages in ('4K', '2M'):
        name = 'reclaim/pages:%s' % pages
        b = res.case('2lcores', name)
        if b is None:
            t.add([pages, res.why_missing('2lcores', name), '', '', '', ''])
        else:
            t.add([pages, b['peak_kB'], b['final_kB'], b['peak_over_final'],
                   b['final_over_live'], 'yes' if b['bound_met'] else 'no'])
    t.add(['Linux 5.14 (seed)', 481152, 135552, 481152 / 135552, '', ''])
    t.note = ('2 lcores with memory. Bound (4 KiB pages): final <= 1.1 x the '
              'pages that hold a live object + one chunk.')
    return t


ALIAS_LAYOUTS = ['stride_2^27', 'stride_2^28', 'stride_2^29', 'stride_2^30',
                 'coloured', 'sub_page']


def alias_table(res):
    t = Table('Aliasing of lcores\' copies: ns per object for one operation '
              'on all its copies, by unit layout (interleaved)',
              ['op', 'copies', 'pages'] + ALIAS_LAYOUTS +
              ['2^30 / coloured'])
    for op in ('zero', 'sum', 'inc'):
        for copies in (2, 8):
            for pages in ('4K', '2M'):
                name = 'alias/op:%s/copies:%d/pages:%s' % (op, copies, pages)
                if res.case('2lcores', name) is None:
                    t.add([op, str(copies), pages,
                           res.why_missing('2lcores', name)] +
                          [''] * len(ALIAS_LAYOUTS))
                    continue
                t.add([op, str(copies), pages] +
                      [st_text(res.stat('2lcores', name, lay + '_ns'))
                       for lay in ALIAS_LAYOUTS] +
                      [st_text(res.stat('2lcores', name,
                                        'stride_2^30_over_coloured', 'x'))])
    t.note = ('Copies of one 16 B object, 256 objects in turn, on the '
              'case\'s own mappings. stride_2^s: copy i at i x 2^s (the '
              'bits that tell copies apart are all at or above s); '
              'coloured: the library\'s layout, i x (unit stride + '
              'RTE_PCPU_UNIT_COLOUR), 2^30 + 2 MiB by default; sub_page: i x (2^30 + 448 B), a control no '
              'page-based layout can give. zero: a 16-byte store per copy; '
              'sum: an 8-byte load; inc: an 8-byte increment.')
    return t


SCALING_BODIES = ['pcpu_access', 'atomic_shared_access', 'pool_get_put',
                  'pcpu_alloc_free', 'pcpu_alloc_free_nocache',
                  'rte_mempool_get_put']


def scaling_table(res):
    t = Table('Scaling: total M ops/s, lcores floating over 2 CPUs, the '
              'bodies interleaved; * = oversubscribed (more lcores than '
              'CPUs)',
              ['body', '1', '2', '4', '8'])
    data = {}
    for body in SCALING_BODIES:
        row = [body]
        for lc in (1, 2, 4, 8):
            name = '%s/lcores:%d' % ('scaling_nocache' if
                                     body.endswith('nocache') else
                                     'scaling', lc)
            s = res.stat('8lcores', name, body + '_Mops')
            over = res.oversubscribed('8lcores', name)
            row.append(st_text(s) + ('*' if s is not None and over else ''))
            if s is not None:
                data[(body, lc)] = (s, over)
        t.add(row)
    t.note = ('Access: 10,000 objects in random order, handle in the stream. '
              'Pairs: 16 B. 8 lcores have memory in this run. Totals count '
              'wall time: oversubscribed lcores share the 2 CPUs.')
    return t, data


def flowcount_rows(text):
    """(comparison, workers, mix, Stat) from the targets table of
    devtools/flowcount-bench.sh: 'count / l3fwd-L  1 rr  1.95 (1.80-2.10)
    <= 1.30 NOT met ...'."""
    rows = []
    for line in text.splitlines():
        m = re.match(r'^(\S+ / \S+)\s+(\d+)\s+(\w+)\s+([\d.]+) '
                     r'\(([\d.]+)-([\d.]+)\)', line)
        if m:
            rows.append((m.group(1), int(m.group(2)), m.group(3),
                         Stat(float(m.group(4)), float(m.group(5)),
                              float(m.group(6)), 'x')))
    return rows


# ------------------------------------------------------------- context

def read_env(path):
    env = {}
    if path and os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for line in f:
                if '=' in line:
                    k, v = line.rstrip('\n').split('=', 1)
                    env[k.strip()] = v.strip()
    return env


def context_lines(res, env):
    first = res.runs[0][1].get('context', {}) if res.runs else {}
    model = env.get('cpu_model') or first.get('cpu_model', '?')
    lines = ['CPU: %s; %s CPUs allowed (%s); kernel %s' % (
        model, env.get('nb_cpus', '?'), env.get('cpus_allowed', '?'),
        env.get('kernel', '?'))]
    if env.get('commit'):
        lines.append('tree: %s; mode: %s; %s' % (
            env['commit'], env.get('mode', first.get('pcpu_mode', '?')),
            env.get('date', first.get('date', '?'))))
    for tag, d in res.runs:
        ctx = d.get('context', {})
        lines.append('%s run: %s lcores on %s CPUs, EAL hugepages %s, %s '
                     'rounds of %s ms windows; load average at start %s, '
                     'at end %s' % (
                         tag, ctx.get('eal_lcores', '?'),
                         ctx.get('eal_cpus', '?'),
                         ctx.get('eal_hugepages', '?'),
                         ctx.get('rounds', '?'),
                         fmt(float(ctx['window_ms'])) if 'window_ms' in ctx
                         else '?',
                         env.get('load_start_' + tag,
                                 ctx.get('loadavg_start', '?')),
                         env.get('load_end_' + tag, '?')))
    if env.get('load_end'):
        lines.append('load average after the last run: %s' % env['load_end'])
    return lines


# ------------------------------------------------------------- figures

def figures(res, outdir, seed_rows, seed_page, churn_pts, scaling):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    made = []

    def errbar(ax, xs, stats, **kw):
        ys = [s.med for s in stats]
        lo = [s.med - (s.lo if s.lo is not None else s.med) for s in stats]
        hi = [(s.hi if s.hi is not None else s.med) - s.med for s in stats]
        return ax.errorbar(xs, ys, yerr=[lo, hi], capsize=3, **kw)

    # access cost per scheme, random order
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    for ax, lc in zip(axes, (1, 2)):
        for s in SCHEMES:
            xs, st = [], []
            for n in OBJS:
                v = res.stat('2lcores', 'access/objs:%d/%s/lcores:%d'
                             % (n, 'seq' if n == 1 else 'rand', lc),
                             s + '_ns')
                if v is not None:
                    xs.append(n)
                    st.append(v)
            if not xs:
                continue
            if s == 'tls':
                errbar(ax, xs, st, marker='*', markersize=12, linestyle='',
                       label=SCHEME_TITLE[s], zorder=5)
            else:
                errbar(ax, xs, st, marker='o', markersize=4,
                       label=SCHEME_TITLE[s],
                       linewidth=2.5 if s == 'pcpu' else 1.1,
                       linestyle=':' if s == 'pcpu_side_table' else '-')
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_xlabel('objects (random order; 1 object: sequential)')
        ax.set_title('%d lcore%s' % (lc, 's' if lc > 1 else ''))
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('ns per {packets, bytes} increment')
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc='lower center', ncol=4, fontsize=8)
    fig.suptitle('Access cost per scheme: median of interleaved rounds, '
                 'bars: range')
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(os.path.join(outdir, 'bench_access.png'), dpi=90)
    plt.close(fig)
    made.append('bench_access.png')

    # alloc / free beside Linux
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    sizes = [r[0] for r in seed_rows]
    x = list(range(len(sizes)))
    w = 0.27
    for ax, col, title in ((axes[0], (1, 3), 'allocation'),
                           (axes[1], (2, 4), 'free')):
        for k, lab in enumerate(('rte_pcpu (no cache)', 'Linux (published)',
                                 'naive rte_zmalloc')):
            xs = [i + (k - 1) * w for i in x]
            if k == 1:
                ys = [SEED_LINUX[s][0 if title == 'allocation' else 1]
                      for s in sizes]
                ax.bar(xs, ys, w, label=lab)
                continue
            st = [r[col[0] if k == 0 else col[1]] for r in seed_rows]
            ys = [s.med if s else 0 for s in st]
            lo = [s.med - s.lo if s and s.lo is not None else 0 for s in st]
            hi = [s.hi - s.med if s and s.hi is not None else 0 for s in st]
            ax.bar(xs, ys, w, yerr=[lo, hi], capsize=3, label=lab)
        ax.set_xticks(x)
        ax.set_xticklabels(['%d B' % s for s in sizes])
        ax.set_yscale('log')
        ax.set_ylabel('ms for 2^20 objects (worst order)')
        ax.set_title(title)
        ax.grid(True, axis='y', which='both', alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle('Allocation and free, rte_pcpu on %s pages: median of '
                 'runs, bars: range' % seed_page)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'bench_alloc.png'), dpi=90)
    plt.close(fig)
    made.append('bench_alloc.png')

    # churn rate versus memory
    fig, ax = plt.subplots(figsize=(7, 4.5))
    floor = 0.01
    for v, pages, p, a, f, mib in churn_pts:
        errbar(ax, [max(mib, floor)], [a],
               marker='o' if v == 'pcpu' else 's', linestyle='')
        ax.annotate('%s %s p%d' % (v, pages, p), (max(mib, floor), a.med),
                    fontsize=7, xytext=(4, 3), textcoords='offset points')
    for lab, a, mib in (('Linux 6.8 before', 14.16, 183.71),
                        ('Linux 6.8 after', 0.86, 0.0)):
        ax.scatter(max(mib, floor), a, marker='x', s=70, color='black')
        ax.annotate(lab, (max(mib, floor), a), fontsize=7, xytext=(4, -10),
                    textcoords='offset points')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('peak populated MiB per lcore (0 drawn at 0.01)')
    ax.set_ylabel('alloc M/s per producer (median, bars: range)')
    ax.set_title('Churn (bench bpf_ma): rate versus memory')
    ax.grid(True, which='both', alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'bench_churn.png'), dpi=90)
    plt.close(fig)
    made.append('bench_churn.png')

    # scaling, oversubscribed points hollow
    if scaling:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for body in SCALING_BODIES:
            lcs = [lc for lc in (1, 2, 4, 8) if (body, lc) in scaling]
            if not lcs:
                continue
            line = errbar(ax, lcs, [scaling[(body, lc)][0] for lc in lcs],
                          marker='o', label=body)
            color = line[0].get_color()
            over = [lc for lc in lcs if scaling[(body, lc)][1]]
            ax.scatter(over, [scaling[(body, lc)][0].med for lc in over],
                       s=70, facecolors='white', edgecolors=color,
                       zorder=5)
        ax.axvspan(2.5, 9, color='grey', alpha=0.12)
        ax.text(2.7, 0.95, 'oversubscribed (hollow): more lcores than CPUs',
                fontsize=8, transform=ax.get_xaxis_transform(), va='top')
        ax.set_xscale('log', base=2)
        ax.set_yscale('log')
        ax.set_xticks([1, 2, 4, 8])
        ax.set_xticklabels(['1', '2', '4', '8'])
        ax.set_xlabel('lcores (2 CPUs)')
        ax.set_ylabel('total M ops/s (median, bars: range)')
        ax.set_title('Scaling')
        ax.legend(fontsize=7, loc='lower left')
        ax.grid(True, which='both', alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, 'bench_scaling.png'), dpi=90)
        plt.close(fig)
        made.append('bench_scaling.png')
    return made


def rst_doc(tables, figs, ctx_lines, prefix, flowcount=None, mp=None):
    out = ['.. SPDX-License-Identifier: BSD-3-Clause',
           '   Copyright(c) 2026 The pcpu_mempool authors',
           '',
           '.. Generated by devtools/bench_report.py from the last',
           '   `make bench` run (`make bench-docs`); do not edit by hand.',
           '',
           'Measured with ``make bench`` (dpdk-test-pcpu-perf):',
           '']
    out += ['* %s' % line for line in ctx_lines]
    out.append('')
    captions = {
        'bench_access.png': 'Access cost per scheme (median, bars: range)',
        'bench_alloc.png': 'Allocation and free times beside Linux\'s',
        'bench_churn.png': 'Churn rate versus memory',
        'bench_scaling.png': 'Scaling over lcores (hollow: oversubscribed)',
    }
    for f in figs:
        out += ['.. figure:: %s%s' % (prefix, f), '   :width: 90%', '',
                '   %s' % captions.get(f, f), '']
    for t in tables:
        out.append(t.rst())
    if flowcount:
        out += ['dpdk-flowcount with and without counting '
                '(``devtools/flowcount-bench.sh``, same run):', '', '::', '']
        out += ['   ' + line for line in flowcount.rstrip().splitlines()]
        out.append('')
    if mp:
        out += ['A secondary process summing the primary\'s counters '
                '(``pcpu_mp_perf_autotest``, EAL hugepages):', '', '::', '']
        out += ['   ' + line for line in mp.rstrip().splitlines()]
        out.append('')
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--smoke', action='store_true')
    ap.add_argument('--env')
    ap.add_argument('--flowcount')
    ap.add_argument('--mp')
    ap.add_argument('--merged')
    ap.add_argument('--text')
    ap.add_argument('--rst')
    ap.add_argument('--figures')
    ap.add_argument('--img-prefix', default='img/')
    ap.add_argument('json', nargs='+')
    a = ap.parse_args()

    res = Results(a.json)
    env = read_env(a.env)
    rc = 0
    if a.check:
        errors = [(t, n, b.get('error_message', ''))
                  for (t, n), b in res.idx.items() if b.get('error_occurred')]
        skipped = [(t, n, b.get('label', '')) for (t, n), b in
                   res.idx.items() if b.get('skipped')]
        for t, n, m in errors:
            print('bench: ERROR %s %s: %s' % (t, n, m))
        for t, n, m in skipped:
            print('bench: skipped %s %s: %s' % (t, n, m))
        if len(res.runs) < len(a.json) or not res.idx:
            print('bench: a run produced no results')
            rc = 1
        if errors:
            rc = 1
        print('bench: %d cases, %d errors, %d reported skipped' %
              (len(res.idx), len(errors), len(skipped)))
    if a.merged:
        merged = {'environment': env,
                  'runs': [{'run': t, 'context': d.get('context', {})}
                           for t, d in res.runs],
                  'benchmarks': [b for _, d in res.runs
                                 for b in d.get('benchmarks', [])]}
        with open(a.merged, 'w', encoding='utf-8') as f:
            json.dump(merged, f, indent=1)
    if not (a.text or a.rst or a.figures):
        return rc

    flowcount = None
    if a.flowcount and os.path.exists(a.flowcount):
        with open(a.flowcount, encoding='utf-8') as f:
            flowcount = f.read()
    mp = None
    if a.mp and os.path.exists(a.mp):
        with open(a.mp, encoding='utf-8') as f:
            mp = f.read()
    ctx = {'flowcount': flowcount, 'mp': mp, 'env': env}
    seed_t2, seed_rows2 = seed_table(res, 'pcpu_2m')
    seed_tc, _ = seed_table(res, 'pcpu_2m', 'alloc_cache')
    seed_t4, seed_rows4 = seed_table(res, 'pcpu')
    churn_t, churn_pts = churn_table(res)
    scaling_t, scaling = scaling_table(res)
    targets = targets_table(res, ctx, a.smoke)
    tables = [targets]
    tables += access_tables(res)
    tables += [seed_t2, seed_tc, seed_t4, alloc_pool_table(res),
               cached_table(res), mempool_ops_table(res), churn_t,
               init_table(res), reclaim_table(res), scaling_t,
               alias_table(res)]
    ctx_lines = context_lines(res, env)
    if a.text:
        with open(a.text, 'w', encoding='utf-8') as f:
            f.write('\n'.join(ctx_lines) + '\n\n')
            for t in tables:
                f.write(t.text() + '\n')
            if flowcount:
                f.write('dpdk-flowcount (devtools/flowcount-bench.sh)\n')
                f.write(flowcount.rstrip() + '\n\n')
            if mp:
                f.write('A secondary process summing the primary\'s '
                        'counters (pcpu_mp_perf_autotest)\n')
                f.write(mp.rstrip() + '\n\n')
            f.write('\n'.join(ctx_lines) + '\n')
            f.write('targets: %d met, %d NOT met, %d without data%s\n' % (
                targets.counts['met'], targets.counts['NOT met'],
                targets.counts['no data'],
                ' (smoke: not judged)' if a.smoke else ''))
    figs = []
    if a.figures:
        huge = any(r[1] is not None for r in seed_rows2)
        seed_rows = seed_rows2 if huge else seed_rows4
        try:
            figs = figures(res, a.figures, seed_rows,
                           '2 MiB' if huge else '4 KiB', churn_pts, scaling)
        except ImportError as e:
            print('bench_report: no figures (%s); install '
                  'python3-matplotlib' % e, file=sys.stderr)
            rc = 1
    if a.rst:
        with open(a.rst, 'w', encoding='utf-8') as f:
            f.write(rst_doc(tables, figs, ctx_lines, a.img_prefix,
                            flowcount, mp))
    return rc


if __name__ == '__main__':
    sys.exit(main())
