/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_ALLOC_H_
#define _PCPU_ALLOC_H_

/**
 * @file
 * @internal The percpu allocator: chunks in the reserved area, placed in
 * slots by their largest free run, populated on demand, depopulated when
 * empty, and the lcores that have memory. Below it: the chunk bitmap
 * (pcpu_chunk.h) and the arena (pcpu_arena.h); above it: the size-class
 * caches (pcpu_cache.h), the pools and the public entry points, which
 * call it and which it never calls, except through the lcore listeners
 * they register.
 *
 * Arguments are validated by the callers: sizes 1 .. RTE_PCPU_MAX_SIZE
 * for pcpu_alloc_one() (above RTE_PCPU_CHUNK_OBJ_MAX_SIZE, a span of whole
 * chunks) and 1 .. RTE_PCPU_CHUNK_OBJ_MAX_SIZE for the bulk and pool
 * functions (chunk objects only), alignments powers of two from
 * RTE_PCPU_MIN_ALIGN to RTE_PCPU_MAX_ALIGN.
 * Every function is MT-safe unless it says otherwise.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>

#include "rte_pcpu.h"
#include "pcpu_owner.h"

/** Set up with @p conf (validated, defaults filled in): reserve the area,
 * privately or, with @p shared, backed by a file that secondary processes
 * map (pcpu_arena.h), and register the lcore callback that gives lcores
 * memory.
 * @return 0, or -1 with rte_errno (ENOMEM, EALREADY, EEXIST: base_addr
 *   taken) and one log line. */
int pcpu_alloc_init(const struct rte_pcpu_conf *conf, int shared);

struct pcpu_arena;

/** The area, for the process layer (its description and files for
 * secondary processes). Constant between init and cleanup. */
const struct pcpu_arena *pcpu_alloc_arena(void);

/** NUMA node lcore @p lcore_id's pages are bound to; -1: no memory or no
 * node. Lock-free. */
int pcpu_alloc_lcore_socket(unsigned int lcore_id);

/**
 * Giving memory back was put off because a secondary process read the
 * area: try again soon, from an EAL alarm (the process layer calls it
 * when one detaches; it takes no lock). Also retried by itself every
 * second while put off, by the next allocation that takes the slow path
 * and by rte_pcpu_reclaim().
 */
void pcpu_alloc_retry_deferred(void);

/** Release every chunk and the area. Not MT-safe. Returns the objects
 * that were still allocated. */
uint64_t pcpu_alloc_cleanup(void);

/**
 * Bytes per copy the allocator holds for an object of @p size bytes in a
 * chunk or a span: the size rounded up to the chunk bitmap's 4-byte
 * granule. What its owner is charged (pcpu_owner.h).
 */
static inline uint64_t
pcpu_alloc_obj_size(size_t size)
{
	return RTE_ALIGN_CEIL((uint64_t)size, UINT64_C(4));
}

/** Allocate one object of @p size bytes aligned to @p align, charged to
 * owner @p owner (a live owner's id, not PCPU_OWNER_NONE) and recorded as
 * its; every copy zeroed. NULL with rte_errno = ENOMEM on failure (logged
 * at DEBUG for the populated-bytes limit and the owner's limit, ERR
 * otherwise). @p size counts in the size statistics. No lock may be held
 * but pool locks. */
void *pcpu_alloc_one(size_t size, size_t align, uint32_t owner);

/**
 * Allocate up to @p n objects of @p size bytes aligned to @p align into
 * @p objs, in ascending address order as far as the chunks allow; every
 * copy zeroed. @p user: @p size is one a user asked for (a pool's) and
 * counts in the size statistics; 0 for a cache refill's class size.
 * @p run (bytes, a power of two, 0 for none): each group of the batch
 * starts @p run free bytes of its own at a multiple of @p run, where the
 * chunks have such a stretch (else anywhere, before a new chunk is made).
 * No owner is charged or recorded: the caller (a pool, the caches) does it.
 * @return How many were allocated (fewer on error, with rte_errno).
 */
unsigned int pcpu_alloc_bulk(size_t size, size_t align, void **objs,
		unsigned int n, int user, size_t run);

/**
 * Free one object, and uncharge its owner if the allocator recorded one
 * (pcpu_alloc_one()). NULL is not accepted (the caller's business).
 * @return 0, or -1 with rte_errno = EINVAL and one log line: not a live
 *   allocation, or an object a pool owns (pcpu_alloc_pool_mark()).
 */
