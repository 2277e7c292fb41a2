/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_H_
#define _RTE_PCPU_H_

/**
 * @file
 * Per-lcore ("percpu") dynamic memory.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * rte_pcpu_alloc() returns a *handle* for an object that exists once per
 * lcore, as alloc_percpu() does in Linux (mm/percpu.c). The handle is the
 * address of lcore 0's copy; lcore @c i's copy is at
 * @c handle + i * (unit_stride + RTE_PCPU_UNIT_COLOUR), one multiply and
 * one add, with no lookup. A handle must never be dereferenced directly:
 * use RTE_PCPU(), RTE_PCPU_LCORE() or RTE_PCPU_FOREACH().
 *
 * Memory comes from one virtual area reserved at initialisation:
 * RTE_MAX_LCORE *units* of @c unit_stride bytes each (unit @c i belongs to
 * lcore id @c i), each RTE_PCPU_UNIT_COLOUR bytes further than a
 * power-of-two stride would put it. Inside every unit, *chunks* of
 * @c chunk_size bytes sit at the same offsets; the pages of a chunk are
 * *populated* (backed by memory) only for lcores that exist, only when
 * first used, with 2 MiB hugepages when the system has free ones (else
 * 4 KiB pages), each bound to the NUMA node of its lcore. Empty pages are
 * given back to the system (partial depopulation, as Linux 5.14).
 *
 * Lcores that have memory: EAL lcores, service lcores and threads
 * registered with rte_thread_register(). A thread that registers after
 * objects exist finds its copies of all of them populated and zeroed. When
 * a registered thread unregisters, its copies are kept (their values still
 * count in sums) and belong to the next thread that receives that lcore id.
 *
 * Multi-process. When EAL runs with hugepages and its shared configuration
 * (not --no-huge, --in-memory or --no-shconf), the area is backed by a
 * shared file at a fixed address (rte_pcpu_conf.base_addr) and a DPDK
 * secondary process (--proc-type=secondary, same --file-prefix) reads the
 * primary's copies: RTE_PCPU_FOREACH(), rte_pcpu_sum_u64(),
 * rte_pcpu_lcore_has_memory() and any rte_pcpu_*() call attach it by
 * themselves, after which RTE_PCPU_LCORE() reads the primary's copy of any
 * live handle; statistics, dump and audit report the primary's allocator.
 * A secondary only reads: calls that would change anything fail there
 * with ENOTSUP. The programmer's guide ("Multi-Process") says more.
 */

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_compat.h>
#include <rte_lcore.h>

#include "rte_pcpu_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Largest object rte_pcpu_alloc() accepts, in bytes (per lcore copy):
 * 256 MiB. Objects above RTE_PCPU_CHUNK_OBJ_MAX_SIZE take a *span* of
 * whole chunks, at the same offset in every unit, so RTE_PCPU(arr)[i]
 * indexes an array of any size; a span also needs that many free chunks
 * of address space in the unit (unit_stride).
 */
#define RTE_PCPU_MAX_SIZE (256u << 20)

/**
 * Largest object placed inside one chunk's bitmap, in bytes (per lcore
 * copy): 256 KiB, also the smallest chunk size. Larger objects take spans
 * of whole chunks: their address space is rounded up to the chunk size,
 * their memory to the page size (a 300 KiB object populates one 2 MiB
 * hugepage per lcore), and their free gives their memory back at once.
 * Objects of rte_pcpu_mempool pools are at most this size.
 */
#define RTE_PCPU_CHUNK_OBJ_MAX_SIZE (256u * 1024u)

/** Largest alignment rte_pcpu_alloc() accepts, in bytes. */
#define RTE_PCPU_MAX_ALIGN 4096u

/** Smallest alignment of any object, in bytes (the bitmap granule is 4 B). */
#define RTE_PCPU_MIN_ALIGN 8u

/** Default address space reserved per lcore (unit stride): 1 GiB. */
#define RTE_PCPU_DEFAULT_UNIT_STRIDE (UINT64_C(1) << 30)

/**
 * Colour step of the units, bytes: unit @c i starts at
 * base + i * (unit_stride + RTE_PCPU_UNIT_COLOUR), not at
 * base + i * unit_stride, so that two lcores' copies of an object never
 * differ only in the address bits at and above log2(unit_stride). CPUs
 * that index a structure by a hash of the lower address bits only (AMD
 * Zen's L1D way predictor: bits 12 to 27) would otherwise see every copy
 * evict the previous one's entry when code touches several in a row
 * (zeroing, sums). Whole 2 MiB pages, so that units stay hugepage aligned.
 */
