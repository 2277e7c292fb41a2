/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The percpu allocator: chunks in the reserved area, slots, population,
 * partial depopulation, lcore arrival, statistics and audit.
 *
 * Locking, as Linux mm/percpu.c: g.mutex serialises everything that
 * populates or depopulates memory, creates or destroys chunks, or adds an
 * lcore (the whole allocation slow path holds it); g.lock (a spinlock)
 * guards the index state: chunk maps, slot lists and counters. Population
 * runs with the mutex held and the spinlock released; free takes only the
 * spinlock and does balance work only when it can take the mutex without
 * waiting.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rte_pcpu.h"
#include "pcpu_chunk.h"
#include "pcpu_private.h"
#include "pcpu_cache.h"
#include "pcpu_asan.h"

RTE_LOG_REGISTER_DEFAULT(pcpu_logtype, INFO);

struct rte_pcpu_shared rte_pcpu_shared;

/* active slots by contig hint; then the special lists, as Linux */
#define NR_ACTIVE_SLOTS 32
#define LIST_SIDELINED NR_ACTIVE_SLOTS
#define LIST_FREE (NR_ACTIVE_SLOTS + 1)
#define LIST_TO_DEPOP (NR_ACTIVE_SLOTS + 2)
#define NR_LISTS (NR_ACTIVE_SLOTS + 3)
/* a chunk in a slot below this that fails a fit goes to slot 0 */
#define SLOT_FAIL_THRESHOLD 3

#define MAX_UNIT_STRIDE (UINT64_C(1) << 36)
/* 4 KiB mode: pages populated at once when an allocation needs one */
#define POPULATE_BATCH 16
/* objects a bulk allocation takes per acquisition of the mutex */
#define BULK_GROUP 32
#define MAX_CHUNK_SIZE (UINT64_C(1) << 30)

TAILQ_HEAD(pcpu_chunk_list, pcpu_chunk);

static uint64_t balance(int explicit);
static void settle_open(void);

static struct pcpu_global {
	pthread_mutex_t mutex;
	uint32_t lock;            /* the index lock: index_lock() */
	int initialised;
	struct rte_pcpu_conf conf;
	struct pcpu_arena arena;
	uint64_t page_size;       /* bookkeeping page: 2 MiB or 4 KiB */
	int huge;                 /* pages are hugepages (policy allowing) */
	uint32_t reserve;         /* empty populated pages kept */
	uint32_t chunk_shift;
	uint32_t nr_chunk_max;    /* unit_stride / chunk_size */
	struct pcpu_chunk **chunks;
	/* per chunk, a bit per granule: used by an object since its page was
	 * populated, so it may hold data (fresh pages read as zero) */
	uint64_t **used;
	struct pcpu_chunk_list lists[NR_LISTS];
	uint64_t active_mask;     /* bit s: active slot s has chunks */
	void *lcore_cb;

	uint32_t nr_lcores;
	int lcore_socket[RTE_MAX_LCORE];
	uint32_t lcores_on_socket[RTE_MAX_NUMA_NODES];

	uint64_t populated_pages;  /* per lcore */
	uint64_t empty_pop_pages;
	uint64_t max_populated_bytes;
	int need_balance;

	uint64_t nr_alloc;
	uint64_t nr_dealloc;
	uint64_t nr_max_alloc;
	uint64_t nr_alloc_fail;
	uint32_t nr_chunks;
	uint32_t nr_max_chunks;
	uint64_t min_alloc_size;
	uint64_t max_alloc_size;
	uint32_t nr_huge_fallback;
	/* frees whose hint update waits (pcpu_chunk_free_deferred()): all in
	 * one block; settle_open() applies them */
	struct {
		struct pcpu_chunk *c;     /* NULL: none */
		uint32_t block;
		uint32_t n;
		uint32_t offs[PCPU_SETTLE_REPLAY_MAX]; /* the first ones */
	} open;
	uint64_t cached_objs;     /* objects held by lcore caches */
	uint64_t cached_bytes;
} g = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * The index lock (g.lock), test-and-test-and-set. Not rte_spinlock_t: DPDK
 * 22.11 unlocks it on x86 with an xchg, a full barrier that costs as much
 * as the lock itself (6 ns of a 26 ns free here); a release store is enough
 * on x86 and everywhere else, as Linux's spin_unlock().
 */
static inline void
index_lock(void)
{
	while (__atomic_exchange_n(&g.lock, 1, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(&g.lock, __ATOMIC_RELAXED) != 0)
			rte_pause();
}

static inline void
index_unlock(void)
{
	__atomic_store_n(&g.lock, 0, __ATOMIC_RELEASE);
}

/* Objects allocated now (allocations minus frees). Spinlock held. */
static inline uint64_t
cur_alloc(void)
{
	return g.nr_alloc - g.nr_dealloc;
}

static inline uint64_t
chunk_bytes(void)
{
	return g.conf.chunk_size;
}

static inline int
chunk_is_free(const struct pcpu_chunk *c)
{
	return c->free_bytes == chunk_bytes();
}

static inline uint64_t
pages_to_bytes(uint64_t pages)
{
	return pages * g.page_size * g.nr_lcores;
}

static void
chunk_move(struct pcpu_chunk *c, int list, int head)
{
	if (c->slot >= 0) {
		TAILQ_REMOVE(&g.lists[c->slot], c, next);
		if (c->slot < NR_ACTIVE_SLOTS &&
		    TAILQ_EMPTY(&g.lists[c->slot]))
			g.active_mask &= ~(UINT64_C(1) << c->slot);
	}
	c->slot = list;
	if (head)
		TAILQ_INSERT_HEAD(&g.lists[list], c, next);
	else
		TAILQ_INSERT_TAIL(&g.lists[list], c, next);
	if (list < NR_ACTIVE_SLOTS)
		g.active_mask |= UINT64_C(1) << list;
}

/* Put the chunk on the list its free space asks for. */
static void
chunk_relocate(struct pcpu_chunk *c)
{
	int nslot;

	if (c->isolated)
		return;
	if (chunk_is_free(c))
		nslot = LIST_FREE;
	else if (c->slot == LIST_SIDELINED)
		return;
	else
		nslot = pcpu_chunk_slot(c);
	if (nslot == c->slot)
		return;
	chunk_move(c, nslot, nslot > c->slot);
}

/* Carry a chunk's change of empty populated pages (since @p before) into
 * the global count. Spinlock held. */
static inline void
empty_track(const struct pcpu_chunk *c, uint32_t before)
{
	g.empty_pop_pages += (int64_t)c->nr_empty_pop_pages - before;
}

/* Allocate in a chunk, keeping the global empty-page count. */
static int
chunk_alloc_tracked(struct pcpu_chunk *c, uint32_t bits, uint32_t align_bits)
{
	uint32_t before = c->nr_empty_pop_pages;
	int off = pcpu_chunk_alloc(c, bits, align_bits, 0);

	empty_track(c, before);
	return off;
}

static int
chunk_free_tracked(struct pcpu_chunk *c, uint32_t off)
{
	uint32_t before = c->nr_empty_pop_pages;
	int bits = pcpu_chunk_free(c, off);

	empty_track(c, before);
	return bits;
}

/* Byte offset of page @p page of chunk @p c inside a unit. */
static inline uint64_t
page_off(const struct pcpu_chunk *c, uint32_t page)
{
	return ((uint64_t)c->index << g.chunk_shift) +
		(uint64_t)page * g.page_size;
}

/* Populate pages [ps, pe) of chunk c for one lcore. Mutex held. */
static int
populate_lcore(struct pcpu_chunk *c, unsigned int lcore_id, uint32_t ps,
		uint32_t pe)
{
	uint64_t off = page_off(c, ps);
	uint64_t len = (uint64_t)(pe - ps) * g.page_size;
	int socket = g.lcore_socket[lcore_id];
	int ret;

	ret = pcpu_arena_populate(&g.arena, lcore_id, socket, off, len,
		g.huge ? PCPU_BACKING_HUGE : PCPU_BACKING_MAPPED);
	if (ret == -ENOMEM && g.huge &&
	    g.conf.page_policy == RTE_PCPU_PAGE_AUTO) {
		if (g.nr_huge_fallback++ == 0)
			PCPU_LOG(WARNING,
				"no free hugepages: falling back to 4 KiB pages");
		ret = pcpu_arena_populate(&g.arena, lcore_id, socket, off,
			len, PCPU_BACKING_SMALL);
	}
	return ret;
}

static void
depopulate_lcore(struct pcpu_chunk *c, unsigned int lcore_id, uint32_t ps,
		uint32_t pe)
{
	uint64_t off = page_off(c, ps);

	/* hugepages and their 4 KiB fall-back both go back the same way */
	pcpu_arena_depopulate(&g.arena, lcore_id, off,
		(uint64_t)(pe - ps) * g.page_size,
		g.huge ? PCPU_BACKING_HUGE : PCPU_BACKING_MAPPED);
}

/* Map (4 KiB mode) or just reserve (hugepage mode) lcore @p lcore_id's
 * range of chunk @p c. Mutex held. */
static int
chunk_map_lcore(struct pcpu_chunk *c, unsigned int lcore_id)
{
	if (g.huge)
		return 0;
	return pcpu_arena_map(&g.arena, lcore_id, g.lcore_socket[lcore_id],
		(uint64_t)c->index << g.chunk_shift, chunk_bytes());
}

/* Give lcore @p lcore_id's range of chunk @p c back to the reservation,
 * with all its memory. Mutex held. */
static void
chunk_unmap_lcore(struct pcpu_chunk *c, unsigned int lcore_id)
{
	pcpu_arena_unmap(&g.arena, lcore_id, (uint64_t)c->index << g.chunk_shift,
		chunk_bytes());
}

/* Populate [ps, pe) for every lcore with memory, or nothing. Mutex held. */
static int
populate_range(struct pcpu_chunk *c, uint32_t ps, uint32_t pe)
{
	unsigned int lcore_id, undo;
	int ret;

	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1)) {
		ret = populate_lcore(c, lcore_id, ps, pe);
		if (ret == 0)
			continue;
		for (undo = rte_pcpu_lcore_next(0); undo < lcore_id;
		     undo = rte_pcpu_lcore_next(undo + 1))
			depopulate_lcore(c, undo, ps, pe);
		return ret;
	}
	return 0;
}

