/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Size-class caches ("cache buckets"): per lcore, per size class, a cache
 * of free handles (the engine of pcpu_objcache.h) in front of the percpu
 * allocator.
 *
 * Fast path (alloc and free of a size the classes serve, on an EAL lcore,
 * a service lcore or a registered thread): one pop or push on the calling
 * lcore's own cache, one tag of the *tag map* (below), and a compare of
 * the object's owner with the owner of the class's current *run*. Nothing
 * shared is written except that tag.
 *
 * Runs (the owners' charges, pcpu_owner.h): each class of each lcore
 * counts its allocations and frees anyway (oc.nr_get, oc.nr_put); a run is
 * the allocations (or frees) since the owner last changed, all of one
 * owner, and costs nothing more per object. When an object of another
 * owner comes, the run is credited to its owner's counters on this lcore
 * and a run of the new owner starts; the idle scan (below) credits every
 * run, so a run is at most CACHE_EPOCH_OPS long. Readers of the owners'
 * figures add what runs hold (cache_owner_pending_add()).
 *
 * An owner with a limit has runs too, and its run of allocations holds
 * *credit*: objects reserved against the limit in advance, taken from the
 * lcore's stock of the owner's reservation (pcpu_owner.h) in batches, up
 * to oc.nr_get = run_get_end. Its run of frees keeps what it freed
 * reserved until a slow path gives it back: as credit to the run of
 * allocations (as Linux's refill_stock() turns an uncharge into stock),
 * or to the stock when the run ends or the class overflows. So an
 * allocation and a free of such an owner cost what they cost any owner,
 * but for one compare: the allocation pops first (its *claim*, counted in
 * oc.nr_get), then checks that the claim is within the credit; beyond it,
 * a slow path gives the run more credit (from the frees, else the stock),
 * or charges the object on its own, or takes the claim back at the limit.
 * A drain (an allocation refused on another lcore while stocks hold room,
 * an owner freed, an lcore arrived) takes credit and frees back while the
 * lcore keeps running its fast paths: the lcore changes run_get_end and
 * run_freed only inside its stock (the slow paths), and a drain lowers
 * run_get_end out of every claim's reach, runs a heavy fence (pcpu_fence.h:
 * claim, compiler barrier, load of the end on the fast path) and then
 * reads oc.nr_get: a claim that saw the old end is counted there and keeps
 * its credit, one that saw the lowered end waits in the slow path for the
 * drain to end and finds whether the drain kept its credit. A free that
 * changes the run of frees pushes after the change, inside the stock, so
 * a drain never counts another owner's object as a free of the run's.
 *
 * Slow paths (refill, flush, watermark changes) run on the same lcore and
 * move a batch to or from the allocator under its lock (pcpu_alloc_bulk(),
 * pcpu_alloc_free_bulk()), never inside the lcore's stock (a drain may
 * wait for it).
 *
 * Watermarks, per lcore and class (see the programmer's guide, "Caches and
 * Watermarks"): high, the cache's capacity; low (0: refills are
 * synchronous, so a reserve above 0 would only pin cold objects); and the
 * midpoint mid = (low + high) / 2. An alloc that finds the cache at or
 * below low refills it to mid; a free that takes it above high flushes the
 * oldest objects down to mid, keeping the most recently freed (hot) ones.
 *
 * A *mass free* is a run of frees into a class with no allocation from it
 * since its last overflow: the objects only pass through, so the overflow
 * flushes all of them, and until the next allocation from the class the
 * cache gathers a *streak* of up to CACHE_STREAK_BYTES (at least high, at
 * most the largest capacity) before each flush: one lock and one pass over
 * the chunk maps per streak instead of per high + 1 objects.
 *
 * high starts small (cache_init_high[]), doubles when an overflow is
 * followed by an underflow (the tcmalloc rule: a bigger cache would have
 * absorbed both), within a per-lcore and a global capacity budget, and
 * decays when the class is idle. Idleness is found without timers: every
 * CACHE_EPOCH_OPS operations of an lcore, a scan of its classes halves the
 * capacity of a class that had no operation during the epoch (emptying and
 * releasing it at its initial size), and gives back half of the objects
 * that stayed untouched at the bottom of a used class (its low-water
 * mark). A class that was never used, or was released, holds nothing:
 * high = 0, and its first operation takes the slow path that sets it up
 * (prefill only the classes in use).
 *
 * Tag map: one 16-bit tag per 8 bytes of lcore 0's unit (lazily backed
 * anonymous memory, 1/4 of the unit's address space), at the start of
 * every object of a cached class: TAG_LIVE | class | owner id while the
 * user holds it (the object's owner reference, pcpu_owner.h: a cached
 * object costs 2 bytes of tag per 8-byte slot, 1 more than without
 * owners), TAG_CACHED | class while a cache holds it (no owner: the
 * allocator holds it for the next allocation), 0 otherwise (objects of
 * other sizes, and all free space). The free path reads the class and the
 * owner from it without any lock and changes LIVE to CACHED with one
 * compare-and-swap,
 * so a double free of an object sitting in a cache (still allocated for
 * the allocator), or two racing frees of one object, fail; handles with
 * tag 0 (interior pointers, never allocated, other sizes) go to the
 * allocator, which validates them against its boundary map. A tag is
 * cleared only under the allocator's index lock, by the callback a flush
 * passes to pcpu_alloc_free_bulk(): clearing it later could hit an object
 * allocated there meanwhile, clearing it earlier would let a racing double
 * free through.
 *
 * Unregistered threads (rte_lcore_id() == LCORE_ID_ANY) have no cache:
 * they allocate from the allocator, and free there after turning a LIVE
 * tag to FREEING with the same compare-and-swap.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rte_pcpu.h"
#include "pcpu_alloc.h"
#include "pcpu_asan.h"
#include "pcpu_compat.h"
#include "pcpu_cache.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_objcache.h"
#include "pcpu_owner.h"

/* Size classes, bytes per lcore copy (see the guide for their waste). */
static const uint32_t cache_class_size[RTE_PCPU_CACHE_NB_CLASSES] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

/* Initial high watermark: 1 KiB worth, a power of two in [4, 32]. */
static const uint32_t cache_init_high[RTE_PCPU_CACHE_NB_CLASSES] = {
	32, 32, 32, 32, 16, 16, 8, 8, 4, 4, 4, 4,
};

/* Largest capacity of a class: min(512, 64 KiB / size) objects. */
#define CACHE_CLASS_MAX_BYTES (64u * 1024u)
#define CACHE_CLASS_MAX_OBJS 512u
/* A mass free gathers this much before each flush (at least high, at
 * most the largest capacity): 64 objects of 256 B per lock instead of
 * high + 1 = 5. */
#define CACHE_STREAK_BYTES (16u * 1024u)
/* Capacity budgets (sum of high x size) limiting growth. */
#define CACHE_LCORE_BUDGET (256u * 1024u)
#define CACHE_GLOBAL_BUDGET (2u * 1024u * 1024u)
/* Operations of one lcore between two idle scans of its classes. */
#define CACHE_EPOCH_OPS (UINT64_C(1) << 16)
/* Refill when an alloc finds the cache at or below this. */
#define CACHE_LOW 0u

#define TAG_CLASS_MASK 0x0fu
#define TAG_LIVE 0x10u
#define TAG_CACHED 0x20u
/* both: on its way back to the allocator from a thread without a cache
 * (a flush leaves the tags CACHED); a free of it is a double free */
#define TAG_FREEING (TAG_LIVE | TAG_CACHED)
/* a LIVE or FREEING tag's owner id, in the bits above */
#define TAG_OWNER_SHIFT 6
/* Low bit of a cached handle: the object was used (zero it on alloc). */
#define OBJ_DIRTY ((uintptr_t)1)
/* One tag per this many bytes of a unit. */
#define TAG_SHIFT 3
/*
 * Bytes of a unit whose tags fill CACHE_TAG_RUN_LINES cache lines. A refill
 * starts a stretch this long of its own (pcpu_alloc_bulk()'s run), so the
 * tags an lcore writes on every alloc and free do not share their lines
 * with another lcore's objects: with shared lines, each alloc and free
 * moved the line between the two cores (2 lcores each allocating and
 * freeing 16 B: 4 to 7 times the time per pair of one lcore). A refill
 * also avoids the holes other lcores' flushes leave in their lines. An
 * object freed on another lcore than the one it came from still goes to
 * the freeing lcore's cache, in a line of the other's, until a flush.
 */
#define CACHE_TAG_RUN_LINES 1u
#define CACHE_TAG_RUN ((RTE_CACHE_LINE_SIZE * CACHE_TAG_RUN_LINES / \
	sizeof(uint16_t)) << TAG_SHIFT)

enum cache_event { EV_NONE, EV_UNDERFLOW, EV_OVERFLOW };