#define RTE_PCPU_UNIT_COLOUR (UINT64_C(2) << 20)

/** Default chunk size (bytes of one chunk inside one unit): 2 MiB. */
#define RTE_PCPU_DEFAULT_CHUNK_SIZE (UINT64_C(2) << 20)

/**
 * rte_pcpu_conf flag: no per-lcore cache buckets; every rte_pcpu_alloc()
 * and rte_pcpu_free() goes to the chunk allocator under its lock.
 */
#define RTE_PCPU_F_NO_CACHE 0x1

/**
 * rte_pcpu_conf flag: back the area with memory private to this process,
 * even when secondary processes could attach (they then cannot read it).
 */
#define RTE_PCPU_F_PRIVATE 0x2

/**
 * rte_pcpu_conf flag: back the area with a shared file even when EAL has
 * no hugepages (--no-huge). DPDK 22.11 gives a --no-huge primary no
 * secondary processes, so this serves to compare the two backings; by
 * default the area is shared exactly when EAL has hugepages and its
 * multi-process channel.
 */
#define RTE_PCPU_F_SHARED 0x4

/**
 * Default address of the area (unit 0) when it is shared: 32 TiB, above
 * the ranges EAL reserves from its base address (4 GiB) and below those
 * the kernel hands out top-down, so that a secondary process finds it
 * free (as EAL's own --base-virtaddr). With AddressSanitizer's shadow
 * (up to 16 TiB) it is free too. If it is taken in the primary, the
 * kernel chooses (logged); see rte_pcpu_conf.base_addr.
 */
#define RTE_PCPU_DEFAULT_BASE_ADDR UINT64_C(0x200000000000)

/** How the pages of a unit are backed. */
enum rte_pcpu_page_policy {
	/** 2 MiB hugepages while the system has free ones, else 4 KiB pages;
	 * 4 KiB pages when EAL runs without hugepages (--no-huge) or the
	 * chunks are smaller than 2 MiB. */
	RTE_PCPU_PAGE_AUTO = 0,
	/** 2 MiB hugepages only, also under EAL's --no-huge (the copies are
	 * not EAL memory); population fails with ENOMEM without them. */
	RTE_PCPU_PAGE_HUGE,
	/** 4 KiB pages only. */
	RTE_PCPU_PAGE_NORMAL,
};

/**
 * Configuration for rte_pcpu_init(). Zero in any field means its default.
 */
struct rte_pcpu_conf {
	/** Address space per lcore in bytes: a power of two, at least
	 * @c chunk_size and at most 64 GiB. Default RTE_PCPU_DEFAULT_UNIT_STRIDE. The number of
	 * chunks is unit_stride / chunk_size. */
	uint64_t unit_stride;
	/** Bytes of one chunk in one unit: a power of two between
	 * RTE_PCPU_CHUNK_OBJ_MAX_SIZE (256 KiB) and min(unit_stride, 1 GiB); with
	 * hugepages, at least 2 MiB.
	 * Default RTE_PCPU_DEFAULT_CHUNK_SIZE, or @c unit_stride when that is
	 * smaller (a 1 MiB stride alone gives 1 MiB chunks, 4 KiB pages). */
	uint64_t chunk_size;
	/** Limit on populated bytes, summed over all lcores with memory.
	 * 0 means no limit. Allocations that need more fail with ENOMEM. */
	uint64_t max_populated;
	/** Page policy, see enum rte_pcpu_page_policy. */
	enum rte_pcpu_page_policy page_policy;
	/** Number of empty populated pages (per lcore) kept for reuse when
	 * depopulation gives pages back; default 4 with 4 KiB pages (Linux's
	 * PCPU_EMPTY_POP_PAGES_HIGH) and 1 with 2 MiB pages; at most
	 * unit_stride / 4 KiB. */
	uint32_t empty_pages_reserve;
	/** RTE_PCPU_F_* flags; other bits must be 0. RTE_PCPU_F_PRIVATE
	 * and RTE_PCPU_F_SHARED exclude each other. */
	uint32_t flags;
	/** Address of the area (unit 0 starts there), a multiple of 2 MiB;
	 * the area takes RTE_MAX_LCORE * unit_stride bytes from it. 0: with
	 * a shared area RTE_PCPU_DEFAULT_BASE_ADDR (or where the kernel
	 * chooses, if taken), with a private one where the kernel chooses.
	 * A secondary process maps the area at this same address: if it has
	 * something there, it cannot read the area (EADDRINUSE, and a log
	 * line naming this field); start the primary with another address. */
	uint64_t base_addr;
};

