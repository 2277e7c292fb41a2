/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The percpu allocator: set-up, allocation and free.
 *
 * An allocation searches the chunks' bitmaps list by list (a chunk sits in
 * the slot of its largest free run, as Linux mm/percpu.c), takes the first
 * fit, and makes sure its pages are populated for every lcore with memory.
 * The common case needs the index lock only; a new chunk or population
 * takes the mutex (pcpu_alloc_index.h states the locking rules and the
 * invariants). A free clears the object's bits in its chunk's bitmap in a
 * batch per chunk (pcpu_alloc_index.c says what happens to the lists).
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "pcpu_alloc_index.h"
#include "pcpu_asan.h"
#include "pcpu_compat.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"

/* the arena lays the units out as the inline accessors assume */
static_assert(PCPU_ARENA_COLOUR_STEP == RTE_PCPU_UNIT_COLOUR,
	"unit colour of the arena and of rte_pcpu.h");

/* 4 KiB mode: pages populated at once when an allocation needs one */
#define PCPU_POPULATE_BATCH 16
/* objects a bulk allocation carves at a time (a refill of a size class
 * or of a pool's lcore cache asks for at most 256) */
#define PCPU_BULK_GROUP 256
/* handles a bulk free passes to a chunk at once */
#define PCPU_FREE_GROUP 64

/* ---------------------------------------------------------------------- */
/* Known-zero maps (struct pcpu_alloc_chunk.used). */

/* Set (@p set) or clear bits [start, start + len) of @p map. */
static void
alloc_bits_apply(uint64_t *map, uint32_t start, uint32_t len, int set)
{
	while (len != 0) {
		uint32_t w = start / 64, b = start % 64;
		uint32_t n = RTE_MIN(len, 64 - b);
		uint64_t m = (n == 64 ? UINT64_MAX :
			((UINT64_C(1) << n) - 1)) << b;

		if (set)
			map[w] |= m;
		else
			map[w] &= ~m;
		start += n;
		len -= n;
	}
}

static int
alloc_bits_any(const uint64_t *map, uint32_t start, uint32_t len)
{
	while (len != 0) {
		uint32_t w = start / 64, b = start % 64;
		uint32_t n = RTE_MIN(len, 64 - b);
		uint64_t m = (n == 64 ? UINT64_MAX :
			((UINT64_C(1) << n) - 1)) << b;

		if (map[w] & m)
			return 1;
		start += n;
		len -= n;
	}
	return 0;
}

/* Mark an object's granules used; returns whether it must be zeroed. */
static inline int
alloc_used_mark(struct pcpu_alloc_chunk *c, uint32_t off, uint32_t bits)
{
	uint32_t w = off / 64, b = off % 64;
	uint64_t m;
	int dirty;

	if (likely(b + bits <= 64)) {
		/* the common case: inside one word of the map */
		m = (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1) << b;
		dirty = (c->used[w] & m) != 0;
		c->used[w] |= m;
		return dirty;
	}
	dirty = alloc_bits_any(c->used, off, bits);

	alloc_bits_apply(c->used, off, bits, 1);
	return dirty;
}

/* Pages [ps, pe) were just populated: all their granules read as zero. */
static void
alloc_used_clear(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe)
{
	uint32_t per_page = (uint32_t)(pcpu_alloc.page_size >>
		PCPU_MIN_ALLOC_SHIFT);

	alloc_bits_apply(c->used, ps * per_page, (pe - ps) * per_page, 0);
}

/* ---------------------------------------------------------------------- */
/* Allocation. */

/*
 * Allocate @p n objects (at most) in a chunk's bitmap, their start bits in
 * @p offs, keeping the global empty-page count: one object as
 * pcpu_chunk_alloc() does, more in one batch (pcpu_chunk_alloc_batch()).
 * Returns how many.
 */
static unsigned int
alloc_in_chunk(struct pcpu_alloc_chunk *c, uint32_t bits, uint32_t align_bits,
		unsigned int n, int pop_only, uint32_t run_bits, uint32_t *offs)
{
	uint32_t before = c->bm.nr_empty_pop_pages;
	unsigned int got;
	int off;

	if (n == 1 && !pop_only && run_bits == 0) {
		off = pcpu_chunk_alloc(&c->bm, bits, align_bits, 0);
		offs[0] = (uint32_t)off;
		got = off >= 0;
	} else {
		got = pcpu_chunk_alloc_batch(&c->bm, bits, align_bits, n,
			pop_only, run_bits, offs);
	}
	pcpu_alloc_empty_track(c, before);
	return got;
}

/*
 * Search the existing chunks for space for up to @p n objects: fitting
 * active slots, then sidelined chunks, then the spare free chunk; with
 * @p pop_only, on populated pages only; with @p run_bits, a stretch of
 * their own (pcpu_chunk_alloc_batch()). Index lock held. Returns how many
 * were allocated (0: none fits), their start bits in @p offs and the
 * chunk in *cp.
 */
static unsigned int
alloc_find_space(size_t size, uint32_t bits, uint32_t align_bits,
		unsigned int n, int pop_only, uint32_t run_bits, uint32_t *offs,
		struct pcpu_alloc_chunk **cp)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c, *tmp;
	unsigned int got;
	int slot;

	pcpu_alloc_settle();
	/* only the non-empty active slots that can fit the size */
	for (slot = pcpu_size_to_slot(size); slot < PCPU_NR_ACTIVE_SLOTS;
	     slot++) {
		uint64_t more = a->active_mask >> slot;

		if (more == 0)
			break;
		slot += __builtin_ctzll(more);
		for (c = TAILQ_FIRST(&a->lists[slot]); c != NULL; c = tmp) {
			tmp = TAILQ_NEXT(c, next);
			got = alloc_in_chunk(c, bits, align_bits, n, pop_only,
				run_bits, offs);
			if (got != 0)
				goto found;
			/* the search may have refreshed a stale
			 * (conservative) chunk hint upwards */
			pcpu_alloc_relocate(c);
			/* as Linux: a nearly full chunk that failed stays
			 * out of the way until a free changes its hint (not
			 * when only its populated pages were full) */
			if (!pop_only && c->list < PCPU_SLOT_FAIL_THRESHOLD &&
			    c->list != 0)
				pcpu_alloc_list_move(c, 0, 0);
		}
	}
	TAILQ_FOREACH(c, &a->lists[PCPU_LIST_SIDELINED], next) {
		got = alloc_in_chunk(c, bits, align_bits, n, pop_only,
			run_bits, offs);
		if (got != 0) {
			/* reintegrate */
			pcpu_alloc_list_move(c, pcpu_chunk_slot(&c->bm), 1);
			goto found;
		}
	}
	TAILQ_FOREACH(c, &a->lists[PCPU_LIST_FREE], next) {
		got = alloc_in_chunk(c, bits, align_bits, n, pop_only,
			run_bits, offs);
		if (got != 0)
			goto found;
	}
	return 0;
