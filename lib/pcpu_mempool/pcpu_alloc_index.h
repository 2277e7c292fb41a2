/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_ALLOC_INDEX_H_
#define _PCPU_ALLOC_INDEX_H_

/**
 * @file
 * @internal The percpu allocator's one private struct, shared by its
 * files: pcpu_alloc.c (slots, allocation, free), pcpu_alloc_populate.c (chunks,
 * population, lcore arrival), pcpu_alloc_span.c (objects larger than a
 * chunk holds), pcpu_alloc_balance.c (giving memory back) and
 * pcpu_alloc_audit.c (its statistics, dump and audit).
 *
 * Locking, as Linux mm/percpu.c:
 *
 * - pcpu_alloc.mutex serialises everything that populates or depopulates
 *   memory, creates or destroys chunks, or adds an lcore: the allocation
 *   slow path, the balance work, lcore arrival, init and cleanup. It is
 *   never taken with the index lock held.
 * - the index lock (pcpu_alloc_index_lock(), a spinlock) guards the index
 *   state: the chunks' maps and hints, the slot lists, the known-zero and
 *   pool maps and every counter. System calls never run under it:
 *   population drops it and keeps the mutex (an allocation that meets
 *   unpopulated pages meanwhile backs off to the mutex), frees take only
 *   it and do balance work only when they can take the mutex without
 *   waiting.
 * - Lock order of the whole library: pool registry, pool, this mutex,
 *   the index lock. Callbacks of other layers (lcore listeners) are called
 *   with neither held.
 *
 * Invariants (checked by pcpu_alloc_audit()):
 *
 * - a chunk index belongs to at most one of a chunk (@c chunks) and a
 *   span (@c spans); a span's pages [0, nr_pages) are populated for every
 *   lcore in @c lcores, the rest of its chunks is not;
 * - every chunk is on exactly one list: an active slot by its largest
 *   free run (pcpu_chunk_slot()), the free list (fully free), the
 *   sidelined list (depopulated, tried after the active slots) or the
 *   to-depopulate list (isolated while the balance works on it);
 * - only the chunks listed in @c pending (at most PCPU_PENDING_CHUNKS)
 *   have frees pending in their bitmaps; they are settled before anything
 *   reads hints or page counts;
 * - populated_pages is the sum over the chunks and the spans,
 *   empty_pop_pages over the chunks; nr_alloc - nr_dealloc is the sum of
 *   the chunks' live objects plus the spans;
 * - an lcore in @c lcores has a populated copy of every populated page
 *   of every chunk; rte_pcpu_shared.lcore_mask is a subset of it (an
 *   arriving lcore is added there only after the lcore listeners ran);
 * - while @c unit0_borrowed, lcore 0 is in @c lcores without being an
 *   lcore: unit 0, where the handles point, has memory for rte_mempool's
 *   object headers (pcpu_alloc_handle_unit_ensure()); lcore 0 arriving
 *   clears it and runs the listeners.
 */

#include <pthread.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_pause.h>

#include "rte_pcpu.h"
#include "pcpu_alloc.h"
#include "pcpu_arena.h"
#include "pcpu_chunk.h"
#include "pcpu_owner.h"

/* Active slots by contig hint, then the special lists, as Linux. */
#define PCPU_NR_ACTIVE_SLOTS 32
#define PCPU_LIST_SIDELINED PCPU_NR_ACTIVE_SLOTS
#define PCPU_LIST_FREE (PCPU_NR_ACTIVE_SLOTS + 1)
#define PCPU_LIST_TO_DEPOP (PCPU_NR_ACTIVE_SLOTS + 2)
#define PCPU_NR_LISTS (PCPU_NR_ACTIVE_SLOTS + 3)
/* A chunk in an active slot below this that fails a fit goes to slot 0
 * until a free changes its contig hint (as Linux). */
#define PCPU_SLOT_FAIL_THRESHOLD 3
/* Chunks that may hold pending frees at once (pcpu_alloc_note_pending()). */
#define PCPU_PENDING_CHUNKS 4

