/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_OBJCACHE_H_
#define _PCPU_OBJCACHE_H_

/**
 * @file
 * @internal The per-lcore cache engine (struct rte_pcpu_objcache in
 * rte_pcpu_core.h): the slow paths shared by the size-class caches
 * (pcpu_cache.c) and the pools' lcore caches (pcpu_mempool_*.c). Policy
 * (when to refill or flush, how much, watermarks, stealing) stays with
 * them; the engine moves handles between the LIFO and a source or a sink
 * and keeps the counters.
 *
 * Counting rule, which every user keeps so that audits can check
 * refilled + nr_put - nr_get - flushed == len: a handle that comes in
 * from anywhere but a user counts in @c refilled, one that goes out to
 * anywhere but a user in @c flushed (a handle that passes through, from a
 * source straight to a user, counts in both).
 *
 * All functions are for the owner of the cache (or a thread that froze
 * it), never concurrent with its fast path.
 */

#include <stdint.h>

#include "rte_pcpu_core.h"

/** Gives up to @p n handles into @p dst; returns how many. */
typedef unsigned int (pcpu_objcache_source_t)(void *arg, uintptr_t *dst,
		unsigned int n);

/** Takes the @p n handles of @p objs (it may modify the array). */
typedef void (pcpu_objcache_sink_t)(void *arg, uintptr_t *objs,
		unsigned int n);

/** Set up an empty cache over @p objs (room for @p capacity handles, or
 * more when its user pushes before it flushes). */
void pcpu_objcache_init(struct rte_pcpu_objcache *oc, uintptr_t *objs,
		uint32_t capacity);

/**
 * Bring up to @p n handles from @p source on top of the cache, in the
 * order that makes the pops that follow come out in ascending address
 * order (sequential access afterwards walks memory forwards). Counts one
 * refill.
 * @return How many came.
 */
unsigned int pcpu_objcache_refill(struct rte_pcpu_objcache *oc, unsigned int n,
		pcpu_objcache_source_t *source, void *arg);

/** Send the @p n oldest handles (the bottom) to @p sink; the others move
 * down, keeping their order. Counts one flush. */
void pcpu_objcache_flush_oldest(struct rte_pcpu_objcache *oc, unsigned int n,
		pcpu_objcache_sink_t *sink, void *arg);

/** Take up to @p n of the hottest handles for a user, @p dst[0] the
 * hottest. @return How many. */
unsigned int pcpu_objcache_take(struct rte_pcpu_objcache *oc, uintptr_t *dst,
		unsigned int n);

/**
 * Put @p n handles from a user on top, keeping at most @p keep handles
 * (the most recent: the cache's newest, then @p objs, the last one
 * hottest) when they do not all fit in the capacity; the oldest of the
 * sequence go to @p sink, counted as one flush.
 */
void pcpu_objcache_put_spill(struct rte_pcpu_objcache *oc,
		const uintptr_t *objs, unsigned int n, unsigned int keep,
		pcpu_objcache_sink_t *sink, void *arg);

/** Send every handle to @p sink (one flush, if any). @return How many. */
unsigned int pcpu_objcache_drain(struct rte_pcpu_objcache *oc,
		pcpu_objcache_sink_t *sink, void *arg);

/** Whether the counters agree with @p oc->len (see the counting rule). */
int pcpu_objcache_counts_ok(const struct rte_pcpu_objcache *oc);

/** Make @p cp list every lcore that has memory now (zeroing a reused
 * object covers every copy a reader can see). */
void pcpu_objcache_copies_rebuild(struct rte_pcpu_copies *cp);

#endif /* _PCPU_OBJCACHE_H_ */