found:
	pcpu_alloc_relocate(c);
	*cp = c;
	return got;
}

/* One object: its start bit and chunk in *cp, or -1. Index lock held. */
static int
alloc_find_area(size_t size, uint32_t bits, uint32_t align_bits,
		struct pcpu_alloc_chunk **cp)
{
	uint32_t off;

	return alloc_find_space(size, bits, align_bits, 1, 0, 0, &off,
		cp) != 0 ? (int)off : -1;
}

/* Undo a found area. Index lock held. */
static void
alloc_drop_area(struct pcpu_alloc_chunk *c, int off)
{
	uint32_t before;

	pcpu_alloc_settle();
	before = c->bm.nr_empty_pop_pages;
	pcpu_chunk_free(&c->bm, (uint32_t)off);
	pcpu_alloc_empty_track(c, before);
	pcpu_alloc_relocate(c);
}

/* Count @p k new objects of @p size in the statistics (@p user: a size a
 * user asked for, which the smallest and largest sizes track). Index lock
 * held. */
static inline void
alloc_count(struct pcpu_alloc *a, unsigned int k, size_t size, int user)
{
	a->nr_alloc += k;
	if (pcpu_alloc_live() > a->nr_max_alloc)
		a->nr_max_alloc = pcpu_alloc_live();
	if (user && size < a->min_alloc_size)
		a->min_alloc_size = size;
	if (user && size > a->max_alloc_size)
		a->max_alloc_size = size;
}

/*
 * Account a new object whose pages are populated; returns its handle and
 * in *dirty whether its copies must be zeroed. @p user: a size a user
 * asked for (not a cache refill's class size). @p owner: the owner to
 * record (pcpu_alloc_one()), or PCPU_OWNER_NONE. Index lock held.
 */
static void *
alloc_commit_area(struct pcpu_alloc_chunk *c, int off, size_t size,
		uint32_t bits, int user, uint32_t owner, int *dirty)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	if (owner != PCPU_OWNER_NONE)
		pcpu_alloc_owner_set(c, (uint32_t)off, bits, owner);
	alloc_count(a, 1, size, user);
	*dirty = alloc_used_mark(c, (uint32_t)off, bits);
	return (void *)(a->arena.base +
		((uintptr_t)c->index << a->chunk_shift) +
		((uintptr_t)off << PCPU_MIN_ALLOC_SHIFT));
}

/*
 * The common case, under the index lock only: space in an existing chunk
 * on populated pages. NULL when the slow path (the mutex: population, a
 * new chunk) is needed.
 */
static void *
alloc_area_fast(size_t size, uint32_t bits, uint32_t align_bits,
		uint32_t owner, int *dirty)
{
	struct pcpu_alloc_chunk *c;
	uint32_t rs, re;
	void *h = NULL;
	int off;

	pcpu_alloc_index_lock();
	off = alloc_find_area(size, bits, align_bits, &c);
	if (off >= 0) {
		if (pcpu_chunk_next_unpop(&c->bm,
				pcpu_chunk_bit_to_page(&c->bm, (uint32_t)off),
				pcpu_chunk_bit_to_page(&c->bm,
					(uint32_t)off + bits - 1) + 1,
				&rs, &re))
			alloc_drop_area(c, off);
		else
			h = alloc_commit_area(c, off, size, bits, 1, owner,
				dirty);
	}
	pcpu_alloc_index_unlock();
	return h;
}

/* Add a new chunk, already created, to the index. Index lock held. */
static void
alloc_add_chunk(struct pcpu_alloc_chunk *c)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	a->chunks[c->index] = c;
	pcpu_alloc_list_move(c, PCPU_LIST_FREE, 1);
	a->nr_chunks++;
	if (a->nr_chunks > a->nr_max_chunks)
		a->nr_max_chunks = a->nr_chunks;
}

/* Pages to populate for pages [ps, pe): the unpopulated ones, and in 4 KiB
 * mode a batch ahead (one system call for many pages) if the limit
 * allows. *pe may grow. Index lock held. */
static uint32_t
alloc_pages_needed(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t *pe)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t rs, re, needed = 0, more = 0, ahead;

	for (rs = ps; pcpu_chunk_next_unpop(&c->bm, rs, *pe, &rs, &re); rs = re)
		needed += re - rs;
	if (needed == 0 || a->huge)
		return needed;
	ahead = RTE_MIN(c->bm.nr_pages, ps + PCPU_POPULATE_BATCH);
	for (rs = *pe; rs < ahead &&
	     pcpu_chunk_next_unpop(&c->bm, rs, ahead, &rs, &re); rs = re)
		more += re - rs;
	if (more != 0 && (a->conf.max_populated == 0 ||
	    pcpu_alloc_pages_bytes(a->populated_pages + needed + more) <=
	    a->conf.max_populated)) {
		*pe = RTE_MAX(*pe, ahead);
		needed += more;
	}
	return needed;
}

/*
 * Populate the unpopulated pages of [ps, pe) of chunk @p c, whose space
 * the caller has allocated, for every lcore with memory. Mutex and index
 * lock held; the index lock is dropped around each system call: other
 * allocations may meanwhile take space on these pages under the index
 * lock alone, but they see the pages as unpopulated and come to the mutex
 * the caller holds. Returns 0, or -errno (logged; the pages that were
 * populated stay so).
 */