static void
depopulate_range(struct pcpu_chunk *c, uint32_t ps, uint32_t pe)
{
	unsigned int lcore_id;

	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1))
		depopulate_lcore(c, lcore_id, ps, pe);
}

static void
chunk_unmap_all(struct pcpu_chunk *c, unsigned int below)
{
	unsigned int lcore_id;

	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < below;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1))
		chunk_unmap_lcore(c, lcore_id);
}

/* Create a chunk in the first free index. Mutex held, spinlock not. */
static struct pcpu_chunk *
chunk_create(void)
{
	struct pcpu_chunk *c;
	unsigned int lcore_id;
	uint32_t idx;
	int ret;

	for (idx = 0; idx < g.nr_chunk_max; idx++)
		if (g.chunks[idx] == NULL)
			break;
	if (idx == g.nr_chunk_max) {
		PCPU_LOG(ERR, "reserved address space used up (%u chunks of %"
			PRIu64 " bytes)", g.nr_chunk_max, chunk_bytes());
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	ret = pcpu_chunk_init(c, chunk_bytes(), g.page_size);
	if (ret != 0) {
		free(c);
		return NULL;
	}
	c->index = idx;
	c->slot = -1;
	c->isolated = 0;
	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1)) {
		ret = chunk_map_lcore(c, lcore_id);
		if (ret == 0)
			continue;
		PCPU_LOG(ERR, "cannot map chunk %u for lcore %u: %s", idx,
			lcore_id, strerror(-ret));
		chunk_unmap_all(c, lcore_id);
		pcpu_chunk_fini(c);
		free(c);
		return NULL;
	}
	return c;
}

/* Bytes of a per-chunk map of one bit per granule (used, pool maps). */
static inline size_t
granule_map_len(const struct pcpu_chunk *c)
{
	return sizeof(uint64_t) * ((c->map_bits + 63) / 64);
}

/* Give a chunk's range back to the reservation on every lcore and free
 * it. Mutex held, the chunk already off the lists and out of g.chunks.
 * Returns the pages (per lcore) it had populated. */
static uint64_t
chunk_destroy(struct pcpu_chunk *c)
{
	uint64_t pages = c->nr_populated;

	chunk_unmap_all(c, RTE_MAX_LCORE);
	free(c->pool_map);
	pcpu_chunk_fini(c);
	free(c);
	return pages;
}

/*
 * Known-zero memory: per chunk, a bit per 4-byte granule set once an
 * object has been allocated over it since its page was populated. A new
 * object none of whose granules were used reads as zero on every lcore
 * (fresh pages are zero) and needs no memset; in a VM the first write to a
 * page is also by far its most expensive access.
 */
static void
bits_apply(uint64_t *map, uint32_t start, uint32_t len, int set)
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
bits_any(const uint64_t *map, uint32_t start, uint32_t len)
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
static int
used_mark(const struct pcpu_chunk *c, uint32_t off, uint32_t bits)
{
	uint64_t *map = g.used[c->index];
	int dirty = bits_any(map, off, bits);

	bits_apply(map, off, bits, 1);
	return dirty;
}

/* Pages [ps, pe) were just populated: all their granules read as zero. */
static void
used_clear(const struct pcpu_chunk *c, uint32_t ps, uint32_t pe)
{
	uint32_t per_page = (uint32_t)(g.page_size >> PCPU_MIN_ALLOC_SHIFT);

	bits_apply(g.used[c->index], ps * per_page, (pe - ps) * per_page, 0);
}

/*
 * Search the existing chunks for space: fitting active slots, then
 * sidelined chunks, then the spare free chunk. Spinlock held. Returns the
 * bit offset and the chunk in *cp, or -1.
 */
static int
find_area(size_t size, uint32_t bits, uint32_t align_bits,
		struct pcpu_chunk **cp)
{
	struct pcpu_chunk *c, *tmp;
	int slot, off;

	settle_open();
	/* only the non-empty active slots that can fit the size */
	for (slot = pcpu_size_to_slot(size); slot < NR_ACTIVE_SLOTS; slot++) {
		uint64_t more = g.active_mask >> slot;

		if (more == 0)
			break;
		slot += __builtin_ctzll(more);
		for (c = TAILQ_FIRST(&g.lists[slot]); c != NULL; c = tmp) {
			tmp = TAILQ_NEXT(c, next);
			off = chunk_alloc_tracked(c, bits, align_bits);
			if (off >= 0)
				goto found;
			/* the search may have refreshed a stale
			 * (conservative) chunk hint upwards */
			chunk_relocate(c);
			/* as Linux: a nearly full chunk that failed stays
			 * out of the way until a free changes its contig hint */
			if (c->slot < SLOT_FAIL_THRESHOLD && c->slot != 0)
				chunk_move(c, 0, 0);
		}
	}
	TAILQ_FOREACH(c, &g.lists[LIST_SIDELINED], next) {
		off = chunk_alloc_tracked(c, bits, align_bits);
		if (off >= 0) {
			/* reintegrate */
			chunk_move(c, pcpu_chunk_slot(c), 1);
			goto found;
		}
	}
	TAILQ_FOREACH(c, &g.lists[LIST_FREE], next) {
		off = chunk_alloc_tracked(c, bits, align_bits);
		if (off >= 0)
			goto found;
	}
	return -1;
found:
	chunk_relocate(c);
	*cp = c;
	return off;
}

/* Account a new object whose pages are populated; returns its handle and
 * in *dirty whether its copies must be zeroed. @p user: a size a user
 * asked for (not a cache refill's class size), for the size statistics.
 * Spinlock held. */
static void *
commit_area(struct pcpu_chunk *c, int off, size_t size, uint32_t bits,
		int user, int *dirty)
{
	g.nr_alloc++;
	if (cur_alloc() > g.nr_max_alloc)
		g.nr_max_alloc = cur_alloc();
	if (user && size < g.min_alloc_size)
		g.min_alloc_size = size;
	if (user && size > g.max_alloc_size)
		g.max_alloc_size = size;
	*dirty = used_mark(c, off, bits);
	return (void *)(g.arena.base + ((uintptr_t)c->index << g.chunk_shift) +
		((uintptr_t)off << PCPU_MIN_ALLOC_SHIFT));
}

/* Undo a found area. Spinlock held. */
static void
drop_area(struct pcpu_chunk *c, int off)
{
	settle_open();
	chunk_free_tracked(c, off);
	chunk_relocate(c);
}

/*
 * The common case, under the spinlock only: space in an existing chunk on
 * populated pages. NULL when the slow path (the mutex: population, a new
 * chunk) is needed.
 */