/**
 * Statistics, as Linux's percpu_stats plus memory placement.
 * Counts are of objects; sizes are in bytes per lcore copy unless the
 * name says otherwise.
 */
struct rte_pcpu_stats {
	uint64_t nr_alloc;          /**< Successful allocations, lifetime. */
	uint64_t nr_dealloc;        /**< Successful frees, lifetime. */
	uint64_t nr_cur_alloc;      /**< Live objects (allocated, not freed). */
	uint64_t nr_max_alloc;      /**< High-water mark of the objects
				      *  taken from the chunks: live ones
				      *  plus those lcore caches held then
				      *  (so at least the high-water mark of
				      *  nr_cur_alloc; equal to it without
				      *  caches). */
	uint64_t nr_alloc_fail;     /**< rte_pcpu_alloc() calls that failed. */
	uint32_t nr_chunks;         /**< Chunks that exist now. */
	uint32_t nr_max_chunks;     /**< High-water mark of nr_chunks. */
	uint64_t min_alloc_size;    /**< Smallest size ever asked of
				      *  rte_pcpu_alloc() (or a pool's
				      *  object size), bytes; 0: none. */
	uint64_t max_alloc_size;    /**< Largest such size, bytes. */
	uint64_t populated_bytes;   /**< Populated bytes, all lcores. */
	uint64_t max_populated_bytes; /**< High-water mark of populated_bytes. */
	/** Populated bytes per NUMA socket id. */
	uint64_t populated_bytes_socket[RTE_MAX_NUMA_NODES];
	uint64_t populated_pages;   /**< Populated pages per lcore. */
	uint64_t empty_pop_pages;   /**< Populated pages holding no object. */
	uint64_t page_size;         /**< Page size in use: 4096 or 2097152. */
	uint64_t max_populated;     /**< Limit on populated bytes, 0 = none. */
	uint64_t unit_stride;       /**< Address space per lcore, bytes. */
	uint64_t chunk_size;        /**< Chunk size per unit, bytes. */
	uint32_t nr_lcores;         /**< Units that have memory: the
				      *  lcores', plus unit 0 when lcore 0
				      *  is not an lcore, from the first
				      *  rte_mempool with "pcpu" ops to
				      *  rte_pcpu_cleanup(). */
	uint32_t nr_huge_fallback;  /**< Times policy auto fell back to 4 KiB. */
	uint64_t cached_objs;       /**< Free objects held in lcore caches. */
	uint64_t cached_bytes;      /**< Bytes per lcore held in lcore caches. */
	uint64_t base_addr;         /**< Address of the area (unit 0). */
	uint32_t shared;            /**< 1: the area is shared with
				      *  secondary processes. */
	uint32_t readers;           /**< 1: a secondary process reads the
				      *  area now (memory is not given back
				      *  meanwhile). */
	uint64_t nr_depop_deferred; /**< Times giving memory back was put
				      *  off because a secondary process
				      *  read the area. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Set up the percpu allocator explicitly. Optional: without it, the first
 * rte_pcpu_alloc() after rte_eal_init() sets up the defaults.
 *
 * Reserves RTE_MAX_LCORE * unit_stride bytes of address space (no memory)
 * and registers an lcore callback so that lcores appearing later get
 * memory.
 *
 * In a secondary process it attaches to the primary's allocator instead
 * (what any reading call does by itself): @p conf must be NULL.
 *
 * @param conf
 *   Configuration, or NULL for all defaults.
 * @return
 *   0 on success; -1 with rte_errno set: EALREADY (already set up),
 *   EINVAL (bad configuration, or EAL not initialised or already cleaned
 *   up with rte_eal_cleanup()), ENOMEM (the address space could not be
 *   reserved, or memory for the allocator's metadata or its lcore
 *   callback could not be allocated), EEXIST (@c base_addr given and
 *   something is mapped in the range), ENOTSUP (RTE_PCPU_F_SHARED without
 *   EAL's multi-process channel; in a secondary process, a @p conf).
 *   A secondary process: ENOENT (the primary has not set the allocator
 *   up: an answer a reader polls for, logged at DEBUG only), EADDRINUSE
 *   (the area's range is taken in this process: see
 *   rte_pcpu_conf.base_addr), ETIMEDOUT or another error of the request
 *   to the primary; one log line each.
 *
 * Thread-safety: MT-safe, but call it before other threads allocate.
 */
__rte_experimental
int rte_pcpu_init(const struct rte_pcpu_conf *conf);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Release everything: all chunks, the reserved area, the lcore callback,
 * the lcore caches, and every pool with what it holds. Live handles
 * become invalid (a warning gives their number). Call it before
 * rte_eal_cleanup(): pools and lcore caches live in EAL memory. After
 * rte_eal_cleanup() the library cannot be set up again (EINVAL). If
 * rte_eal_cleanup() ran while the library was still set up, the control
 * calls fail with EINVAL and one log line: this call, rte_pcpu_init(),
 * rte_pcpu_stats_get(), rte_pcpu_dump(), rte_pcpu_audit(),
 * rte_pcpu_reclaim(), rte_pcpu_cache_flush(), rte_pcpu_zero(),
 * rte_pcpu_owner_create(), rte_pcpu_owner_free(), rte_pcpu_owner_lookup(),
 * rte_pcpu_owner_stats_get(), rte_pcpu_mempool_create(),
 * rte_pcpu_mempool_lookup(), rte_pcpu_mempool_free(),
 * rte_pcpu_mempool_stats_get(), rte_pcpu_mempool_info_get(),
 * rte_pcpu_mempool_dump(), rte_pcpu_mempool_audit(),
 * rte_pcpu_mempool_rcu_qsbr_add() and rte_pcpu_mempool_ops_create();
 * rte_pcpu_owner_walk() and rte_pcpu_mempool_walk() call nothing, and
 * rte_pcpu_owner_name() still answers (the records are the library's own
 * memory). Everything else is then a program error, as a use after free,
 * because it reads memory that is gone: the fast paths rte_pcpu_alloc(),
 * rte_pcpu_alloc_owner(), rte_pcpu_free(), RTE_PCPU() and the sums on a
 * handle, rte_pcpu_mempool_get() and rte_pcpu_mempool_put() and their
 * bulk forms, the "pcpu" rte_mempool ops, and the small reads
 * rte_pcpu_mempool_in_use_count(), rte_pcpu_mempool_avail_count(),
 * rte_pcpu_mempool_name(), rte_pcpu_mempool_owner(),
 * rte_pcpu_cache_stats_get(), rte_pcpu_chunk_walk() and
 * rte_pcpu_lcore_socket_id(). Telling costs a system call
 * (process_vm_readv(2)): on rte_pcpu_alloc() or rte_pcpu_free() it would
 * more than double their instructions and add microseconds of system
 * time to every call, so they do not check.
 * Attached secondary processes are told: their view of the area reads as
 * zero from then on, until the primary sets the allocator up again. In a
 * secondary process, it detaches from the primary's allocator (the
 * primary may then give memory back at once).
 *
 * @return
 *   0 on success; -1 with rte_errno = EALREADY if not set up, EINVAL if
 *   rte_eal_cleanup() already ran (see above); one log line each. In a
 *   secondary process, EALREADY when not attached, logged at DEBUG only:
 *   the primary's cleanup or exit detaches it, so a secondary's own
 *   cleanup at its exit may find nothing to do.
 *
 * Thread-safety: not MT-safe; no other thread may use the allocator.
 */