static int
alloc_populate_pages(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t rs = ps, re, before;
	int ret;

	while (pcpu_chunk_next_unpop(&c->bm, rs, pe, &rs, &re)) {
		pcpu_alloc_index_unlock();
		ret = pcpu_alloc_populate(c, rs, re);
		pcpu_alloc_index_lock();
		if (ret != 0) {
			PCPU_LOG(ERR, "cannot populate %" PRIu64
				" bytes per lcore: %s",
				(uint64_t)(re - rs) * a->page_size,
				strerror(-ret));
			return ret;
		}
		before = c->bm.nr_empty_pop_pages;
		pcpu_chunk_set_populated(&c->bm, rs, re);
		alloc_used_clear(c, rs, re);
		pcpu_alloc_empty_track(c, before);
		a->populated_pages += re - rs;
		if (pcpu_alloc_pages_bytes(a->populated_pages) >
		    a->max_populated_bytes)
			a->max_populated_bytes =
				pcpu_alloc_pages_bytes(a->populated_pages);
		rs = re;
	}
	return 0;
}

/*
 * Find space for an object, creating a chunk if needed, and make sure its
 * pages are populated. Mutex held, index lock not. Returns the handle or
 * NULL (rte_errno), and in *dirty whether its copies must be zeroed.
 */
static void *
alloc_area(size_t size, uint32_t bits, uint32_t align_bits, int user,
		uint32_t owner, int *dirty)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c = NULL;
	uint32_t ps, pe, needed;
	int off;
	void *h;

	pcpu_alloc_index_lock();
	while ((off = alloc_find_area(size, bits, align_bits, &c)) < 0) {
		if (!TAILQ_EMPTY(&a->lists[PCPU_LIST_FREE])) {
			/* a whole free chunk cannot hold it */
			pcpu_alloc_index_unlock();
			rte_errno = ENOMEM;
			return NULL;
		}
		pcpu_alloc_index_unlock();
		c = pcpu_alloc_chunk_create();
		if (c == NULL) {
			rte_errno = ENOMEM;
			return NULL;
		}
		pcpu_alloc_index_lock();
		alloc_add_chunk(c);
	}
	ps = pcpu_chunk_bit_to_page(&c->bm, (uint32_t)off);
	pe = pcpu_chunk_bit_to_page(&c->bm, (uint32_t)off + bits - 1) + 1;
	needed = alloc_pages_needed(c, ps, &pe);
	if (needed != 0 && a->conf.max_populated != 0 &&
	    pcpu_alloc_pages_bytes(a->populated_pages + needed) >
	    a->conf.max_populated) {
		alloc_drop_area(c, off);
		pcpu_alloc_index_unlock();
		PCPU_LOG(DEBUG, "populated-bytes limit %" PRIu64 " reached",
			a->conf.max_populated);
		rte_errno = ENOMEM;
		return NULL;
	}
	if (needed != 0 && alloc_populate_pages(c, ps, pe) != 0) {
		alloc_drop_area(c, off);
		pcpu_alloc_index_unlock();
		rte_errno = ENOMEM;
		return NULL;
	}
	h = alloc_commit_area(c, off, size, bits, user, owner, dirty);
	pcpu_alloc_index_unlock();
	return h;
}

/*
 * Frees only mark that memory can be given back (they make no system
 * call); the allocation slow path, which holds the mutex anyway, does the
 * work, as does rte_pcpu_reclaim().
 */
static void
alloc_balance_if_needed(void)
{
	if (__atomic_load_n(&pcpu_alloc.need_balance, __ATOMIC_RELAXED) ||
	    pcpu_alloc.depop_deferred)
		pcpu_alloc_balance(0);
}

/* The same from the fast path, only if nobody holds the mutex. */
static void
alloc_balance_if_free(void)
{
	if (__atomic_load_n(&pcpu_alloc.need_balance, __ATOMIC_RELAXED) &&
	    pthread_mutex_trylock(&pcpu_alloc.mutex) == 0) {
		pcpu_alloc_balance(0);
		pthread_mutex_unlock(&pcpu_alloc.mutex);
	}
}

static inline uint32_t
alloc_size_bits(size_t size)
{
	return (uint32_t)(RTE_ALIGN_CEIL(size, PCPU_MIN_ALLOC_SIZE) >>
		PCPU_MIN_ALLOC_SHIFT);
}

void
pcpu_alloc_zero(void *handle, size_t size)
{
	unsigned int lcore_id;

	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1))
		memset(pcpu_arena_addr(&pcpu_alloc.arena, lcore_id,
			(uintptr_t)handle - pcpu_alloc.arena.base), 0, size);
}

void
pcpu_alloc_lcores(uint64_t mask[RTE_PCPU_MASK_WORDS])
{
	unsigned int w;

	pthread_mutex_lock(&pcpu_alloc.mutex);
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		mask[w] = pcpu_alloc.lcores[w];
	/* unit 0 lent to the handles is no lcore (yet) */
	if (pcpu_alloc.unit0_borrowed)
		mask[0] &= ~UINT64_C(1);
	pthread_mutex_unlock(&pcpu_alloc.mutex);
}

/* Whether granules [start, start + len) of chunk @p c lie inside one live
 * object (all allocated, no object boundary after the first) on populated
 * pages. Index lock held. */
static int
alloc_chunk_holds(const struct pcpu_alloc_chunk *c, uint32_t start,
		uint32_t len)
{
	uint32_t b, page;

	for (b = start; b < start + len; b++)
		if ((c->bm.alloc_map[b / 64] >> (b % 64) & 1) == 0 ||
		    (b > start && (c->bm.bound_map[b / 64] >> (b % 64) & 1)))
			return 0;
	for (page = pcpu_chunk_bit_to_page(&c->bm, start);
	     page <= pcpu_chunk_bit_to_page(&c->bm, start + len - 1); page++)
		if (!pcpu_chunk_page_populated(&c->bm, page))
			return 0;
	return 1;
}

/* The first granule of the live object of chunk @p c that holds
 * allocated granule @p b: the last object boundary at or before it (every
 * object starts with one). Index lock held. */
static uint32_t
alloc_chunk_obj_start(const struct pcpu_alloc_chunk *c, uint32_t b)
{
	uint32_t w = b / 64;
	uint64_t m = c->bm.bound_map[w] & (~UINT64_C(0) >> (63 - b % 64));

	while (m == 0 && w > 0)
		m = c->bm.bound_map[--w];
	return m == 0 ? 0 : w * 64 + 63 - (uint32_t)__builtin_clzll(m);
}

