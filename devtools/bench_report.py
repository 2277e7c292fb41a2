#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Turn dpdk-test-pcpu-perf JSON into tables and figures.

    bench_report.py [--check] [--merged OUT.json] [--text OUT.txt]
                    [--rst OUT.rst] [--figures DIR] RESULTS.json...

--check       exit 1 unless every case ran (errors fail; cases that
              report themselves skipped, e.g. no free hugepages, pass)
--merged      write all runs into one JSON file
--text        plain-text tables (what `make bench` prints)
--rst         reStructuredText tables for the programmer's guide
--figures     PNG figures (needs matplotlib: Debian's python3-matplotlib)
--flowcount   output of devtools/flowcount-bench.sh, quoted and checked
              against the flowcount target (counting costs <= 10 %)
"""

import argparse
import json
import math
import os
import re
import sys

SEED_LINUX = {4: (490, 70), 16: (515, 75), 64: (610, 80), 256: (950, 100),
              1024: (3520, 200)}
SCHEMES = ['pcpu', 'tls', 'static_array', 'lcore_var_layout',
           'zmalloc_table', 'vpp_vectors', 'atomic_shared']
SCHEME_TITLE = {
    'pcpu': 'RTE_PCPU',
    'tls': 'TLS',
    'static_array': 'static array',
    'lcore_var_layout': 'lcore_var layout',
    'zmalloc_table': 'zmalloc table',
    'vpp_vectors': 'VPP vectors',
    'atomic_shared': 'shared atomics',
}


def load(paths):
    runs = []
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
        runs.append((tag, d))
    return runs


def index(runs):
    out = {}
    for tag, d in runs:
        for b in d.get('benchmarks', []):
            out[(tag, b['name'])] = b
    return out


def find(idx, name, run=None):
    for (tag, n), b in idx.items():
        if n == name and (run is None or tag == run):
            if b.get('error_occurred') or b.get('skipped'):
                return None
            return b
    return None


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


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


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
        lines.append('  '.join(h.rjust(w[i]) for i, h in
                               enumerate(self.header)))
        for r in self.rows:
            lines.append('  '.join(str(c).rjust(w[i])
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


def c(b, key):
    if b is None:
        return None
    return b.get(key)


def access_tables(idx):
    tabs = []
    for lc in (1, 2):
        t = Table('Access: ns per {packets, bytes} increment, %d lcore%s'
                  % (lc, 's' if lc > 1 else ''),
                  ['objects', 'order'] + [SCHEME_TITLE[s] for s in SCHEMES]
                  + ['RTE_PCPU / best other'])
        for n in (1, 100, 10000, 100000, 1000000):
            for order in (('seq',) if n == 1 else ('seq', 'rand')):
                vals = []
                for s in SCHEMES:
                    b = find(idx, 'access/%s/objs:%d/%s/lcores:%d'
                             % (s, n, order, lc), '2lcores')
                    vals.append(c(b, 'ns_per_op'))
                others = [v for v in vals[1:] if v is not None]
                best = min(others) if others else None
                t.add(['{:,}'.format(n), order] + vals +
                      [ratio(vals[0], best)])
        r = targets_access(idx, lc)
        t.note = ('1 object: RTE_PCPU costs %sx TLS, from TLS windows '
                  'alternating with RTE_PCPU\'s in one case (target <= '
                  '1.1x).' % fmt(r))
        tabs.append(t)
    return tabs


def targets_access(idx, lcores=1):
    """RTE_PCPU cost over TLS for one object: from the windows the pcpu
    case alternates with TLS when present, else from the two cases."""
    p = find(idx, 'access/pcpu/objs:1/seq/lcores:%d' % lcores, '2lcores')
    if c(p, 'pcpu_cost_over_tls') is not None:
        return p['pcpu_cost_over_tls']
    t = find(idx, 'access/tls/objs:1/seq/lcores:%d' % lcores, '2lcores')
    return ratio(c(p, 'ns_per_op'), c(t, 'ns_per_op'))


def seed_table(idx, case='pcpu', kind='alloc_nocache'):
    huge = case == 'pcpu_2m'
    t = Table('Allocation %s, %s pages: '
              '2^20 objects, worst of in order / alternating / reverse%s, ms'
              % ('without caches (RTE_PCPU_F_NO_CACHE)'
                 if kind == 'alloc_nocache' else
                 'with cache buckets (the default)',
                 '2 MiB' if huge else '4 KiB',
                 ', each the best of 3 runs' if huge else ''),
              ['size', 'alloc', 'Linux', 'ratio', 'free', 'Linux', 'ratio',
               'naive alloc', 'naive free', 'target <= 0.2x'])
    rows = []
    for size in (4, 16, 64, 256, 1024):
        b = find(idx, '%s/%s/size:%d' % (kind, case, size), '2lcores')
        if b is not None and c(b, 'skipped'):
            b = None
        nv = find(idx, 'alloc_nocache/naive_zmalloc/size:%d' % size,
                  '2lcores')
        la, lf = SEED_LINUX[size]
        a, f = c(b, 'alloc_ms'), c(b, 'free_ms')
        met = None
        if a is not None and f is not None:
            met = 'met' if a <= la / 5 and f <= lf / 5 else 'NOT met'
        na = c(nv, 'alloc_ms')
        nf = c(nv, 'free_ms')
        if nv is not None and c(nv, 'extrapolated'):
            na = fmt(na) + ' (e)'
            nf = fmt(nf) + ' (e)'
        t.add([str(size), a, la, ratio(a, la), f, lf, ratio(f, lf), na, nf,
               met or 'n/a'])
        rows.append((size, a, f, la, lf, c(nv, 'alloc_ms'),
                     c(nv, 'free_ms')))
    if not huge and kind == 'alloc_nocache':
        b = find(idx, 'alloc_nocache/pcpu_aligned/size:4/align:8', '2lcores')
        a = c(b, 'alloc_ms')
        t.add(['4, align 8', a, 16000, ratio(a, 16000), c(b, 'free_ms'), '',
               '', '', '', 'n/a' if a is None else
               ('met (< 500 ms)' if a < 500 else 'NOT met (< 500 ms)')])
    page = c(find(idx, '%s/%s/size:4' % (kind, case), '2lcores'),
             'page_size')
    t.note = ('Linux: the 2017 bitmap allocator cover letter (published '
              'figures, other machine). naive: rte_zmalloc_socket() per '
              'lcore per object, same run; (e) = measured on fewer objects '
              'within the EAL memory budget and scaled to 2^20. '
              '2 lcores with memory, %s pages%s.'
              % ('2 MiB' if huge or page == 2097152 else '4 KiB',
                 '' if huge else '; every run populates its pages (about '
                 '2 us per 4 KiB page in this VM), which bounds allocation '
                 'of 256 B and 1 KiB objects'))
    if huge and all(r[1] is None for r in rows):
        t.note += ' Skipped: not enough free 2 MiB pages.'
    return t, rows


def cached_table(idx):
    t = Table('Cached get+put (alloc+free) of 16 B objects, per lcore',
              ['case', 'lcores', 'M pairs/s', 'ns/pair',
               'x rte_mempool (cost)'])
    out = {}
    for lc in (1, 2):
        ref = find(idx, 'cached/rte_mempool_get_put/size:16/lcores:%d' % lc,
                   '2lcores')
        for k in ('pool_get_put', 'pool_get_put_no_zero', 'pcpu_alloc_free',
                  'pcpu_alloc_free_nocache', 'rte_mempool_get_put'):
            b = find(idx, 'cached/%s/size:16/lcores:%d' % (k, lc),
                     '2lcores')
            # alternating windows in the same case when present
            r = c(b, 'cost_over_mempool')
            if r is None:
                r = ratio(c(b, 'ns_per_op'), c(ref, 'ns_per_op'))
            t.add([k, str(lc), c(b, 'per_lcore_Mops'), c(b, 'ns_per_op'), r])
            out[(k, lc)] = (c(b, 'per_lcore_Mops'), r)
    t.note = ('Targets (pool): >= 30 M pairs/s per lcore and <= 1.5 x the '
              'cost of rte_mempool_get+put with a cache of 256. The cost '
              'ratio comes from rte_mempool windows alternating with the '
              'case\'s own in the same case.')
    return t, out


def churn_table(idx):
    t = Table('Churn (bench bpf_ma: 64 allocs then 64 frees, 8..512 B)',
              ['allocator', 'pages', 'producers', 'alloc M/s', 'free M/s',
               'alloc x seed', 'free x seed', 'peak MiB/lcore', 'limit MiB',
               'targets'])
    pts = []
    for v in ('pcpu', 'pcpu_nocache'):
        for pages in ('4K', '2M'):
            for p in (1, 2):
                name = 'churn/%s/pages:%s/producers:%d' % (v, pages, p)
                b = find(idx, name, '2lcores')
                if b is None:
                    t.add([v, pages, str(p), 'skipped', '', '', '', '', '',
                           ''])
                    continue
                lim = 1.0 if pages == '4K' else 4.0
                t.add([v, pages, str(p), b['alloc_Mps'], b['free_Mps'],
                       b['alloc_Mps'] / 14.16, b['free_Mps'] / 36.18,
                       b['peak_MiB_per_lcore'], lim,
                       'n/a (no cache)' if v != 'pcpu' else
                       'met' if b.get('targets_met') else 'NOT met'])
                pts.append((v, pages, p, b['alloc_Mps'], b['free_Mps'],
                            b['peak_MiB_per_lcore']))
    t.add(['seed: Linux 6.8 large watermarks', '', '1', 14.16, 36.18,
           1.0, 1.0, 183.71, '', ''])
    t.add(['seed: Linux 6.8 after the series', '', '1', 0.86, 37.29,
           0.86 / 14.16, 37.29 / 36.18, 0.0, '', ''])
    t.note = ('Rates are per producer (time summed per phase, as bench '
              'bpf_ma); memory is the peak of populated bytes divided by '
              'the lcores with memory. Targets: >= 14.2 M allocs/s and '
              '>= 36.2 M frees/s per producer, peak <= 1 MiB per lcore '
              '(4 KiB pages) / 4 MiB (2 MiB pages); they apply to the '
              'cached allocator (pcpu). x seed: against the large-watermark '
              'seed row (Linux 6.8, 8 CPUs, other machine).')
    return t, pts


def init_table(idx):
    t = Table('Pool initialisation: ns per cached get+put on one lcore; '
              'ns per object for first use',
              ['size', 'lcores w/ memory', 'zero on get', 'obj_init',
               'no init', 'first use: zero', 'obj_init', 'no init'])
    for mem in (2, 8):
        for size in (16, 64, 256, 1024, 4096):
            run = '2lcores' if mem == 2 else '8lcores'
            bs = [find(idx, 'init/%s/size:%d/mem_lcores:%d' % (m, size, mem),
                       run) for m in ('zero_on_get', 'obj_init', 'no_init')]
            if all(b is None for b in bs):
                continue
            t.add([str(size), str(mem)] + [c(b, 'ns_per_pair') for b in bs] +
                  [c(b, 'first_use_ns_per_obj') for b in bs])
    t.note = ('Zeroing writes every lcore\'s copy on each get; obj_init '
              'runs once per copy when an object enters the pool.')
    return t


def reclaim_table(idx):
    t = Table('Reclaim: 11,000 groups of 10 objects (64 B .. 2 KiB), free '
              '10 of every 11 groups, rte_pcpu_reclaim()',
              ['pages', 'peak kB', 'final kB', 'peak/final',
               'final / pages with a live object', 'bound met'])
    for pages in ('4K', '2M'):
        b = None
        for (tag, n), v in idx.items():
            if n == 'reclaim/pages:%s' % pages and tag == '2lcores':
                b = v
        if b is None or b.get('error_occurred'):
            t.add([pages, 'error', '', '', '', ''])
        elif b.get('skipped'):
            t.add([pages, b.get('label', 'skipped'), '', '', '', ''])
        else:
            t.add([pages, b['peak_kB'], b['final_kB'], b['peak_over_final'],
                   b['final_over_live'], 'yes' if b['bound_met'] else 'no'])
    t.add(['Linux 5.14 (seed)', 481152, 135552, 481152 / 135552, '', ''])
    t.note = ('2 lcores with memory. Bound (4 KiB pages): final <= 1.1 x the '
              'pages that hold a live object + one chunk.')
    return t


def scaling_table(idx):
    bodies = ['pcpu_access', 'atomic_shared_access', 'pool_get_put',
              'pcpu_alloc_free', 'pcpu_alloc_free_nocache',
              'rte_mempool_get_put']
    t = Table('Scaling: total M ops/s (per lcore in brackets), lcores '
              'floating over 2 CPUs; * = oversubscribed',
              ['body', '1', '2', '4', '8'])
    data = {}
    for body in bodies:
        row = [body]
        for lc in (1, 2, 4, 8):
            b = find(idx, 'scaling/%s/lcores:%d' % (body, lc), '8lcores')
            if b is None:
                row.append('n/a')
                continue
            row.append('%s (%s)%s' % (fmt(b['total_Mops']),
                                      fmt(b['per_lcore_Mops']),
                                      '*' if b.get('oversubscribed') else ''))
            data[(body, lc)] = b['total_Mops']
        t.add(row)
    t.note = ('Access: 10,000 objects in random order. Pairs: 16 B. 8 '
              'lcores have memory in this run.')
    return t, data


def targets_table(idx, seed_rows, seed_page, cached, churn_pts,
                  flowcount=None, seed_rows_cache=()):
    t = Table('Targets of the allocator and cache issues',
              ['target', 'measured', 'status'])
    for lc in (1, 2):
        r = targets_access(idx, lc)
        t.add(['RTE_PCPU() increment <= 1.1 x TLS (%d lcore%s)'
               % (lc, 's' if lc > 1 else ''), fmt(r) + 'x' if r else 'n/a',
               'n/a' if r is None else ('met' if r <= 1.1 else 'NOT met')])
    for size, a, f, la, lf, _, _ in seed_rows:
        if a is None:
            continue
        t.add(['%d B (%s pages): alloc <= %g ms, free <= %g ms'
               % (size, seed_page, la / 5, lf / 5),
               '%s / %s ms' % (fmt(a), fmt(f)),
               'met' if a <= la / 5 and f <= lf / 5 else 'NOT met'])
    for size, a, f, la, lf, _, _ in seed_rows_cache:
        if a is None:
            continue
        t.add(['%d B with caches (2 MiB pages): alloc <= %g ms, free <= %g '
               'ms' % (size, la / 5, lf / 5),
               '%s / %s ms' % (fmt(a), fmt(f)),
               'met' if a <= la / 5 and f <= lf / 5 else 'NOT met'])
    b = find(idx, 'alloc_nocache/pcpu_aligned/size:4/align:8', '2lcores')
    if b is not None:
        t.add(['1 M x 4 B align 8 < 500 ms', fmt(b['alloc_ms']) + ' ms',
               'met' if b['alloc_ms'] < 500 else 'NOT met'])
    for lc in (1, 2):
        mp, rr = cached.get(('pool_get_put', lc), (None, None))
        if mp is None:
            continue
        t.add(['pool get+put >= 30 M/s per lcore, <= 1.5x rte_mempool '
               '(%d lcore%s)' % (lc, 's' if lc > 1 else ''),
               '%s M/s, %sx' % (fmt(mp), fmt(rr)),
               'met' if mp >= 30 and rr is not None and rr <= 1.5
               else 'NOT met'])
    for v, pages, p, a, f, mib in churn_pts:
        if v != 'pcpu':
            continue
        lim = 1.0 if pages == '4K' else 4.0
        t.add(['churn %s pages, %d producer%s: >= 14.2/36.2 M/s, <= %g MiB'
               % (pages, p, 's' if p > 1 else '', lim),
               '%s / %s M/s, %s MiB' % (fmt(a), fmt(f), fmt(mib)),
               'met' if a >= 14.2 and f >= 36.2 and mib <= lim
               else 'NOT met'])
    for workers, cost in flowcount_rows(flowcount or ''):
        t.add(['flowcount: counting costs <= 10 %% (%d worker%s)'
               % (workers, 's' if workers > 1 else ''), '%+.1f %%' % cost,
               'met' if cost <= 10 else 'NOT met'])
    b = find(idx, 'reclaim/pages:4K', '2lcores')
    if b is not None:
        t.add(['reclaim (4 KiB): final <= 1.1 x live pages + 1 chunk',
               '%s kB, %sx live' % (fmt(b['final_kB']),
                                   fmt(b['final_over_live'])),
               'met' if b['bound_met'] else 'NOT met'])
    return t


def flowcount_rows(text):
    """(workers, cost %) from flowcount-bench.sh's table."""
    rows = []
    for line in text.splitlines():
        m = re.match(r'^(\d+)\s.*?([+-]?\d+(?:\.\d+)?)%\s*$', line)
        if m:
            rows.append((int(m.group(1)), float(m.group(2))))
    return rows


def context_line(runs):
    parts = []
    for tag, d in runs:
        ctx = d.get('context', {})
        parts.append('%s: %s, %s lcores on %s CPUs, EAL hugepages %s, '
                     'load %s, %s' % (
                         tag, ctx.get('date', '?'), ctx.get('eal_lcores', '?'),
                         ctx.get('eal_cpus', '?'),
                         ctx.get('eal_hugepages', '?'),
                         '/'.join(fmt(x) for x in ctx.get('load_avg', [])),
                         ctx.get('pcpu_mode', '?')))
    return '; '.join(parts)


def figures(idx, outdir, seed_rows, seed_page, churn_pts, scaling):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    made = []

    # access cost per scheme
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, lc in zip(axes, (1, 2)):
        for s in SCHEMES:
            xs, ys = [], []
            for n in (1, 100, 10000, 100000, 1000000):
                b = find(idx, 'access/%s/objs:%d/%s/lcores:%d'
                         % (s, n, 'seq' if n == 1 else 'rand', lc),
                         '2lcores')
                if b is not None:
                    xs.append(n)
                    ys.append(b['ns_per_op'])
            if xs and s == 'tls':
                ax.plot(xs, ys, marker='*', markersize=14, linestyle='',
                        label=SCHEME_TITLE[s], zorder=5)
            elif xs:
                ax.plot(xs, ys, marker='o', label=SCHEME_TITLE[s],
                        linewidth=2.5 if s == 'pcpu' else 1.2)
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_xlabel('objects (random order; 1 object: sequential)')
        ax.set_title('%d lcore%s' % (lc, 's' if lc > 1 else ''))
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('ns per {packets, bytes} increment')
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc='lower center', ncol=len(labels),
               fontsize=8)
    fig.suptitle('Access cost per scheme')
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(os.path.join(outdir, 'bench_access.png'), dpi=90)
    plt.close(fig)
    made.append('bench_access.png')

    # alloc / free beside Linux
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    sizes = [r[0] for r in seed_rows]
    x = range(len(sizes))
    w = 0.27
    for ax, col, title in ((axes[0], (1, 3, 5), 'allocation'),
                           (axes[1], (2, 4, 6), 'free')):
        for k, (ci, lab) in enumerate(zip(col, ('rte_pcpu (no cache)',
                                                'Linux (published)',
                                                'naive rte_zmalloc'))):
            ys = [r[ci] if r[ci] is not None else 0 for r in seed_rows]
            ax.bar([i + (k - 1) * w for i in x], ys, w, label=lab)
        ax.set_xticks(list(x))
        ax.set_xticklabels(['%d B' % s for s in sizes])
        ax.set_yscale('log')
        ax.set_ylabel('ms for 2^20 objects (worst order), %s pages'
                      % seed_page)
        ax.set_title(title)
        ax.grid(True, axis='y', which='both', alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'bench_alloc.png'), dpi=90)
    plt.close(fig)
    made.append('bench_alloc.png')

    # churn rate versus memory
    fig, ax = plt.subplots(figsize=(7, 4.5))
    floor = 0.01
    for v, pages, p, a, f, mib in churn_pts:
        ax.scatter(max(mib, floor), a, marker='o' if v == 'pcpu' else 's',
                   s=50)
        ax.annotate('%s %s p%d' % (v, pages, p), (max(mib, floor), a),
                    fontsize=7, xytext=(4, 3), textcoords='offset points')
    for lab, a, mib in (('Linux 6.8 before', 14.16, 183.71),
                        ('Linux 6.8 after', 0.86, 0.0)):
        ax.scatter(max(mib, floor), a, marker='x', s=70, color='black')
        ax.annotate(lab, (max(mib, floor), a), fontsize=7, xytext=(4, -10),
                    textcoords='offset points')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('peak populated MiB per lcore (0 drawn at 0.01)')
    ax.set_ylabel('alloc M/s per producer')
    ax.set_title('Churn (bench bpf_ma): rate versus memory')
    ax.grid(True, which='both', alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, 'bench_churn.png'), dpi=90)
    plt.close(fig)
    made.append('bench_churn.png')

    # scaling
    if scaling:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        bodies = sorted({k[0] for k in scaling})
        for body in bodies:
            xs = [lc for lc in (1, 2, 4, 8) if (body, lc) in scaling]
            ax.plot(xs, [scaling[(body, lc)] for lc in xs], marker='o',
                    label=body)
        ax.axvspan(2.5, 8.5, color='grey', alpha=0.12)
        ax.text(3, 0.95, 'oversubscribed', fontsize=8,
                transform=ax.get_xaxis_transform())
        ax.set_xscale('log', base=2)
        ax.set_yscale('log')
        ax.set_xticks([1, 2, 4, 8])
        ax.set_xticklabels(['1', '2', '4', '8'])
        ax.set_xlabel('lcores (2 CPUs)')
        ax.set_ylabel('total M ops/s')
        ax.set_title('Scaling')
        ax.legend(fontsize=8)
        ax.grid(True, which='both', alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, 'bench_scaling.png'), dpi=90)
        plt.close(fig)
        made.append('bench_scaling.png')
    return made