__rte_experimental
int rte_pcpu_cleanup(void);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate an object that has one copy per lcore, every copy zeroed.
 *
 * @param size
 *   Bytes per copy, 1 .. RTE_PCPU_MAX_SIZE (256 MiB). Objects above
 *   RTE_PCPU_CHUNK_OBJ_MAX_SIZE (256 KiB) take a span of whole chunks:
 *   every page they need is populated on every lcore now, and they are
 *   always aligned to the chunk size.
 * @param align
 *   Alignment in bytes: 0 for natural alignment (the largest power of
 *   two dividing the size rounded up to a multiple of 8, capped at 64, the
 *   cache line), or a power of two up to RTE_PCPU_MAX_ALIGN. Alignments
 *   below 8 are raised to 8.
 * @return
 *   The handle, or NULL with rte_errno set: EINVAL (size 0 or above
 *   RTE_PCPU_MAX_SIZE, bad align; EAL not initialised, or cleaned up
 *   while the library was not set up: after rte_eal_cleanup() with the
 *   library still set up this call is a program error, see
 *   rte_pcpu_cleanup()), ENOMEM (the populated-bytes limit is reached, the system has no
 *   memory, or the reserved address space has no room: for a span, no
 *   run of free chunks long enough), ENOTSUP (a secondary process).
 *
 * Thread-safety: MT-safe, from any thread, including unregistered ones.
 * Allocating or freeing a span takes the allocator's population mutex and
 * makes system calls.
 */