int
pcpu_alloc_range_find(const void *p, size_t size, uintptr_t *handle,
		uint32_t *owner)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t off = (uintptr_t)p - a->arena.base, end = off + size;
	uint64_t chunk_mask = pcpu_alloc_chunk_bytes() - 1, start = 0;
	const struct pcpu_alloc_chunk *c;
	uint32_t first, id = PCPU_OWNER_NONE;
	int ok = 0;

	pcpu_alloc_index_lock();
	if (a->initialised && off < a->arena.unit_stride &&
	    end <= a->arena.unit_stride && end > off) {
		c = a->chunks[off >> a->chunk_shift];
		if (c == NULL) {
			ok = pcpu_alloc_span_holds(off, size, &start, &id);
		} else if (((end - 1) >> a->chunk_shift) ==
			   (off >> a->chunk_shift)) {
			first = (uint32_t)((off & chunk_mask) >>
				PCPU_MIN_ALLOC_SHIFT);
			ok = alloc_chunk_holds(c, first, (uint32_t)((
				RTE_ALIGN_CEIL(end, PCPU_MIN_ALLOC_SIZE) -
				RTE_ALIGN_FLOOR(off, PCPU_MIN_ALLOC_SIZE)) >>
				PCPU_MIN_ALLOC_SHIFT));
			if (ok) {
				first = alloc_chunk_obj_start(c, first);
				start = (off & ~chunk_mask) +
					((uint64_t)first << PCPU_MIN_ALLOC_SHIFT);
				if (c->owners != NULL)
					id = c->owners[first >> 1];
			}
		}
	}
	pcpu_alloc_index_unlock();
	if (!ok)
		return -EINVAL;
	*handle = a->arena.base + start;
	*owner = id;
	return 0;
}

/* An allocation refused at its owner's limit: counted as any failure. */
static void
alloc_owner_refused(uint32_t owner, size_t size)
{
	pcpu_alloc_index_lock();
	pcpu_alloc.nr_alloc_fail++;
	pcpu_alloc_index_unlock();
	PCPU_LOG(DEBUG, "alloc of %zu bytes: owner %s at its limit", size,
		pcpu_owners.rec[owner].name);
	rte_errno = ENOMEM;
}

void *
pcpu_alloc_one(size_t size, size_t align, uint32_t owner)
{
	uint32_t bits = alloc_size_bits(size);
	uint32_t align_bits = (uint32_t)(align >> PCPU_MIN_ALLOC_SHIFT);
	uint64_t charge = pcpu_alloc_obj_size(size);
	int dirty;
	void *h;

	RTE_ASSERT(owner != PCPU_OWNER_NONE && owner < PCPU_OWNER_NB);
	/* charged first: a limit holds however many threads allocate */
	if (pcpu_owner_charge_any(owner, charge, 1) != 0) {
		alloc_owner_refused(owner, size);
		return NULL;
	}
	if (unlikely(size > RTE_PCPU_CHUNK_OBJ_MAX_SIZE)) {
		h = pcpu_alloc_span_alloc(size, owner);
		if (h == NULL)
			pcpu_owner_refund_any(owner, charge, 1);
		return h;
	}
	h = alloc_area_fast(size, bits, align_bits, owner, &dirty);
	if (h == NULL) {
		pthread_mutex_lock(&pcpu_alloc.mutex);
		alloc_balance_if_needed();
		h = alloc_area(size, bits, align_bits, 1, owner, &dirty);
		if (h == NULL) {
			pcpu_alloc_index_lock();
			pcpu_alloc.nr_alloc_fail++;
			pcpu_alloc_index_unlock();
		}
		pthread_mutex_unlock(&pcpu_alloc.mutex);
	} else {
		alloc_balance_if_free();
	}
	if (h == NULL) {
		pcpu_owner_refund_any(owner, charge, 1);
		return NULL;
	}
	pcpu_asan_unpoison(h, size);
	if (dirty)
		pcpu_alloc_zero(h, size);
	return h;
}

/*
 * Bulk allocation (cache refills, pool growth): a batch of objects carved
 * from one free run with one bitmap search and one hint update
 * (pcpu_chunk_alloc_batch()), its pages populated at once, committed
 * together; zeroing after the locks, a run of adjacent objects at a time.
 */

/* Account @p k new objects at bits @p offs of chunk @p c, whose pages are
 * populated: their handles into @p objs, bit i of @p dirty set when
 * object i must be zeroed. Index lock held. */
static void
alloc_commit_batch(struct pcpu_alloc_chunk *c, const uint32_t *offs,
		unsigned int k, size_t size, uint32_t bits, int user,
		void **objs, uint64_t *dirty)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uintptr_t base = a->arena.base +
		((uintptr_t)c->index << a->chunk_shift);
	unsigned int i;

	alloc_count(a, k, size, user);
	memset(dirty, 0, sizeof(uint64_t) * ((k + 63) / 64));
	for (i = 0; i < k; i++) {
		if (alloc_used_mark(c, offs[i], bits))
			dirty[i / 64] |= UINT64_C(1) << (i % 64);
		objs[i] = (void *)(base +
			((uintptr_t)offs[i] << PCPU_MIN_ALLOC_SHIFT));
	}
}

/* Give back objects [from, k) of a batch not committed yet. Index lock
 * held. */
static void
alloc_drop_batch(struct pcpu_alloc_chunk *c, const uint32_t *offs,
		unsigned int from, unsigned int k)
{
	while (k-- > from)
		alloc_drop_area(c, (int)offs[k]);
}

/*
 * How many objects of a batch the populated-bytes limit lets through:
 * those on pages that are populated or that the limit still allows to
 * populate, in address order. Index lock held.
 */
static unsigned int
alloc_batch_limit(struct pcpu_alloc_chunk *c, const uint32_t *offs,
		unsigned int k, uint32_t bits)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t room = a->conf.max_populated /
		(a->page_size * a->nr_lcores);
	uint32_t p, last, fresh = 0;
	unsigned int i;

	/* pages per lcore that may still be populated */
	room = room > a->populated_pages ? room - a->populated_pages : 0;
	last = pcpu_chunk_bit_to_page(&c->bm, offs[k - 1] + bits - 1);
	/* p: the first page the limit does not let us populate */
	for (p = pcpu_chunk_bit_to_page(&c->bm, offs[0]); p <= last; p++)
		if (!pcpu_chunk_page_populated(&c->bm, p) && ++fresh > room)
			break;
	for (i = 0; i < k; i++)
		if (pcpu_chunk_bit_to_page(&c->bm, offs[i] + bits - 1) >= p)
			break;
	return i;
}