/* One lcore's cache of one class; only its lcore writes it. */
struct cache_class {
	/* the fast path's fields share the first cache line with the hot
	 * half of oc */
	uint32_t mid;         /* refill/flush target */
	uint32_t flush_at;    /* a free above this flushes: high, or the
	                       * streak's length during a mass free */
	uint32_t lowwater;    /* lowest len this epoch */
	uint32_t last_event;  /* enum cache_event */
	/* the runs (see the top of the file): owner ids (PCPU_OWNER_NONE:
	 * no run) and oc.nr_get, oc.nr_put when they started (their low 32
	 * bits: a run is shorter than 2^32) */
	uint16_t run_get_owner;
	uint16_t run_put_owner;
	uint32_t run_get_start;
	uint32_t run_put_start;
	/* a get-run of an owner with a limit: its *credit*, the objects
	 * reserved for it and not allocated yet, is run_get_end - oc.nr_get
	 * (low 32 bits). This and run_freed are changed only inside the
	 * lcore's stock (pcpu_owner_stock_enter()), or by a drain holding
	 * it. */
	uint32_t run_get_end;
	/* the handles; capacity is the high watermark, 0: not in use */
	struct rte_pcpu_objcache oc;
	uint64_t nr_overflow; /* flushes above high */
	/* 32 bits: at most one of each per class per epoch, and the class
	 * stays two cache lines */
	uint32_t nr_grow;
	uint32_t nr_decay;
	uint64_t ops_snap;    /* nr_get + nr_put at the last scan */
	uint32_t alloc_snap;  /* nr_get (low 32 bits) at the last overflow */
	/* a put-run of an owner with a limit: oc.nr_put (low 32 bits) when
	 * its frees were last given back; those after it are reserved
	 * still */
	uint32_t run_freed;
} __rte_cache_aligned;

struct cache_lcore {
	struct cache_class cls[RTE_PCPU_CACHE_NB_CLASSES];
	uint64_t ops;         /* alloc + free, for the epoch */
	/* this lcore's counters of the owners (pcpu_owner.h), beside ops:
	 * both are on the line every operation writes */
	struct pcpu_owner_lcore *owners;
	uint64_t min_size;    /* smallest and largest size users asked */
	uint64_t max_size;    /* for (UINT64_MAX, 0: none yet) */
	uint64_t cap_bytes;   /* sum of high x size */
	uint64_t nr_fail;
	unsigned int lcore_id;
	/* copies to zero: the lcores with memory when last looked at */
	struct rte_pcpu_copies copies;
	uintptr_t store[];    /* the classes' arrays */
} __rte_cache_aligned;

enum cache_state { CACHE_OFF = 0, CACHE_ON, CACHE_DISABLED };

/* The layer's state. */
static struct {
	uint32_t state;              /* enum cache_state, acquire/release */
	uintptr_t base;              /* lcore 0's unit */
	uint64_t limit;              /* unit stride */
	/* limit while the caches are on, else 0: the one field the free's
	 * tag check reads (acquire; stored with release after the tags and
	 * chunk_used it publishes, as state is) */
	uint64_t tag_limit;
	uint16_t *tags;              /* limit >> TAG_SHIFT tags */
	size_t tags_len;
	uint32_t chunk_shift;
	uint32_t nr_chunks;
	uint64_t *chunk_used;        /* chunks that ever had a tag */
	uint64_t global_cap;         /* sum of cap_bytes, atomic */
	uint32_t max_objs[RTE_PCPU_CACHE_NB_CLASSES];
	uint32_t streak_objs[RTE_PCPU_CACHE_NB_CLASSES];
	uint8_t class_align[RTE_PCPU_CACHE_NB_CLASSES];
	/* size class of (size + 7) / 8, sizes 1..RTE_PCPU_CACHE_MAX_SIZE */
	uint8_t size_to_class[RTE_PCPU_CACHE_MAX_SIZE / 8 + 1];
	struct cache_lcore *lcores[RTE_MAX_LCORE];
	pthread_mutex_t mutex;       /* set-up, tear-down, lcore creation */
} pcpu_caches = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
};

#define STAT_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (n), __ATOMIC_RELAXED)
#define STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static inline uint16_t *
cache_tag_of(uintptr_t h)
{
	return &pcpu_caches.tags[(h - pcpu_caches.base) >> TAG_SHIFT];
}

static void
cache_mark_chunk_used(uintptr_t h)
{
	uint32_t idx = (uint32_t)((h - pcpu_caches.base) >>
		pcpu_caches.chunk_shift);
	uint64_t bit = UINT64_C(1) << (idx % 64);

	if (!(__atomic_load_n(&pcpu_caches.chunk_used[idx / 64],
			__ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(&pcpu_caches.chunk_used[idx / 64], bit,
			__ATOMIC_RELAXED);
}

/*
 * Whether the cache layer ever tagged an object in the chunk of offset
 * @p off. If not, every tag of that chunk is 0 and is not read: reading
 * would fault in pages of the tag map for nothing (one per 32 KiB of
 * objects, at 17 us each in some virtual machines). The bit is set before
 * any of the chunk's tags, and a handle reaches another thread only
 * through a synchronising hand-over, so a relaxed load suffices.
 */
static inline int
cache_chunk_tagged(uintptr_t off)
{
	uint32_t idx = (uint32_t)(off >> pcpu_caches.chunk_shift);

	return (__atomic_load_n(&pcpu_caches.chunk_used[idx / 64],
			__ATOMIC_RELAXED) >> (idx % 64)) & 1;
}

/*
 * Whether the handle at offset @p off of lcore 0's unit may have a tag:
 * the caches are on (tag_limit is not 0: one compare checks that and the
 * range), it lies in the tag map at a slot's start, in a chunk
 * whose tags were ever written. Where this says no, the tag reads 0 (no
 * cache object): the test of rte_pcpu_free() and of rte_pcpu_zero().
 */
static __rte_always_inline int
cache_has_tag(uintptr_t off)
{
	return off < __atomic_load_n(&pcpu_caches.tag_limit, __ATOMIC_ACQUIRE) &&
		(off & ((1u << TAG_SHIFT) - 1)) == 0 && cache_chunk_tagged(off);
}

/* ---------------------------------------------------------------------- */
/* Set-up. */

/* The class tables (constant). */
static void
cache_tables_init(void)
{
	uint32_t c, s;

	for (c = 0, s = 1; s <= RTE_PCPU_CACHE_MAX_SIZE / 8; s++) {
		while (cache_class_size[c] < s * 8)
			c++;
		pcpu_caches.size_to_class[s] = (uint8_t)c;
	}
	pcpu_caches.size_to_class[0] = 0;
	/* the fast path indexes the classes with a shift */
	RTE_BUILD_BUG_ON(sizeof(struct cache_class) != 2 * RTE_CACHE_LINE_SIZE);
	/* a tag holds the class and an owner id */
	RTE_BUILD_BUG_ON(RTE_PCPU_CACHE_NB_CLASSES > TAG_CLASS_MASK + 1);
	RTE_BUILD_BUG_ON(TAG_OWNER_SHIFT + PCPU_OWNER_ID_BITS >
		8 * sizeof(pcpu_caches.tags[0]));
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		uint32_t sz = cache_class_size[c];

		pcpu_caches.max_objs[c] = RTE_MIN(CACHE_CLASS_MAX_OBJS,
			CACHE_CLASS_MAX_BYTES / sz);
		pcpu_caches.streak_objs[c] = RTE_MIN(pcpu_caches.max_objs[c],
			CACHE_STREAK_BYTES / sz);
		pcpu_caches.class_align[c] = (uint8_t)RTE_MIN(sz & -sz,
			(uint32_t)RTE_CACHE_LINE_SIZE);
	}
}

static void cache_lcore_leave(unsigned int lcore_id);
static void cache_owner_pending_add(uint32_t id, struct pcpu_owner_sum *s);
static int cache_owner_referenced(uint32_t id);
static uint64_t cache_owner_held(uint32_t id, unsigned int lcore_id);
static int cache_owner_drain(uint32_t id, unsigned int lcore_id, int phase);

static const struct pcpu_owner_pending_ops cache_pending_ops = {
	.add = cache_owner_pending_add,
	.referenced = cache_owner_referenced,
	.held = cache_owner_held,
	.drain = cache_owner_drain,
};

/* Unmap the tag map; if the address space cannot be given back (the
 * limit on mappings), at least its memory is. */
static void
cache_tags_unmap(void *m, size_t len)
{
	if (pcpu_fault_munmap(m, len) == 0)
		return;
	PCPU_LOG(ERR, "cannot unmap the cache tags (%zu bytes at %p): %s; "
		"their address space is lost", len, m, strerror(errno));
	if (pcpu_fault_madvise(m, len, MADV_DONTNEED) != 0)
		PCPU_LOG(ERR, "... and their memory: %s", strerror(errno));
}

static struct pcpu_lcore_listener cache_listener = {
	.name = "size-class caches",
	.leave = cache_lcore_leave,
};

int
pcpu_cache_init(uintptr_t base, uint64_t unit_stride, uint64_t chunk_size,
		int disabled)
{
	void *m;

	pthread_mutex_lock(&pcpu_caches.mutex);
	if (disabled)
		goto off;
	cache_tables_init();
	pcpu_caches.base = base;
	pcpu_caches.limit = unit_stride;
	pcpu_caches.tags_len = (size_t)(unit_stride >> TAG_SHIFT) *
		sizeof(*pcpu_caches.tags);
	pcpu_caches.chunk_shift = (uint32_t)rte_log2_u64(chunk_size);
	pcpu_caches.nr_chunks = (uint32_t)(unit_stride / chunk_size);
	pcpu_caches.chunk_used = pcpu_fault_calloc(
		(pcpu_caches.nr_chunks + 63) / 64, sizeof(uint64_t));
	m = pcpu_fault_mmap(NULL, pcpu_caches.tags_len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED || pcpu_caches.chunk_used == NULL) {
		if (m != MAP_FAILED)
			cache_tags_unmap(m, pcpu_caches.tags_len);
		free(pcpu_caches.chunk_used);
		pcpu_caches.chunk_used = NULL;
		/* correct without caches, only slower: run without them */
		PCPU_LOG(WARNING, "init: cannot map %zu bytes of cache tags: "
			"running without lcore caches", pcpu_caches.tags_len);
		goto off;
	}
	/*
	 * A free reads and swaps its object's tag: one line per object of
	 * 64 bytes and more, so frees in scattered order (flows aging) miss
	 * the TLB at every tag on 4 KiB pages: transparent 2 MiB pages where
	 * the kernel gives them (the guide's "Double Free Detection" has the
	 * measurement). A hint: the tags work the same without. The cost is
	 * RSS in 2 MiB steps (the tags of 8 MiB of unit 0), reached only
	 * where the caches tagged objects (chunk_used).
	 */
	if (pcpu_fault_madvise(m, pcpu_caches.tags_len, MADV_HUGEPAGE) != 0)
		PCPU_LOG(DEBUG, "init: no transparent hugepages for the cache "
			"tags: %s", strerror(errno));
	pcpu_caches.tags = m;
	pcpu_caches.global_cap = 0;
	__atomic_store_n(&pcpu_caches.state, CACHE_ON, __ATOMIC_RELEASE);
	__atomic_store_n(&pcpu_caches.tag_limit, pcpu_caches.limit,
		__ATOMIC_RELEASE);
	pthread_mutex_unlock(&pcpu_caches.mutex);
	pcpu_alloc_listener_register(&cache_listener);
	pcpu_owner_pending_register(&cache_pending_ops);
	return 0;
off:
	__atomic_store_n(&pcpu_caches.state, CACHE_DISABLED, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pcpu_caches.mutex);
	return 0;
}

static struct cache_lcore *
cache_lcore_create(unsigned int lcore_id)
{
	struct cache_lcore *lc;
	size_t entries = 0, off = 0, len;
	unsigned int socket, c;

	pthread_mutex_lock(&pcpu_caches.mutex);
	lc = pcpu_caches.lcores[lcore_id];
	if (lc != NULL || __atomic_load_n(&pcpu_caches.state,
			__ATOMIC_ACQUIRE) != CACHE_ON)
		goto out;
	/* a free pushes before it flushes: room for one more */
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++)
		entries += pcpu_caches.max_objs[c] + 1;
	len = sizeof(*lc) + entries * sizeof(uintptr_t);
	socket = rte_lcore_to_socket_id(lcore_id);
	lc = pcpu_fault_rte_zmalloc_socket("pcpu_cache", len, RTE_CACHE_LINE_SIZE,
		socket < RTE_MAX_NUMA_NODES ? (int)socket : SOCKET_ID_ANY);
	if (lc == NULL)
		lc = pcpu_fault_rte_zmalloc("pcpu_cache", len,
			RTE_CACHE_LINE_SIZE);
	if (lc == NULL) {
		PCPU_LOG(ERR, "cache: no memory for lcore %u's cache",
			lcore_id);
		goto out;
	}
	/* an lcore with a cache charges its own counters: the fast path
	 * never checks for them */
	lc->owners = pcpu_owner_lcore_counters(lcore_id);
	if (lc->owners == NULL) {
		rte_free(lc);
		lc = NULL;
		goto out;
	}
	lc->lcore_id = lcore_id;
	lc->min_size = UINT64_MAX;
	pcpu_objcache_copies_rebuild(&lc->copies);
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		pcpu_objcache_init(&lc->cls[c].oc, &lc->store[off], 0);
		off += pcpu_caches.max_objs[c] + 1;
	}
	__atomic_store_n(&pcpu_caches.lcores[lcore_id], lc, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&pcpu_caches.mutex);
	return lc;
}

