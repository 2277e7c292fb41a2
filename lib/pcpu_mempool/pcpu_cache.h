/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_CACHE_H_
#define _PCPU_CACHE_H_

/**
 * @file
 * @internal Per-lcore, per-size-class caches (pcpu_cache.c) between the
 * public entry points (pcpu_front.c, pcpu_stats.c) and the allocator
 * (pcpu_alloc.h): objects of 1 .. RTE_PCPU_CACHE_MAX_SIZE bytes come from
 * them and go back to them; everything else passes straight through to
 * the allocator.
 */

#include <stddef.h>
#include <stdint.h>

#include "rte_pcpu.h"
#include "pcpu_owner.h"

/**
 * Set up the caches for units at @p base of @p unit_stride bytes, chunks
 * of @p chunk_size bytes. With @p disabled (RTE_PCPU_F_NO_CACHE), or when
 * the tag map cannot be mapped (one log line), every call passes to the
 * allocator. Registers the lcore listener that flushes the caches of a
 * thread that unregisters. Always 0.
 */
int pcpu_cache_init(uintptr_t base, uint64_t unit_stride, uint64_t chunk_size,
		int disabled);

/** Flush every lcore's caches, release them and the tag map. Not
 * MT-safe. */
void pcpu_cache_cleanup(void);

/**
 * Allocate through the calling lcore's cache, charged to owner @p owner
 * (a live owner's id without a limit, below PCPU_OWNER_LIMITED:
 * pcpu_owner.h) and recorded in the object's tag. @p size (1 to
 * RTE_PCPU_CACHE_MAX_SIZE bytes) and @p align (a power of two, at least
 * RTE_PCPU_MIN_ALIGN) are the caller's, checked and normalised; requests
 * the caches do not serve (alignment above the class's, caches off,
 * threads without an lcore id) go to pcpu_alloc_one().
 * @return The handle, every lcore's copy zeroed, or NULL with rte_errno
 *   (ENOMEM).
 */
void *pcpu_cache_alloc(size_t size, size_t align, uint32_t owner);

/**
 * pcpu_cache_alloc() for an owner with a limit (an id at or above
 * PCPU_OWNER_LIMITED), whose run must also hold credit against the limit
 * (see the top of pcpu_cache.c). Its own entry point, so that the caller
 * tells the two kinds apart once, where it already knows the owner, and
 * an allocation without a limit tests nothing for it.
 * @return The handle, every lcore's copy zeroed, or NULL with rte_errno
 *   ENOMEM (also at the owner's limit, counted as the owner's failure).
 */
void *pcpu_cache_alloc_limited(size_t size, size_t align, uint32_t owner);

/**
 * rte_pcpu_free() of a handle that is not NULL: into the calling lcore's
 * cache, or to the allocator if it is not a cached-class object; either
 * uncharges its owner.
 * @return 0, or -1 with rte_errno = EINVAL and one log line (not a live
 *   allocation: never allocated, interior pointer, double free).
 */
int pcpu_cache_free(void *handle);

/**
 * Whether the live allocation at @p handle (its first byte, from
 * pcpu_alloc_range_find()) was freed into the caches: the tag check
 * pcpu_cache_free() makes, for rte_pcpu_zero(). Lock-free.
 * @return NULL while its user holds it (or it is no cache object), or
 *   why not: held by a cache, or its free under way.
 */
const char *pcpu_cache_obj_freed(const void *handle);

/** Give every object of lcore @p lcore_id's caches back and reset its
 * classes; the lcore must not use them meanwhile. @return Objects given
 * back. */
uint64_t pcpu_cache_flush(unsigned int lcore_id);

/** rte_pcpu_cache_stats_get() of valid arguments. */
void pcpu_cache_stats(unsigned int lcore_id, unsigned int class_idx,
		struct rte_pcpu_cache_stats *stats);

/** What the caches hold and did, summed over lcores (racy when they run). */
struct pcpu_cache_counters {
	uint64_t cached_objs;  /**< Free objects held now. */
	uint64_t cached_bytes; /**< Their bytes per lcore copy. */
	uint64_t user_alloc;   /**< Objects handed to users from caches. */
	uint64_t user_free;    /**< Objects users freed into caches. */
	uint64_t refilled;     /**< Objects taken from the chunks by refills. */
	uint64_t flushed;      /**< Objects given back to the chunks. */
	uint64_t alloc_fail;   /**< Cache allocations that failed. */
	uint64_t min_size;     /**< Smallest size asked of a cache (or
				 *  UINT64_MAX). */
	uint64_t max_size;     /**< Largest size asked of a cache (or 0). */
};

/** Sum the counters of every lcore's caches. Lock-free. */
void pcpu_cache_counters(struct pcpu_cache_counters *c);

/** The caches' objects by owner (rte_pcpu_audit()), bytes per copy. */
struct pcpu_cache_owner_sums {
	uint64_t bytes[PCPU_OWNER_NB]; /**< Of objects users hold, by owner. */
	uint64_t objs[PCPU_OWNER_NB];
	uint64_t cached_bytes;         /**< Of objects the caches hold. */
};

/**
 * Check the caches against the chunk maps: sizes, counters, every handle
 * held (tag CACHED, a live chunk object of the class's size), every tag
 * (a live object's names a live owner). Exact only while no lcore uses
 * its cache.
 *
 * @param cached
 *   Set to the number of objects the caches hold.
 * @param os
 *   Filled with the objects' bytes by owner.
 * @param msg
 *   Description of the first broken invariant.
 * @param len
 *   Size of @p msg.
 * @return 0 or -1.
 */
int pcpu_cache_audit(uint64_t *cached, struct pcpu_cache_owner_sums *os,
		char *msg, size_t len);

#endif /* _PCPU_CACHE_H_ */