/*
 * The common case, under the index lock only: a batch on populated pages
 * of an existing chunk. 0 when the slow path (the mutex: population, a new
 * chunk) is needed.
 */
static unsigned int
alloc_batch_fast(size_t size, uint32_t bits, uint32_t align_bits,
		unsigned int n, int user, uint32_t run_bits, void **objs,
		uint64_t *dirty)
{
	uint32_t offs[PCPU_BULK_GROUP];
	struct pcpu_alloc_chunk *c;
	unsigned int k;

	pcpu_alloc_index_lock();
	k = alloc_find_space(size, bits, align_bits, n, 1, run_bits, offs, &c);
	if (k != 0)
		alloc_commit_batch(c, offs, k, size, bits, user, objs, dirty);
	pcpu_alloc_index_unlock();
	return k;
}

/*
 * A batch anywhere, creating a chunk if needed, its pages populated
 * (within the populated-bytes limit, which may shorten it): a stretch of
 * its own (@p run_bits) if the chunks have one, else in any free space
 * before a new chunk is made. Mutex held, index lock not. Returns how
 * many, or 0 with rte_errno = ENOMEM.
 */
static unsigned int
alloc_batch_slow(size_t size, uint32_t bits, uint32_t align_bits,
		unsigned int n, int user, uint32_t run_bits, void **objs,
		uint64_t *dirty)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t offs[PCPU_BULK_GROUP], ps, pe, needed;
	struct pcpu_alloc_chunk *c = NULL;
	unsigned int k, keep;

	pcpu_alloc_index_lock();
	while ((k = alloc_find_space(size, bits, align_bits, n, 0, run_bits,
			offs, &c)) == 0 &&
	       (run_bits == 0 || (k = alloc_find_space(size, bits,
			align_bits, n, 0, 0, offs, &c)) == 0)) {
		if (!TAILQ_EMPTY(&a->lists[PCPU_LIST_FREE]))
			goto nomem; /* a whole free chunk cannot hold one */
		pcpu_alloc_index_unlock();
		c = pcpu_alloc_chunk_create();
		if (c == NULL) {
			rte_errno = ENOMEM;
			return 0;
		}
		pcpu_alloc_index_lock();
		alloc_add_chunk(c);
	}
	ps = pcpu_chunk_bit_to_page(&c->bm, offs[0]);
	pe = pcpu_chunk_bit_to_page(&c->bm, offs[k - 1] + bits - 1) + 1;
	needed = alloc_pages_needed(c, ps, &pe);
	if (needed != 0 && a->conf.max_populated != 0 &&
	    pcpu_alloc_pages_bytes(a->populated_pages + needed) >
	    a->conf.max_populated) {
		keep = alloc_batch_limit(c, offs, k, bits);
		alloc_drop_batch(c, offs, keep, k);
		if (keep == 0) {
			PCPU_LOG(DEBUG, "populated-bytes limit %" PRIu64
				" reached", a->conf.max_populated);
			goto nomem;
		}
		k = keep;
		pe = pcpu_chunk_bit_to_page(&c->bm, offs[k - 1] + bits - 1) + 1;
		needed = alloc_pages_needed(c, ps, &pe);
	}
	if (needed != 0 && alloc_populate_pages(c, ps, pe) != 0) {
		alloc_drop_batch(c, offs, 0, k);
		goto nomem;
	}
	alloc_commit_batch(c, offs, k, size, bits, user, objs, dirty);
	pcpu_alloc_index_unlock();
	return k;
nomem:
	pcpu_alloc_index_unlock();
	rte_errno = ENOMEM;
	return 0;
}

/*
 * The new objects of a batch are the caller's: unpoison them and zero the
 * dirty ones, a run of adjacent objects with one memset per lcore.
 */
static void
alloc_batch_finish(void * const *objs, unsigned int k, size_t size,
		uint32_t bits, const uint64_t *dirty)
{
	const size_t obj_bytes = (size_t)bits << PCPU_MIN_ALLOC_SHIFT;
	unsigned int i, j;

	for (i = 0; i < k; i++)
		pcpu_asan_unpoison(objs[i], size);
	for (i = 0; i < k; i = j) {
		if (!(dirty[i / 64] >> (i % 64) & 1)) {
			j = i + 1;
			continue;
		}
		/* a run only of objects without padding: the padding of an
		 * object stays poisoned under AddressSanitizer */
		for (j = i + 1; j < k && size == obj_bytes &&
		     (dirty[j / 64] >> (j % 64) & 1) &&
		     (uintptr_t)objs[j] == (uintptr_t)objs[j - 1] + obj_bytes;
		     j++)
			;
		pcpu_alloc_zero(objs[i], (size_t)(j - i - 1) * obj_bytes + size);
	}
}

unsigned int
pcpu_alloc_bulk(size_t size, size_t align, void **objs, unsigned int n,
		int user, size_t run)
{
	uint32_t bits = alloc_size_bits(size);
	uint32_t align_bits = (uint32_t)(align >> PCPU_MIN_ALLOC_SHIFT);
	uint32_t run_bits = (uint32_t)(run >> PCPU_MIN_ALLOC_SHIFT);
	uint64_t dirty[PCPU_BULK_GROUP / 64];
	unsigned int i = 0, k, want;
	int fast = 0;

	while (i < n) {
		want = RTE_MIN(n - i, (unsigned int)PCPU_BULK_GROUP);
		k = alloc_batch_fast(size, bits, align_bits, want, user,
			run_bits, objs + i, dirty);
		if (k != 0) {
			fast = 1;
		} else {
			pthread_mutex_lock(&pcpu_alloc.mutex);
			alloc_balance_if_needed();
			k = alloc_batch_slow(size, bits, align_bits, want, user,
				run_bits, objs + i, dirty);
			/* a stretch of its own may need pages the
			 * populated-bytes limit refuses, where populated
			 * space elsewhere would do */
			if (k == 0 && run_bits != 0)
				k = alloc_batch_slow(size, bits, align_bits,
					want, user, 0, objs + i, dirty);
			pthread_mutex_unlock(&pcpu_alloc.mutex);
			if (k == 0)
				break;
		}
		alloc_batch_finish(objs + i, k, size, bits, dirty);
		i += k;
	}
	if (fast)
		alloc_balance_if_free();
	return i;
}