/**
 * The allocator's record of one chunk: its bitmap state plus where it
 * sits in the allocator.
 */
struct pcpu_alloc_chunk {
	struct pcpu_chunk bm;      /**< Bitmap, hints, populated pages. */
	TAILQ_ENTRY(pcpu_alloc_chunk) next; /**< Link in its list. */
	int list;                  /**< Slot or list it is on; -1: none. */
	uint32_t index;            /**< Chunk number inside a unit. */
	int isolated;              /**< On the to-depopulate list. */
	int on_pending;            /**< Listed in pcpu_alloc.pending[]. */
	/**
	 * Known-zero map: a bit per granule set once an object was
	 * allocated over it since its page was populated. A new object none
	 * of whose granules is set reads as zero on every lcore (fresh pages
	 * are zero) and needs no memset; in a VM the first write to a page is
	 * by far its most expensive access.
	 */
	uint64_t *used;
	/** A bit per granule, set at the start of an object a pool owns
	 * (NULL while the chunk holds none): rte_pcpu_free() refuses it. */
	uint64_t *pool_map;
	/**
	 * Owner vector (pcpu_alloc_owner.c): the owner id (pcpu_owner.h) of
	 * every object the allocator handed to a user itself
	 * (pcpu_alloc_one()) for an owner other than the root, at index
	 * start bit / 2 (objects start on 8-byte boundaries): 2 bytes per
	 * 8-byte slot of the chunk, mapped with the chunk and backed only
	 * where such objects lie. 0 for free space, for the root's objects
	 * (counted in pcpu_alloc.root_bytes instead: most objects are the
	 * root's, and a vector entry costs a cache miss on their alloc and
	 * free) and for the objects of the size-class caches and of pools,
	 * which record their owners themselves (in their tags, and per
	 * pool).
	 */
	uint16_t *owners;
	/** Entries of the owner vector that are not 0: while none is, a
	 * free does not read the vector. */
	uint32_t nr_owner_ids;
};

TAILQ_HEAD(pcpu_chunk_list, pcpu_alloc_chunk);

/* An allocation of whole chunks (pcpu_alloc_span.c). */
struct pcpu_alloc_span;
TAILQ_HEAD(pcpu_span_list, pcpu_alloc_span);

/** The allocator. */
struct pcpu_alloc {
	pthread_mutex_t mutex;    /**< Population and structure (above). */
	uint32_t index_lock;      /**< The index lock: pcpu_alloc_index_lock(). */
	int initialised;
	struct rte_pcpu_conf conf; /**< Validated, defaults filled in. */
	struct pcpu_arena arena;
	uint64_t page_size;       /**< Bookkeeping page: 2 MiB or 4 KiB. */
	int huge;                 /**< Populate with hugepages. */
	uint32_t reserve;         /**< Empty populated pages kept. */
	uint32_t chunk_shift;     /**< log2(chunk_size). */
	uint32_t nr_chunk_max;    /**< unit_stride / chunk_size. */
	struct pcpu_alloc_chunk **chunks; /**< By index; NULL: none. */
	/** The span covering each chunk index; NULL: none. */
	struct pcpu_alloc_span **spans;
	struct pcpu_span_list span_list; /**< Live spans, by address. */
	uint32_t nr_spans;
	struct pcpu_chunk_list lists[PCPU_NR_LISTS];
	uint64_t active_mask;     /**< Bit s: active slot s has chunks. */
	/** The chunks whose bitmaps may hold pending frees (a cache flush
	 * or a run of frees often alternates between a few chunks). */
	struct pcpu_alloc_chunk *pending[PCPU_PENDING_CHUNKS];
	uint32_t nr_pending;
	void *lcore_cb;           /**< EAL lcore callback handle. */

