/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_FENCE_H_
#define _PCPU_FENCE_H_

/**
 * @file
 * @internal Asymmetric fences: Dekker's handshake between a per-lcore
 * fast path and a rare thread that must take that lcore's state away
 * (a pool's stealer, the drain of the owners' stocks).
 *
 * The lcore stores "busy" (plain store), runs pcpu_fence_light() and loads
 * "wanted"; the other thread stores "wanted", runs pcpu_fence_heavy() and
 * waits for "busy" to drop. Either the lcore sees "wanted" and keeps off
 * its state, or the other thread sees it busy and waits. The light side
 * is a compiler barrier because the heavy side is
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full memory
 * barrier on every running thread of the process (the idea of liburcu's
 * membarrier flavour and of tcmalloc's per-CPU cache draining). Without
 * membarrier(2) (old kernels, seccomp, or the environment variable
 * PCPU_MEMPOOL_NO_MEMBARRIER, for tests) the light side is a real full
 * fence: correct, a few ns slower.
 */

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>

/** Non-zero when membarrier(2) is unavailable: the light side fences for
 * real. Set by pcpu_fence_init(), before any fast path runs. */
extern int pcpu_fence_fallback;

/** Register with membarrier(2), or choose the fallback (logged once).
 * Called by rte_pcpu_init() before any layer. */
void pcpu_fence_init(void);

/** The fast path's side, between its store of "busy" and its load of
 * "wanted". */
static __rte_always_inline void
pcpu_fence_light(void)
{
	if (unlikely(pcpu_fence_fallback))
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/** The other side, between its store of "wanted" and its loads of
 * "busy": a full barrier on every thread of the process. Some
 * microseconds (inter-processor interrupts); panics if membarrier(2)
 * fails after it registered, since the handshake would then be unsound. */
void pcpu_fence_heavy(void);

#endif /* _PCPU_FENCE_H_ */