/* ---------------------------------------------------------------------- */
/* Free. */

static inline int
alloc_pool_owned(const struct pcpu_alloc_chunk *c, uint32_t bit)
{
	return c->pool_map != NULL &&
		(c->pool_map[bit / 64] >> (bit % 64) & 1) != 0;
}

/* Why a handle was refused. */
enum pcpu_refusal {
	PCPU_REFUSE_NOT_LIVE,
	PCPU_REFUSE_POOL,
};

/* One log line for a refused free. */
static void
alloc_refuse(const void *handle, enum pcpu_refusal why)
{
	if (why == PCPU_REFUSE_POOL)
		PCPU_LOG(ERR, "free: %p belongs to an rte_pcpu_mempool: give it "
			"back with rte_pcpu_mempool_put()", handle);
	else
		PCPU_LOG(ERR, "free: %p is not a live allocation", handle);
}

/*
 * The line of a refused free of @p handle that lies inside a block of an
 * rte_mempool with the "pcpu" ops (its owner says so): the user mixed up
 * the two APIs, and the pool's name says which pool to give it back to.
 * 1 if it logged that line, 0 if @p handle is no such object. Takes the
 * index lock (pcpu_alloc_range_find()): not with it held.
 */
static int
alloc_refuse_mempool_obj(const void *handle)
{
	uintptr_t start;
	uint32_t owner;

	if (pcpu_alloc_range_find(handle, 1, &start, &owner) != 0 ||
	    pcpu_owner_kind_of(owner) != PCPU_OWNER_KIND_MEMPOOL)
		return 0;
	PCPU_LOG(ERR, "free: %p lies in a block of %s, an rte_mempool with the "
		"\"pcpu\" ops: give it back with rte_mempool_put()", handle,
		pcpu_owners.rec[owner].name);
	return 1;
}

/*
 * Free the objects at bits @p offs[0 .. n) of chunk @p c (none a pool's),
 * their bytes per unit added to *@p bytes. Returns how many were freed:
 * n, or the index of the first that is not a live object. Index lock
 * held.
 */
static unsigned int
alloc_free_in_chunk(struct pcpu_alloc_chunk *c, const uint32_t *offs,
		unsigned int n, uint32_t *bytes)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_chunk_free_effect eff;
	unsigned int done, i;

	if (PCPU_ASAN_ON) {
		/* under the lock: before anyone can allocate the space again */
		for (i = 0; i < n; i++)
			pcpu_asan_poison((void *)(a->arena.base +
				((uintptr_t)c->index << a->chunk_shift) +
				((uintptr_t)offs[i] << PCPU_MIN_ALLOC_SHIFT)),
				(size_t)pcpu_chunk_obj_bits(&c->bm, offs[i]) <<
				PCPU_MIN_ALLOC_SHIFT);
	}
	done = pcpu_chunk_free_batch(&c->bm, offs, n, &eff);
	a->nr_dealloc += eff.nr_objs;
	*bytes += eff.bytes;
	/* only what became visible moves the chunk: frees pending in one
	 * block change neither hints nor page counts */
	if (eff.settled != 0)
		pcpu_alloc_apply_effect(c, &eff);
	if (pcpu_chunk_pending(&c->bm)) {
		pcpu_alloc_note_pending(c);
		/* a chunk that became free goes to the free list at once */
		if (pcpu_alloc_chunk_unused(c))
			pcpu_alloc_settle_chunk(c);
	}
	return done;
}

/*
 * Free the object at bit @p bit of chunk @p c (not a pool's): deferred
 * without a batch when it lies in one block and the chunk can be listed
 * as pending (pcpu_chunk_free_quick(), after settling another pending
 * block of the chunk as the batch would), else as a batch of one. Returns
 * its size in bits if it was freed, 0 if it is not a live object. Index
 * lock held.
 */
static inline uint32_t
alloc_free_one(struct pcpu_alloc_chunk *c, uint32_t bit)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t bits, bytes = 0;

	/* AddressSanitizer builds poison on the general path */
	if (!PCPU_ASAN_ON &&
	    likely(c->on_pending || a->nr_pending < PCPU_PENDING_CHUNKS)) {
		if (unlikely(pcpu_chunk_pending_elsewhere(&c->bm, bit)))
			pcpu_alloc_settle_block(c);
		bits = pcpu_chunk_free_quick(&c->bm, bit);
		if (likely(bits != 0)) {
			pcpu_alloc_note_pending(c);
			a->nr_dealloc++;
			/* a chunk that became free goes to the free list at
			 * once */
			if (unlikely(pcpu_alloc_chunk_unused(c)))
				pcpu_alloc_settle_chunk(c);
			return bits;
		}
	}
	/* the batch of one says how large the object was */
	if (alloc_free_in_chunk(c, &bit, 1, &bytes) != 1)
		return 0;
	return bytes >> PCPU_MIN_ALLOC_SHIFT;
}

int
pcpu_alloc_free(void *handle)
{
	struct pcpu_alloc_chunk *c;
	enum pcpu_refusal why = PCPU_REFUSE_NOT_LIVE;
	uint32_t bit = 0, bits = 0, owner = PCPU_OWNER_NONE;
	uint64_t bytes;

	pcpu_alloc_index_lock();
	if (unlikely(!pcpu_alloc.initialised)) {
		pcpu_alloc_index_unlock();
		PCPU_LOG(ERR, "free: %p: allocator not initialised", handle);
		rte_errno = EINVAL;
		return -1;
	}
	c = pcpu_alloc_chunk_of(handle, &bit);
	if (likely(c != NULL)) {
		if (unlikely(alloc_pool_owned(c, bit)))
			why = PCPU_REFUSE_POOL;
		else if (likely((bits = alloc_free_one(c, bit)) != 0))
			owner = pcpu_alloc_owner_take(c, bit, bits);
	}
	pcpu_alloc_index_unlock();
	if (likely(bits != 0)) {
		pcpu_owner_uncharge_any(owner,
			(uint64_t)bits << PCPU_MIN_ALLOC_SHIFT, 1);
		return 0;
	}
	/* not in a chunk: the start of a span, or a bad handle */
	if (c == NULL && pcpu_alloc_span_free(handle, &owner, &bytes) == 0) {
		pcpu_owner_uncharge_any(owner, bytes, 1);
		return 0;
	}
	if (why != PCPU_REFUSE_NOT_LIVE || !alloc_refuse_mempool_obj(handle))
		alloc_refuse(handle, why);
	rte_errno = EINVAL;
	return -1;
}