static void *
alloc_fast(size_t size, uint32_t bits, uint32_t align_bits, int *dirty)
{
	struct pcpu_chunk *c;
	uint32_t rs, re;
	void *h = NULL;
	int off;

	index_lock();
	off = find_area(size, bits, align_bits, &c);
	if (off >= 0) {
		if (pcpu_chunk_next_unpop(c, pcpu_chunk_bit_to_page(c, off),
				pcpu_chunk_bit_to_page(c, off + bits - 1) + 1,
				&rs, &re))
			drop_area(c, off);
		else
			h = commit_area(c, off, size, bits, 1, dirty);
	}
	index_unlock();
	return h;
}

/* Find space for an object, creating a chunk if needed, and make sure its
 * pages are populated. Mutex held, spinlock not. Returns the handle or
 * NULL (rte_errno), and in *dirty whether its copies must be zeroed. */
static void *
alloc_area(size_t size, uint32_t bits, uint32_t align_bits, int user,
		int *dirty)
{
	struct pcpu_chunk *c = NULL;
	uint64_t *used;
	uint32_t ps, pe, rs, re, needed;
	int off, ret;
	void *h;

	index_lock();
	while ((off = find_area(size, bits, align_bits, &c)) < 0) {
		if (!TAILQ_EMPTY(&g.lists[LIST_FREE])) {
			/* a whole free chunk cannot hold it */
			index_unlock();
			rte_errno = ENOMEM;
			return NULL;
		}
		index_unlock();
		c = chunk_create();
		used = c != NULL ? calloc(1, granule_map_len(c)) : NULL;
		if (used == NULL) {
			if (c != NULL)
				chunk_destroy(c);
			rte_errno = ENOMEM;
			return NULL;
		}
		index_lock();
		g.chunks[c->index] = c;
		g.used[c->index] = used;
		chunk_move(c, LIST_FREE, 1);
		g.nr_chunks++;
		if (g.nr_chunks > g.nr_max_chunks)
			g.nr_max_chunks = g.nr_chunks;
	}
	ps = pcpu_chunk_bit_to_page(c, off);
	pe = pcpu_chunk_bit_to_page(c, off + bits - 1) + 1;
	needed = 0;
	for (rs = ps; pcpu_chunk_next_unpop(c, rs, pe, &rs, &re); rs = re)
		needed += re - rs;
	if (needed != 0 && !g.huge) {
		/* populate a batch ahead: one system call for many pages */
		uint32_t ahead = RTE_MIN(c->nr_pages, ps + POPULATE_BATCH);
		uint32_t more = 0;

		for (rs = pe; rs < ahead &&
		     pcpu_chunk_next_unpop(c, rs, ahead, &rs, &re); rs = re)
			more += re - rs;
		if (more != 0 && (g.conf.max_populated == 0 ||
		    pages_to_bytes(g.populated_pages + needed + more) <=
		    g.conf.max_populated)) {
			pe = RTE_MAX(pe, ahead);
			needed += more;
		}
	}
	if (needed != 0 && g.conf.max_populated != 0 &&
	    pages_to_bytes(g.populated_pages + needed) > g.conf.max_populated) {
		drop_area(c, off);
		index_unlock();
		PCPU_LOG(DEBUG, "populated-bytes limit %" PRIu64 " reached",
			g.conf.max_populated);
		rte_errno = ENOMEM;
		return NULL;
	}
	/*
	 * The area is ours; other allocations may meanwhile take space on
	 * these pages under the spinlock alone, but they see the pages as
	 * unpopulated and come to the mutex we hold.
	 */
	rs = ps;
	while (needed != 0 && pcpu_chunk_next_unpop(c, rs, pe, &rs, &re)) {
		uint32_t before;

		index_unlock();
		ret = populate_range(c, rs, re);
		index_lock();
		if (ret != 0) {
			drop_area(c, off);
			index_unlock();
			PCPU_LOG(ERR, "cannot populate %" PRIu64
				" bytes per lcore: %s",
				(uint64_t)(re - rs) * g.page_size,
				strerror(-ret));
			rte_errno = ENOMEM;
			return NULL;
		}
		before = c->nr_empty_pop_pages;
		pcpu_chunk_set_populated(c, rs, re);
		used_clear(c, rs, re);
		empty_track(c, before);
		g.populated_pages += re - rs;
		if (pages_to_bytes(g.populated_pages) > g.max_populated_bytes)
			g.max_populated_bytes =
				pages_to_bytes(g.populated_pages);
		rs = re;
	}
	h = commit_area(c, off, size, bits, user, dirty);
	index_unlock();
	return h;
}

static size_t
natural_align(size_t size)
{
	size_t r = RTE_ALIGN_CEIL(size, RTE_PCPU_MIN_ALIGN);

	return RTE_MIN(r & -r, (size_t)RTE_CACHE_LINE_SIZE);
}

/* Validate and normalise alloc arguments; 0 or -1 with rte_errno. */
static int
alloc_args(size_t size, size_t *align)
{
	if (size == 0 || size > RTE_PCPU_MAX_SIZE) {
		PCPU_LOG(ERR, "alloc: size %zu not in 1..%u", size,
			RTE_PCPU_MAX_SIZE);
		rte_errno = EINVAL;
		return -1;
	}
	if (*align != 0 && (!pcpu_is_pow2(*align) ||
			    *align > RTE_PCPU_MAX_ALIGN)) {
		PCPU_LOG(ERR, "alloc: align %zu not a power of two up to %u",
			*align, RTE_PCPU_MAX_ALIGN);
		rte_errno = EINVAL;
		return -1;
	}
	if (*align == 0)
		*align = natural_align(size);
	else if (*align < RTE_PCPU_MIN_ALIGN)
		*align = RTE_PCPU_MIN_ALIGN;
	return 0;
}

static int
ensure_init(void)
{
	if (likely(__atomic_load_n(&rte_pcpu_shared.initialised,
			__ATOMIC_ACQUIRE)))
		return 0;
	if (rte_pcpu_init(NULL) == 0 || rte_errno == EALREADY)
		return 0;
	return -1;
}

void
rte_pcpu_copies_rebuild(struct rte_pcpu_copies *cp)
{
	unsigned int n = 0, w;
	uint64_t m;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++) {
		m = __atomic_load_n(&rte_pcpu_shared.lcore_mask[w],
			__ATOMIC_ACQUIRE);
		cp->mask[w] = m;
		for (; m != 0; m &= m - 1)
			cp->offs[n++] = (uintptr_t)(w * 64 +
				(unsigned int)__builtin_ctzll(m)) <<
				rte_pcpu_shared.unit_shift;
	}
	cp->nr = n;
}

void
pcpu_zero_copies(void *handle, size_t size)
{
	unsigned int lcore_id;

	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1))
		memset(rte_pcpu_lcore_ptr(lcore_id, handle), 0, size);
}

/*
 * Frees only mark that memory can be given back (they make no system
 * call); the allocation slow path, which holds the mutex anyway, does the
 * work, as does rte_pcpu_reclaim().
 */
static void
balance_if_needed(void)
{
	if (__atomic_load_n(&g.need_balance, __ATOMIC_RELAXED))
		balance(0);
}

/* The same from the fast path, only if nobody holds the mutex. */
static void
balance_if_free(void)
{
	if (__atomic_load_n(&g.need_balance, __ATOMIC_RELAXED) &&
	    pthread_mutex_trylock(&g.mutex) == 0) {
		balance(0);
		pthread_mutex_unlock(&g.mutex);
	}
}

void *
pcpu_alloc_slow(size_t size, size_t align)
{
	uint32_t bits, align_bits;
	int dirty;
	void *h;

	bits = (uint32_t)(RTE_ALIGN_CEIL(size, PCPU_MIN_ALLOC_SIZE) >>
		PCPU_MIN_ALLOC_SHIFT);
	align_bits = (uint32_t)(align >> PCPU_MIN_ALLOC_SHIFT);
	h = alloc_fast(size, bits, align_bits, &dirty);
	if (h == NULL) {
		pthread_mutex_lock(&g.mutex);
		balance_if_needed();
		h = alloc_area(size, bits, align_bits, 1, &dirty);
		if (h == NULL) {
			index_lock();
			g.nr_alloc_fail++;
			index_unlock();
		}
		pthread_mutex_unlock(&g.mutex);
	} else {
		balance_if_free();
	}
	if (h != NULL)
		pcpu_asan_unpoison(h, size);
	if (h != NULL && dirty)
		pcpu_zero_copies(h, size);
	return h;
}

