/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_PRIVATE_H_
#define _PCPU_PRIVATE_H_

/**
 * @file
 * @internal Shared declarations of the library's translation units.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include "rte_pcpu.h"

extern int pcpu_logtype;

#define PCPU_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pcpu_logtype, "PCPU: " fmt "\n", \
		##__VA_ARGS__)

/** Whether @p v is a power of two (64-bit: DPDK 22.11's
 * rte_is_power_of_2() takes 32 bits and would truncate strides). */
static inline int
pcpu_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/** Size of a hugepage the arena uses. */
#define PCPU_HUGE_PAGE_SIZE (UINT64_C(2) << 20)
/** Size of a normal page. */
#define PCPU_SMALL_PAGE_SIZE UINT64_C(4096)

/** The reserved virtual area: RTE_MAX_LCORE units of unit_stride bytes. */
struct pcpu_arena {
	void *map_addr;        /**< What mmap returned (with slack). */
	size_t map_len;        /**< Length of the reservation. */
	uintptr_t base;        /**< Unit 0, aligned to PCPU_HUGE_PAGE_SIZE. */
	uint64_t unit_stride;  /**< Bytes per unit, power of two. */
	uint32_t unit_shift;   /**< log2(unit_stride). */
	int numa;              /**< libnuma usable. */
};

/** Reserve the area (PROT_NONE, no memory). 0 or -errno. */
int pcpu_arena_reserve(struct pcpu_arena *a, uint64_t unit_stride);

/** Give the whole area back. */
void pcpu_arena_release(struct pcpu_arena *a);

/** How a range is backed. */
enum pcpu_backing {
	PCPU_BACKING_MAPPED,  /**< 4 KiB pages of a range mapped at chunk
			       * creation (pcpu_arena_map()). */
	PCPU_BACKING_SMALL,   /**< 4 KiB pages mapped when populated. */
	PCPU_BACKING_HUGE,    /**< 2 MiB hugepages mapped when populated. */
};

/**
 * Map [off, off+len) of lcore @p lcore_id's unit read-write without
 * memory, bound to NUMA node @p socket (negative: no binding).
 * @return 0 or -errno (the range stays reserved on error).
 */
int pcpu_arena_map(struct pcpu_arena *a, unsigned int lcore_id, int socket,
		uint64_t off, uint64_t len);

/** Give a mapped range back to the reservation (and its memory). */
void pcpu_arena_unmap(struct pcpu_arena *a, unsigned int lcore_id,
		uint64_t off, uint64_t len);

/**
 * Populate @p len bytes at offset @p off of lcore @p lcore_id's unit.
 * PCPU_BACKING_MAPPED: the range was mapped by pcpu_arena_map(); else it
 * is mapped now (MAP_HUGETLB for PCPU_BACKING_HUGE, then off and len are
 * multiples of 2 MiB) and bound to @p socket. The memory reads as zero.
 * @return 0, or -errno (-ENOMEM when the system has no such memory); on
 *   failure the range holds no memory.
 */
int pcpu_arena_populate(struct pcpu_arena *a, unsigned int lcore_id,
		int socket, uint64_t off, uint64_t len, enum pcpu_backing how);

/** Give back the memory of a range populated with @p how. */
void pcpu_arena_depopulate(struct pcpu_arena *a, unsigned int lcore_id,
		uint64_t off, uint64_t len, enum pcpu_backing how);

/**
 * Check that range [off, off+len) of lcore @p lcore_id's unit is backed
 * (@p expect 1) or not backed (@p expect 0), page by page of @p page_size,
 * with mincore(2).
 * @return 0 if it matches, else the 1-based index of the first page that
 *   does not.
 */
uint64_t pcpu_arena_check(struct pcpu_arena *a, unsigned int lcore_id,
		uint64_t off, uint64_t len, uint64_t page_size, int expect);

/** Address of offset @p off in lcore @p lcore_id's unit. */
static inline void *
pcpu_arena_addr(const struct pcpu_arena *a, unsigned int lcore_id,
		uint64_t off)
{
	return (void *)(a->base + ((uintptr_t)lcore_id << a->unit_shift) +
		(uintptr_t)off);
}

/** Free 2 MiB hugepages the system has now (0 if unknown). */
uint64_t pcpu_arena_free_hugepages(void);

/*
 * Entry points of the chunk allocator for the cache and pool layers.
 */

/** Allocate without caches; arguments already validated and normalised
 * (align a power of two >= 8). NULL with rte_errno on error. */
void *pcpu_alloc_slow(size_t size, size_t align);

/** Free without caches. 0, or -1 with rte_errno = EINVAL (one log line).
 * On success *size (if not NULL) gets the object's size rounded up to
 * the 4 B granule. @p tagged: the cache layer has a tag for the object
 * (TAG_FREEING), which pcpu_freed_hook drops under the lock; 0 skips the
 * hook. */
int pcpu_free_slow(void *handle, size_t *size, int tagged);

/** rte_pcpu_free() of a handle the cache layer has no tag for (or of any
 * handle while the caches are off): NULL is a no-op (0); before the
 * allocator is initialised -1 with rte_errno = EINVAL; else
 * pcpu_free_slow() without the hook. */
int pcpu_free_untagged(void *handle);

/** Allocate up to @p n objects under one lock; returns how many (fewer
 * on error, with rte_errno). Each is zeroed on every lcore. @p user: the
 * size is one a user asked for (a pool's), counted in the size statistics;
 * 0 for a cache refill, whose class size is not. */
unsigned int pcpu_alloc_bulk_slow(size_t size, size_t align, void **objs,
		unsigned int n, int user);

/** Free @p n objects under one lock acquisition; returns how many were
 * live and freed (the others are logged). @p tagged: as for
 * pcpu_free_slow(), for all of them (one pcpu_freed_hook call). */
unsigned int pcpu_free_bulk_slow(void * const *handles, unsigned int n,
		int tagged);

/**
 * Mark (@p own 1) or unmark (0) @p n live allocations as a pool's, so
 * that rte_pcpu_free() refuses them (EINVAL, one log line) while the pool
 * holds them. Unmark before freeing them with pcpu_free_bulk_slow().
 * @return 0; -EINVAL if a handle is not a live allocation, -ENOMEM if a
 *   chunk's map could not be allocated (those handles stay unmarked).
 */
int pcpu_pool_own(void * const *handles, unsigned int n, int own);

/** Zero every lcore's copy of @p size bytes at @p handle. */
void pcpu_zero_copies(void *handle, size_t size);

/** Account objects moving into (+) or out of (-) lcore caches. */
void pcpu_cached_add(int64_t objs, int64_t bytes);

/** Whether rte_pcpu_init() was given RTE_PCPU_F_NO_CACHE: the cache
 * layer must then pass every call to the slow path. */
int pcpu_cache_disabled(void);

/** Called under the allocator's spinlock for frees with tagged set: by
 * pcpu_free_slow() with its one handle when it freed it, by
 * pcpu_free_bulk_slow() once with all @p n handles (freed or refused), so
 * that the cache layer can drop its own state of the objects before
 * anyone can allocate the space again. */
extern void (*pcpu_freed_hook)(void * const *handles, unsigned int n);

/** Called from the lcore uninit callback (a thread unregisters). */
extern void (*pcpu_lcore_leave_hook)(unsigned int lcore_id);

/** Called by rte_pcpu_cleanup() before the chunks go. */
extern void (*pcpu_cleanup_hook)(void);

#endif /* _PCPU_PRIVATE_H_ */