/*
 * Gather the run of handles from @p h[0] on that lie in chunk @p c and
 * are not a pool's (at most PCPU_FREE_GROUP) into their bit offsets.
 * Returns the run's length (0 if h[0] itself is not such a handle).
 */
static unsigned int
alloc_gather_run(const struct pcpu_alloc_chunk *c, void * const *h,
		unsigned int n, uint32_t *offs)
{
	uintptr_t base = pcpu_alloc.arena.base +
		((uintptr_t)c->index << pcpu_alloc.chunk_shift);
	uint64_t map_bits = pcpu_alloc_chunk_bytes() >> PCPU_MIN_ALLOC_SHIFT;
	const uint64_t *pool_map = c->pool_map;
	unsigned int k;

	RTE_BUILD_BUG_ON(PCPU_MIN_ALLOC_SIZE != 1u << PCPU_MIN_ALLOC_SHIFT);
	n = RTE_MIN(n, (unsigned int)PCPU_FREE_GROUP);
	for (k = 0; k < n; k++) {
		uint64_t off = (uintptr_t)h[k] - base;
		/* the offset in granules, rotated: the bits of a handle
		 * that is not granule-aligned land on top, so one compare
		 * refuses it and one outside the chunk */
		uint64_t bit = off >> PCPU_MIN_ALLOC_SHIFT |
			off << (64 - PCPU_MIN_ALLOC_SHIFT);

		/* alloc_pool_owned() with the map loaded once: calling it
		 * costs the in-order flush 3 instructions per handle */
		if (bit >= map_bits || (pool_map != NULL &&
		    (pool_map[bit / 64] >> (bit % 64) & 1) != 0))
			break;
		offs[k] = (uint32_t)bit;
	}
	return k;
}

unsigned int
pcpu_alloc_free_bulk(void * const *handles, unsigned int n,
		pcpu_alloc_freed_cb_t *freed_cb, void *arg)
{
	uint32_t offs[PCPU_FREE_GROUP], bit = 0, bytes = 0;
	unsigned int i = 0, k, got, done = 0;
	struct pcpu_alloc_chunk *c;

	pcpu_alloc_index_lock();
	while (i < n) {
		c = pcpu_alloc_chunk_of(handles[i], &bit);
		k = c != NULL ? alloc_gather_run(c, handles + i, n - i, offs) : 0;
		if (k == 0) {
			alloc_refuse(handles[i], c == NULL ?
				PCPU_REFUSE_NOT_LIVE : PCPU_REFUSE_POOL);
			i++;
			continue;
		}
		/* a lone object (handles that alternate between chunks) is
		 * freed as rte_pcpu_free() frees it: no batch to set up */
		if (k == 1)
			got = alloc_free_one(c, offs[0]) != 0;
		else
			got = alloc_free_in_chunk(c, offs, k, &bytes);
		done += got;
		i += got;
		if (got < k) {
			alloc_refuse(handles[i], PCPU_REFUSE_NOT_LIVE);
			i++;
		}
	}
	/* still under the lock: before anyone can allocate the space again */
	if (freed_cb != NULL)
		freed_cb(arg, handles, n);
	pcpu_alloc_index_unlock();
	if (done != n)
		rte_errno = EINVAL;
	return done;
}

int
pcpu_alloc_pool_mark(void * const *handles, unsigned int n, int own)
{
	struct pcpu_alloc_chunk *c;
	unsigned int i;
	uint32_t bit = 0;
	int ret = 0;

	pcpu_alloc_index_lock();
	for (i = 0; i < n; i++) {
		c = pcpu_alloc_chunk_of(handles[i], &bit);
		if (c == NULL || pcpu_chunk_obj_bits(&c->bm, bit) == 0) {
			ret = -EINVAL;
			continue;
		}
		if (c->pool_map == NULL) {
			if (!own)
				continue;
			/* under the index lock: rare (once per chunk) */
			c->pool_map = pcpu_fault_calloc(1, pcpu_alloc_map_len(c));
			if (c->pool_map == NULL) {
				ret = -ENOMEM;
				continue;
			}
		}
		if (own)
			c->pool_map[bit / 64] |= UINT64_C(1) << (bit % 64);
		else
			c->pool_map[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
	}
	pcpu_alloc_index_unlock();
	return ret;
}

uint32_t
pcpu_alloc_obj_bytes(const void *handle)
{
	struct pcpu_alloc_chunk *c;
	uint32_t bit = 0, bytes = 0;

	pcpu_alloc_index_lock();
	c = pcpu_alloc.initialised ? pcpu_alloc_chunk_of(handle, &bit) : NULL;
	if (c != NULL)
		bytes = pcpu_chunk_obj_bits(&c->bm, bit) << PCPU_MIN_ALLOC_SHIFT;
	else if (pcpu_alloc.initialised)
		bytes = (uint32_t)pcpu_alloc_span_bytes(handle);
	pcpu_alloc_index_unlock();
	return bytes;
}

uint64_t
pcpu_alloc_reclaim(void)
{
	uint64_t bytes;

	pthread_mutex_lock(&pcpu_alloc.mutex);
	bytes = pcpu_alloc.initialised ? pcpu_alloc_balance(1) : 0;
	pthread_mutex_unlock(&pcpu_alloc.mutex);
	return bytes;
}

/* ---------------------------------------------------------------------- */
/* Set-up and tear-down. */

const struct pcpu_arena *
pcpu_alloc_arena(void)
{
	return &pcpu_alloc.arena;
}

int
pcpu_alloc_lcore_socket(unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE ||
	    !(__atomic_load_n(&pcpu_alloc.lcores[lcore_id / 64],
		    __ATOMIC_ACQUIRE) >> (lcore_id % 64) & 1))
		return -1;
	return pcpu_alloc.lcore_socket[lcore_id];
}

/* Reserve the area: shared at conf->base_addr (or the default address),
 * or private. 0, or -1 with rte_errno and one log line. */