/* ---------------------------------------------------------------------- */
/* Refill and flush: the engine, with the allocator as source and sink. */

/* pcpu_alloc_free_bulk()'s callback: the allocator freed these objects and
 * still holds its index lock. Their tags (CACHED from a flush, FREEING
 * from a thread without a cache) go now (see the top of the file). */
static void
cache_tags_freed(void *arg __rte_unused, void * const *handles,
		unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_store_n(cache_tag_of((uintptr_t)handles[i]), 0,
			__ATOMIC_RELAXED);
}

/* Source of a refill: new objects of class *(unsigned int *)arg, tagged
 * CACHED (clean: the allocator zeroed them). */
static unsigned int
cache_alloc_source(void *arg, uintptr_t *dst, unsigned int n)
{
	unsigned int ci = *(const unsigned int *)arg, i, got;

	got = pcpu_alloc_bulk(cache_class_size[ci],
		pcpu_caches.class_align[ci], (void **)dst, n, 0, CACHE_TAG_RUN);
	for (i = 0; i < got; i++) {
		cache_mark_chunk_used(dst[i]);
		pcpu_asan_poison((void *)dst[i], cache_class_size[ci]);
		__atomic_store_n(cache_tag_of(dst[i]),
			(uint16_t)(TAG_CACHED | ci), __ATOMIC_RELAXED);
	}
	return got;
}

/* Sink of a flush: back to the allocator. The tags stay CACHED (a racing
 * free of one is refused) until cache_tags_freed() clears them. */
static void
cache_free_sink(void *arg __rte_unused, uintptr_t *objs, unsigned int n)
{
	unsigned int i, done;

	for (i = 0; i < n; i++)
		objs[i] &= ~OBJ_DIRTY;
	done = pcpu_alloc_free_bulk((void * const *)objs, n, cache_tags_freed,
		NULL);
	if (unlikely(done != n))
		PCPU_LOG(ERR, "cache: %u of %u flushed objects were not live",
			n - done, n);
}

/* Give the @p n oldest objects of a class back. */
static void
cache_flush_oldest(struct cache_class *cc, uint32_t n)
{
	pcpu_objcache_flush_oldest(&cc->oc, n, cache_free_sink, NULL);
	if (cc->lowwater > cc->oc.len)
		cc->lowwater = cc->oc.len;
}

/* ---------------------------------------------------------------------- */
/* Runs: the owners' charges (see the top of the file). */

/* Objects of class @p ci a get-run of an owner with a limit takes out of
 * the lcore's stock at a time: a slot's worth (what the slot holds, which
 * is less near the limit). */
static inline uint32_t
cache_credit_batch(unsigned int ci)
{
	return RTE_MAX(PCPU_OWNER_STOCK_MAX / cache_class_size[ci], 1u);
}

/* The credit of a class's get-run of an owner with a limit: 0 while an
 * allocation claimed beyond it (or a drain holds it). */
static inline uint32_t
cache_credit(const struct cache_class *cc)
{
	int32_t n = (int32_t)(__atomic_load_n(&cc->run_get_end,
		__ATOMIC_RELAXED) - (uint32_t)STAT_READ(cc->oc.nr_get));

	return n > 0 ? (uint32_t)n : 0;
}

/*
 * Make the credit of the get-run of @p owner, with a limit, reach
 * oc.nr_get @p need (the allocation under way is covered when the credit
 * ends at or after it): from the frees of its put-run first (as Linux's
 * refill_stock() turns an uncharge into stock), else from the lcore's
 * stock, which the caller has entered. 1 if it does, 0 (the limit).
 * Without membarrier(2) a run never keeps credit beyond @p need: the
 * fast path, which does not fence, never finds any.
 */
static int
cache_credit_refill(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci, uint32_t owner, uint32_t need)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);
	uint32_t put = (uint32_t)cc->oc.nr_put, end = cc->run_get_end, n;
	uint32_t want = need - end;

	/* the frees only while the owner's slot is its own: a drain (an
	 * lcore arrived) empties the slot, and the next credit must then be
	 * reserved within the limit */
	if (cc->run_put_owner == owner &&
	    st->slot[owner % PCPU_OWNER_STOCK_SLOTS].id == owner) {
		n = put - cc->run_freed;
		if (pcpu_fence_fallback)
			n = RTE_MIN(n, want);
		end += n;
		__atomic_store_n(&cc->run_freed, cc->run_freed + n,
			__ATOMIC_RELAXED);
	}
	if ((int32_t)(need - end) > 0)
		end += pcpu_owner_stock_take(lc->owners, owner,
			cache_class_size[ci], pcpu_fence_fallback ?
			need - end : RTE_MAX(cache_credit_batch(ci),
				need - end));
	__atomic_store_n(&cc->run_get_end, end, __ATOMIC_RELAXED);
	return (int32_t)(need - end) <= 0;
}

/* Give the credit of the get-run of an owner with a limit back to the
 * lcore's stock (which the caller has entered). */
static void
cache_credit_give(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci)
{
	uint32_t n = cache_credit(cc);

	if (n == 0)
		return;
	pcpu_owner_stock_give(lc->owners, cc->run_get_owner,
		(uint64_t)n * cache_class_size[ci]);
	__atomic_store_n(&cc->run_get_end, cc->run_get_end - n,
		__ATOMIC_RELAXED);
}

/* Give the frees of the put-run's owner with a limit, up to nr_put
 * @p put, back to the lcore's stock (which the caller has entered). */
static void
cache_freed_give(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci, uint32_t put)
{
	if (cc->run_put_owner < PCPU_OWNER_LIMITED || put == cc->run_freed)
		return;
	pcpu_owner_stock_give(lc->owners, cc->run_put_owner,
		(uint64_t)(put - cc->run_freed) * cache_class_size[ci]);
	__atomic_store_n(&cc->run_freed, put, __ATOMIC_RELAXED);
}