__rte_experimental
void *rte_pcpu_alloc(size_t size, size_t align);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free an object allocated by rte_pcpu_alloc(). The copies of every lcore
 * are released together; the handle must not be used afterwards.
 *
 * @param handle
 *   The handle; NULL is a no-op.
 * @return
 *   0 on success; -1 with rte_errno = EINVAL if @p handle is not a live
 *   allocation (never allocated, interior pointer, already freed, also
 *   when two threads free it at once: one of them fails). One log line is
 *   written and nothing changes. The same for an object that belongs to
 *   a pool (rte_pcpu_mempool_get()), whether handed out or not: give it
 *   back with rte_pcpu_mempool_put(); and for an object of an
 *   rte_mempool with the "pcpu" ops, whose line names the pool: give it
 *   back with rte_mempool_put(). ENOTSUP in a secondary process.
 *   After rte_eal_cleanup() with the library still set up this call is a
 *   program error (see rte_pcpu_cleanup()).
 *
 * Thread-safety: MT-safe, from any thread. The memory of an object above
 * RTE_PCPU_CHUNK_OBJ_MAX_SIZE (a span) goes back to the system before this
 * returns (under the population mutex); smaller objects leave that work
 * to later allocations and rte_pcpu_reclaim().
 */
__rte_experimental
int rte_pcpu_free(void *handle);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Zero @p size bytes at @p obj in every lcore's copy (every unit with
 * memory). rte_pcpu_alloc() zeroes new objects itself; this is for
 * memory that is reused without passing through it: an object taken from
 * an rte_mempool with "pcpu" ops (rte_mempool_get() does not zero, and
 * the object keeps what its previous user left on every lcore), or a
 * part of an object that is recycled in place.
 *
 * The range may start anywhere inside a live allocation but must not
 * leave it; an allocation extends to its size rounded up to the
 * allocator's granule or size class (a 100-byte allocation from the
 * caches holds 128 bytes), which rte_pcpu_alloc() zeroed too, so a range
 * into that slack is accepted. An allocation freed with rte_pcpu_free() is not live, even
 * while an lcore cache holds it for the next rte_pcpu_alloc() (the check
 * rte_pcpu_free() makes against a double free). An object of a "pcpu"
 * mempool counts as its element alone (the mempool's elt_size bytes from
 * the object): its rte_mempool header and trailer and the other objects
 * of the driver's block are not the user's.
 *
 * @param obj
 *   Address in lcore 0's copy (a handle, or a handle plus an offset).
 * @param size
 *   Bytes per copy, at least 1.
 * @return
 *   0; -1 with rte_errno = EINVAL and one log line if @p obj is NULL,
 *   @p size is 0, or the range is not inside one live allocation (never
 *   allocated, freed, leaving its allocation, or for a "pcpu" mempool's
 *   object leaving its element): nothing is written then. ENOTSUP in a
 *   secondary process.
 *
 * Thread-safety: MT-safe for the allocator, but it writes every lcore's
 * copy without synchronisation: call it only while no lcore uses the
 * object (say, after rte_mempool_get() and before the handle is published
 * to other lcores).
 */
__rte_experimental
int rte_pcpu_zero(void *obj, size_t size);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Give empty populated pages back to the system, keeping the reserve of
 * empty pages (empty_pages_reserve), and destroy fully free chunks beyond
 * one spare (but for those whose pages the reserve needs), as Linux
 * 5.14's partial depopulation. Frees never make system
 * calls: they only mark this work as due, and the next allocation that
 * reaches the chunk allocator does it (without waiting, if another thread
 * is populating) for chunks with at least a quarter of their pages
 * empty. This function does it at once for every chunk with empty pages;
 * call it from a control thread after freeing many objects. Objects
 * parked in lcore caches are still allocated: see rte_pcpu_cache_flush().
 *
 * While a secondary process reads a shared area, nothing is given back
 * (0): a page a secondary may still read never becomes a hole under it.
 * The work is done once the last one detached (rte_pcpu_cleanup() in the
 * secondary, or its exit, which the primary notices within a second).
 *
 * @return
 *   Bytes given back (all lcores), or -1 with rte_errno = EALREADY if
 *   not set up, ENOTSUP in a secondary process.
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
int64_t rte_pcpu_reclaim(void);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Empty the calling lcore's cache buckets: every free object they hold goes
 * back to the chunk allocator (where rte_pcpu_reclaim() can give its pages
 * back), and every size class of this lcore returns to its initial state
 * (not in use, initial watermarks; its capacity goes back to the budgets).
 * A registered thread that unregisters is flushed automatically.
 *
 * Caches serve objects of 1 .. RTE_PCPU_CACHE_MAX_SIZE bytes (per lcore
 * copy) in RTE_PCPU_CACHE_NB_CLASSES size classes; an lcore's idle classes
 * shrink by themselves only while that lcore keeps allocating or freeing,
 * so call this from an lcore that goes idle to give its cached memory back
 * at once. To empty the worker lcores' caches from the main lcore (say,
 * before rte_pcpu_reclaim() when the workers have stopped), run it on
 * each of them: rte_eal_mp_remote_launch() of a function that calls it,
 * then rte_eal_mp_wait_lcore().
 *
 * @return
 *   Number of objects given back (0 or more), or -1 with
 *   rte_errno = EALREADY if the allocator is not set up, ENOTSUP in a
 *   secondary process. An unregistered thread has no cache: 0.
 *
 * Thread-safety: MT-safe; acts on the calling lcore's caches only (the
 * caches of other lcores are not touched).
 */