unsigned int
pcpu_alloc_bulk_slow(size_t size, size_t align, void **objs, unsigned int n,
		int user)
{
	int dirty[BULK_GROUP];
	uint32_t bits, align_bits;
	unsigned int i = 0, j, k;

	bits = (uint32_t)(RTE_ALIGN_CEIL(size, PCPU_MIN_ALLOC_SIZE) >>
		PCPU_MIN_ALLOC_SHIFT);
	align_bits = (uint32_t)(align >> PCPU_MIN_ALLOC_SHIFT);
	while (i < n) {
		/* groups, so the zero plans fit on the stack */
		pthread_mutex_lock(&g.mutex);
		balance_if_needed();
		for (j = 0; j < BULK_GROUP && i + j < n; j++) {
			objs[i + j] = alloc_area(size, bits, align_bits, user,
				&dirty[j]);
			if (objs[i + j] == NULL)
				break;
		}
		pthread_mutex_unlock(&g.mutex);
		for (k = 0; k < j; k++) {
			pcpu_asan_unpoison(objs[i + k], size);
			if (dirty[k])
				pcpu_zero_copies(objs[i + k], size);
		}
		i += j;
		if (j < BULK_GROUP && i < n)
			break;
	}
	return i;
}

void *
rte_pcpu_alloc(size_t size, size_t align)
{
	if (ensure_init() != 0)
		return NULL;
	if (alloc_args(size, &align) != 0) {
		index_lock();
		g.nr_alloc_fail++;
		index_unlock();
		return NULL;
	}
	/* small sizes: the calling lcore's cache bucket (pcpu_cache.c) */
	return pcpu_cache_alloc(size, align);
}

/* Whether a chunk should be set aside for depopulation (Linux 5.14). */
static int
should_isolate(const struct pcpu_chunk *c)
{
	uint32_t quarter = RTE_MAX(c->nr_pages / 4, 1u);

	if (c->isolated || chunk_is_free(c))
		return 0;
	return c->nr_empty_pop_pages >= quarter &&
		g.empty_pop_pages > g.reserve + c->nr_empty_pop_pages;
}

/* Split a handle into chunk and bit; NULL if outside the area. Lock held. */
static struct pcpu_chunk *
handle_to_chunk(const void *handle, uint32_t *bit)
{
	uintptr_t h = (uintptr_t)handle;
	uint64_t off;

	if (h < g.arena.base || h - g.arena.base >= g.arena.unit_stride ||
	    (h & (PCPU_MIN_ALLOC_SIZE - 1)) != 0)
		return NULL;
	off = h - g.arena.base;
	*bit = (uint32_t)((off & (chunk_bytes() - 1)) >> PCPU_MIN_ALLOC_SHIFT);
	return g.chunks[off >> g.chunk_shift];
}

static inline int
pool_owned(const struct pcpu_chunk *c, uint32_t bit)
{
	return c->pool_map != NULL &&
		(c->pool_map[bit / 64] >> (bit % 64) & 1) != 0;
}

/* After a free in @p c whose contig hint was @p contig and empty page
 * count @p empty before: slot, spare chunks, isolation. Spinlock held. */
static void
after_free(struct pcpu_chunk *c, uint32_t contig, uint32_t empty)
{
	/* the slot follows the contig hint (pcpu_chunk_slot()): as Linux,
	 * move only when the slot it asks for changes; while the hints are
	 * stale it follows the free bytes, which every free changes */
	if (c->chunk_md.contig_hint != contig || chunk_is_free(c) ||
	    pcpu_chunk_hints_stale(c))
		chunk_relocate(c);
	if (chunk_is_free(c)) {
		if (TAILQ_FIRST(&g.lists[LIST_FREE]) != c ||
		    TAILQ_NEXT(c, next) != NULL)
			g.need_balance = 1;
	} else if (c->nr_empty_pop_pages != empty && should_isolate(c)) {
		/* only a free that emptied a page can make it qualify */
		chunk_move(c, LIST_TO_DEPOP, 0);
		c->isolated = 1;
		g.need_balance = 1;
	}
}

/*
 * Apply the deferred frees of the open block to its hints, the chunk's
 * hints, the page counts and the chunk's slot. Spinlock held. Everything
 * that reads hints or page counts calls this first.
 */
static void
settle_open(void)
{
	struct pcpu_chunk *c = g.open.c;
	uint32_t contig, before;

	if (c == NULL)
		return;
	contig = c->chunk_md.contig_hint;
	before = c->nr_empty_pop_pages;
	pcpu_chunk_settle(c, g.open.block, g.open.n <= PCPU_SETTLE_REPLAY_MAX ?
		g.open.offs : NULL, g.open.n);
	empty_track(c, before);
	g.open.c = NULL;
	g.open.n = 0;
	after_free(c, contig, before);
}

/* Deferred frees are about to go to @p block of @p c: settle those of
 * any other block first. Spinlock held. */
static inline void
open_block(struct pcpu_chunk *c, uint32_t block)
{
	if (g.open.c != c || g.open.block != block)
		settle_open();
}

/* @p k deferred frees went to @p block of @p c, the first at chunk bit
 * @p bit (kept for an exact replay while there is only one). A chunk that
 * became free settles at once. Spinlock held. */
static inline void
open_add(struct pcpu_chunk *c, uint32_t block, uint32_t bit, uint32_t k)
{
	g.open.c = c;
	g.open.block = block;
	if (g.open.n < PCPU_SETTLE_REPLAY_MAX)
		g.open.offs[g.open.n] = bit;
	g.open.n += k;
	if (unlikely(chunk_is_free(c)))
		settle_open();
}

/* free_locked() of an object that spans blocks: freed exactly, out of
 * line. */
static __rte_noinline int
free_across_blocks(struct pcpu_chunk *c, uint32_t bit)
{
	uint32_t contig, empty;
	int bits;

	settle_open();
	contig = c->chunk_md.contig_hint;
	empty = c->nr_empty_pop_pages;
	bits = chunk_free_tracked(c, bit);
	after_free(c, contig, empty);
	return bits;
}

/*
 * Free one object. Spinlock held. Returns its bits, or -1 (not a live
 * allocation) or -2 (a pool's object). The caller runs pcpu_freed_hook
 * before it lets go of the lock.
 *
 * Frees in one block in a row only clear their map bits; the block's hint
 * update waits until another block is touched or anything needs the hints
 * (settle_open()), so a run of frees rescans a block once instead of
 * updating its hints per object.
 */
static __rte_always_inline int
free_locked(void *handle)
{
	struct pcpu_chunk *c;
	uint32_t bit = 0, block;
	int bits;

	c = handle_to_chunk(handle, &bit);
	if (unlikely(c == NULL))
		return -1;
	if (unlikely(pool_owned(c, bit)))
		return -2;
	block = bit / PCPU_BLOCK_BITS;
	open_block(c, block);
	bits = chunk_free_deferred(c, bit);
	if (unlikely(bits == -2))
		bits = free_across_blocks(c, bit);
	else if (likely(bits > 0))
		open_add(c, block, bit, 1);
	if (unlikely(bits < 0))
		return -1;
	/* under the lock: before anyone can allocate the space again */
	pcpu_asan_poison(handle, (size_t)bits << PCPU_MIN_ALLOC_SHIFT);
	g.nr_dealloc++;
	return bits;
}

/* One log line for a refused free (free_locked() returned @p why). */
static void
free_reject(const void *handle, int why)
{
	if (why == -2)
		PCPU_LOG(ERR, "free: %p belongs to an rte_pcpu_mempool: give it "
			"back with rte_pcpu_mempool_put()", handle);
	else
		PCPU_LOG(ERR, "free: %p is not a live allocation", handle);
	rte_errno = EINVAL;
}