/* Restart the count of a class's get-run (@p frees 0) or put-run (1) at
 * oc.nr_get or oc.nr_put @p at, and credit what it counted to its owner:
 * after the restart, so that a sum meanwhile (a peak's sample) counts the
 * run at most once. */
static inline void
cache_run_restart(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci, int frees, uint32_t at)
{
	uint32_t *start = frees ? &cc->run_put_start : &cc->run_get_start;
	uint32_t owner = frees ? cc->run_put_owner : cc->run_get_owner;
	uint32_t n = at - *start;

	__atomic_store_n(start, at, __ATOMIC_RELEASE);
	pcpu_owner_credit(lc->owners, owner, n, cache_class_size[ci], frees);
}

/* Credit a class's runs to their owners and start none; what runs of
 * owners with a limit hold goes back to the lcore's stock. The class's
 * lcore, or the lcore is not running. */
static void
cache_runs_end(struct cache_lcore *lc, struct cache_class *cc, unsigned int ci)
{
	uint32_t get = (uint32_t)cc->oc.nr_get, put = (uint32_t)cc->oc.nr_put;
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);
	int limited = cc->run_get_owner >= PCPU_OWNER_LIMITED ||
		cc->run_put_owner >= PCPU_OWNER_LIMITED;

	cache_run_restart(lc, cc, ci, 0, get);
	cache_run_restart(lc, cc, ci, 1, put);
	if (limited) {
		pcpu_owner_stock_enter_wait(st);
		if (cc->run_get_owner >= PCPU_OWNER_LIMITED)
			cache_credit_give(lc, cc, ci);
		cache_freed_give(lc, cc, ci, put);
	}
	__atomic_store_n(&cc->run_get_owner, PCPU_OWNER_NONE, __ATOMIC_RELEASE);
	__atomic_store_n(&cc->run_put_owner, PCPU_OWNER_NONE, __ATOMIC_RELEASE);
	if (limited)
		pcpu_owner_stock_leave(st);
}

/*
 * An allocation of @p owner from a class whose get-run is another owner's
 * and one of the two has a limit, or whose get-run of @p owner, with a
 * limit, may have no credit left: start a run of @p owner; with a limit,
 * give it credit if it has none (cache_credit_refill()). Without credit
 * (the limit), the allocation is charged on
 * its own, as any charge (a drain if the stocks hold the room), and left
 * out of the run. 0, or -1 at the owner's limit (counted). With a limit,
 * it returns 0 inside the lcore's stock: the caller pops the object (the
 * credit's use) and leaves.
 */
static __rte_noinline int
cache_run_get_limited(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci, uint32_t owner)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);
	uint32_t get = (uint32_t)cc->oc.nr_get, size = cache_class_size[ci];

	pcpu_owner_stock_enter_wait(st);
	if (owner != cc->run_get_owner) {
		if (cc->run_get_owner >= PCPU_OWNER_LIMITED)
			cache_credit_give(lc, cc, ci);
		cache_run_restart(lc, cc, ci, 0, get);
		__atomic_store_n(&cc->run_get_end, get, __ATOMIC_RELAXED);
		__atomic_store_n(&cc->run_get_owner, (uint16_t)owner,
			__ATOMIC_RELEASE);
		if (owner < PCPU_OWNER_LIMITED) {
			pcpu_owner_stock_leave(st);
			return 0;
		}
	}
	if ((int32_t)(cc->run_get_end - get) > 0 ||
	    cache_credit_refill(lc, cc, ci, owner, get + 1))
		return 0;
	pcpu_owner_stock_leave(st);
	if (pcpu_owner_charge_limited(lc->owners, owner, size, 1) != 0)
		return -1;
	/* credit for the one pop to come, counted already */
	pcpu_owner_stock_enter_wait(st);
	__atomic_store_n(&cc->run_get_end, (uint32_t)cc->oc.nr_get + 1,
		__ATOMIC_RELAXED);
	cc->run_get_start++;
	return 0;
}

/*
 * An allocation of @p owner from a class whose run is another owner's:
 * start a run of @p owner (the pop to come is its first). 0, or -1 at
 * the limit of an owner with one (counted).
 */
static __rte_noinline int
cache_run_get(struct cache_lcore *lc, struct cache_class *cc, unsigned int ci,
		uint32_t owner)
{
	uint32_t get = (uint32_t)cc->oc.nr_get;

	if (owner >= PCPU_OWNER_LIMITED ||
	    cc->run_get_owner >= PCPU_OWNER_LIMITED)
		return cache_run_get_limited(lc, cc, ci, owner);
	cache_run_restart(lc, cc, ci, 0, get);
	__atomic_store_n(&cc->run_get_owner, (uint16_t)owner, __ATOMIC_RELEASE);
	return 0;
}

/* A free of @p owner's object @p e into a class whose put-run is another
 * owner's: start a run of @p owner, pushing @p e as its first free. The
 * frees of a run of an owner with a limit stay reserved until they are
 * given back: to the lcore's stock when the run ends (or at an overflow),
 * or as credit to a get-run of the owner. The push comes after the switch,
 * inside the lcore's stock when either owner has a limit: a drain, which
 * counts the pushes since the run's last give-back as its owner's frees,
 * never sees an object of another owner among them. */
static __rte_always_inline void
cache_run_put(struct cache_lcore *lc, struct cache_class *cc, unsigned int ci,
		uint32_t owner, uintptr_t e)
{
	uint32_t put = (uint32_t)cc->oc.nr_put;
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);
	int limited = owner >= PCPU_OWNER_LIMITED ||
		cc->run_put_owner >= PCPU_OWNER_LIMITED;

	cache_run_restart(lc, cc, ci, 1, put);
	if (limited) {
		pcpu_owner_stock_enter_wait(st);
		cache_freed_give(lc, cc, ci, put);
		__atomic_store_n(&cc->run_freed, put, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&cc->run_put_owner, (uint16_t)owner, __ATOMIC_RELEASE);
	__rte_pcpu_objcache_push(&cc->oc, e);
	if (limited)
		pcpu_owner_stock_leave(st);
}

/* An overflow: the frees of a put-run of an owner with a limit go back to
 * the lcore's stock, so that a mass free does not keep them reserved. */
static void
cache_freed_settle(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);

	if (cc->run_put_owner < PCPU_OWNER_LIMITED)
		return;
	pcpu_owner_stock_enter_wait(st);
	cache_freed_give(lc, cc, ci, (uint32_t)cc->oc.nr_put);
	pcpu_owner_stock_leave(st);
}

/* A credit's end while a drain holds it is lowered by this, so that
 * every claim finds itself beyond it (credit - claims: a quarter of the
 * range below 0) and waits for the drain; the drain adds it back. */
#define CACHE_END_DRAINED (UINT32_C(1) << 30)

/*
 * The owners' view of the stocks: what the runs of lcore @p lcore_id hold
 * reserved for owner @p id with a limit (PCPU_OWNER_NONE: for any), the
 * credit of get-runs and the frees of put-runs. With @p phase 0 or 1, a
 * drain that holds the lcore's stock takes it back into the
 * reservations, in two phases with a heavy fence between them (the
 * handshake of pcpu_fence.h with the fast path, which claims an object
 * before it looks at the credit): 0 takes the frees and lowers the end of
 * each credit out of reach; 1 reads the claims made meanwhile (those the
 * fast path saw the old end for, all of them after the fence), keeps the
 * credit they used and takes the rest. Phase 0 returns whether a phase 1
 * is needed. With @p phase -1, it only counts (a hint while the lcore
 * runs).
 */
static uint64_t
cache_owner_stocked(uint32_t id, unsigned int lcore_id, int phase)
{
	struct cache_lcore *lc;
	uint64_t sum = 0, b;
	uint32_t o, put, freed, end, get;
	unsigned int ci;

	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return 0;
	lc = __atomic_load_n(&pcpu_caches.lcores[lcore_id], __ATOMIC_ACQUIRE);
	for (ci = 0; lc != NULL && ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
		struct cache_class *cc = &lc->cls[ci];

		o = __atomic_load_n(&cc->run_get_owner, __ATOMIC_ACQUIRE);
		if (o >= PCPU_OWNER_LIMITED &&
		    (id == PCPU_OWNER_NONE || o == id)) {
			end = __atomic_load_n(&cc->run_get_end,
				__ATOMIC_RELAXED);
			if (phase < 0) {
				sum += (uint64_t)cache_credit(cc) *
					cache_class_size[ci];
			} else if (phase == 0) {
				__atomic_store_n(&cc->run_get_end,
					end - CACHE_END_DRAINED,
					__ATOMIC_RELAXED);
				sum = 1;
			} else {
				/* claims beyond the old end (at most one,
				 * in the slow path) used no credit */
				end += CACHE_END_DRAINED;
				get = (uint32_t)STAT_READ(cc->oc.nr_get);
				if ((int32_t)(end - get) > 0) {
					pcpu_owner_unreserve(o,
						(uint64_t)(end - get) *
						cache_class_size[ci]);
					end = get;
				}
				__atomic_store_n(&cc->run_get_end, end,
					__ATOMIC_RELAXED);
			}
		}
		o = __atomic_load_n(&cc->run_put_owner, __ATOMIC_ACQUIRE);
		if (phase <= 0 && o >= PCPU_OWNER_LIMITED &&
		    (id == PCPU_OWNER_NONE || o == id)) {
			/* frees pushed meanwhile are left for later */
			put = (uint32_t)STAT_READ(cc->oc.nr_put);
			freed = __atomic_load_n(&cc->run_freed,
				__ATOMIC_RELAXED);
			b = (uint64_t)(put - freed) * cache_class_size[ci];
			if (phase < 0) {
				sum += b;
			} else if (b != 0) {
				pcpu_owner_unreserve(o, b);
				__atomic_store_n(&cc->run_freed, put,
					__ATOMIC_RELAXED);
			}
		}
	}
	return sum;
}