__rte_experimental
int rte_pcpu_cache_flush(void);

/** Largest object size served by the lcore caches, bytes per lcore copy;
 * larger requests (and alignments above their class's) go to the chunk
 * allocator under its lock. */
#define RTE_PCPU_CACHE_MAX_SIZE 512u

/** Number of cache size classes: 8, 16, 24, 32, 48, 64, 96, 128, 192,
 * 256, 384 and 512 bytes. */
#define RTE_PCPU_CACHE_NB_CLASSES 12u

/**
 * State and counters of one lcore's cache of one size class. Counts are of
 * objects; sizes are bytes per lcore copy.
 */
struct rte_pcpu_cache_stats {
	uint32_t size;      /**< Class size, bytes. */
	uint32_t len;       /**< Free objects held now: at most high, except
			      *  during a mass free (see high) and after
			      *  one, until the next free into the class
			      *  trims it to the midpoint (allocations in
			      *  between take from the surplus); never above
			      *  the largest high, min(512, 64 KiB / size). */
	uint32_t low;       /**< Low watermark: an allocation finding len at
			      *  or below it refills (0: refill on empty). */
	uint32_t high;      /**< High watermark (capacity): a free taking len
			      *  above it flushes the oldest objects down to
			      *  the midpoint (all of them if nothing was
			      *  allocated from the class since its last
			      *  overflow: a mass free, which then gathers
			      *  up to 16 KiB of objects, at least high and
			      *  at most min(512, 64 KiB / size), before each
			      *  flush, until the next allocation from the
			      *  class). 0: class not in use. */
	uint32_t batch;     /**< Midpoint (low + high) / 2: refills bring len
			      *  up to it, flushes down to it. */
	uint64_t nr_alloc;  /**< Objects handed out by this cache. */
	uint64_t nr_free;   /**< Objects freed into this cache. */
	uint64_t nr_refill; /**< Refills (underflows). */
	uint64_t nr_flush;  /**< Flushes above high (overflows). */
	uint64_t nr_grow;   /**< Times high grew. */
	uint64_t nr_decay;  /**< Times an idle class shrank or was released. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read the cache state of lcore @p lcore_id for size class @p class_idx.
 *
 * @param lcore_id
 *   Lcore id, below RTE_MAX_LCORE.
 * @param class_idx
 *   Size class, below RTE_PCPU_CACHE_NB_CLASSES (0 is the smallest).
 * @param stats
 *   Filled on success; all counters 0 (size and low filled) if the lcore
 *   has no cache or the allocator is not set up.
 * @return
 *   0, or -1 with rte_errno = EINVAL (@p stats NULL, @p lcore_id or
 *   @p class_idx out of range). In a secondary process the primary
 *   answers (rte_errno ENOENT if it has no allocator, ETIMEDOUT if it
 *   does not answer in 5 s).
 *
 * Thread-safety: MT-safe, lock-free; while the lcore runs, the fields are
 * read one by one and may be momentarily inconsistent with each other.
 */
__rte_experimental
int rte_pcpu_cache_stats_get(unsigned int lcore_id, unsigned int class_idx,
		struct rte_pcpu_cache_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read the statistics.
 *
 * @param stats
 *   Filled on success.
 * In a secondary process the primary process reads them, over EAL's
 * multi-process channel (rte_mp), under its locks: the figures are the
 * primary's and agree with each other as they do there.
 *
 * @return
 *   0, or -1 with rte_errno = EINVAL (@p stats NULL).
 *   Before set-up, all counters are 0. A secondary process: ENOENT if
 *   the primary has no allocator (logged at DEBUG only, as in
 *   rte_pcpu_init()), ETIMEDOUT if it does not answer in 5 s, or another
 *   error of attaching (as rte_pcpu_init() there: ENOMEM, ENOTCONN,
 *   EADDRINUSE) or of the primary's answer (ENOMEM); one log line each.
 *
 * Thread-safety: MT-safe; takes the allocator lock.
 */
__rte_experimental
int rte_pcpu_stats_get(struct rte_pcpu_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Print the statistics and, per chunk, free bytes, contig hint,
 * fragmentation (sum and largest free run before the last object), first
 * free bit and populated pages.
 *
 * In a secondary process the primary writes it (see rte_pcpu_stats_get()).
 *
 * @param f
 *   Output stream; NULL means stdout.
 * @return
 *   0, or -1 with rte_errno = EALREADY if not set up (a secondary
 *   process: also ENOENT, ETIMEDOUT as rte_pcpu_stats_get()).
 *
 * Thread-safety: MT-safe; takes the allocator lock.
 */
__rte_experimental
int rte_pcpu_dump(FILE *f);

/** One chunk of the allocator, as rte_pcpu_chunk_walk() reports it; sizes
 * in bytes per lcore copy (the same in every unit). */
struct rte_pcpu_chunk_stats {
	uint32_t index;           /**< Chunk number: its offset in a unit is
				    *  index * chunk_size. */
	int32_t slot;             /**< List it is on: 0.. active slots by
				    *  largest free run, or -1 sidelined,
				    *  -2 free, -3 being depopulated. */
	uint32_t nr_alloc;        /**< Objects it holds. */
	uint32_t free_bytes;      /**< Free bytes. */
	uint32_t contig_bytes;    /**< Largest free run. */
	uint32_t sum_frag;        /**< Free bytes before its last object. */
	uint32_t max_frag;        /**< Largest free run before its last
				    *  object. */
	uint32_t first_free;      /**< Offset of its first free byte. */
	uint32_t min_alloc;       /**< Smallest object, bytes (0: none). */
	uint32_t max_alloc;       /**< Largest object, bytes. */
	uint32_t populated_pages; /**< Pages populated (on every lcore). */
	uint32_t empty_pages;     /**< Populated pages holding no object. */
	uint32_t nr_pages;        /**< Pages of the chunk. */
	uint32_t reserved;        /**< 0. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Call @p fn for every chunk, in index order, with exact figures (the
 * chunks' hints are refreshed first). The chunks are read under the
 * allocator's locks, then @p fn is called without them. In a secondary
 * process the primary reads them (see rte_pcpu_stats_get()).
 *
 * @param fn
 *   Called once per chunk with its statistics and @p arg.
 * @param arg
 *   Passed to @p fn.
 * @return
 *   Number of chunks, or -1 with rte_errno = EINVAL (@p fn NULL),
 *   EALREADY (not set up), ENOMEM; a secondary process: also ENOENT,
 *   ETIMEDOUT.
 *
 * Thread-safety: MT-safe; takes the allocator lock.
 */
__rte_experimental
int rte_pcpu_chunk_walk(void (*fn)(const struct rte_pcpu_chunk_stats *cs,
		void *arg), void *arg);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * NUMA node that lcore @p lcore_id's pages are bound to, as the process
 * that owns the allocator sees it (in a secondary process, the primary's
 * lcore layout, which may differ from the secondary's own).
 *
 * @param lcore_id
 *   Lcore id.
 * @return
 *   The node (0 or more); -1 when the lcore has no memory, its node is
 *   unknown (no NUMA binding) or the allocator is not set up.
 *
 * Thread-safety: MT-safe, lock-free.
 */
__rte_experimental
int rte_pcpu_lcore_socket_id(unsigned int lcore_id);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Check every invariant: bitmaps against block and chunk hints, free
 * bytes, empty-page and populated counters, slot placement, object
 * counters against the maps.
 *
 * In a secondary process the primary runs it (the log line is in the
 * primary's log; the secondary's says where to look).
 *
 * @return
 *   0 when all hold (also before set-up); -1 with rte_errno = EFAULT and
 *   one log line naming the first invariant that does not hold. A
 *   secondary process: also ENOENT, ETIMEDOUT as rte_pcpu_stats_get().
 *
 * Thread-safety: MT-safe; takes the allocator lock (slow). With cache
 * buckets on, the check of the lcore caches (their counts, and the tags of
 * the objects they hold) reads them without stopping their owners: it is
 * exact only while no lcore allocates or frees through its cache, e.g.
 * after rte_eal_mp_wait_lcore(). Run while caches are in use it can fail
 * on a count or tag that was changing; the chunk part is exact always.
 */
__rte_experimental
int rte_pcpu_audit(void);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Whether lcore @p lcore_id has memory (has copies of every object).
 *
 * @param lcore_id
 *   Lcore id; ids at or above RTE_MAX_LCORE have no memory.
 * @return 1 or 0.
 *
 * Thread-safety: MT-safe, lock-free (in a secondary process not yet
 * attached, the first call attaches it).
 */
static inline int
rte_pcpu_lcore_has_memory(unsigned int lcore_id)
{
	/* only a "no" may come from a secondary not attached yet */
	if (likely(__rte_pcpu_lcore_has_memory(lcore_id)))
		return 1;
	__rte_pcpu_attach_check();
	return __rte_pcpu_lcore_has_memory(lcore_id);
}

/**
 * Lcore @p lcore_id's copy of the object behind @p handle, with the type
 * of @p handle. @p lcore_id must be below RTE_MAX_LCORE and have memory
 * (checked only with RTE_ENABLE_ASSERT). One multiply and one add: it
 * does not attach a secondary process by itself (what tells it which
 * lcores have memory does, e.g. RTE_PCPU_FOREACH()).
 */
#define RTE_PCPU_LCORE(lcore_id, handle) \
	((__typeof__(handle))__rte_pcpu_lcore_ptr(lcore_id, handle))

/**
 * The calling lcore's copy of the object behind @p handle, typed as
 * @p handle. For EAL lcores, service lcores and registered threads only
 * (an unregistered thread asserts with RTE_ENABLE_ASSERT).
 */
#define RTE_PCPU(handle) ((__typeof__(handle))__rte_pcpu_self_ptr(handle))

/**
 * Iterate over the lcores that have memory: @p lcore_id (unsigned int)
 * takes each such lcore id, and @p value (same type as @p handle) points to
 * that lcore's copy.
 */
#define RTE_PCPU_FOREACH(lcore_id, value, handle)			\
	for ((lcore_id) = __rte_pcpu_lcore_first();			\
	     (lcore_id) < RTE_MAX_LCORE &&				\
		(((value) = RTE_PCPU_LCORE(lcore_id, handle)), 1);	\
	     (lcore_id) = __rte_pcpu_lcore_next((lcore_id) + 1))

/** Declare a percpu handle @p name for objects of type @p type. */
#define RTE_PCPU_HANDLE(type, name) type *name

/**
 * Allocate one object of the pointee type of @p handle and store the handle
 * in it; NULL on error (see rte_pcpu_alloc()).
 */
#define RTE_PCPU_ALLOC(handle) \
	((handle) = (__typeof__(handle))rte_pcpu_alloc(sizeof(*(handle)), \
		alignof(__typeof__(*(handle)))))

/** Allocate @p size bytes per lcore, natural alignment, into @p handle. */
#define RTE_PCPU_ALLOC_SIZE(handle, size) \
	((handle) = (__typeof__(handle))rte_pcpu_alloc(size, 0))

/** Allocate @p size bytes per lcore aligned to @p align into @p handle. */
#define RTE_PCPU_ALLOC_SIZE_ALIGN(handle, size, align) \
	((handle) = (__typeof__(handle))rte_pcpu_alloc(size, align))

/**
 * Sum @p n consecutive uint64_t counters over the copies of every lcore
 * with memory, reading each with a relaxed atomic load.
 *
 * Consistency: each counter's sum is exact up to increments in flight
 * (every copy is read once, atomically); two counters of one block (say
 * packets and bytes) may be momentarily inconsistent with each other, as
 * VPP's per-thread counters are. Writers must be the owning lcores only.
 * In a secondary process, the same over the primary's copies.
 *
 * @param handle
 *   Handle of an object holding at least @p n uint64_t.
 * @param n
 *   Number of counters.
 * @param sum
 *   Array of @p n results (overwritten).
 *
 * Thread-safety: MT-safe, lock-free; any thread.
 */
static inline void
rte_pcpu_sum_u64(const void *handle, unsigned int n, uint64_t *sum)
{
	unsigned int lcore_id, i;

	for (i = 0; i < n; i++)
		sum[i] = 0;
	for (lcore_id = __rte_pcpu_lcore_first(); lcore_id < RTE_MAX_LCORE;
	     lcore_id = __rte_pcpu_lcore_next(lcore_id + 1)) {
		const uint64_t *c = (const uint64_t *)
			__rte_pcpu_lcore_ptr(lcore_id, handle);

		for (i = 0; i < n; i++)
			sum[i] += __atomic_load_n(&c[i], __ATOMIC_RELAXED);
	}
}

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_H_ */
