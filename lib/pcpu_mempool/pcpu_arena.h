/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_ARENA_H_
#define _PCPU_ARENA_H_

/**
 * @file
 * @internal The reserved virtual area (RTE_MAX_LCORE units of unit_stride
 * bytes, one every unit_step bytes) and the mapping, population and NUMA
 * binding of ranges of it (pcpu_arena.c). Knows nothing of chunks or
 * objects: offsets are byte offsets inside one lcore's unit. Called by the
 * percpu allocator only, under its population mutex.
 */

#include <stddef.h>
#include <stdint.h>

/** Size of a hugepage the arena uses. */
#define PCPU_HUGE_PAGE_SIZE (UINT64_C(2) << 20)
/** Size of a normal page. */
#define PCPU_SMALL_PAGE_SIZE UINT64_C(4096)

/**
 * Colour step (RTE_PCPU_UNIT_COLOUR, which says why): unit i starts at
 * i * (unit_stride + PCPU_ARENA_COLOUR_STEP). A multiple of the hugepage
 * size, so that every unit stays hugepage aligned; with up to 128 lcores
 * the colours i * 2 MiB make address bits 21 to 27 of the units' starts
 * pairwise distinct whatever the stride.
 */
#define PCPU_ARENA_COLOUR_STEP PCPU_HUGE_PAGE_SIZE

/** The reserved virtual area: RTE_MAX_LCORE units of unit_stride bytes,
 * unit i at base + i * unit_step. */
struct pcpu_arena {
	void *map_addr;        /**< What mmap returned (with slack). */
	size_t map_len;        /**< Length of the reservation. */
	uintptr_t base;        /**< Unit 0, aligned to PCPU_HUGE_PAGE_SIZE. */
	uint64_t unit_stride;  /**< Bytes per unit, power of two. */
	uint64_t unit_step;    /**< unit_stride + PCPU_ARENA_COLOUR_STEP. */
	uint32_t unit_shift;   /**< log2(unit_stride). */
	int numa;              /**< libnuma usable. */
};

/** How a range is backed. */
enum pcpu_backing {
	PCPU_BACKING_MAPPED,  /**< 4 KiB pages of a range mapped at chunk
			       * creation (pcpu_arena_map()). */
	PCPU_BACKING_SMALL,   /**< 4 KiB pages mapped when populated. */
	PCPU_BACKING_HUGE,    /**< 2 MiB hugepages mapped when populated. */
};

/**
 * Reserve the area (PROT_NONE, no memory).
 * @return 0, -EINVAL (stride not a power of two up to 1 TiB) or -ENOMEM.
 */
int pcpu_arena_reserve(struct pcpu_arena *a, uint64_t unit_stride);

/** Give the whole area back. */
void pcpu_arena_release(struct pcpu_arena *a);

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

/** Give back the memory of a range populated with @p how; a range of
 * PCPU_BACKING_MAPPED stays mapped, bound to NUMA node @p socket (negative:
 * no binding). Logged if the memory cannot be given back. */
void pcpu_arena_depopulate(struct pcpu_arena *a, unsigned int lcore_id,
		int socket, uint64_t off, uint64_t len, enum pcpu_backing how);

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
	return (void *)(a->base + (uintptr_t)lcore_id * a->unit_step +
		(uintptr_t)off);
}

/** Free 2 MiB hugepages the system has now (0 if unknown). */
uint64_t pcpu_arena_free_hugepages(void);

#endif /* _PCPU_ARENA_H_ */