static uint64_t
cache_owner_held(uint32_t id, unsigned int lcore_id)
{
	return cache_owner_stocked(id, lcore_id, -1);
}

static int
cache_owner_drain(uint32_t id, unsigned int lcore_id, int phase)
{
	return cache_owner_stocked(id, lcore_id, phase) != 0;
}

/* The owners' pending provider: what the runs of every lcore hold for
 * owner @p id. Lock-free; approximate while the lcores run. */
static void
cache_owner_pending_add(uint32_t id, struct pcpu_owner_sum *s)
{
	unsigned int l, ci;
	uint32_t n;

	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct cache_lcore *lc = __atomic_load_n(
			&pcpu_caches.lcores[l], __ATOMIC_ACQUIRE);

		if (lc == NULL)
			continue;
		for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
			const struct cache_class *cc = &lc->cls[ci];

			if (__atomic_load_n(&cc->run_get_owner,
					__ATOMIC_ACQUIRE) == id) {
				n = (uint32_t)STAT_READ(cc->oc.nr_get) -
					STAT_READ(cc->run_get_start);
				s->nr_alloc += n;
				s->copy_bytes += (uint64_t)n *
					cache_class_size[ci];
			}
			if (__atomic_load_n(&cc->run_put_owner,
					__ATOMIC_ACQUIRE) == id) {
				n = (uint32_t)STAT_READ(cc->oc.nr_put) -
					STAT_READ(cc->run_put_start);
				s->nr_free += n;
				s->copy_bytes -= (uint64_t)n *
					cache_class_size[ci];
			}
		}
	}
}

/* Whether a run of any lcore refers to owner @p id. */
static int
cache_owner_referenced(uint32_t id)
{
	unsigned int l, ci;

	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return 0;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct cache_lcore *lc = __atomic_load_n(
			&pcpu_caches.lcores[l], __ATOMIC_ACQUIRE);

		for (ci = 0; lc != NULL && ci < RTE_PCPU_CACHE_NB_CLASSES;
		     ci++)
			if (__atomic_load_n(&lc->cls[ci].run_get_owner,
					__ATOMIC_ACQUIRE) == id ||
			    __atomic_load_n(&lc->cls[ci].run_put_owner,
					__ATOMIC_ACQUIRE) == id)
				return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Watermarks. */

/* Take up to @p want bytes of capacity from both budgets; returns how
 * much was granted (may be 0). */
static uint64_t
cache_budget_take(struct cache_lcore *lc, uint64_t want)
{
	uint64_t cur, room;

	if (lc->cap_bytes >= CACHE_LCORE_BUDGET)
		return 0;
	want = RTE_MIN(want, CACHE_LCORE_BUDGET - lc->cap_bytes);
	cur = __atomic_load_n(&pcpu_caches.global_cap, __ATOMIC_RELAXED);
	do {
		if (cur >= CACHE_GLOBAL_BUDGET)
			return 0;
		room = RTE_MIN(want, CACHE_GLOBAL_BUDGET - cur);
	} while (!__atomic_compare_exchange_n(&pcpu_caches.global_cap, &cur,
			cur + room, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	lc->cap_bytes += room;
	return room;
}

static void
cache_budget_give(struct cache_lcore *lc, uint64_t bytes)
{
	lc->cap_bytes -= bytes;
	__atomic_fetch_sub(&pcpu_caches.global_cap, bytes, __ATOMIC_RELAXED);
}

static void
cache_set_high(struct cache_class *cc, uint32_t high)
{
	__atomic_store_n(&cc->oc.capacity, high, __ATOMIC_RELAXED);
	cc->mid = (CACHE_LOW + high) / 2;
	cc->flush_at = high;
}

/* A class's first use (or first after release): the initial capacity is
 * always granted (at most 11.5 KiB for all classes) and counted. */
static void
cache_class_activate(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci)
{
	uint64_t bytes = (uint64_t)cache_init_high[ci] * cache_class_size[ci];

	lc->cap_bytes += bytes;
	__atomic_fetch_add(&pcpu_caches.global_cap, bytes, __ATOMIC_RELAXED);
	cache_set_high(cc, cache_init_high[ci]);
	cc->last_event = EV_NONE;
	cc->lowwater = cc->oc.len;
	cc->ops_snap = cc->oc.nr_get + cc->oc.nr_put;
}

static void
cache_class_grow(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci)
{
	uint32_t high = cc->oc.capacity;
	uint32_t want = RTE_MIN(high * 2, pcpu_caches.max_objs[ci]);
	uint64_t got;

	if (want <= high)
		return;
	got = cache_budget_take(lc, (uint64_t)(want - high) *
		cache_class_size[ci]);
	/* the budget may grant a part of an object: give that part back */
	cache_budget_give(lc, got % cache_class_size[ci]);
	got /= cache_class_size[ci];
	if (got == 0)
		return;
	cache_set_high(cc, high + (uint32_t)got);
	STAT_ADD(cc->nr_grow, 1);
}

/* Release a class: flush everything, give its capacity back. */
static void
cache_class_release(struct cache_lcore *lc, struct cache_class *cc,
		unsigned int ci)
{
	cache_flush_oldest(cc, cc->oc.len);
	if (cc->oc.capacity != 0)
		cache_budget_give(lc, (uint64_t)cc->oc.capacity *
			cache_class_size[ci]);
	cache_set_high(cc, 0);
	cc->last_event = EV_NONE;
}

/* Idle scan, once per epoch of the lcore's operations; it also credits
 * the runs, which keeps them shorter than 2^32. */
static void
cache_lcore_epoch(struct cache_lcore *lc)
{
	unsigned int ci;

	for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
		struct cache_class *cc = &lc->cls[ci];
		uint64_t ops = cc->oc.nr_get + cc->oc.nr_put;
		uint32_t high = cc->oc.capacity;

		cache_runs_end(lc, cc, ci);
		if (high == 0)
			continue;
		if (ops == cc->ops_snap) {
			/* idle for a whole epoch: halve, then release */
			if (high <= cache_init_high[ci]) {
				cache_class_release(lc, cc, ci);
			} else {
				uint32_t nh = RTE_MAX(high / 2,
					cache_init_high[ci]);

				cache_budget_give(lc, (uint64_t)(high - nh) *
					cache_class_size[ci]);
				cache_set_high(cc, nh);
				if (cc->oc.len > cc->mid)
					cache_flush_oldest(cc,
						cc->oc.len - cc->mid);
			}
			STAT_ADD(cc->nr_decay, 1);
		} else if (cc->lowwater > 1) {
			/* in use, but the bottom stayed untouched */
			cache_flush_oldest(cc, cc->lowwater / 2);
		}
		cc->ops_snap = ops;
		cc->lowwater = cc->oc.len;
	}
}

/*
 * @p need objects of class @p ci rounded up to fill the tag stretches a
 * refill starts (CACHE_TAG_RUN), within @p room: a refill that ends
 * inside a stretch would leave the next one to start a stretch further
 * on, a hole between the two.
 */
static uint32_t
cache_refill_whole_runs(unsigned int ci, uint32_t need, uint32_t room)
{
	uint32_t per_run = (uint32_t)(CACHE_TAG_RUN / cache_class_size[ci]);

	if (per_run > 1)
		need = RTE_ALIGN_MUL_CEIL(need, per_run);
	return RTE_MIN(need, RTE_MAX(room, 1u));
}

/* An alloc found len <= low: refill up to the midpoint (rounded up to
 * whole tag stretches). 0 or -1. */
static __rte_noinline int
cache_class_refill(struct cache_lcore *lc, unsigned int ci)
{
	struct cache_class *cc = &lc->cls[ci];
	uint32_t need;

	if (cc->oc.capacity == 0)
		cache_class_activate(lc, cc, ci);
	else if (cc->last_event == EV_OVERFLOW)
		cache_class_grow(lc, cc, ci);
	cc->last_event = EV_UNDERFLOW;
	need = cc->mid > cc->oc.len ? cc->mid - cc->oc.len : 1;
	need = cache_refill_whole_runs(ci, need, cc->oc.capacity - cc->oc.len);
	pcpu_objcache_refill(&cc->oc, need, cache_alloc_source, &ci);
	if (cc->oc.len == 0) {
		STAT_ADD(lc->nr_fail, 1);
		return -1;
	}
	return 0;
}

/* A free took len above flush_at: flush the oldest down to the midpoint,
 * or everything during a mass free (see the top of the file). */
static __rte_noinline void
cache_class_overflow(struct cache_lcore *lc, unsigned int ci)
{
	struct cache_class *cc = &lc->cls[ci];

	if (cc->oc.capacity == 0) {
		cache_class_activate(lc, cc, ci);
		if (cc->oc.len <= cc->oc.capacity)
			return;
	}
	if (cc->last_event == EV_OVERFLOW && (uint32_t)cc->oc.nr_get == cc->alloc_snap) {
		cache_flush_oldest(cc, cc->oc.len);
		cc->flush_at = RTE_MAX(cc->oc.capacity,
			pcpu_caches.streak_objs[ci]);
	} else {
		cc->last_event = EV_OVERFLOW;
		cache_flush_oldest(cc, cc->oc.len - cc->mid);
	}
	cc->alloc_snap = (uint32_t)cc->oc.nr_get;
	STAT_ADD(cc->nr_overflow, 1);
	cache_freed_settle(lc, cc, ci);
}

/* ---------------------------------------------------------------------- */
/* Alloc and free. */

static __rte_noinline struct cache_lcore *
cache_lcore_slow(unsigned int lcore_id)
{
	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return NULL;
	return cache_lcore_create(lcore_id);
}

#define CACHE_ZERO(sz) __rte_pcpu_copies_zero(&lc->copies, h, (sz))

/*
 * Zero every lcore's copy of a reused object with the lcore list kept per
 * lcore (checked against the shared mask: one load per mask word) and a
 * constant size per class, so the stores are inlined.
 */
static inline void
cache_zero_copies(struct cache_lcore *lc, uintptr_t h, unsigned int ci)
{
	if (unlikely(!__rte_pcpu_copies_current(&lc->copies)))
		pcpu_objcache_copies_rebuild(&lc->copies);
	switch (ci) {
	case 0: CACHE_ZERO(8); break;
	case 1: CACHE_ZERO(16); break;
	case 2: CACHE_ZERO(24); break;
	case 3: CACHE_ZERO(32); break;
	case 4: CACHE_ZERO(48); break;
	case 5: CACHE_ZERO(64); break;
	case 6: CACHE_ZERO(96); break;
	case 7: CACHE_ZERO(128); break;
	case 8: CACHE_ZERO(192); break;
	case 9: CACHE_ZERO(256); break;
	case 10: CACHE_ZERO(384); break;
	default: CACHE_ZERO(512); break;
	}
}

/* An allocation its owner's limit refused. */
static __rte_noinline void *
cache_owner_refused(struct cache_lcore *lc, uint32_t owner, size_t size)
{
	STAT_ADD(lc->nr_fail, 1);
	PCPU_LOG(DEBUG, "alloc of %zu bytes: owner %s at its limit", size,
		pcpu_owners.rec[owner].name);
	return NULL;
}

/* The lcore's epoch, at the end of an allocation: out of line and reached
 * by a tail call. Returns @p h. */
static __rte_noinline void *
cache_alloc_epoch(struct cache_lcore *lc, uintptr_t h)
{
	cache_lcore_epoch(lc);
	return (void *)h;
}

/* Take an object of class @p ci out of lcore cache @p lc, which holds
 * more than CACHE_LOW, for @p owner, already charged (with a limit: from
 * the credit of its run, inside the lcore's stock @p st). */
static __rte_always_inline void *
cache_alloc_finish(struct cache_lcore *lc, unsigned int ci, size_t size,
		uint32_t owner, uintptr_t e)
{
	struct cache_class *cc = &lc->cls[ci];
	uintptr_t h;

	if (cc->oc.len < cc->lowwater)
		cc->lowwater = cc->oc.len;
	/* an allocation ends a mass free */
	cc->flush_at = cc->oc.capacity;
	if (unlikely(size < lc->min_size))
		__atomic_store_n(&lc->min_size, size, __ATOMIC_RELAXED);
	if (unlikely(size > lc->max_size))
		__atomic_store_n(&lc->max_size, size, __ATOMIC_RELAXED);
	h = e & ~OBJ_DIRTY;
	__atomic_store_n(cache_tag_of(h), (uint16_t)(TAG_LIVE | ci |
		owner << TAG_OWNER_SHIFT), __ATOMIC_RELAXED);
	pcpu_asan_unpoison((void *)h, cache_class_size[ci]);
	if (e & OBJ_DIRTY)
		cache_zero_copies(lc, h, ci);
	if (unlikely((++lc->ops & (CACHE_EPOCH_OPS - 1)) == 0))
		return cache_alloc_epoch(lc, h);
	return (void *)h;
}

/* Take an object of class @p ci out of lcore cache @p lc, which holds
 * more than CACHE_LOW, for @p owner, already charged. */
static __rte_always_inline void *
cache_alloc_pop(struct cache_lcore *lc, unsigned int ci, size_t size,
		uint32_t owner)
{
	return cache_alloc_finish(lc, ci, size, owner,
		__rte_pcpu_objcache_pop(&lc->cls[ci].oc));
}

/*
 * An allocation of @p owner, with a limit, that popped @p e from its run
 * (oc.nr_get counts it: the claim) and found it beyond the run's credit,
 * or a drain under way: the drain decided whether the claim was covered
 * (pcpu_owner.h); if not, the run gets credit, or the object is charged
 * on its own, or it goes back at the limit.
 */
static __rte_noinline void *
cache_alloc_claimed(struct cache_lcore *lc, unsigned int ci, size_t size,
		uint32_t owner, uintptr_t e)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc->owners);
	struct cache_class *cc = &lc->cls[ci];
	uint32_t size_c = cache_class_size[ci];

	pcpu_owner_stock_enter_wait(st);
	if ((int32_t)(cc->run_get_end - (uint32_t)cc->oc.nr_get) < 0 &&
	    !cache_credit_refill(lc, cc, ci, owner, (uint32_t)cc->oc.nr_get)) {
		pcpu_owner_stock_leave(st);
		/* out of the run before it is counted on its own: a sum
		 * meanwhile (a peak's sample) counts it once */
		cc->run_get_start++;
		if (pcpu_owner_charge_limited(lc->owners, owner, size_c,
				1) != 0) {
			/* the claim is taken back: the object stays */
			pcpu_owner_stock_enter_wait(st);
			cc->oc.len++;
			__atomic_store_n(&cc->oc.nr_get, cc->oc.nr_get - 1,
				__ATOMIC_RELAXED);
			cc->run_get_start--;
			pcpu_owner_stock_leave(st);
			return cache_owner_refused(lc, owner, size);
		}
		pcpu_owner_stock_enter_wait(st);
		__atomic_store_n(&cc->run_get_end, (uint32_t)cc->oc.nr_get,
			__ATOMIC_RELAXED);
	}
	pcpu_owner_stock_leave(st);
	return cache_alloc_finish(lc, ci, size, owner, e);
}