int
pcpu_pool_own(void * const *handles, unsigned int n, int own)
{
	struct pcpu_chunk *c;
	unsigned int i;
	uint32_t bit = 0;
	int ret = 0;

	index_lock();
	for (i = 0; i < n; i++) {
		c = handle_to_chunk(handles[i], &bit);
		if (c == NULL || pcpu_chunk_obj_bits(c, bit) == 0) {
			ret = -EINVAL;
			continue;
		}
		if (c->pool_map == NULL) {
			if (!own)
				continue;
			/* under the spinlock: rare (once per chunk) */
			c->pool_map = calloc(1, granule_map_len(c));
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
	index_unlock();
	return ret;
}

int
pcpu_free_slow(void *handle, size_t *size, int tagged)
{
	int bits;

	index_lock();
	bits = free_locked(handle);
	if (tagged && bits >= 0 && pcpu_freed_hook != NULL)
		pcpu_freed_hook(&handle, 1);
	index_unlock();
	if (bits < 0) {
		free_reject(handle, bits);
		return -1;
	}
	if (size != NULL)
		*size = (size_t)bits << PCPU_MIN_ALLOC_SHIFT;
	return 0;
}

/* ASan: poison the runs of @p freed, bits of the map word that starts at
 * unit address @p base. Spinlock held. */
static void
poison_word_runs(uintptr_t base, uint64_t freed)
{
	while (freed != 0) {
		uint32_t s = (uint32_t)__builtin_ctzll(freed);
		uint32_t e = s;

		while (e < 64 && (freed >> e & 1))
			e++;
		pcpu_asan_poison((void *)(base + (s << PCPU_MIN_ALLOC_SHIFT)),
			(size_t)(e - s) << PCPU_MIN_ALLOC_SHIFT);
		freed &= e < 64 ? ~((UINT64_C(1) << e) - 1) : 0;
	}
}

/*
 * Free the leading handles of @p h (@p n of them) that lie in one block
 * of one chunk, if there are at least two: the objects that start in one
 * map word go in one map update, and the block's deferred-free record is
 * written once (objects flushed from a cache come in runs of nearby
 * addresses). Spinlock held. Returns how many leading handles were freed
 * (a word's objects all or none); free_locked() sorts out the handle that
 * stopped the group alone (one not live, one that reaches past its map
 * word, a pool's). 0: no group (h[1] is in another block, or h[0] in no
 * chunk); -1: the first word failed, nothing was freed.
 */
static int
free_block_group(void * const *h, unsigned int n)
{
	/* a map word covers 256 B of a unit, a block 4 KiB, both aligned */
	const uintptr_t block_bytes = PCPU_BLOCK_BITS << PCPU_MIN_ALLOC_SHIFT;
	uintptr_t off0, off, wbase;
	struct pcpu_chunk *c;
	uint32_t bit = 0, w, block, bits = 0;
	uint64_t starts, m, freed;
	unsigned int j, k, done = 0;

	/* two handles in different blocks: nothing to share */
	if (n < 2)
		return 0;
	off0 = (uintptr_t)h[0] - g.arena.base;
	if ((off0 ^ ((uintptr_t)h[1] - g.arena.base)) >= block_bytes ||
	    (c = handle_to_chunk(h[0], &bit)) == NULL)
		return 0;
	block = bit / PCPU_BLOCK_BITS;
	for (j = 0; j < n; j = k) {
		off = (uintptr_t)h[j] - g.arena.base;
		if ((off ^ off0) >= block_bytes ||
		    (off & (PCPU_MIN_ALLOC_SIZE - 1)) != 0)
			break;
		w = (block * PCPU_BLOCK_BITS + (uint32_t)((off &
			(block_bytes - 1)) >> PCPU_MIN_ALLOC_SHIFT)) / 64;
		starts = UINT64_C(1) << ((off >> PCPU_MIN_ALLOC_SHIFT) % 64);
		/* the handles after it in the same 256 B window: same word */
		for (k = j + 1; k < n; k++) {
			uintptr_t o = (uintptr_t)h[k] - g.arena.base;

			if ((o ^ off) >= (64u << PCPU_MIN_ALLOC_SHIFT) ||
			    (o & (PCPU_MIN_ALLOC_SIZE - 1)) != 0)
				break;
			m = UINT64_C(1) << ((o >> PCPU_MIN_ALLOC_SHIFT) % 64);
			/* a repeated handle ends the run (refused alone) */
			if ((starts & m) != 0)
				break;
			starts |= m;
		}
		if (c->pool_map != NULL && (c->pool_map[w] & starts) != 0)
			break;
		if (done == 0)
			open_block(c, block);
		freed = chunk_word_clear(c, w, starts);
		if (freed == 0)
			break;
		bits += (uint32_t)__builtin_popcountll(freed);
		if (PCPU_ASAN_ON) {
			/* under the lock: before anyone can allocate the space
			 * again */
			wbase = (uintptr_t)h[j] - ((((off >>
				PCPU_MIN_ALLOC_SHIFT)) % 64) <<
				PCPU_MIN_ALLOC_SHIFT);
			poison_word_runs(wbase, freed);
		}
		done += k - j;
	}
	if (done == 0)
		return -1;
	chunk_count_free_n(c, bits, done, block);
	/* one object is h[0] at bit (the settle can replay it); more: the
	 * settle rescans the block */
	open_add(c, block, bit, done);
	g.nr_dealloc += done;
	return (int)done;
}

unsigned int
pcpu_free_bulk_slow(void * const *handles, unsigned int n, int tagged)
{
	unsigned int i = 0, done = 0;
	int k, bits, groups = 1;

	index_lock();
	while (i < n) {
		/* the objects of one flush or pool share a size: once one
		 * does not fit a map word (or is refused), the rest go one at
		 * a time */
		k = groups ? free_block_group(handles + i, n - i) : 0;
		if (k < 0)
			groups = 0;
		if (k > 0) {
			i += (unsigned int)k;
			done += (unsigned int)k;
			continue;
		}
		bits = free_locked(handles[i]);
		if (bits >= 0)
			done++;
		else
			free_reject(handles[i], bits);
		i++;
	}
	/* still under the lock: before anyone can allocate the space again */
	if (tagged && pcpu_freed_hook != NULL)
		pcpu_freed_hook(handles, n);
	index_unlock();
	return done;
}

int
pcpu_free_untagged(void *handle)
{
	if (handle == NULL)
		return 0;
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE)) {
		PCPU_LOG(ERR, "free: %p: allocator not initialised", handle);
		rte_errno = EINVAL;
		return -1;
	}
	return pcpu_free_slow(handle, NULL, 0);
}

int
rte_pcpu_free(void *handle)
{
	/* into the calling lcore's cache; NULL, handles the caches never
	 * tagged and everything while they are off go through
	 * pcpu_free_untagged() (pcpu_cache.c) */
	return pcpu_cache_free(handle);
}

/* Depopulate empty pages of an isolated chunk, last page first, while the
 * global count exceeds the reserve. Mutex and spinlock held; returns with
 * both held. Returns pages given back. */
static uint64_t
depopulate_isolated(struct pcpu_chunk *c)
{
	uint32_t rs, re, pe = c->nr_pages;
	uint64_t pages = 0;

	while (g.empty_pop_pages > g.reserve && c->nr_empty_pop_pages > 0 &&
	       pcpu_chunk_prev_empty_pop(c, 0, pe, &rs, &re)) {
		uint32_t n = re - rs, before = c->nr_empty_pop_pages;

		/* keep the reserve */
		if (g.empty_pop_pages - n < g.reserve) {
			rs = re - (uint32_t)(g.empty_pop_pages - g.reserve);
			n = re - rs;
		}
		pcpu_chunk_set_depopulated(c, rs, re);
		empty_track(c, before);
		g.populated_pages -= n;
		/* the pages are marked unpopulated (an allocation there
		 * backs off to the mutex we hold) and empty (no free touches
		 * them): safe to drop the spinlock */
		index_unlock();
		depopulate_range(c, rs, re);
		index_lock();
		pages += n;
		pe = rs;
	}
	return pages;
}

/* Destroy the fully free chunks beyond one spare. Mutex and spinlock
 * held; returns with both held. Returns pages given back. */
static uint64_t
destroy_extra_free_chunks(void)
{
	struct pcpu_chunk *c, *tmp, *keep;
	uint64_t pages = 0;

	/* the spare is the one with the most populated pages: those are the
	 * reserve of empty pages, which destroying it would give back */
	keep = TAILQ_FIRST(&g.lists[LIST_FREE]);
	TAILQ_FOREACH(c, &g.lists[LIST_FREE], next)
		if (c->nr_populated > keep->nr_populated)
			keep = c;
	if (keep != NULL && keep != TAILQ_FIRST(&g.lists[LIST_FREE]))
		chunk_move(keep, LIST_FREE, 1);
	c = TAILQ_FIRST(&g.lists[LIST_FREE]);
	while (c != NULL && (tmp = TAILQ_NEXT(c, next)) != NULL) {
		TAILQ_REMOVE(&g.lists[LIST_FREE], tmp, next);
		g.chunks[tmp->index] = NULL;
		free(g.used[tmp->index]);
		g.used[tmp->index] = NULL;
		g.nr_chunks--;
		g.populated_pages -= tmp->nr_populated;
		g.empty_pop_pages -= tmp->nr_empty_pop_pages;
		index_unlock();
		pages += chunk_destroy(tmp);
		index_lock();
		c = TAILQ_FIRST(&g.lists[LIST_FREE]);
	}
	return pages;
}

/*
 * Give memory back. Mutex held. Destroys fully free chunks beyond one
 * spare, depopulates isolated chunks (explicit: every chunk with empty
 * pages) down to the reserve of empty pages and sidelines them, then
 * destroys the chunks that turned out fully free beyond the spare.
 */
