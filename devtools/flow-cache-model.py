#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
"""Model of dpdk-flowcount's flow cache: how many packets miss it.

    devtools/flow-cache-model.py [--flows N] [--sets S] [--rounds R]
                                 [--mix rr|zipf] [--every E,E,...]
                                 [--seed SEED]

Each flow is placed in a uniformly random set of FLOW_CACHE_WAYS (4) ways,
as the CRC of its key places it. The traffic visits the flows in round
robin (rr, as the bench's capture does), or draws them from a Zipf mix
(s = 1). A miss takes an empty way of its set; a full set replaces the
next way in turn once in E misses (FLOW_CACHE_REPLACE_EVERY, flow_table.h)
and otherwise leaves the flow uncached. Prints, for each E, the share of
packets that miss after two rounds of warm-up; E = 0 is no replacement at
all (in rr, only the flows beyond a set's fourth miss).
Defaults: the bench's 100,000 flows in the default cache's 65,536 sets.
"""

import argparse
import bisect
import random

WAYS = 4


def misses(sets_of, nsets, order, warm, every):
    ways = [[] for _ in range(nsets)]
    turn = [0] * nsets
    full = [0] * nsets
    miss = seen = 0
    for n, f in enumerate(order):
        s = sets_of[f]
        w = ways[s]
        hit = f in w
        if n >= warm:
            seen += 1
            miss += not hit
        if hit:
            continue
        if len(w) < WAYS:
            w.append(f)
            continue
        full[s] += 1
        if every == 0 or (full[s] - 1) % every != 0:
            continue
        w[turn[s]] = f
        turn[s] = (turn[s] + 1) % WAYS
    return miss / seen


def at_least(low):
    """An argparse type: an integer of at least @low."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'{text!r} is not an integer')
        if v < low:
            raise argparse.ArgumentTypeError(f'{v} is below {low}')
        return v
    return parse


def every_list(text):
    """An argparse type: comma-separated replacement periods (0: never)."""
    return [at_least(0)(x) for x in text.split(',')]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0] + '\n\n' +
        __doc__.split('\n\n', 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--flows', type=at_least(1), default=100000,
                    help='flows (default %(default)s)')
    ap.add_argument('--sets', type=at_least(1), default=65536,
                    help='sets of the cache (default %(default)s)')
    ap.add_argument('--rounds', type=at_least(3), default=5,
                    help='rounds of traffic, the first 2 not measured '
                    '(default %(default)s)')
    ap.add_argument('--mix', choices=('rr', 'zipf'), default='rr',
                    help='round robin or Zipf (default %(default)s)')
    ap.add_argument('--every', type=every_list, default='1,2,4,8,16,64,0',
                    help='replace once in E misses of a full set, 0: never '
                    '(default %(default)s)')
    ap.add_argument('--seed', type=int, default=1,
                    help='placement and Zipf draws (default %(default)s)')
    o = ap.parse_args()
    rnd = random.Random(o.seed)
    sets_of = [rnd.randrange(o.sets) for _ in range(o.flows)]
    total = o.flows * o.rounds
    if o.mix == 'rr':
        order = [i % o.flows for i in range(total)]
    else:
        cum, acc = [], 0.0
        for k in range(1, o.flows + 1):
            acc += 1.0 / k
            cum.append(acc)
        order = [bisect.bisect_left(cum, rnd.random() * acc)
                 for _ in range(total)]
    warm = 2 * o.flows
    print(f'{o.flows} flows, {o.sets} sets of {WAYS} ways, {o.mix}, '
          f'{o.rounds - 2} rounds measured after 2 of warm-up')
    for e in o.every:
        name = 'never' if e == 0 else f'1 in {e}'
        share = misses(sets_of, o.sets, order, warm, e)
        print(f'replace {name:>8}: {100 * share:5.2f}% of packets miss')


if __name__ == '__main__':
    main()