/* An allocation of class @p ci, for an owner without a limit, whose owner
 * is not the run's, or that finds the cache at or below CACHE_LOW: start
 * a run of @p owner, refill, then pop. */
static __rte_noinline void *
cache_alloc_class_slow(struct cache_lcore *lc, unsigned int ci, size_t size,
		uint32_t owner)
{
	struct cache_class *cc = &lc->cls[ci];

	/* no limit: the run starts whatever comes */
	if (owner != cc->run_get_owner)
		(void)cache_run_get(lc, cc, ci, owner);
	if (cc->oc.len <= CACHE_LOW && cache_class_refill(lc, ci) != 0)
		return NULL;
	return cache_alloc_pop(lc, ci, size, owner);
}

/* The same for an owner with a limit, whose run may also have no credit
 * left: refill, start a run or give it credit (or charge the object on
 * its own), then pop. */
static __rte_noinline void *
cache_alloc_class_slow_limited(struct cache_lcore *lc, unsigned int ci,
		size_t size, uint32_t owner)
{
	struct cache_class *cc = &lc->cls[ci];
	uintptr_t e;

	/* refilled first: no lcore is in its stock while the allocator
	 * runs (a drain may wait for it) */
	if (cc->oc.len <= CACHE_LOW && cache_class_refill(lc, ci) != 0)
		return NULL;
	if (cache_run_get(lc, cc, ci, owner) != 0)
		return cache_owner_refused(lc, owner, size);
	/* cache_run_get() left the stock entered: the pop uses the credit
	 * before a drain can take it */
	e = __rte_pcpu_objcache_pop(&cc->oc);
	pcpu_owner_stock_leave(pcpu_owner_stock_of(lc->owners));
	return cache_alloc_finish(lc, ci, size, owner, e);
}

/* An allocation by a thread whose lcore has no cache yet (made here), or
 * cannot have one: an unregistered thread, or no memory for a cache. */
static __rte_noinline void *
cache_alloc_no_lcore_cache(unsigned int lcore_id, size_t size, size_t align,
		uint32_t owner)
{
	struct cache_lcore *lc;
	unsigned int ci;

	lc = lcore_id < RTE_MAX_LCORE ? cache_lcore_slow(lcore_id) : NULL;
	if (lc == NULL)
		return pcpu_alloc_one(size, align, owner);
	ci = pcpu_caches.size_to_class[(size + 7) >> 3];
	if (align > pcpu_caches.class_align[ci])
		return pcpu_alloc_one(size, align, owner);
	if (owner >= PCPU_OWNER_LIMITED)
		return cache_alloc_class_slow_limited(lc, ci, size, owner);
	return cache_alloc_class_slow(lc, ci, size, owner);
}

/*
 * An allocation through the calling lcore's cache. @p limited (a
 * constant): @p owner has a limit, and the run of its owner must have
 * credit as well, used inside the lcore's stock (see the top of the file).
 * Every case but a pop from a run of the object's owner leaves by a tail
 * call, so that the common allocation makes no call and saves only the
 * registers the pop itself needs (two; three with a limit).
 */