static uint64_t
balance(int explicit)
{
	struct pcpu_chunk *c, *tmp;
	uint64_t pages = 0, bytes_per_page;

	index_lock();
	g.need_balance = 0;
	settle_open();
	bytes_per_page = g.page_size * g.nr_lcores;
	/* first, so that their pages are not depopulated one by one */
	pages += destroy_extra_free_chunks();
	if (explicit) {
		int l;

		for (l = 0; l < NR_LISTS; l++) {
			if (l == LIST_TO_DEPOP)
				continue;
			for (c = TAILQ_FIRST(&g.lists[l]); c != NULL; c = tmp) {
				tmp = TAILQ_NEXT(c, next);
				if (c->nr_empty_pop_pages == 0)
					continue;
				chunk_move(c, LIST_TO_DEPOP, 0);
				c->isolated = 1;
			}
		}
	}
	while ((c = TAILQ_FIRST(&g.lists[LIST_TO_DEPOP])) != NULL) {
		pages += depopulate_isolated(c);
		c->isolated = 0;
		if (chunk_is_free(c))
			chunk_move(c, LIST_FREE, 0);
		else
			chunk_move(c, LIST_SIDELINED, 0);
	}
	/* chunks found free while isolated: one call leaves one spare */
	pages += destroy_extra_free_chunks();
	index_unlock();
	return pages * bytes_per_page;
}

int64_t
rte_pcpu_reclaim(void)
{
	uint64_t bytes;

	pthread_mutex_lock(&g.mutex);
	if (!g.initialised) {
		pthread_mutex_unlock(&g.mutex);
		rte_errno = EALREADY;
		return -1;
	}
	bytes = balance(1);
	pthread_mutex_unlock(&g.mutex);
	return (int64_t)bytes;
}

/*
 * Populate lcore @p lcore_id's copy of the populated pages of chunk @p c
 * below page @p limit. Mutex held. Returns 0 or -errno.
 */
static int
lcore_pages(struct pcpu_chunk *c, unsigned int lcore_id, uint32_t limit)
{
	uint32_t rs, re;
	int ret;

	for (rs = 0; rs < limit; rs = re) {
		if (!pcpu_chunk_page_populated(c, rs)) {
			re = rs + 1;
			continue;
		}
		for (re = rs; re < limit && pcpu_chunk_page_populated(c, re);
		     re++)
			;
		ret = populate_lcore(c, lcore_id, rs, re);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Lcore callbacks: give an lcore memory, keep it when it leaves. */
static int
lcore_init_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	uint32_t idx;
	unsigned int socket;
	int ret = 0;

	pthread_mutex_lock(&g.mutex);
	if (!g.initialised || rte_pcpu_lcore_has_memory(lcore_id))
		goto out;
	socket = rte_lcore_to_socket_id(lcore_id);
	g.lcore_socket[lcore_id] = socket < RTE_MAX_NUMA_NODES ?
		(int)socket : -1;
	if (g.conf.max_populated != 0 &&
	    g.populated_pages * g.page_size * (g.nr_lcores + 1) >
	    g.conf.max_populated) {
		PCPU_LOG(ERR, "lcore %u: populated-bytes limit reached",
			lcore_id);
		ret = -1;
		goto out;
	}
	for (idx = 0; idx < g.nr_chunk_max; idx++) {
		struct pcpu_chunk *c = g.chunks[idx];

		if (c == NULL)
			continue;
		ret = chunk_map_lcore(c, lcore_id);
		if (ret == 0)
			ret = lcore_pages(c, lcore_id, c->nr_pages);
		if (ret == 0)
			continue;
		PCPU_LOG(ERR, "lcore %u: cannot populate: %s", lcore_id,
			strerror(-ret));
		do {
			if (g.chunks[idx] != NULL)
				chunk_unmap_lcore(g.chunks[idx], lcore_id);
		} while (idx-- > 0);
		ret = -1;
		goto out;
	}
	index_lock();
	g.nr_lcores++;
	g.lcores_on_socket[g.lcore_socket[lcore_id] < 0 ? 0 :
		g.lcore_socket[lcore_id]]++;
	if (pages_to_bytes(g.populated_pages) > g.max_populated_bytes)
		g.max_populated_bytes = pages_to_bytes(g.populated_pages);
	__atomic_fetch_or(&rte_pcpu_shared.lcore_mask[lcore_id / 64],
		UINT64_C(1) << (lcore_id % 64), __ATOMIC_RELEASE);
	index_unlock();
out:
	pthread_mutex_unlock(&g.mutex);
	return ret;
}

/* Hook the cache layer sets to drop its tags of freed objects. */
void (*pcpu_freed_hook)(void * const *handles, unsigned int n);

/* Hook the cache layer sets to flush a departing lcore's caches. */
void (*pcpu_lcore_leave_hook)(unsigned int lcore_id);

static void
lcore_uninit_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	/* the copies stay: their values still count in sums */
	if (pcpu_lcore_leave_hook != NULL)
		pcpu_lcore_leave_hook(lcore_id);
}

static int
conf_check(struct rte_pcpu_conf *c)
{
	if ((c->flags & ~RTE_PCPU_F_NO_CACHE) != 0) {
		PCPU_LOG(ERR, "init: flags %#x not supported", c->flags);
		return -1;
	}
	if (c->page_policy > RTE_PCPU_PAGE_NORMAL) {
		PCPU_LOG(ERR, "init: bad page policy %d", (int)c->page_policy);
		return -1;
	}
	if (c->unit_stride == 0)
		c->unit_stride = RTE_PCPU_DEFAULT_UNIT_STRIDE;
	if (c->chunk_size == 0)
		c->chunk_size = RTE_MIN(RTE_PCPU_DEFAULT_CHUNK_SIZE,
			c->unit_stride);
	if (!pcpu_is_pow2(c->unit_stride) ||
	    c->unit_stride > MAX_UNIT_STRIDE) {
		PCPU_LOG(ERR, "init: unit stride %" PRIu64
			" not a power of two up to %" PRIu64,
			c->unit_stride, MAX_UNIT_STRIDE);
		return -1;
	}
	if (!pcpu_is_pow2(c->chunk_size) ||
	    c->chunk_size < RTE_PCPU_MAX_SIZE ||
	    c->chunk_size > RTE_MIN(c->unit_stride, MAX_CHUNK_SIZE)) {
		PCPU_LOG(ERR, "init: chunk size %" PRIu64
			" not a power of two in %u..min(unit stride, %" PRIu64
			")", c->chunk_size, RTE_PCPU_MAX_SIZE,
			MAX_CHUNK_SIZE);
		return -1;
	}
	if (c->empty_pages_reserve > c->unit_stride / PCPU_SMALL_PAGE_SIZE) {
		PCPU_LOG(ERR, "init: empty_pages_reserve %u above the pages of "
			"a unit", c->empty_pages_reserve);
		return -1;
	}
	if (c->page_policy == RTE_PCPU_PAGE_HUGE &&
	    c->chunk_size < PCPU_HUGE_PAGE_SIZE) {
		PCPU_LOG(ERR, "init: hugepages need chunks of at least 2 MiB");
		return -1;
	}
	return 0;
}

int
pcpu_cache_disabled(void)
{
	return (g.conf.flags & RTE_PCPU_F_NO_CACHE) != 0;
}