	/** Lcores with memory, including arriving ones (mutex). */
	uint64_t lcores[RTE_PCPU_MASK_WORDS];
	uint32_t nr_lcores;       /**< Lcores in @c lcores. */
	int unit0_borrowed;       /**< Lcore 0 in @c lcores, not an lcore. */
	int lcore_socket[RTE_MAX_LCORE]; /**< NUMA node, -1: unknown. */
	uint32_t lcores_on_socket[RTE_MAX_NUMA_NODES];

	uint64_t populated_pages; /**< Per lcore. */
	uint64_t empty_pop_pages;
	uint64_t max_populated_bytes;
	int need_balance;         /**< Frees left work for the balance. */

	uint64_t nr_alloc;        /**< Objects taken from the chunks. */
	uint64_t nr_dealloc;      /**< Objects given back to them. */
	uint64_t nr_max_alloc;
	uint64_t nr_alloc_fail;
	/** The root's objects from pcpu_alloc_one() in the chunks (bytes
	 * per copy, count): the owner vectors leave them out. */
	uint64_t root_bytes;
	uint64_t root_objs;
	uint32_t nr_chunks;
	uint32_t nr_max_chunks;
	uint64_t min_alloc_size;  /**< Of user sizes (UINT64_MAX: none). */
	uint64_t max_alloc_size;
	uint32_t nr_huge_fallback;

	/** A secondary process read the shared area when memory was to be
	 * given back: the balance is due once none does (mutex). */
	int depop_deferred;
	uint64_t nr_depop_deferred;
	int retry_armed;          /**< The retry alarm is set (mutex). */
};

/** The one instance (pcpu_alloc.c). */
extern struct pcpu_alloc pcpu_alloc;

/*
 * The index lock, test-and-test-and-set. Not rte_spinlock_t: DPDK 22.11
 * unlocks that on x86 with an xchg, a full barrier that costs as much as
 * the lock itself; a release store is enough on x86 and everywhere else,
 * as Linux's spin_unlock().
 */
static inline void
pcpu_alloc_index_lock(void)
{
	while (__atomic_exchange_n(&pcpu_alloc.index_lock, 1, __ATOMIC_ACQUIRE)
	       != 0)
		while (__atomic_load_n(&pcpu_alloc.index_lock,
				__ATOMIC_RELAXED) != 0)
			rte_pause();
}

static inline void
pcpu_alloc_index_unlock(void)
{
	__atomic_store_n(&pcpu_alloc.index_lock, 0, __ATOMIC_RELEASE);
}

/** First lcore id >= @p lcore_id in the allocator's lcore set, or
 * RTE_MAX_LCORE. Lock-free: a bit is only ever added, under the mutex, and
 * an lcore's copies exist before its bit. */
static inline unsigned int
pcpu_alloc_lcore_next(unsigned int lcore_id)
{
	while (lcore_id < RTE_MAX_LCORE) {
		uint64_t w = __atomic_load_n(&pcpu_alloc.lcores[lcore_id / 64],
			__ATOMIC_RELAXED) >> (lcore_id % 64);

		if (w != 0)
			return lcore_id + (unsigned int)__builtin_ctzll(w);
		lcore_id = (lcore_id | 63) + 1;
	}
	return RTE_MAX_LCORE;
}

/** Bytes of one chunk in one unit. */
static inline uint64_t
pcpu_alloc_chunk_bytes(void)
{
	return pcpu_alloc.conf.chunk_size;
}

/** Whether a chunk holds no object. */
static inline int
pcpu_alloc_chunk_unused(const struct pcpu_alloc_chunk *c)
{
	return c->bm.free_bytes == pcpu_alloc_chunk_bytes();
}

/** Populated bytes, all lcores, of @p pages pages per lcore. */
static inline uint64_t
pcpu_alloc_pages_bytes(uint64_t pages)
{
	return pages * pcpu_alloc.page_size * pcpu_alloc.nr_lcores;
}