static __rte_always_inline void *
cache_alloc_lcore(size_t size, size_t align, uint32_t owner, int limited)
{
	unsigned int lcore_id = rte_lcore_id();
	struct cache_lcore *lc;
	struct cache_class *cc;
	unsigned int ci;
	uintptr_t e;

	if (unlikely(lcore_id >= RTE_MAX_LCORE) ||
	    unlikely((lc = pcpu_caches.lcores[lcore_id]) == NULL))
		return cache_alloc_no_lcore_cache(lcore_id, size, align, owner);
	ci = pcpu_caches.size_to_class[(size + 7) >> 3];
	if (unlikely(align > pcpu_caches.class_align[ci]))
		return pcpu_alloc_one(size, align, owner);
	cc = &lc->cls[ci];
	if (unlikely(owner != cc->run_get_owner) ||
	    unlikely(cc->oc.len <= CACHE_LOW))
		return limited ?
			cache_alloc_class_slow_limited(lc, ci, size, owner) :
			cache_alloc_class_slow(lc, ci, size, owner);
	if (!limited)
		return cache_alloc_pop(lc, ci, size, owner);
	/* claim first (oc.nr_get), then look at the credit: the lcore's side
	 * of the handshake of pcpu_fence.h with a drain, which lowers the
	 * credit's end before it reads oc.nr_get */
	e = __rte_pcpu_objcache_pop(&cc->oc);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely((int32_t)(__atomic_load_n(&cc->run_get_end,
			__ATOMIC_RELAXED) - (uint32_t)cc->oc.nr_get) < 0))
		return cache_alloc_claimed(lc, ci, size, owner, e);
	return cache_alloc_finish(lc, ci, size, owner, e);
}

void *
pcpu_cache_alloc(size_t size, size_t align, uint32_t owner)
{
	return cache_alloc_lcore(size, align, owner, 0);
}

void *
pcpu_cache_alloc_limited(size_t size, size_t align, uint32_t owner)
{
	return cache_alloc_lcore(size, align, owner, 1);
}

/* Why a handle whose tag is @p t is no longer its user's: freed into a
 * cache, or its free under way; NULL if it is (LIVE), or if the tag says
 * nothing (0: not a cache object, the allocator's maps decide). The
 * check of both rte_pcpu_free() and rte_pcpu_zero(). */
static inline const char *
cache_tag_freed(uint16_t t)
{
	if ((t & TAG_FREEING) == TAG_FREEING)
		return "already freed, its free is under way";
	if (t & TAG_CACHED)
		return "already freed, held by a cache";
	return NULL;
}

static int
cache_refuse(void *handle, const char *why)
{
	PCPU_LOG(ERR, "free: %p is not a live allocation (%s)", handle, why);
	rte_errno = EINVAL;
	return -1;
}

/* An overflow or an epoch after a free into a cache. Returns 0. */
static __rte_noinline int
cache_free_housekeeping(struct cache_lcore *lc, unsigned int ci, uint64_t ops)
{
	if (lc->cls[ci].oc.len > lc->cls[ci].flush_at)
		cache_class_overflow(lc, ci);
	if ((ops & (CACHE_EPOCH_OPS - 1)) == 0)
		cache_lcore_epoch(lc);
	return 0;
}

/* A free into a class whose put-run is another owner's (every first free
 * of an owner after another's): out of line and reached by a tail call,
 * so that the common free makes no call and saves no register. Returns 0:
 * the free is done. */
static __rte_noinline int
cache_free_switch(struct cache_lcore *lc, unsigned int ci, uint32_t owner,
		void *handle)
{
	struct cache_class *cc = &lc->cls[ci];
	uint64_t ops;

	cache_run_put(lc, cc, ci, owner, (uintptr_t)handle | OBJ_DIRTY);
	ops = ++lc->ops;
	if (likely(cc->oc.len <= cc->flush_at) &&
	    likely((ops & (CACHE_EPOCH_OPS - 1)) != 0))
		return 0;
	return cache_free_housekeeping(lc, ci, ops);
}

/* The free of a live object (tag @p t at @p tp) into lcore cache @p lc. */
static __rte_always_inline int
cache_free_into(struct cache_lcore *lc, void *handle, uint16_t *tp,
		uint16_t t)
{
	unsigned int ci = t & TAG_CLASS_MASK;
	uint32_t owner = t >> TAG_OWNER_SHIFT;
	struct cache_class *cc = &lc->cls[ci];
	uint64_t ops;

	if (unlikely(!__atomic_compare_exchange_n(tp, &t,
			(uint16_t)(TAG_CACHED | ci), 0, __ATOMIC_RELAXED,
			__ATOMIC_RELAXED)))
		return cache_refuse(handle, "freed twice concurrently");
	pcpu_asan_poison(handle, cache_class_size[ci]);
	if (unlikely(owner != cc->run_put_owner))
		return cache_free_switch(lc, ci, owner, handle);
	__rte_pcpu_objcache_push(&cc->oc, (uintptr_t)handle | OBJ_DIRTY);
	ops = ++lc->ops;
	if (unlikely(cc->oc.len > cc->flush_at) ||
	    unlikely((ops & (CACHE_EPOCH_OPS - 1)) == 0))
		return cache_free_housekeeping(lc, ci, ops);
	return 0;
}

/* A free whose tag @p t is not LIVE: refused, or, with no tag (0), not a
 * cache object, left to the allocator's maps. */
static __rte_noinline int
cache_free_not_live(void *handle, uint16_t t)
{
	const char *why = cache_tag_freed(t);

	if (why != NULL)
		return cache_refuse(handle, why);
	return pcpu_alloc_free(handle);
}

/* A free of a live object (tag @p t at @p tp) by a thread whose lcore has
 * no cache yet (made here), or cannot have one: an unregistered thread, or
 * no memory for a cache, whose free goes to the allocator. */
static __rte_noinline int
cache_free_no_lcore_cache(void *handle, uint16_t *tp, uint16_t t,
		unsigned int lcore_id)
{
	unsigned int ci = t & TAG_CLASS_MASK;
	uint32_t owner = t >> TAG_OWNER_SHIFT;
	struct cache_lcore *lc;

	lc = lcore_id < RTE_MAX_LCORE ? cache_lcore_slow(lcore_id) : NULL;
	if (lc != NULL)
		return cache_free_into(lc, handle, tp, t);
	if (!__atomic_compare_exchange_n(tp, &t, (uint16_t)(t | TAG_FREEING),
			0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return cache_refuse(handle, "freed twice concurrently");
	if (pcpu_alloc_free_bulk(&handle, 1, cache_tags_freed, NULL) != 1) {
		__atomic_store_n(tp, t, __ATOMIC_RELAXED);
		return -1;
	}
	pcpu_owner_uncharge_any(owner, cache_class_size[ci], 1);
	return 0;
}

/*
 * A free of an object in a chunk the cache layer tags (@p off: its offset
 * in the unit). Out of line, so that the untagged case costs no frame;
 * every other case leaves by a tail call, so that this one needs none.
 */
static __rte_noinline int
cache_free_tagged(void *handle, uintptr_t off)
{
	uint16_t *tp = &pcpu_caches.tags[off >> TAG_SHIFT];
	uint16_t t = __atomic_load_n(tp, __ATOMIC_RELAXED);
	unsigned int lcore_id;
	struct cache_lcore *lc;

	if (unlikely((t & TAG_FREEING) != TAG_LIVE))
		return cache_free_not_live(handle, t);
	lcore_id = rte_lcore_id();
	if (unlikely(lcore_id >= RTE_MAX_LCORE) ||
	    unlikely((lc = pcpu_caches.lcores[lcore_id]) == NULL))
		return cache_free_no_lcore_cache(handle, tp, t, lcore_id);
	return cache_free_into(lc, handle, tp, t);
}

int
pcpu_cache_free(void *handle)
{
	uintptr_t off = (uintptr_t)handle - pcpu_caches.base;

	if (!cache_has_tag(off))
		return pcpu_alloc_free(handle);
	return cache_free_tagged(handle, off);
}

const char *
pcpu_cache_obj_freed(const void *handle)
{
	uintptr_t off = (uintptr_t)handle - pcpu_caches.base;

	if (!cache_has_tag(off))
		return NULL;
	return cache_tag_freed(__atomic_load_n(&pcpu_caches.tags[off >>
		TAG_SHIFT], __ATOMIC_RELAXED));
}

/* ---------------------------------------------------------------------- */
/* Flush, statistics, audit, tear-down. */

/* Flush and reset one lcore's caches; its owner must not run them.
 * Returns the objects given back. */
static uint64_t
cache_lcore_flush(struct cache_lcore *lc)
{
	uint64_t n = 0;
	unsigned int ci;

	for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
		n += lc->cls[ci].oc.len;
		cache_runs_end(lc, &lc->cls[ci], ci);
		cache_class_release(lc, &lc->cls[ci], ci);
	}
	return n;
}

uint64_t
pcpu_cache_flush(unsigned int lcore_id)
{
	struct cache_lcore *lc;

	if (lcore_id >= RTE_MAX_LCORE ||
	    __atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return 0;
	lc = pcpu_caches.lcores[lcore_id];
	return lc != NULL ? cache_lcore_flush(lc) : 0;
}

void
pcpu_cache_stats(unsigned int lcore_id, unsigned int class_idx,
		struct rte_pcpu_cache_stats *st)
{
	const struct cache_class *cc;
	const struct cache_lcore *lc;

	memset(st, 0, sizeof(*st));
	st->size = cache_class_size[class_idx];
	st->low = CACHE_LOW;
	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return;
	lc = __atomic_load_n(&pcpu_caches.lcores[lcore_id], __ATOMIC_ACQUIRE);
	if (lc == NULL)
		return;
	cc = &lc->cls[class_idx];
	st->len = STAT_READ(cc->oc.len);
	st->high = STAT_READ(cc->oc.capacity);
	st->batch = (CACHE_LOW + st->high) / 2;
	st->nr_alloc = STAT_READ(cc->oc.nr_get);
	st->nr_free = STAT_READ(cc->oc.nr_put);
	st->nr_refill = STAT_READ(cc->oc.nr_refill);
	st->nr_flush = STAT_READ(cc->nr_overflow);
	st->nr_grow = STAT_READ(cc->nr_grow);
	st->nr_decay = STAT_READ(cc->nr_decay);
}

void
pcpu_cache_counters(struct pcpu_cache_counters *c)
{
	unsigned int l, ci;

	memset(c, 0, sizeof(*c));
	c->min_size = UINT64_MAX;
	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct cache_lcore *lc = __atomic_load_n(&pcpu_caches.lcores[l],
			__ATOMIC_ACQUIRE);

		if (lc == NULL)
			continue;
		c->alloc_fail += STAT_READ(lc->nr_fail);
		c->min_size = RTE_MIN(c->min_size, STAT_READ(lc->min_size));
		c->max_size = RTE_MAX(c->max_size, STAT_READ(lc->max_size));
		for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
			struct rte_pcpu_objcache *oc = &lc->cls[ci].oc;
			uint64_t n = STAT_READ(oc->len);

			c->cached_objs += n;
			c->cached_bytes += n * cache_class_size[ci];
			c->user_alloc += STAT_READ(oc->nr_get);
			c->user_free += STAT_READ(oc->nr_put);
			c->refilled += STAT_READ(oc->refilled);
			c->flushed += STAT_READ(oc->flushed);
		}
	}
}