int pcpu_alloc_free(void *handle);

/**
 * Called by pcpu_alloc_free_bulk() with the index lock held, after the
 * objects were freed and before anyone can allocate their space again:
 * the caller's last look at them (the size-class caches drop their tags).
 */
typedef void (pcpu_alloc_freed_cb_t)(void *arg, void * const *handles,
		unsigned int n);

/**
 * Free @p n objects under one acquisition of the index lock, grouped by
 * chunk (one bitmap batch and at most one slot move per group). Handles
 * that are not live allocations, or that a pool owns, are refused, each
 * with one log line, and the others freed. For objects the allocator
 * recorded no owner of (the caches' objects, and pools' objects once
 * unmarked): their holders uncharge them.
 *
 * @param freed_cb
 *   NULL, or called once with all @p n handles (freed or refused), under
 *   the lock.
 * @param arg
 *   Its argument.
 * @return The number of objects freed.
 */
unsigned int pcpu_alloc_free_bulk(void * const *handles, unsigned int n,
		pcpu_alloc_freed_cb_t *freed_cb, void *arg);

/**
 * Mark (@p own 1) or unmark (0) @p n live allocations as a pool's, so that
 * pcpu_alloc_free() refuses them while the pool holds them. Unmark before
 * freeing them.
 * @return 0; -EINVAL if a handle is not a live allocation, -ENOMEM if a
 *   chunk's map could not be allocated (those handles stay unmarked).
 */
int pcpu_alloc_pool_mark(void * const *handles, unsigned int n, int own);

/** Bytes of the live object starting at @p handle, 0 if none (for
 * audits). */
uint32_t pcpu_alloc_obj_bytes(const void *handle);

/** rte_pcpu_reclaim(): give every empty page back now (beyond the
 * reserve). Returns bytes given back, all lcores. */
uint64_t pcpu_alloc_reclaim(void);

/** Copy into @p mask the lcores that have memory, including one that is
 * arriving (whose listeners may not have run yet), but not unit 0 lent
 * to the handles (pcpu_alloc_handle_unit_ensure()). */
void pcpu_alloc_lcores(uint64_t mask[RTE_PCPU_MASK_WORDS]);

/** Zero @p size bytes of every copy of @p handle, on every lcore with
 * memory, including one that is arriving. */
void pcpu_alloc_zero(void *handle, size_t size);

/**
 * The live allocation that holds [@p p, @p p + @p size) on populated
 * pages, looked up under the index lock (rte_pcpu_zero() checks its range
 * with it before pcpu_alloc_zero()).
 * @param handle
 *   Set to the allocation's handle (its first byte).
 * @param owner
 *   Set to the owner the allocator recorded for it: the one
 *   pcpu_alloc_one() charged, PCPU_OWNER_NONE for the root's objects
 *   (counted, not recorded) and for the objects of the size-class caches
 *   and of pools (they record theirs themselves).
 * @return 0, or -EINVAL if the range is not inside one live allocation.
 */
int pcpu_alloc_range_find(const void *p, size_t size, uintptr_t *handle,
		uint32_t *owner);

/**
 * Give unit 0 memory even while lcore 0 is not an lcore (idempotent).
 * A handle is the address of unit 0's copy, and DPDK's rte_mempool writes
 * its object header just before each object, at the handle: a pool with
 * "pcpu" ops needs unit 0 populated. Lcore 0's copies then exist (zeroed
 * as every lcore's) but are not visible to readers (RTE_PCPU_FOREACH(),
 * pcpu_alloc_lcores()) until an lcore 0 arrives and the listeners run.
 * @return 0, -EINVAL before set-up, -ENOMEM (populated-bytes limit or no
 *   memory; logged).
 */
int pcpu_alloc_handle_unit_ensure(void);

/**
 * The allocator's counters, read together under its lock: the
 * allocator's part of struct rte_pcpu_stats (objects are counted as they
 * leave and enter the chunks, so objects in lcore caches count as
 * allocated).
 */