int
rte_pcpu_init(const struct rte_pcpu_conf *conf)
{
	struct rte_pcpu_conf c = { 0 };
	char limit[32];
	uint64_t free_huge;
	void *cb;
	int l, ret;

	if (conf != NULL)
		c = *conf;
	if (rte_lcore_count() == 0) {
		PCPU_LOG(ERR, "init: EAL is not initialised");
		rte_errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&g.mutex);
	if (g.initialised) {
		pthread_mutex_unlock(&g.mutex);
		rte_errno = EALREADY;
		return -1;
	}
	if (conf_check(&c) != 0) {
		pthread_mutex_unlock(&g.mutex);
		rte_errno = EINVAL;
		return -1;
	}
	free_huge = pcpu_arena_free_hugepages();
	switch (c.page_policy) {
	case RTE_PCPU_PAGE_HUGE:
		g.huge = 1;
		break;
	case RTE_PCPU_PAGE_NORMAL:
		g.huge = 0;
		break;
	default:
		g.huge = rte_eal_has_hugepages() && free_huge > 0 &&
			c.chunk_size >= PCPU_HUGE_PAGE_SIZE;
		break;
	}
	g.page_size = g.huge ? PCPU_HUGE_PAGE_SIZE : PCPU_SMALL_PAGE_SIZE;
	g.reserve = c.empty_pages_reserve != 0 ? c.empty_pages_reserve :
		(g.huge ? 1 : 4);
	ret = pcpu_arena_reserve(&g.arena, c.unit_stride);
	if (ret != 0) {
		pthread_mutex_unlock(&g.mutex);
		PCPU_LOG(ERR, "init: cannot reserve %" PRIu64
			" bytes of address space", c.unit_stride * RTE_MAX_LCORE);
		rte_errno = ENOMEM;
		return -1;
	}
	g.nr_chunk_max = (uint32_t)(c.unit_stride / c.chunk_size);
	g.chunks = calloc(g.nr_chunk_max, sizeof(*g.chunks));
	g.used = calloc(g.nr_chunk_max, sizeof(*g.used));
	if (g.chunks == NULL || g.used == NULL) {
		free(g.chunks);
		free(g.used);
		pcpu_arena_release(&g.arena);
		pthread_mutex_unlock(&g.mutex);
		rte_errno = ENOMEM;
		return -1;
	}
	g.conf = c;
	g.chunk_shift = (uint32_t)rte_log2_u64(c.chunk_size);
	for (l = 0; l < NR_LISTS; l++)
		TAILQ_INIT(&g.lists[l]);
	g.min_alloc_size = UINT64_MAX;
	rte_pcpu_shared.base = g.arena.base;
	rte_pcpu_shared.unit_shift = g.arena.unit_shift;
	g.initialised = 1;
	__atomic_store_n(&rte_pcpu_shared.initialised, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g.mutex);

	if (c.max_populated != 0)
		snprintf(limit, sizeof(limit), "%" PRIu64 " bytes",
			c.max_populated);
	else
		snprintf(limit, sizeof(limit), "none");
	PCPU_LOG(INFO, "%" PRIu64 " KiB of address space per lcore at %p, "
		"chunks of %" PRIu64 " KiB, %s pages (%" PRIu64
		" hugepages free), populated-bytes limit %s",
		c.unit_stride >> 10, (void *)g.arena.base, c.chunk_size >> 10,
		g.huge ? "2 MiB" : "4 KiB", free_huge, limit);

	/* outside the mutex: EAL calls lcore_init_cb for existing lcores */
	cb = rte_lcore_callback_register("pcpu_mempool", lcore_init_cb,
		lcore_uninit_cb, NULL);
	if (cb == NULL) {
		PCPU_LOG(ERR, "init: cannot give the lcores memory");
		rte_pcpu_cleanup();
		rte_errno = ENOMEM;
		return -1;
	}
	pthread_mutex_lock(&g.mutex);
	g.lcore_cb = cb;
	pthread_mutex_unlock(&g.mutex);
	return 0;
}

/* Hook the pool layer sets to release its state before cleanup. */
void (*pcpu_cleanup_hook)(void);

int
rte_pcpu_cleanup(void)
{
	void *cb;
	uint32_t idx;

	pthread_mutex_lock(&g.mutex);
	if (!g.initialised) {
		pthread_mutex_unlock(&g.mutex);
		rte_errno = EALREADY;
		return -1;
	}
	cb = g.lcore_cb;
	g.lcore_cb = NULL;
	pthread_mutex_unlock(&g.mutex);
	if (pcpu_cleanup_hook != NULL)
		pcpu_cleanup_hook();
	if (cb != NULL)
		rte_lcore_callback_unregister(cb);

	pthread_mutex_lock(&g.mutex);
	if (cur_alloc() != 0)
		PCPU_LOG(WARNING, "cleanup: %" PRIu64
			" objects still allocated become invalid",
			cur_alloc());
	__atomic_store_n(&rte_pcpu_shared.initialised, 0, __ATOMIC_RELEASE);
	for (idx = 0; idx < g.nr_chunk_max; idx++) {
		if (g.chunks[idx] == NULL)
			continue;
		free(g.used[idx]);
		free(g.chunks[idx]->pool_map);
		pcpu_chunk_fini(g.chunks[idx]);
		free(g.chunks[idx]);
	}
	free(g.chunks);
	free(g.used);
	pcpu_arena_release(&g.arena);
	memset(&rte_pcpu_shared, 0, sizeof(rte_pcpu_shared));
	/* reset everything but the locks */
	memset((char *)&g + offsetof(struct pcpu_global, initialised), 0,
		sizeof(g) - offsetof(struct pcpu_global, initialised));
	pthread_mutex_unlock(&g.mutex);
	return 0;
}

void
pcpu_cached_add(int64_t objs, int64_t bytes)
{
	index_lock();
	g.cached_objs += objs;
	g.cached_bytes += bytes;
	index_unlock();
}

int
rte_pcpu_stats_get(struct rte_pcpu_stats *s)
{
	struct pcpu_cache_counters cc;
	int i;

	if (s == NULL) {
		rte_errno = EINVAL;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&g.mutex);
	if (!g.initialised) {
		pthread_mutex_unlock(&g.mutex);
		return 0;
	}
	/* lock-free sum of the lcore caches' counters */
	pcpu_cache_counters(&cc);
	index_lock();
	settle_open();
	/*
	 * User-level counts: the chunks count refills into caches as
	 * allocations and flushes as frees; users see the objects the caches
	 * hand out and take back. Exact when no cache runs meanwhile.
	 */
	s->nr_alloc = g.nr_alloc - cc.refilled + cc.user_alloc;
	s->nr_dealloc = g.nr_dealloc - cc.flushed + cc.user_free;
	s->nr_cur_alloc = s->nr_alloc >= s->nr_dealloc ?
		s->nr_alloc - s->nr_dealloc : 0;
	s->nr_max_alloc = g.nr_max_alloc;
	s->nr_alloc_fail = g.nr_alloc_fail + cc.alloc_fail;
	s->nr_chunks = g.nr_chunks;
	s->nr_max_chunks = g.nr_max_chunks;
	/* sizes users asked for: of the chunks directly, and of caches */
	s->min_alloc_size = RTE_MIN(g.min_alloc_size, cc.min_size);
	if (s->min_alloc_size == UINT64_MAX)
		s->min_alloc_size = 0;
	s->max_alloc_size = RTE_MAX(g.max_alloc_size, cc.max_size);
	s->populated_bytes = pages_to_bytes(g.populated_pages);
	s->max_populated_bytes = g.max_populated_bytes;
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		s->populated_bytes_socket[i] = g.populated_pages *
			g.page_size * g.lcores_on_socket[i];
	s->populated_pages = g.populated_pages;
	s->empty_pop_pages = g.empty_pop_pages;
	s->page_size = g.page_size;
	s->max_populated = g.conf.max_populated;
	s->unit_stride = g.conf.unit_stride;
	s->chunk_size = g.conf.chunk_size;
	s->nr_lcores = g.nr_lcores;
	s->nr_huge_fallback = g.nr_huge_fallback;
	s->cached_objs = g.cached_objs + cc.cached_objs;
	s->cached_bytes = g.cached_bytes + cc.cached_bytes;
	index_unlock();
	pthread_mutex_unlock(&g.mutex);
	return 0;
}

static const char *
list_name(int slot)
{
	switch (slot) {
	case LIST_SIDELINED:
		return "sidelined";
	case LIST_FREE:
		return "free";
	case LIST_TO_DEPOP:
		return "to_depopulate";
	default:
		return "active";
	}
}