/** Objects allocated now (index lock held). */
static inline uint64_t
pcpu_alloc_live(void)
{
	return pcpu_alloc.nr_alloc - pcpu_alloc.nr_dealloc;
}

/** Byte offset of page @p page of chunk @p c inside a unit. */
static inline uint64_t
pcpu_alloc_page_off(const struct pcpu_alloc_chunk *c, uint32_t page)
{
	return ((uint64_t)c->index << pcpu_alloc.chunk_shift) +
		(uint64_t)page * pcpu_alloc.page_size;
}

/** Bytes of a per-chunk map of one bit per granule. */
static inline size_t
pcpu_alloc_map_len(const struct pcpu_alloc_chunk *c)
{
	return sizeof(uint64_t) * ((c->bm.map_bits + 63) / 64);
}

/*
 * pcpu_alloc_index.c: lists, settling, the effect of frees (index lock
 * held).
 */

/** Put @p c on list @p list, at the head if @p head. */
void pcpu_alloc_list_move(struct pcpu_alloc_chunk *c, int list, int head);

/** Put the chunk on the list its free space asks for. */
void pcpu_alloc_relocate(struct pcpu_alloc_chunk *c);

/** Carry a chunk's change of empty populated pages since @p before into
 * the global count. */
void pcpu_alloc_empty_track(const struct pcpu_alloc_chunk *c, uint32_t before);

/** Whether a chunk should be isolated for depopulation now (Linux 5.14's
 * rule: a quarter of its pages empty, beyond the reserve). */
int pcpu_alloc_should_isolate(const struct pcpu_alloc_chunk *c);

/** What a batch of frees or a settle did to chunk @p c: page counts, its
 * list, and the balance work it leaves. */
void pcpu_alloc_apply_effect(struct pcpu_alloc_chunk *c,
		const struct pcpu_chunk_free_effect *eff);

/** Settle every pending chunk and apply what its frees did. Call before
 * reading hints or page counts. */
void pcpu_alloc_settle(void);

/**
 * For the audits: take the population mutex and the index lock and settle
 * every pending free, so that the chunks read as their maps say.
 * @return 1 with both held (release them with pcpu_alloc_audit_unlock()),
 *   0 with nothing held when the allocator is not set up.
 */
int pcpu_alloc_audit_lock(void);

/** Release what pcpu_alloc_audit_lock() took. */
void pcpu_alloc_audit_unlock(void);

/** Settle chunk @p c if it is pending, and apply what its frees did. */
void pcpu_alloc_settle_chunk(struct pcpu_alloc_chunk *c);

/** Settle the pending block of chunk @p c and apply what its frees did;
 * the chunk stays listed as pending (a free into another of its blocks
 * follows). */
void pcpu_alloc_settle_block(struct pcpu_alloc_chunk *c);

/** Chunk @p c may now hold pending frees: list it (settling the oldest
 * listed chunk if the list is full). */
static inline void
pcpu_alloc_note_pending(struct pcpu_alloc_chunk *c)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	if (c->on_pending)
		return;
	if (a->nr_pending == PCPU_PENDING_CHUNKS)
		pcpu_alloc_settle_chunk(a->pending[0]);
	a->pending[a->nr_pending++] = c;
	c->on_pending = 1;
}

/** Name of list @p list, for messages. */
const char *pcpu_alloc_list_name(int list);

/** The chunk of @p handle and its bit in *bit, or NULL if @p handle is
 * not a granule-aligned address of lcore 0's unit inside a chunk. Index
 * lock held. */
static inline struct pcpu_alloc_chunk *
pcpu_alloc_chunk_of(const void *handle, uint32_t *bit)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t off = (uintptr_t)handle - a->arena.base;

	/* below the base, off wraps: one compare covers both ends */
	if (off >= a->arena.unit_stride || (off & (PCPU_MIN_ALLOC_SIZE - 1)))
		return NULL;
	*bit = (uint32_t)((off & (pcpu_alloc_chunk_bytes() - 1)) >>
		PCPU_MIN_ALLOC_SHIFT);
	return a->chunks[off >> a->chunk_shift];
}