struct pcpu_alloc_counters {
	uint64_t nr_alloc;
	uint64_t nr_dealloc;
	uint64_t nr_max_alloc;
	uint64_t nr_alloc_fail;
	uint32_t nr_chunks;
	uint32_t nr_max_chunks;
	uint64_t min_alloc_size;  /**< UINT64_MAX: none. */
	uint64_t max_alloc_size;
	uint64_t populated_pages;
	uint64_t empty_pop_pages;
	uint64_t max_populated_bytes;
	uint64_t populated_bytes_socket[RTE_MAX_NUMA_NODES];
	uint64_t page_size;
	uint32_t nr_lcores;       /**< Units with memory. */
	uint32_t nr_huge_fallback;
	uint32_t nr_spans;        /**< Live allocations of whole chunks. */
	uint64_t live_objs;       /**< Sum of the chunks' live objects
				    *  (audit only). */
	uintptr_t base;           /**< Address of unit 0. */
	uint32_t shared;          /**< The area is shared. */
	uint32_t readers;         /**< A secondary process reads it now. */
	uint64_t nr_depop_deferred; /**< Balances put off for readers. */
	struct rte_pcpu_conf conf;
};

/** Read the counters (zeros before set-up, then conf is all zero too). */
void pcpu_alloc_counters(struct pcpu_alloc_counters *s);

/**
 * Check the allocator: every chunk's bitmap (pcpu_chunk_audit()), its
 * list, the real mappings of every lcore against the populated maps, the
 * pool maps, and the global counters against the chunks.
 * @param s
 *   Filled with the counters read in the same critical section.
 * @return 0, or -1 with the first broken invariant in @p msg.
 */
int pcpu_alloc_audit(struct pcpu_alloc_counters *s, char *msg, size_t len);

/** What the allocator holds, by owner (rte_pcpu_audit()). Bytes per
 * copy, as charged (pcpu_alloc_obj_size() of each object). */
struct pcpu_alloc_owner_sums {
	/** Of the objects it handed out itself, by owner id. */
	uint64_t bytes[PCPU_OWNER_NB];
	uint64_t objs[PCPU_OWNER_NB];
	uint64_t pool_bytes;   /**< Of the objects pools own. */
	uint64_t pool_objs;
	uint64_t cache_bytes;  /**< Of the rest: the size-class caches'. */
	uint64_t cache_objs;
	uint64_t live_bytes;   /**< Of every live object. */
};

/**
 * Sum the live objects by owner, from the owner vectors, the pool maps
 * and the spans, checking that every recorded owner is a live owner and
 * that no pool object has one.
 * @return 0, or -1 with the first broken invariant in @p msg.
 */
int pcpu_alloc_owner_audit(struct pcpu_alloc_owner_sums *s, char *msg,
		size_t len);

/** Print one line per chunk (exact figures: hints are refreshed). */
void pcpu_alloc_dump_chunks(FILE *f);

/**
 * Every chunk's statistics, in index order, into a malloc'd array
 * (exact figures: hints are refreshed).
 * @return The number of chunks (0: *@p out NULL), or -1 (ENOMEM).
 */
int pcpu_alloc_chunk_stats(struct rte_pcpu_chunk_stats **out);

/**
 * Callbacks of a layer above the allocator for lcores that gain memory
 * or unregister. EAL's lcore callbacks (rte_lcore_callback_register())
 * are called in no particular order across the library's layers; the
 * allocator registers the library's one EAL callback and calls these in a
 * fixed order instead.
 */
struct pcpu_lcore_listener {
	TAILQ_ENTRY(pcpu_lcore_listener) next; /**< Registry link. */
	const char *name;                      /**< For messages. */
	/**
	 * Lcore @p lcore_id has copies of every object, not yet visible to
	 * readers (its bit in rte_pcpu_shared.lcore_mask is set after every
	 * listener returned): set them up. Called in registration order,
	 * with no allocator lock held. NULL: nothing to do.
	 */
	void (*arrive)(unsigned int lcore_id);
	/** A registered thread with lcore id @p lcore_id unregisters (its
	 * copies stay); called in reverse order. NULL: nothing to do. */
	void (*leave)(unsigned int lcore_id);
};

/** Add @p l to the listeners (it must stay valid until removed). */
void pcpu_alloc_listener_register(struct pcpu_lcore_listener *l);

/** Remove @p l. */
void pcpu_alloc_listener_unregister(struct pcpu_lcore_listener *l);

#endif /* _PCPU_ALLOC_H_ */