static int
alloc_reserve(struct pcpu_alloc *a, const struct rte_pcpu_conf *conf,
		int shared)
{
	uint64_t span = pcpu_arena_span(conf->unit_stride);
	uintptr_t base = (uintptr_t)conf->base_addr;
	int ret;

	if (shared)
		ret = pcpu_arena_reserve_shared(&a->arena, conf->unit_stride,
			base != 0 ? base : (uintptr_t)RTE_PCPU_DEFAULT_BASE_ADDR,
			base == 0, a->huge);
	else
		ret = pcpu_arena_reserve(&a->arena, conf->unit_stride, base);
	if (ret == 0)
		return 0;
	if (ret == -EEXIST) {
		PCPU_LOG(ERR, "init: rte_pcpu_conf.base_addr %#" PRIxPTR
			": something is mapped in its %" PRIu64 " bytes",
			base, span);
		rte_errno = EEXIST;
	} else if (ret == -ENOMEM || ret == -EINVAL) {
		PCPU_LOG(ERR, "init: cannot reserve %" PRIu64
			" bytes of address space", span);
		rte_errno = ENOMEM;
	} else {
		/* the arena logged why */
		rte_errno = -ret;
	}
	return -1;
}

int
pcpu_alloc_init(const struct rte_pcpu_conf *conf, int shared)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t free_huge;
	char limit[32];
	int l;

	pthread_mutex_lock(&a->mutex);
	if (a->initialised) {
		pthread_mutex_unlock(&a->mutex);
		rte_errno = EALREADY;
		return -1;
	}
	free_huge = pcpu_arena_free_hugepages();
	switch (conf->page_policy) {
	case RTE_PCPU_PAGE_HUGE:
		a->huge = 1;
		break;
	case RTE_PCPU_PAGE_NORMAL:
		a->huge = 0;
		break;
	default:
		a->huge = rte_eal_has_hugepages() && free_huge > 0 &&
			conf->chunk_size >= PCPU_HUGE_PAGE_SIZE;
		break;
	}
	a->page_size = a->huge ? PCPU_HUGE_PAGE_SIZE : PCPU_SMALL_PAGE_SIZE;
	a->reserve = conf->empty_pages_reserve != 0 ?
		conf->empty_pages_reserve : (a->huge ? 1 : 4);
	if (alloc_reserve(a, conf, shared) != 0) {
		pthread_mutex_unlock(&a->mutex);
		return -1;
	}
	a->nr_chunk_max = (uint32_t)(conf->unit_stride / conf->chunk_size);
	a->chunks = pcpu_fault_calloc(a->nr_chunk_max, sizeof(*a->chunks));
	if (a->chunks == NULL || pcpu_alloc_span_init() != 0) {
		free(a->chunks);
		a->chunks = NULL;
		pcpu_arena_release(&a->arena);
		pthread_mutex_unlock(&a->mutex);
		PCPU_LOG(ERR, "init: no memory for the chunk index");
		rte_errno = ENOMEM;
		return -1;
	}
	a->conf = *conf;
	a->chunk_shift = (uint32_t)rte_log2_u64(conf->chunk_size);
	for (l = 0; l < PCPU_NR_LISTS; l++)
		TAILQ_INIT(&a->lists[l]);
	a->min_alloc_size = UINT64_MAX;
	rte_pcpu_shared.base = a->arena.base;
	rte_pcpu_shared.unit_shift = a->arena.unit_shift;
	rte_pcpu_shared.unit_step = a->arena.unit_step;
	rte_pcpu_shared.cache_lcore_limit = RTE_MAX_LCORE;
	a->initialised = 1;
	__atomic_store_n(&rte_pcpu_shared.initialised, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&a->mutex);

	if (conf->max_populated != 0)
		snprintf(limit, sizeof(limit), "%" PRIu64 " bytes",
			conf->max_populated);
	else
		snprintf(limit, sizeof(limit), "none");
	PCPU_LOG(INFO, "%" PRIu64 " KiB of address space per lcore at %p, "
		"%s, chunks of %" PRIu64 " KiB, %s pages%s (%" PRIu64
		" hugepages free), populated-bytes limit %s",
		conf->unit_stride >> 10, (void *)a->arena.base,
		shared ? "shared with secondary processes" : "private",
		conf->chunk_size >> 10, a->huge ? "2 MiB" : "4 KiB",
		a->huge ? "" :
		conf->page_policy == RTE_PCPU_PAGE_NORMAL ? ", as configured" :
		!rte_eal_has_hugepages() ? ", as EAL runs without hugepages" :
		free_huge == 0 ? ", no hugepage being free" :
		", as chunks are below 2 MiB", free_huge, limit);

	/* outside the mutex: EAL calls the callback for existing lcores */
	if (pcpu_alloc_lcores_start() != 0) {
		pcpu_alloc_cleanup();
		rte_errno = ENOMEM;
		return -1;
	}
	return 0;
}

uint64_t
pcpu_alloc_cleanup(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t live, gen;
	uint32_t idx;

	pcpu_alloc_lcores_stop();
	pcpu_alloc_balance_stop();
	pthread_mutex_lock(&a->mutex);
	live = pcpu_alloc_live();
	__atomic_store_n(&rte_pcpu_shared.initialised, 0, __ATOMIC_RELEASE);
	for (idx = 0; a->chunks != NULL && idx < a->nr_chunk_max; idx++) {
		struct pcpu_alloc_chunk *c = a->chunks[idx];

		if (c == NULL)
			continue;
		pcpu_alloc_owner_map_free(c);
		free(c->used);
		free(c->pool_map);
		pcpu_chunk_fini(&c->bm);
		free(c);
	}
	free(a->chunks);
	pcpu_alloc_span_cleanup();
	pcpu_arena_release(&a->arena);
	gen = rte_pcpu_shared.lcore_gen;
	memset(&rte_pcpu_shared, 0, sizeof(rte_pcpu_shared));
	/* never back to a value a list of copies may still hold */
	rte_pcpu_shared.lcore_gen = gen + 1;
	/* reset everything but the locks */
	memset((char *)a + offsetof(struct pcpu_alloc, initialised), 0,
		sizeof(*a) - offsetof(struct pcpu_alloc, initialised));
	pthread_mutex_unlock(&a->mutex);
	return live;
}