/*
 * pcpu_alloc_owner.c: the owner vectors.
 */

/** Map chunk @p c's owner vector (all zero). Mutex held, index lock not.
 * 0, or -1 (logged). */
int pcpu_alloc_owner_map_new(struct pcpu_alloc_chunk *c);

/** Unmap chunk @p c's owner vector. */
void pcpu_alloc_owner_map_free(struct pcpu_alloc_chunk *c);

/** Record owner @p owner (not PCPU_OWNER_NONE) of the object of @p bits
 * at bit @p bit of chunk @p c, handed out by pcpu_alloc_one(): in the
 * vector, or in the root's count. Index lock held. */
static inline void
pcpu_alloc_owner_set(struct pcpu_alloc_chunk *c, uint32_t bit, uint32_t bits,
		uint32_t owner)
{
	if (owner == PCPU_OWNER_ROOT) {
		pcpu_alloc.root_bytes += (uint64_t)bits << PCPU_MIN_ALLOC_SHIFT;
		pcpu_alloc.root_objs++;
		return;
	}
	c->owners[bit >> 1] = (uint16_t)owner;
	c->nr_owner_ids++;
}

/** The owner of the object of @p bits freed at bit @p bit of chunk @p c,
 * one pcpu_alloc_one() handed out (every live object of a chunk that is
 * neither a pool's nor tagged by the caches), and its record dropped;
 * PCPU_OWNER_NONE if neither the vector nor the root's count holds it.
 * Index lock held. */
static inline uint32_t
pcpu_alloc_owner_take(struct pcpu_alloc_chunk *c, uint32_t bit, uint32_t bits)
{
	uint32_t owner;

	if (c->nr_owner_ids != 0 && (owner = c->owners[bit >> 1]) != 0) {
		c->owners[bit >> 1] = 0;
		c->nr_owner_ids--;
		return owner;
	}
	/* none of the root's either: an object the allocator did not hand
	 * out itself (a pool's that could not be marked as the pool's) */
	if (unlikely(pcpu_alloc.root_objs == 0))
		return PCPU_OWNER_NONE;
	pcpu_alloc.root_bytes -= (uint64_t)bits << PCPU_MIN_ALLOC_SHIFT;
	pcpu_alloc.root_objs--;
	return PCPU_OWNER_ROOT;
}

/*
 * pcpu_alloc_populate.c: chunks and population (mutex held).
 */

/** Create a chunk in the first free index, mapped for every lcore with
 * memory; not on any list yet. Index lock not held. NULL (logged) on
 * error. */
struct pcpu_alloc_chunk *pcpu_alloc_chunk_create(void);

/** Give a chunk's range back on every lcore and free it; it is off the
 * lists and out of pcpu_alloc.chunks. Returns the pages (per lcore) it
 * had populated. Index lock not held. */
uint64_t pcpu_alloc_chunk_destroy(struct pcpu_alloc_chunk *c);

/** Populate pages [ps, pe) of @p c for every lcore with memory, or for
 * none. Index lock not held. 0 or -errno. */
int pcpu_alloc_populate(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe);

/** Give back pages [ps, pe) of @p c on every lcore. Index lock not held.
 * 0, or -ENOMEM (logged) if they could not be given back: they stay
 * populated on every lcore. */
int pcpu_alloc_depopulate(struct pcpu_alloc_chunk *c, uint32_t ps,
		uint32_t pe);

/** Register the EAL lcore callback (mutex not held: EAL calls it for the
 * existing lcores). 0 or -1 (logged). */
int pcpu_alloc_lcores_start(void);

/** Unregister the EAL lcore callback. */
void pcpu_alloc_lcores_stop(void);

/** Populate [off, off + len) of lcore @p lcore_id's unit (page-aligned),
 * mapped when populated (hugepages if the allocator uses them, with the
 * page policy's fall-back to 4 KiB pages), bound to the lcore's node.
 * Mutex held, index lock not. 0 or -errno (nothing kept). */
