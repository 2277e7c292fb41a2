/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_CACHE_H_
#define _PCPU_CACHE_H_

/**
 * @file
 * @internal Per-lcore, per-size-class cache buckets (pcpu_cache.c), called
 * by rte_pcpu_alloc(), rte_pcpu_free(), rte_pcpu_stats_get() and
 * rte_pcpu_audit().
 */

#include <stddef.h>
#include <stdint.h>

/**
 * Allocate through the calling lcore's cache. @p size and @p align are
 * already validated and normalised (align a power of two >= 8); requests
 * the caches do not serve (size above RTE_PCPU_CACHE_MAX_SIZE, alignment
 * above the class's, caches disabled) go to pcpu_alloc_slow().
 * @return The handle, every lcore's copy zeroed, or NULL with rte_errno.
 */
void *pcpu_cache_alloc(size_t size, size_t align);

/**
 * rte_pcpu_free(): @p handle into the calling lcore's cache, or to the
 * chunk allocator if it is not a cached-class object (NULL, and any handle
 * before the allocator is set up, through pcpu_free_untagged()).
 * @return 0, or -1 with rte_errno = EINVAL and one log line (not a live
 *   allocation: never allocated, interior pointer, double free; allocator
 *   not initialised).
 */
int pcpu_cache_free(void *handle);

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

/**
 * Check the caches against the chunk maps; the allocator lock is held by
 * the caller, no cache may be in use meanwhile (results are exact only
 * when the caches are quiescent).
 *
 * @param obj_bytes
 *   Size in bytes of the live chunk object starting at the handle, 0 if
 *   none starts there.
 * @param cached
 *   Set to the number of objects the caches hold.
 * @param msg
 *   Description of the first broken invariant.
 * @param len
 *   Size of @p msg.
 * @return 0 or -1.
 */
int pcpu_cache_audit(uint32_t (*obj_bytes)(const void *handle),
		uint64_t *cached, char *msg, size_t len);

#endif /* _PCPU_CACHE_H_ */
