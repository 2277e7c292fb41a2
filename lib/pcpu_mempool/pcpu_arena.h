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

/**
 * The reserved virtual area: RTE_MAX_LCORE units of unit_stride bytes,
 * unit i at base + i * unit_step.
 *
 * Backed in one of two ways, fixed when it is reserved:
 * - private (@c shm 0): anonymous memory of this process only;
 * - shared (@c shm 1, pcpu_arena_shm.c): one file (a memfd) whose offset
 *   o backs the area's byte base + o in every process that maps it; this
 *   process maps the ranges it populates, other processes map the whole
 *   file read-only at the same address (pcpu_arena_attach()).
 */
struct pcpu_arena {
	void *map_addr;        /**< What mmap returned (with slack). */
	size_t map_len;        /**< Length of the reservation. */
	uintptr_t base;        /**< Unit 0, aligned to PCPU_HUGE_PAGE_SIZE. */
	uint64_t unit_stride;  /**< Bytes per unit, power of two. */
	uint64_t unit_step;    /**< unit_stride + PCPU_ARENA_COLOUR_STEP. */
	uint32_t unit_shift;   /**< log2(unit_stride). */
	int numa;              /**< libnuma usable. */
	/* shared backing; meaningful only with shm set */
	int shm;               /**< The area is backed by shm_fd. */
	int shm_huge;          /**< shm_fd holds 2 MiB hugepages. */
	int shm_fd;            /**< The file behind the area. */
	/** Hugepage files: the 4 KiB file behind the ranges that fell back
	 * to small pages (same offsets), or -1. */
	int shm_small_fd;
	/** A punch of the files failed once: pages may be left in ranges
	 * not mapped, so each mapping punches its range first. */
	int shm_stale;
	/** Hugepage files: which 2 MiB pages of the area shm_small_fd
	 * backs (shared memory; readers map by it). */
	struct pcpu_arena_small_map *shm_small;
	uint64_t span;         /**< Bytes of the area: the files' size. */
	int reader;            /**< A read-only view of another process's
				 *  area (pcpu_arena_attach()). */
};

/**
 * The 2 MiB pages of a hugepage area that fell back to 4 KiB pages: one
 * bit per page of the area, set before the page is first populated from
 * the 4 KiB file and never cleared while the area lives (every reader
 * that attached since maps the page from that file). @c seq is odd while
 * the owner changes bits (a seqlock: a reader that attaches meanwhile
 * maps again). In shared memory (rte_malloc).
 */
struct pcpu_arena_small_map {
	uint64_t seq;          /**< Changes: odd while in progress. */
	uint64_t nr_words;     /**< Words of @c bits. */
	uint64_t bits[];       /**< Bit i: page i of the area. */
};

/**
 * What another process needs to map a shared area: kept by the owner in
 * shared memory, read by pcpu_arena_attach(); the files themselves come
 * as file descriptors.
 */
struct pcpu_arena_desc {
	uintptr_t base;        /**< Address of unit 0. */
	uint64_t span;         /**< Bytes from base: the files' size. */
	uint64_t unit_stride;  /**< Bytes per unit. */
	uint32_t unit_shift;   /**< log2(unit_stride). */
	uint32_t huge;         /**< The main file holds hugepages. */
	/** pcpu_arena.shm_small (or NULL). */
	const struct pcpu_arena_small_map *small;
};

/** How a range is backed. */
enum pcpu_backing {
	PCPU_BACKING_MAPPED,  /**< 4 KiB pages of a range mapped at chunk
			       * creation (pcpu_arena_map()). */
	PCPU_BACKING_SMALL,   /**< 4 KiB pages mapped when populated. */
	PCPU_BACKING_HUGE,    /**< 2 MiB hugepages mapped when populated. */
};

/**
 * Reserve a privately backed area (PROT_NONE, no memory) at @p base, or
 * where the kernel chooses if @p base is 0.
 * @return 0, -EINVAL (stride not a power of two up to 1 TiB), -EEXIST
 *   (something is mapped in [base, base + size)) or -ENOMEM.
 */
int pcpu_arena_reserve(struct pcpu_arena *a, uint64_t unit_stride,
		uintptr_t base);

/**
 * Reserve a shared area (pcpu_arena_shm.c) at @p base, a multiple of
 * 2 MiB: exactly there, or with @p base_is_hint anywhere the kernel
 * chooses if that range is taken (logged: readers may then collide with
 * something of theirs). Creates the file(s): of hugepages if @p huge
 * (plus a 4 KiB file for ranges that fall back), else of 4 KiB pages.
 * @return 0, -EINVAL, -EEXIST (@p base is taken and not a hint),
 *   -ENOMEM, or another -errno of memfd_create(2) or ftruncate(2)
 *   (logged).
 */
int pcpu_arena_reserve_shared(struct pcpu_arena *a, uint64_t unit_stride,
		uintptr_t base, int base_is_hint, int huge);

/** Size in bytes of the reservation for @p unit_stride (no slack). */
uint64_t pcpu_arena_span(uint64_t unit_stride);

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

/**
 * Give back the memory of a range populated with @p how; a range of
 * PCPU_BACKING_MAPPED stays mapped, bound to NUMA node @p socket (negative:
 * no binding). Logged if the memory cannot be given back.
 * @return 0, or -ENOMEM when the memory of a shared area's range of
 *   PCPU_BACKING_MAPPED could not be given back: the range is then as it
 *   was, populated. Any other failure is logged and the range counts as
 *   given back: a private range keeps its memory only if both ways of
 *   giving it back fail, and the pages that a shared range leaves in its
 *   file are punched out before the range is mapped again.
 */
int pcpu_arena_depopulate(struct pcpu_arena *a, unsigned int lcore_id,
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

/*
 * Shared areas and the processes that read them (pcpu_arena_shm.c).
 *
 * A reader holds a POSIX read lock on byte 0 of the main file from
 * before it maps the area until after it unmapped it; the kernel drops
 * the lock when the reader dies, however it dies. The owner asks the
 * kernel whether any such lock exists (pcpu_arena_readers()) before it
 * gives memory back.
 */

/**
 * Whether another process reads the area now (holds the lock); 0 for a
 * private area. One fcntl(2).
 */
int pcpu_arena_readers(const struct pcpu_arena *a);

/** Describe a shared area for readers. */
void pcpu_arena_describe(const struct pcpu_arena *a, struct pcpu_arena_desc *d);

/**
 * The file descriptors a reader needs, in the order pcpu_arena_attach()
 * takes them: the main file, then the 4 KiB fall-back file if any.
 * @return Their number (0 for a private area).
 */
unsigned int pcpu_arena_fds(const struct pcpu_arena *a, int fds[2]);

/**
 * Map another process's shared area read-only at its address: take the
 * reader's lock, map the main file over [base, base + span) with
 * MAP_FIXED_NOREPLACE, then the 4 KiB file over the ranges that fell
 * back. @p view takes ownership of @p fds (closed on failure too). If
 * @p view is a detached view of the same range (pcpu_arena_detach() with
 * @p keep), the mapping replaces it.
 * @return 0; -EADDRINUSE if anything else is mapped in the range; -errno.
 */
int pcpu_arena_attach(struct pcpu_arena *view, const struct pcpu_arena_desc *d,
		const int *fds, unsigned int nfds);

/**
 * Stop reading: with @p keep, put an anonymous read-only mapping of zero
 * pages over the range first, so that threads still reading old handles
 * read zeros instead of faulting; then drop the lock and the files.
 */
void pcpu_arena_detach(struct pcpu_arena *view, int keep);

#endif /* _PCPU_ARENA_H_ */