#define AUDIT_FAIL(...) do { \
	snprintf(msg, len, __VA_ARGS__); \
	return -1; \
} while (0)

/* One class of one lcore: sizes, counters, and every handle it holds. */
static int
cache_audit_class(unsigned int l, unsigned int ci, const struct cache_class *cc,
		char *msg, size_t len)
{
	const struct rte_pcpu_objcache *oc = &cc->oc;
	uint32_t i, sz = cache_class_size[ci];

	if (oc->len > pcpu_caches.max_objs[ci] ||
	    (oc->capacity == 0 && oc->len != 0) ||
	    oc->capacity > pcpu_caches.max_objs[ci])
		AUDIT_FAIL("cache of lcore %u class %u: %u objects, high %u, "
			"max %u", l, sz, oc->len, oc->capacity,
			pcpu_caches.max_objs[ci]);
	if (!pcpu_objcache_counts_ok(oc))
		AUDIT_FAIL("cache of lcore %u class %u: counters say %" PRIu64
			" objects, it holds %u", l, sz, oc->refilled +
			oc->nr_put - oc->nr_get - oc->flushed, oc->len);
	for (i = 0; i < oc->len; i++) {
		uintptr_t h = oc->objs[i] & ~OBJ_DIRTY;
		int in = h - pcpu_caches.base < pcpu_caches.limit;

		if (!in || *cache_tag_of(h) != (TAG_CACHED | ci) ||
		    pcpu_alloc_obj_bytes((void *)h) != sz)
			AUDIT_FAIL("cache of lcore %u class %u holds %p: tag "
				"%#x, chunk object of %u bytes", l, sz,
				(void *)h, in ? *cache_tag_of(h) : 0,
				pcpu_alloc_obj_bytes((void *)h));
	}
	return 0;
}

/* Every tag sits on a chunk object of its class's size, every LIVE tag
 * names a live owner; counts them. */
static int
cache_audit_tags(uint64_t *tagged_cached, struct pcpu_cache_owner_sums *os,
		char *msg, size_t len)
{
	size_t per_chunk = ((size_t)1 << pcpu_caches.chunk_shift) >> TAG_SHIFT;
	const size_t per_word = sizeof(uint64_t) / sizeof(pcpu_caches.tags[0]);
	uint32_t idx;

	for (idx = 0; idx < pcpu_caches.nr_chunks; idx++) {
		const uint64_t *w;
		size_t i;

		if (!(pcpu_caches.chunk_used[idx / 64] &
		      (UINT64_C(1) << (idx % 64))))
			continue;
		w = (const uint64_t *)(pcpu_caches.tags + per_chunk * idx);
		for (i = 0; i < per_chunk / per_word; i++) {
			unsigned int b, ci, owner;

			for (b = 0; w[i] != 0 && b < per_word; b++) {
				size_t slot = per_chunk * idx + i * per_word + b;
				uint16_t t = pcpu_caches.tags[slot];
				uintptr_t h = pcpu_caches.base +
					(slot << TAG_SHIFT);

				if (t == 0)
					continue;
				ci = t & TAG_CLASS_MASK;
				owner = t >> TAG_OWNER_SHIFT;
				if (ci >= RTE_PCPU_CACHE_NB_CLASSES ||
				    ((t & TAG_LIVE) != 0) ==
				    ((t & TAG_CACHED) != 0) ||
				    pcpu_alloc_obj_bytes((void *)h) !=
				    cache_class_size[ci])
					AUDIT_FAIL("tag %#x at %p, chunk object "
						"of %u bytes there", t, (void *)h,
						pcpu_alloc_obj_bytes((void *)h));
				if (t & TAG_CACHED) {
					if (owner != PCPU_OWNER_NONE)
						AUDIT_FAIL("cached object at %p "
							"has owner %u", (void *)h,
							owner);
					(*tagged_cached)++;
					os->cached_bytes += cache_class_size[ci];
					continue;
				}
				if (owner == PCPU_OWNER_NONE ||
				    pcpu_owners.rec[owner].kind ==
				    PCPU_OWNER_KIND_FREE)
					AUDIT_FAIL("live object at %p: owner %u "
						"is not a live owner", (void *)h,
						owner);
				os->bytes[owner] += cache_class_size[ci];
				os->objs[owner]++;
			}
		}
	}
	return 0;
}

int
pcpu_cache_audit(uint64_t *cached, struct pcpu_cache_owner_sums *os,
		char *msg, size_t len)
{
	uint64_t in_caches = 0, tagged_cached = 0, cap = 0;
	unsigned int l, ci;

	*cached = 0;
	memset(os, 0, sizeof(*os));
	if (__atomic_load_n(&pcpu_caches.state, __ATOMIC_ACQUIRE) != CACHE_ON)
		return 0;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct cache_lcore *lc = pcpu_caches.lcores[l];
		uint64_t lcap = 0;

		if (lc == NULL)
			continue;
		for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
			if (cache_audit_class(l, ci, &lc->cls[ci], msg,
					len) != 0)
				return -1;
			in_caches += lc->cls[ci].oc.len;
			lcap += (uint64_t)lc->cls[ci].oc.capacity *
				cache_class_size[ci];
		}
		if (lcap != lc->cap_bytes)
			AUDIT_FAIL("lcore %u cache capacity %" PRIu64
				" bytes, counter %" PRIu64, l, lcap,
				lc->cap_bytes);
		cap += lcap;
	}
	if (cap != pcpu_caches.global_cap)
		AUDIT_FAIL("cache capacity %" PRIu64 " bytes, counter %" PRIu64,
			cap, pcpu_caches.global_cap);
	if (cache_audit_tags(&tagged_cached, os, msg, len) != 0)
		return -1;
	if (tagged_cached != in_caches)
		AUDIT_FAIL("%" PRIu64 " objects tagged cached, caches hold %"
			PRIu64, tagged_cached, in_caches);
	*cached = in_caches;
	return 0;
}

/* A registered thread unregisters: give its caches back. */
static void
cache_lcore_leave(unsigned int lcore_id)
{
	pcpu_cache_flush(lcore_id);
}

void
pcpu_cache_cleanup(void)
{
	unsigned int l;

	pthread_mutex_lock(&pcpu_caches.mutex);
	__atomic_store_n(&pcpu_caches.tag_limit, 0, __ATOMIC_RELEASE);
	if (pcpu_caches.state == CACHE_ON) {
		pcpu_alloc_listener_unregister(&cache_listener);
		pcpu_owner_pending_register(NULL);
		for (l = 0; l < RTE_MAX_LCORE; l++) {
			if (pcpu_caches.lcores[l] == NULL)
				continue;
			cache_lcore_flush(pcpu_caches.lcores[l]);
			rte_free(pcpu_caches.lcores[l]);
			pcpu_caches.lcores[l] = NULL;
		}
		cache_tags_unmap(pcpu_caches.tags, pcpu_caches.tags_len);
		pcpu_caches.tags = NULL;
		free(pcpu_caches.chunk_used);
		pcpu_caches.chunk_used = NULL;
		pcpu_caches.global_cap = 0;
	}
	__atomic_store_n(&pcpu_caches.state, CACHE_OFF, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pcpu_caches.mutex);
}