def rst_doc(tables, figs, ctx, flowcount=None):
    out = ['.. SPDX-License-Identifier: BSD-3-Clause',
           '   Copyright(c) 2026 The pcpu_mempool authors',
           '',
           '.. Generated by devtools/bench_report.py from `make bench`;',
           '   do not edit by hand.',
           '',
           'Measured with ``make bench`` (dpdk-test-pcpu-perf); %s.' % ctx,
           '']
    captions = {
        'bench_access.png': 'Access cost per scheme',
        'bench_alloc.png': 'Allocation and free times beside Linux\'s',
        'bench_churn.png': 'Churn rate versus memory',
        'bench_scaling.png': 'Scaling over lcores',
    }
    for f in figs:
        out += ['.. figure:: img/%s' % f, '   :width: 90%', '',
                '   %s' % captions.get(f, f), '']
    for t in tables:
        out.append(t.rst())
    if flowcount:
        out += ['dpdk-flowcount with and without counting '
                '(``devtools/flowcount-bench.sh``, same run):', '', '::', '']
        out += ['   ' + line for line in flowcount.rstrip().splitlines()]
        out.append('')
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--merged')
    ap.add_argument('--text')
    ap.add_argument('--rst')
    ap.add_argument('--figures')
    ap.add_argument('--flowcount')
    ap.add_argument('json', nargs='+')
    a = ap.parse_args()

    runs = load(a.json)
    idx = index(runs)
    rc = 0
    if a.check:
        errors = [(t, n, b.get('error_message', ''))
                  for (t, n), b in idx.items() if b.get('error_occurred')]
        skipped = [(t, n, b.get('label', '')) for (t, n), b in idx.items()
                   if b.get('skipped')]
        for t, n, m in errors:
            print('bench: ERROR %s %s: %s' % (t, n, m))
        for t, n, m in skipped:
            print('bench: skipped %s %s: %s' % (t, n, m))
        if len(runs) < len(a.json) or not idx:
            print('bench: a run produced no results')
            rc = 1
        if errors:
            rc = 1
        print('bench: %d cases, %d errors, %d reported skipped' %
              (len(idx), len(errors), len(skipped)))
    if a.merged:
        merged = {'runs': [{'run': t, 'context': d.get('context', {})}
                           for t, d in runs],
                  'benchmarks': [b for _, d in runs
                                 for b in d.get('benchmarks', [])]}
        with open(a.merged, 'w', encoding='utf-8') as f:
            json.dump(merged, f, indent=1)
    if not (a.text or a.rst or a.figures):
        return rc

    flowcount = None
    if a.flowcount and os.path.exists(a.flowcount):
        with open(a.flowcount, encoding='utf-8') as f:
            flowcount = f.read()
    seed_t4, seed_rows4 = seed_table(idx, 'pcpu')
    seed_t2, seed_rows2 = seed_table(idx, 'pcpu_2m')
    seed_tc, seed_rowsc = seed_table(idx, 'pcpu_2m', 'alloc_cache')
    # targets on 2 MiB pages, the library's choice when hugepages are free;
    # 4 KiB pages when none were
    if any(r[1] is not None for r in seed_rows2):
        seed_rows, seed_page = seed_rows2, '2 MiB'
    else:
        seed_rows, seed_page = seed_rows4, '4 KiB'
    cached_t, cached = cached_table(idx)
    churn_t, churn_pts = churn_table(idx)
    scaling_t, scaling = scaling_table(idx)
    tables = [targets_table(idx, seed_rows, seed_page, cached, churn_pts,
                            flowcount, seed_rowsc)]
    tables += access_tables(idx)
    tables += [seed_t2, seed_tc, seed_t4, cached_t, churn_t, init_table(idx),
               reclaim_table(idx), scaling_t]
    ctx = context_line(runs)
    if a.text:
        with open(a.text, 'w', encoding='utf-8') as f:
            f.write(ctx + '\n\n')
            for t in tables:
                f.write(t.text() + '\n')
            if flowcount:
                f.write('dpdk-flowcount (devtools/flowcount-bench.sh)\n')
                f.write(flowcount.rstrip() + '\n')
    figs = []
    if a.figures:
        try:
            figs = figures(idx, a.figures, seed_rows, seed_page, churn_pts,
                           scaling)
        except ImportError as e:
            print('bench_report: no figures (%s); install '
                  'python3-matplotlib' % e, file=sys.stderr)
            rc = 1
    if a.rst:
        with open(a.rst, 'w', encoding='utf-8') as f:
            f.write(rst_doc(tables, figs, ctx, flowcount))
    return rc


if __name__ == '__main__':
    sys.exit(main())