int pcpu_alloc_populate_range(unsigned int lcore_id, uint64_t off,
		uint64_t len);

/*
 * pcpu_alloc_span.c: objects above RTE_PCPU_CHUNK_OBJ_MAX_SIZE, whole
 * chunks at the same offset in every unit.
 */

/** Set up the span index (pcpu_alloc_init(), mutex held). 0 or -1. */
int pcpu_alloc_span_init(void);

/** Forget every span and the index (pcpu_alloc_cleanup(), mutex held;
 * the arena's release takes their memory). */
void pcpu_alloc_span_cleanup(void);

/** Allocate a span of @p size bytes per lcore, populated and zero, for
 * owner @p owner (charged by the caller). Takes the mutex. NULL with
 * rte_errno = ENOMEM (logged). */
void *pcpu_alloc_span_alloc(size_t size, uint32_t owner);

/** Free the span starting at @p handle and give its memory back (or keep
 * it until no secondary process reads the area). Takes the mutex. 0 with
 * its owner in *owner and its charge (bytes per copy) in *bytes, or -1 if
 * no span starts there (nothing logged). */
int pcpu_alloc_span_free(void *handle, uint32_t *owner, uint64_t *bytes);

/** Give back the memory of the spans freed while a secondary process
 * read the area (mutex held, index lock not, no reader now). Returns the
 * pages given back, per lcore. */
uint64_t pcpu_alloc_span_release_freed(void);

/** Bytes of the span starting at @p handle, 0 if none. Index lock held. */
uint64_t pcpu_alloc_span_bytes(const void *handle);

/** Whether [off, off + len) of a unit lies inside one live span; if so,
 * its offset in *start and its owner's id in *owner. Index lock held. */
int pcpu_alloc_span_holds(uint64_t off, uint64_t len, uint64_t *start,
		uint32_t *owner);

/** Populate lcore @p lcore_id's copy of every span (lcore arrival, mutex
 * held). 0, or -errno with nothing kept. */
int pcpu_alloc_span_lcore_add(unsigned int lcore_id);

/** Give back lcore @p lcore_id's copy of every span (undo of the above). */
void pcpu_alloc_span_lcore_remove(unsigned int lcore_id);

/** Check every span (both locks held): adds their live objects and
 * populated pages to @p s. 0, or -1 with the first broken invariant in
 * @p msg. */
int pcpu_alloc_span_audit(struct pcpu_alloc_counters *s, char *msg,
		size_t len);

/** Add every span's charge to its owner in @p s (both locks held). 0, or
 * -1 with a span whose owner is not a live owner in @p msg. */
int pcpu_alloc_span_owner_sums(struct pcpu_alloc_owner_sums *s, char *msg,
		size_t len);

/** One line per span (both locks held). */
void pcpu_alloc_span_dump(FILE *f);

/*
 * pcpu_alloc_balance.c (mutex held, index lock not).
 */

/** Give memory back: destroy fully free chunks beyond one spare (but
 * those whose pages the reserve of empty pages needs), depopulate isolated
 * chunks (with @p explicit, every chunk with empty
 * pages) down to the reserve of empty pages. Returns bytes given back.
 * While a secondary process reads the shared area nothing is given back:
 * the work is marked deferred and retried (pcpu_alloc_retry_deferred()). */
uint64_t pcpu_alloc_balance(int explicit);

/** Destroy every fully free chunk, the spare included: a span needs its
 * address space. */
void pcpu_alloc_drop_free_chunks(void);
/** Stop retrying deferred work (cleanup; mutex NOT held). */
void pcpu_alloc_balance_stop(void);

/** Memory was kept because a secondary process reads the area: mark the
 * balance deferred and make sure it is retried. Mutex held. */
void pcpu_alloc_defer(void);

#endif /* _PCPU_ALLOC_INDEX_H_ */