int
rte_pcpu_dump(FILE *f)
{
	struct rte_pcpu_stats s;
	struct pcpu_chunk_frag fr;
	uint32_t idx;

	if (f == NULL)
		f = stdout;
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE)) {
		rte_errno = EALREADY;
		return -1;
	}
	rte_pcpu_stats_get(&s);
	fprintf(f, "pcpu: unit stride %" PRIu64 " chunk %" PRIu64
		" page %" PRIu64 " lcores %u limit %" PRIu64 "\n",
		s.unit_stride, s.chunk_size, s.page_size, s.nr_lcores,
		s.max_populated);
	fprintf(f, "  nr_alloc %" PRIu64 " nr_dealloc %" PRIu64
		" nr_cur_alloc %" PRIu64 " nr_max_alloc %" PRIu64
		" nr_alloc_fail %" PRIu64 "\n", s.nr_alloc, s.nr_dealloc,
		s.nr_cur_alloc, s.nr_max_alloc, s.nr_alloc_fail);
	fprintf(f, "  nr_chunks %u nr_max_chunks %u min_alloc %" PRIu64
		" max_alloc %" PRIu64 "\n", s.nr_chunks, s.nr_max_chunks,
		s.min_alloc_size, s.max_alloc_size);
	fprintf(f, "  populated %" PRIu64 " bytes (max %" PRIu64
		"), %" PRIu64 " pages per lcore, %" PRIu64
		" empty, huge fallbacks %u, cached %" PRIu64 " objs %" PRIu64
		" bytes\n", s.populated_bytes, s.max_populated_bytes,
		s.populated_pages, s.empty_pop_pages, s.nr_huge_fallback,
		s.cached_objs, s.cached_bytes);
	pthread_mutex_lock(&g.mutex);
	index_lock();
	settle_open();
	for (idx = 0; idx < g.nr_chunk_max; idx++) {
		struct pcpu_chunk *c = g.chunks[idx];

		if (c == NULL)
			continue;
		/* exact figures (a free may have left the hints stale) */
		pcpu_chunk_refresh(c);
		chunk_relocate(c);
		pcpu_chunk_frag_stats(c, &fr);
		fprintf(f, "  chunk %u (%s slot %d): nr_alloc %u free_bytes %u"
			" contig_bytes %u sum_frag %u max_frag %u first_bit %u"
			" min_alloc %u max_alloc %u pages %u/%u empty %u\n",
			c->index, list_name(c->slot), c->slot, fr.nr_alloc,
			fr.free_bytes, fr.contig_bytes, fr.sum_frag,
			fr.max_frag, fr.first_free, fr.min_alloc, fr.max_alloc,
			fr.populated_pages, c->nr_pages, fr.empty_pop_pages);
	}
	index_unlock();
	pthread_mutex_unlock(&g.mutex);
	return 0;
}

static int
list_holds(int slot, const struct pcpu_chunk *c)
{
	const struct pcpu_chunk *it;

	if (slot < 0 || slot >= NR_LISTS)
		return 0;
	TAILQ_FOREACH(it, &g.lists[slot], next)
		if (it == c)
			return 1;
	return 0;
}

#define AUDIT_FAIL(...) do { \
	PCPU_LOG(ERR, "audit: " __VA_ARGS__); \
	ret = -1; \
	goto out; \
} while (0)

/* Compare populated state with the real mappings of every lcore. */
static int
audit_mappings(const struct pcpu_chunk *c, char *msg, size_t len)
{
	unsigned int lcore_id;
	uint32_t ps, pe;
	uint64_t bad;

	for (lcore_id = rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = rte_pcpu_lcore_next(lcore_id + 1)) {
		for (ps = 0; ps < c->nr_pages; ps = pe) {
			int pop = pcpu_chunk_page_populated(c, ps);

			for (pe = ps + 1; pe < c->nr_pages &&
			     pcpu_chunk_page_populated(c, pe) == pop; pe++)
				;
			bad = pcpu_arena_check(&g.arena, lcore_id,
				page_off(c, ps),
				(uint64_t)(pe - ps) * g.page_size, g.page_size,
				pop);
			if (bad != 0) {
				snprintf(msg, len, "lcore %u page %" PRIu64
					" is %s but the map says %s", lcore_id,
					ps + bad - 1,
					pop ? "not backed" : "backed",
					pop ? "populated" : "unpopulated");
				return -1;
			}
		}
	}
	return 0;
}

/* Bytes of the live object starting at @p handle, 0 if none. Lock held. */
static uint32_t
audit_obj_bytes(const void *handle)
{
	struct pcpu_chunk *c;
	uint32_t bit = 0;

	c = handle_to_chunk(handle, &bit);
	return c != NULL ?
		pcpu_chunk_obj_bits(c, bit) << PCPU_MIN_ALLOC_SHIFT : 0;
}

/* Every bit of the pool map starts a live allocation. Lock held. */
static int
audit_pool_map(const struct pcpu_chunk *c, char *msg, size_t len)
{
	uint32_t w, bit;
	uint64_t m;

	if (c->pool_map == NULL)
		return 0;
	for (w = 0; w < (c->map_bits + 63) / 64; w++)
		for (m = c->pool_map[w]; m != 0; m &= m - 1) {
			bit = w * 64 + (uint32_t)__builtin_ctzll(m);
			if (pcpu_chunk_obj_bits(c, bit) == 0) {
				snprintf(msg, len, "pool map bit %u is not the "
					"start of a live allocation", bit);
				return -1;
			}
		}
	return 0;
}

int
rte_pcpu_audit(void)
{
	struct pcpu_cache_counters cc;
	uint64_t nr_alloc = 0, populated = 0, empty = 0, cached = 0;
	uint32_t idx, nr_chunks = 0;
	char msg[256];
	int ret = 0;

	pthread_mutex_lock(&g.mutex);
	if (!g.initialised) {
		pthread_mutex_unlock(&g.mutex);
		return 0;
	}
	index_lock();
	settle_open();
	for (idx = 0; idx < g.nr_chunk_max; idx++) {
		struct pcpu_chunk *c = g.chunks[idx];
		int want;

		if (c == NULL)
			continue;
		nr_chunks++;
		if (c->index != idx)
			AUDIT_FAIL("chunk %u records index %u", idx, c->index);
		if (pcpu_chunk_audit(c, msg, sizeof(msg)) != 0)
			AUDIT_FAIL("chunk %u: %s", idx, msg);
		if (!list_holds(c->slot, c))
			AUDIT_FAIL("chunk %u not on its list %d", idx, c->slot);
		if (c->isolated != (c->slot == LIST_TO_DEPOP))
			AUDIT_FAIL("chunk %u isolated %d but on list %s", idx,
				c->isolated, list_name(c->slot));
		want = chunk_is_free(c) ? LIST_FREE : pcpu_chunk_slot(c);
		if (c->slot != want && c->slot != LIST_SIDELINED &&
		    c->slot != LIST_TO_DEPOP &&
		    !(c->slot == 0 && want < SLOT_FAIL_THRESHOLD))
			AUDIT_FAIL("chunk %u in slot %d, its hint says %d",
				idx, c->slot, want);
		if (audit_mappings(c, msg, sizeof(msg)) != 0)
			AUDIT_FAIL("chunk %u: %s", idx, msg);
		if (audit_pool_map(c, msg, sizeof(msg)) != 0)
			AUDIT_FAIL("chunk %u: %s", idx, msg);
		nr_alloc += c->nr_alloc;
		populated += c->nr_populated;
		empty += c->nr_empty_pop_pages;
	}
	if (nr_chunks != g.nr_chunks)
		AUDIT_FAIL("%u chunks exist, counter says %u", nr_chunks,
			g.nr_chunks);
	if (nr_alloc != cur_alloc())
		AUDIT_FAIL("chunks hold %" PRIu64 " objects, counter says %"
			PRIu64, nr_alloc, cur_alloc());
	/* cache buckets: tags, contents, and user-live + cached == live */
	if (pcpu_cache_audit(audit_obj_bytes, &cached, msg, sizeof(msg)) != 0)
		AUDIT_FAIL("%s", msg);
	pcpu_cache_counters(&cc);
	if (cc.cached_objs != cached)
		AUDIT_FAIL("caches hold %" PRIu64 " objects, counted %" PRIu64,
			cached, cc.cached_objs);
	if ((g.nr_alloc - cc.refilled + cc.user_alloc) -
	    (g.nr_dealloc - cc.flushed + cc.user_free) + cached != nr_alloc)
		AUDIT_FAIL("user-live %" PRIu64 " + cached %" PRIu64
			" != %" PRIu64 " objects in chunks",
			(g.nr_alloc - cc.refilled + cc.user_alloc) -
			(g.nr_dealloc - cc.flushed + cc.user_free), cached,
			nr_alloc);
	if (g.cached_objs > cur_alloc())
		AUDIT_FAIL("caches hold %" PRIu64 " objects, only %" PRIu64
			" are allocated", g.cached_objs, cur_alloc());
	if (populated != g.populated_pages)
		AUDIT_FAIL("chunks have %" PRIu64 " populated pages, counter %"
			PRIu64, populated, g.populated_pages);
	if (empty != g.empty_pop_pages)
		AUDIT_FAIL("chunks have %" PRIu64 " empty pages, counter %"
			PRIu64, empty, g.empty_pop_pages);
	if (g.conf.max_populated != 0 &&
	    pages_to_bytes(g.populated_pages) > g.conf.max_populated)
		AUDIT_FAIL("populated %" PRIu64 " bytes above the limit %"
			PRIu64, pages_to_bytes(g.populated_pages),
			g.conf.max_populated);
out:
	index_unlock();
	pthread_mutex_unlock(&g.mutex);
	if (ret != 0)
		rte_errno = EFAULT;
	return ret;
}
