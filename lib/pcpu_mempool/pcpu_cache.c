/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Cache buckets: per lcore, per size class, a LIFO array of free handles
 * in front of the chunk allocator.
 *
 * Fast path (alloc and free of a size the classes serve, on an EAL lcore,
 * a service lcore or a registered thread): one pop or push on the calling
 * lcore's own array, plus one byte of the *tag map* (below). Nothing shared
 * is written except that tag byte. Slow paths (refill, flush, watermark
 * changes) run on the same lcore and move a batch to or from the chunk
 * allocator under its lock (pcpu_alloc_bulk_slow/pcpu_free_bulk_slow).
 *
 * Watermarks, per lcore and class (see the programmer's guide, "Caches and
 * Watermarks"): high is the capacity; an alloc that finds the array at
 * or below low (0: refills are synchronous, so a reserve above 0 would
 * only pin cold objects) refills to the midpoint mid = (low + high) / 2;
 * a free that takes it above high flushes the oldest objects down to mid,
 * keeping the most recently freed (hot) ones, or all of them when nothing
 * was allocated from the class since its last overflow (a mass free:
 * objects only pass through, and one flush takes the chunk allocator's
 * lock once for all); until the next allocation from the class, the mass
 * free then gathers up to PCPU_CACHE_STREAK_BYTES (at least high, at most
 * the largest capacity) before each flush. high starts small
 * (init_high[]), doubles when an overflow is followed by an underflow
 * (the tcmalloc rule: a bigger array would have absorbed both), within
 * a per-lcore and a global capacity budget, and decays when the class is
 * idle. Idleness is found without timers: every PCPU_CACHE_EPOCH_OPS
 * operations of an lcore, a scan of its classes halves the capacity of a
 * class that had no operation during the epoch (emptying and releasing it
 * at its initial size), and gives back half of the objects that stayed
 * untouched at the bottom of a used class (its low-water mark). A class
 * that was never used, or was released, holds nothing: high = 0, and its
 * first operation takes the slow path that sets it up (prefill only the
 * classes in use).
 *
 * Tag map: one byte per 8 bytes of lcore 0's unit (lazily backed anonymous
 * memory, 1/8 of the unit's address space), at the start of every object
 * of a cached class: TAG_LIVE | class while the user holds it,
 * TAG_CACHED | class while a cache holds it, 0 otherwise (objects of other
 * sizes, and all free space). The free path reads the class from it
 * without any lock and changes LIVE to CACHED with one compare-and-swap,
 * so a double free of an object sitting in a cache (still allocated for
 * the chunk allocator), or two racing frees of one object, fail; handles
 * with tag 0 (interior pointers, never allocated, other sizes) go to the
 * chunk allocator, which validates them against its boundary map.
 *
 * Unregistered threads (rte_lcore_id() == LCORE_ID_ANY) have no cache:
 * they allocate from the chunk allocator under its lock, and free there
 * (after turning a LIVE tag to FREEING with the same compare-and-swap;
 * the chunk allocator's pcpu_freed_hook clears it under its lock).
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
#include "pcpu_cache.h"
#include "pcpu_private.h"
#include "pcpu_asan.h"

/* Size classes, bytes per lcore copy (see the guide for their waste). */
static const uint32_t class_size[RTE_PCPU_CACHE_NB_CLASSES] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

/* Initial high watermark: 1 KiB worth, a power of two in [4, 32]. */
static const uint32_t init_high[RTE_PCPU_CACHE_NB_CLASSES] = {
	32, 32, 32, 32, 16, 16, 8, 8, 4, 4, 4, 4,
};

/* Largest capacity of a class: min(512, 64 KiB / size) objects. */
#define PCPU_CACHE_CLASS_MAX_BYTES (64u * 1024u)
#define PCPU_CACHE_CLASS_MAX_OBJS 512u
/* During a mass free, a class flushes whole once it holds this much (at
 * least high, at most the largest capacity): 64 objects of 256 B per lock
 * instead of high + 1 = 5. */
#define PCPU_CACHE_STREAK_BYTES (16u * 1024u)
/* Capacity budgets (sum of high x size) limiting growth. */
#define PCPU_CACHE_LCORE_BUDGET (256u * 1024u)
#define PCPU_CACHE_GLOBAL_BUDGET (2u * 1024u * 1024u)
/* Operations of one lcore between two idle scans of its classes. */
#define PCPU_CACHE_EPOCH_OPS (UINT64_C(1) << 16)
/* Refill when an alloc finds the array at or below this. */
#define PCPU_CACHE_LOW 0u

#define TAG_CLASS_MASK 0x3fu
#define TAG_LIVE 0x40u
#define TAG_CACHED 0x80u
/* both: on its way back to the chunk allocator from a thread without a
 * cache (a flush leaves the tags CACHED); a free of it is a double free */
#define TAG_FREEING (TAG_LIVE | TAG_CACHED)
/* Low bit of a cached handle: the object was used (zero it on alloc). */
#define OBJ_DIRTY ((uintptr_t)1)
/* One tag byte per this many bytes of a unit. */
#define TAG_SHIFT 3

enum cache_event { EV_NONE, EV_UNDERFLOW, EV_OVERFLOW };

/* One lcore's cache of one class; only its lcore writes it. */
struct cache_class {
	/* fast path */
	uint32_t count;       /* objects held */
	uint32_t high;        /* capacity; 0 = not in use */
	uint32_t lowwater;    /* lowest count this epoch */
	uint32_t mid;         /* refill/flush target */
	uint32_t flush_at;    /* a free above this flushes: high, or the
	                       * streak capacity during a mass free */
	uintptr_t *objs;      /* max_objs + 1 entries; top is objs[count-1] */
	uint64_t nr_alloc;    /* objects handed to users */
	uint64_t nr_free;     /* objects freed into the cache by users */
	/* slow path */
	uint64_t refilled;    /* objects from the chunks */
	uint64_t flushed;     /* objects to the chunks */
	uint64_t nr_refill;
	uint64_t nr_flush;
	uint64_t nr_grow;
	uint64_t nr_decay;
	uint64_t ops_snap;    /* nr_alloc + nr_free at the last scan */
	uint64_t alloc_snap;  /* nr_alloc at the last overflow */
	uint32_t last_event;
	uint32_t pad;
} __rte_cache_aligned;


struct lcore_cache {
	struct cache_class cls[RTE_PCPU_CACHE_NB_CLASSES];
	uint64_t ops;         /* alloc + free, for the epoch */
	uint64_t min_size;    /* smallest and largest size users asked */
	uint64_t max_size;    /* for (UINT64_MAX, 0: none yet) */
	uint64_t cap_bytes;   /* sum of high x size */
	uint64_t nr_fail;
	unsigned int lcore_id;
	/* copies to zero: the lcores with memory when last looked at */
	struct rte_pcpu_copies copies;
	uintptr_t store[];    /* the arrays */
} __rte_cache_aligned;

enum cache_state { CS_OFF = 0, CS_ON, CS_DISABLED };

static struct {
	uint32_t state;              /* enum cache_state, acquire/release */
	uintptr_t base;              /* lcore 0's unit */
	uint64_t limit;              /* unit stride */
	uint8_t *tags;               /* limit >> TAG_SHIFT bytes */
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
	struct lcore_cache *lcores[RTE_MAX_LCORE];
	pthread_mutex_t mutex;       /* set-up, tear-down, lcore creation */
} cs = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
};

static void (*prev_leave_hook)(unsigned int lcore_id);
static void (*prev_cleanup_hook)(void);

#define STAT_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (n), __ATOMIC_RELAXED)
#define STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static inline uint8_t *
tag_of(uintptr_t h)
{
	return &cs.tags[(h - cs.base) >> TAG_SHIFT];
}

static void
mark_chunk_used(uintptr_t h)
{
	uint32_t idx = (uint32_t)((h - cs.base) >> cs.chunk_shift);

	if (!(__atomic_load_n(&cs.chunk_used[idx / 64], __ATOMIC_RELAXED) &
	      (UINT64_C(1) << (idx % 64))))
		__atomic_fetch_or(&cs.chunk_used[idx / 64],
			UINT64_C(1) << (idx % 64), __ATOMIC_RELAXED);
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
chunk_tagged(uintptr_t off)
{
	uint32_t idx = (uint32_t)(off >> cs.chunk_shift);

	return (__atomic_load_n(&cs.chunk_used[idx / 64], __ATOMIC_RELAXED) >>
		(idx % 64)) & 1;
}

/* Set up the class tables (once, constant). */
static void
tables_init(void)
{
	uint32_t c, s;

	for (c = 0, s = 1; s <= RTE_PCPU_CACHE_MAX_SIZE / 8; s++) {
		while (class_size[c] < s * 8)
			c++;
		cs.size_to_class[s] = (uint8_t)c;
	}
	cs.size_to_class[0] = 0;
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		uint32_t sz = class_size[c];

		cs.max_objs[c] = RTE_MIN(PCPU_CACHE_CLASS_MAX_OBJS,
			PCPU_CACHE_CLASS_MAX_BYTES / sz);
		cs.streak_objs[c] = RTE_MIN(cs.max_objs[c],
			PCPU_CACHE_STREAK_BYTES / sz);
		cs.class_align[c] = (uint8_t)RTE_MIN(sz & -sz,
			(uint32_t)RTE_CACHE_LINE_SIZE);
	}
}

/* First use after rte_pcpu_init(): map the tags. */
static int
cache_setup(void)
{
	struct rte_pcpu_stats st;
	void *m;
	int ret = 0;

	pthread_mutex_lock(&cs.mutex);
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_OFF)
		goto out;
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) ||
	    rte_pcpu_stats_get(&st) != 0 || st.chunk_size == 0) {
		rte_errno = EINVAL;
		ret = -1;
		goto out;
	}
	if (pcpu_cache_disabled()) {
		__atomic_store_n(&cs.state, CS_DISABLED, __ATOMIC_RELEASE);
		goto out;
	}
	tables_init();
	cs.base = rte_pcpu_shared.base;
	cs.limit = UINT64_C(1) << rte_pcpu_shared.unit_shift;
	cs.tags_len = (size_t)(cs.limit >> TAG_SHIFT);
	cs.chunk_shift = (uint32_t)rte_log2_u64(st.chunk_size);
	cs.nr_chunks = (uint32_t)(cs.limit >> cs.chunk_shift);
	cs.chunk_used = calloc((cs.nr_chunks + 63) / 64, sizeof(uint64_t));
	m = mmap(NULL, cs.tags_len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED || cs.chunk_used == NULL) {
		PCPU_LOG(ERR, "cache: cannot map %zu bytes of tags",
			cs.tags_len);
		if (m != MAP_FAILED)
			munmap(m, cs.tags_len);
		free(cs.chunk_used);
		cs.chunk_used = NULL;
		/* run uncached rather than fail */
		__atomic_store_n(&cs.state, CS_DISABLED, __ATOMIC_RELEASE);
		goto out;
	}
	cs.tags = m;
	cs.global_cap = 0;
	__atomic_store_n(&cs.state, CS_ON, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&cs.mutex);
	return ret;
}


static struct lcore_cache *
lcore_cache_create(unsigned int lcore_id)
{
	struct lcore_cache *lc;
	size_t entries = 0, off = 0;
	unsigned int socket, c;

	pthread_mutex_lock(&cs.mutex);
	lc = cs.lcores[lcore_id];
	if (lc != NULL || __atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		goto out;
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++)
		entries += cs.max_objs[c] + 1;
	socket = rte_lcore_to_socket_id(lcore_id);
	lc = rte_zmalloc_socket("pcpu_cache", sizeof(*lc) +
		entries * sizeof(uintptr_t), RTE_CACHE_LINE_SIZE,
		socket < RTE_MAX_NUMA_NODES ? (int)socket : SOCKET_ID_ANY);
	if (lc == NULL)
		lc = rte_zmalloc("pcpu_cache", sizeof(*lc) +
			entries * sizeof(uintptr_t), RTE_CACHE_LINE_SIZE);
	if (lc == NULL) {
		PCPU_LOG(ERR, "cache: no memory for lcore %u's cache",
			lcore_id);
		goto out;
	}
	lc->lcore_id = lcore_id;
	lc->min_size = UINT64_MAX;
	rte_pcpu_copies_rebuild(&lc->copies);
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		lc->cls[c].objs = &lc->store[off];
		off += cs.max_objs[c] + 1;
	}
	__atomic_store_n(&cs.lcores[lcore_id], lc, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&cs.mutex);
	return lc;
}

/* Change a class's capacity by delta bytes in both budgets. With
 * @p fit, return how much of a growth fits (may be 0). */
static uint64_t
budget_take(struct lcore_cache *lc, uint64_t want)
{
	uint64_t cur, room;

	if (lc->cap_bytes >= PCPU_CACHE_LCORE_BUDGET)
		return 0;
	want = RTE_MIN(want, PCPU_CACHE_LCORE_BUDGET - lc->cap_bytes);
	cur = __atomic_load_n(&cs.global_cap, __ATOMIC_RELAXED);
	do {
		if (cur >= PCPU_CACHE_GLOBAL_BUDGET)
			return 0;
		room = RTE_MIN(want, PCPU_CACHE_GLOBAL_BUDGET - cur);
	} while (!__atomic_compare_exchange_n(&cs.global_cap, &cur, cur + room,
			0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	lc->cap_bytes += room;
	return room;
}

/*
 * pcpu_freed_hook: the chunk allocator freed these objects, and still
 * holds its spinlock. Their tags (CACHED from a flush, FREEING from a
 * thread without a cache) go now, before anyone can allocate the space
 * again: clearing them later could hit an object allocated there
 * meanwhile; clearing them before the free would let a racing double free
 * through to the chunk allocator. Every handle is one this layer tagged.
 */
static void
tags_freed(void * const *handles, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_store_n(tag_of((uintptr_t)handles[i]), 0,
			__ATOMIC_RELAXED);
}

static void
budget_give(struct lcore_cache *lc, uint64_t bytes)
{
	lc->cap_bytes -= bytes;
	__atomic_fetch_sub(&cs.global_cap, bytes, __ATOMIC_RELAXED);
}

static void
set_high(struct cache_class *cc, uint32_t high)
{
	__atomic_store_n(&cc->high, high, __ATOMIC_RELAXED);
	cc->mid = (PCPU_CACHE_LOW + high) / 2;
	cc->flush_at = high;
}

/* A class's first use (or first after release): the initial capacity is
 * always granted (at most 11.5 KiB for all classes) and counted. */
static void
class_activate(struct lcore_cache *lc, struct cache_class *cc, unsigned int ci)
{
	uint64_t bytes = (uint64_t)init_high[ci] * class_size[ci];

	lc->cap_bytes += bytes;
	__atomic_fetch_add(&cs.global_cap, bytes, __ATOMIC_RELAXED);
	set_high(cc, init_high[ci]);
	cc->last_event = EV_NONE;
	cc->lowwater = cc->count;
	cc->ops_snap = cc->nr_alloc + cc->nr_free;
}

static void
class_grow(struct lcore_cache *lc, struct cache_class *cc, unsigned int ci)
{
	uint32_t want = RTE_MIN(cc->high * 2, cs.max_objs[ci]);
	uint64_t got;

	if (want <= cc->high)
		return;
	got = budget_take(lc, (uint64_t)(want - cc->high) * class_size[ci]);
	/* the budget may grant a part of an object: give that part back */
	budget_give(lc, got % class_size[ci]);
	got /= class_size[ci];
	if (got == 0)
		return;
	set_high(cc, cc->high + (uint32_t)got);
	STAT_ADD(cc->nr_grow, 1);
}

/* Give the @p n oldest objects (bottom of the array) back. */
static void
class_flush_bottom(struct cache_class *cc, uint32_t n)
{
	uint32_t i, done;

	if (n == 0)
		return;
	/* the tags stay CACHED (a racing free of one is refused) until the
	 * chunk allocator frees it and tags_freed() clears it */
	for (i = 0; i < n; i++)
		cc->objs[i] &= ~OBJ_DIRTY;
	done = pcpu_free_bulk_slow((void * const *)cc->objs, n, 1);
	if (unlikely(done != n))
		PCPU_LOG(ERR, "cache: %u of %u flushed objects were not live",
			n - done, n);
	memmove(cc->objs, cc->objs + n, (cc->count - n) * sizeof(uintptr_t));
	__atomic_store_n(&cc->count, cc->count - n, __ATOMIC_RELAXED);
	STAT_ADD(cc->flushed, n);
	if (cc->lowwater > cc->count)
		cc->lowwater = cc->count;
}

/* Release a class: flush everything, give its capacity back. */
static void
class_release(struct lcore_cache *lc, struct cache_class *cc, unsigned int ci)
{
	class_flush_bottom(cc, cc->count);
	if (cc->high != 0)
		budget_give(lc, (uint64_t)cc->high * class_size[ci]);
	set_high(cc, 0);
	cc->mid = 0;
	cc->last_event = EV_NONE;
}

/* Idle scan, once per epoch of the lcore's operations. */
static void
lcore_epoch(struct lcore_cache *lc)
{
	unsigned int ci;

	for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
		struct cache_class *cc = &lc->cls[ci];
		uint64_t ops = cc->nr_alloc + cc->nr_free;

		if (cc->high == 0)
			continue;
		if (ops == cc->ops_snap) {
			/* idle for a whole epoch: halve, then release */
			if (cc->high <= init_high[ci]) {
				class_release(lc, cc, ci);
			} else {
				uint32_t nh = RTE_MAX(cc->high / 2,
					init_high[ci]);

				budget_give(lc, (uint64_t)(cc->high - nh) *
					class_size[ci]);
				set_high(cc, nh);
				if (cc->count > cc->mid)
					class_flush_bottom(cc,
						cc->count - cc->mid);
			}
			STAT_ADD(cc->nr_decay, 1);
		} else if (cc->lowwater > 1) {
			/* in use, but the bottom stayed untouched */
			class_flush_bottom(cc, cc->lowwater / 2);
		}
		cc->ops_snap = ops;
		cc->lowwater = cc->count;
	}
}

/* Alloc found count <= low: refill up to the midpoint. 0 or -1. */
#define ZERO_COPIES(sz) rte_pcpu_copies_zero(&lc->copies, h, (sz))

/*
 * Zero every lcore's copy of a reused object: pcpu_zero_copies() with the
 * lcore list kept per lcore (checked against the shared mask: one load per
 * mask word) and a constant size per class, so the stores are inlined.
 */
static inline void
zero_copies(struct lcore_cache *lc, uintptr_t h, unsigned int ci)
{
	rte_pcpu_copies_check(&lc->copies);
	switch (ci) {
	case 0: ZERO_COPIES(8); break;
	case 1: ZERO_COPIES(16); break;
	case 2: ZERO_COPIES(24); break;
	case 3: ZERO_COPIES(32); break;
	case 4: ZERO_COPIES(48); break;
	case 5: ZERO_COPIES(64); break;
	case 6: ZERO_COPIES(96); break;
	case 7: ZERO_COPIES(128); break;
	case 8: ZERO_COPIES(192); break;
	case 9: ZERO_COPIES(256); break;
	case 10: ZERO_COPIES(384); break;
	default: ZERO_COPIES(512); break;
	}
}

static __rte_noinline int
class_refill(struct lcore_cache *lc, unsigned int ci)
{
	struct cache_class *cc = &lc->cls[ci];
	uint32_t need, n, i;

	if (cc->high == 0)
		class_activate(lc, cc, ci);
	else if (cc->last_event == EV_OVERFLOW)
		class_grow(lc, cc, ci);
	cc->last_event = EV_UNDERFLOW;
	need = cc->mid > cc->count ? cc->mid - cc->count : 1;
	n = pcpu_alloc_bulk_slow(class_size[ci], cs.class_align[ci],
		(void **)&cc->objs[cc->count], need, 0);
	for (i = 0; i < n; i++) {
		uintptr_t h = cc->objs[cc->count + i];

		mark_chunk_used(h);
		pcpu_asan_poison((void *)h, class_size[ci]);
		__atomic_store_n(tag_of(h), (uint8_t)(TAG_CACHED | ci),
			__ATOMIC_RELAXED);
	}
	__atomic_store_n(&cc->count, cc->count + n, __ATOMIC_RELAXED);
	STAT_ADD(cc->refilled, n);
	STAT_ADD(cc->nr_refill, 1);
	if (cc->count == 0) {
		STAT_ADD(lc->nr_fail, 1);
		return -1;
	}
	return 0;
}

/* Free took count above high: flush the oldest down to the midpoint. */
static __rte_noinline void
class_overflow(struct lcore_cache *lc, unsigned int ci)
{
	struct cache_class *cc = &lc->cls[ci];

	if (cc->high == 0) {
		class_activate(lc, cc, ci);
		if (cc->count <= cc->high)
			return;
	}
	if (cc->last_event == EV_OVERFLOW && cc->nr_alloc == cc->alloc_snap) {
		/* nothing was allocated from the class since its last
		 * flush: objects only pass through (a mass free), none of
		 * them is worth keeping; all go, and until the next
		 * allocation the class gathers a streak's worth before the
		 * next flush (one lock, one pass over the chunk maps) */
		class_flush_bottom(cc, cc->count);
		cc->flush_at = RTE_MAX(cc->high, cs.streak_objs[ci]);
	} else {
		cc->last_event = EV_OVERFLOW;
		class_flush_bottom(cc, cc->count - cc->mid);
	}
	cc->alloc_snap = cc->nr_alloc;
	STAT_ADD(cc->nr_flush, 1);
}

static __rte_noinline struct lcore_cache *
lcore_cache_slow(unsigned int lcore_id)
{
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) == CS_OFF &&
	    cache_setup() != 0)
		return NULL;
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		return NULL;
	return lcore_cache_create(lcore_id);
}

void *
pcpu_cache_alloc(size_t size, size_t align)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lcore_cache *lc;
	struct cache_class *cc;
	unsigned int ci;
	uintptr_t e, h;

	if (unlikely(size > RTE_PCPU_CACHE_MAX_SIZE ||
		     lcore_id >= RTE_MAX_LCORE))
		return pcpu_alloc_slow(size, align);
	lc = cs.lcores[lcore_id];
	if (unlikely(lc == NULL)) {
		lc = lcore_cache_slow(lcore_id);
		if (lc == NULL)
			return pcpu_alloc_slow(size, align);
	}
	ci = cs.size_to_class[(size + 7) >> 3];
	if (unlikely(align > cs.class_align[ci]))
		return pcpu_alloc_slow(size, align);
	cc = &lc->cls[ci];
	if (unlikely(cc->count <= PCPU_CACHE_LOW) &&
	    class_refill(lc, ci) != 0)
		return NULL;
	e = cc->objs[cc->count - 1];
	__atomic_store_n(&cc->count, cc->count - 1, __ATOMIC_RELAXED);
	if (cc->count < cc->lowwater)
		cc->lowwater = cc->count;
	/* an allocation ends a mass free */
	cc->flush_at = cc->high;
	STAT_ADD(cc->nr_alloc, 1);
	if (unlikely(size < lc->min_size))
		__atomic_store_n(&lc->min_size, size, __ATOMIC_RELAXED);
	if (unlikely(size > lc->max_size))
		__atomic_store_n(&lc->max_size, size, __ATOMIC_RELAXED);
	h = e & ~OBJ_DIRTY;
	__atomic_store_n(tag_of(h), (uint8_t)(TAG_LIVE | ci), __ATOMIC_RELAXED);
	pcpu_asan_unpoison((void *)h, class_size[ci]);
	if (e & OBJ_DIRTY)
		zero_copies(lc, h, ci);
	if (unlikely((++lc->ops & (PCPU_CACHE_EPOCH_OPS - 1)) == 0))
		lcore_epoch(lc);
	return (void *)h;
}

static int
reject(void *handle, const char *why)
{
	PCPU_LOG(ERR, "free: %p is not a live allocation (%s)", handle, why);
	rte_errno = EINVAL;
	return -1;
}

/* A free of an object in a chunk the cache layer tags (@p off: its offset
 * in the unit). Out of line, so that the untagged case costs no frame. */
static __rte_noinline int
cache_free_tagged(void *handle, uintptr_t off)
{
	uintptr_t h = (uintptr_t)handle;
	unsigned int lcore_id, ci;
	struct lcore_cache *lc;
	struct cache_class *cc;
	uint8_t *tp, t;

	tp = &cs.tags[off >> TAG_SHIFT];
	t = __atomic_load_n(tp, __ATOMIC_RELAXED);
	if (unlikely((t & TAG_FREEING) != TAG_LIVE)) {
		if ((t & TAG_FREEING) == TAG_FREEING)
			return reject(handle, "already freed, its free is under way");
		if (t & TAG_CACHED)
			return reject(handle, "already freed, held by a cache");
		/* not a cache object: no tag to drop */
		return pcpu_free_slow(handle, NULL, 0);
	}
	ci = t & TAG_CLASS_MASK;
	lcore_id = rte_lcore_id();
	lc = lcore_id < RTE_MAX_LCORE ? cs.lcores[lcore_id] : NULL;
	if (unlikely(lc == NULL) && lcore_id < RTE_MAX_LCORE)
		lc = lcore_cache_slow(lcore_id);
	if (unlikely(lc == NULL)) {
		/* unregistered thread (or no memory for a cache) */
		if (!__atomic_compare_exchange_n(tp, &t,
				(uint8_t)(TAG_FREEING | ci), 0,
				__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return reject(handle, "freed twice concurrently");
		if (pcpu_free_slow(handle, NULL, 1) != 0) {
			__atomic_store_n(tp, (uint8_t)(TAG_LIVE | ci),
				__ATOMIC_RELAXED);
			return -1;
		}
		return 0;
	}
	if (unlikely(!__atomic_compare_exchange_n(tp, &t,
			(uint8_t)(TAG_CACHED | ci), 0, __ATOMIC_RELAXED,
			__ATOMIC_RELAXED)))
		return reject(handle, "freed twice concurrently");
	pcpu_asan_poison(handle, class_size[ci]);
	cc = &lc->cls[ci];
	cc->objs[cc->count] = h | OBJ_DIRTY;
	__atomic_store_n(&cc->count, cc->count + 1, __ATOMIC_RELAXED);
	STAT_ADD(cc->nr_free, 1);
	if (unlikely(cc->count > cc->flush_at))
		class_overflow(lc, ci);
	if (unlikely((++lc->ops & (PCPU_CACHE_EPOCH_OPS - 1)) == 0))
		lcore_epoch(lc);
	return 0;
}

int
pcpu_cache_free(void *handle)
{
	uintptr_t off = (uintptr_t)handle - cs.base;

	/* caches on implies an initialised allocator; NULL is far from the
	 * unit (off wraps) */
	if (unlikely(__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON) ||
	    off >= cs.limit || (off & ((1u << TAG_SHIFT) - 1)) != 0 ||
	    !chunk_tagged(off))
		return pcpu_free_untagged(handle);
	return cache_free_tagged(handle, off);
}

/* Flush and reset one lcore's caches; its owner must not run them.
 * Returns the objects given back. */
static uint64_t
lcore_flush(struct lcore_cache *lc)
{
	uint64_t n = 0;
	unsigned int ci;

	for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
		n += lc->cls[ci].count;
		class_release(lc, &lc->cls[ci], ci);
	}
	return n;
}

int
rte_pcpu_cache_flush(void)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lcore_cache *lc;

	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE)) {
		rte_errno = EALREADY;
		return -1;
	}
	if (lcore_id >= RTE_MAX_LCORE ||
	    __atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		return 0;
	lc = cs.lcores[lcore_id];
	if (lc == NULL)
		return 0;
	return (int)RTE_MIN(lcore_flush(lc), (uint64_t)INT32_MAX);
}

int
rte_pcpu_cache_stats_get(unsigned int lcore_id, unsigned int class_idx,
		struct rte_pcpu_cache_stats *st)
{
	const struct cache_class *cc;
	const struct lcore_cache *lc;

	if (st == NULL || lcore_id >= RTE_MAX_LCORE ||
	    class_idx >= RTE_PCPU_CACHE_NB_CLASSES) {
		rte_errno = EINVAL;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->size = class_size[class_idx];
	st->low = PCPU_CACHE_LOW;
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		return 0;
	lc = __atomic_load_n(&cs.lcores[lcore_id], __ATOMIC_ACQUIRE);
	if (lc == NULL)
		return 0;
	cc = &lc->cls[class_idx];
	st->len = STAT_READ(cc->count);
	st->high = STAT_READ(cc->high);
	st->batch = (PCPU_CACHE_LOW + st->high) / 2;
	st->nr_alloc = STAT_READ(cc->nr_alloc);
	st->nr_free = STAT_READ(cc->nr_free);
	st->nr_refill = STAT_READ(cc->nr_refill);
	st->nr_flush = STAT_READ(cc->nr_flush);
	st->nr_grow = STAT_READ(cc->nr_grow);
	st->nr_decay = STAT_READ(cc->nr_decay);
	return 0;
}

void
pcpu_cache_counters(struct pcpu_cache_counters *c)
{
	unsigned int l, ci;

	memset(c, 0, sizeof(*c));
	c->min_size = UINT64_MAX;
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		return;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct lcore_cache *lc = __atomic_load_n(&cs.lcores[l],
			__ATOMIC_ACQUIRE);

		if (lc == NULL)
			continue;
		c->alloc_fail += STAT_READ(lc->nr_fail);
		c->min_size = RTE_MIN(c->min_size, STAT_READ(lc->min_size));
		c->max_size = RTE_MAX(c->max_size, STAT_READ(lc->max_size));
		for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
			struct cache_class *cc = &lc->cls[ci];
			uint64_t n = STAT_READ(cc->count);

			c->cached_objs += n;
			c->cached_bytes += n * class_size[ci];
			c->user_alloc += STAT_READ(cc->nr_alloc);
			c->user_free += STAT_READ(cc->nr_free);
			c->refilled += STAT_READ(cc->refilled);
			c->flushed += STAT_READ(cc->flushed);
		}
	}
}

#define AUDIT_FAIL(...) do { \
	snprintf(msg, len, __VA_ARGS__); \
	return -1; \
} while (0)

int
pcpu_cache_audit(uint32_t (*obj_bytes)(const void *handle), uint64_t *cached,
		char *msg, size_t len)
{
	uint64_t in_caches = 0, tagged_cached = 0, tagged_live = 0, cap = 0;
	unsigned int l, ci;
	uint32_t idx;

	*cached = 0;
	if (__atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) != CS_ON)
		return 0;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct lcore_cache *lc = cs.lcores[l];
		uint64_t lcap = 0;

		if (lc == NULL)
			continue;
		for (ci = 0; ci < RTE_PCPU_CACHE_NB_CLASSES; ci++) {
			struct cache_class *cc = &lc->cls[ci];
			uint32_t i;

			if (cc->count > cs.max_objs[ci] ||
			    (cc->high == 0 && cc->count != 0) ||
			    cc->high > cs.max_objs[ci])
				AUDIT_FAIL("cache of lcore %u class %u: %u objects, high %u, max %u",
					l, class_size[ci], cc->count, cc->high,
					cs.max_objs[ci]);
			if (cc->refilled + cc->nr_free - cc->nr_alloc -
			    cc->flushed != cc->count)
				AUDIT_FAIL("cache of lcore %u class %u: counters say %" PRIu64
					" objects, it holds %u", l,
					class_size[ci], cc->refilled +
					cc->nr_free - cc->nr_alloc -
					cc->flushed, cc->count);
			for (i = 0; i < cc->count; i++) {
				uintptr_t h = cc->objs[i] & ~OBJ_DIRTY;

				if (h - cs.base >= cs.limit ||
				    *tag_of(h) != (TAG_CACHED | ci) ||
				    obj_bytes((void *)h) != class_size[ci])
					AUDIT_FAIL("cache of lcore %u class %u holds %p: tag %#x, chunk object of %u bytes",
						l, class_size[ci], (void *)h,
						h - cs.base < cs.limit ?
						*tag_of(h) : 0,
						obj_bytes((void *)h));
			}
			in_caches += cc->count;
			lcap += (uint64_t)cc->high * class_size[ci];
		}
		if (lcap != lc->cap_bytes)
			AUDIT_FAIL("lcore %u cache capacity %" PRIu64
				" bytes, counter %" PRIu64, l, lcap,
				lc->cap_bytes);
		cap += lcap;
	}
	if (cap != cs.global_cap)
		AUDIT_FAIL("cache capacity %" PRIu64 " bytes, counter %" PRIu64,
			cap, cs.global_cap);
	/* every tag sits on a chunk object of its class's size */
	for (idx = 0; idx < cs.nr_chunks; idx++) {
		const uint64_t *w;
		size_t i, n;

		if (!(cs.chunk_used[idx / 64] & (UINT64_C(1) << (idx % 64))))
			continue;
		n = ((size_t)1 << cs.chunk_shift) >> TAG_SHIFT;
		w = (const uint64_t *)(cs.tags + (n * idx));
		for (i = 0; i < n / 8; i++) {
			unsigned int b;

			if (w[i] == 0)
				continue;
			for (b = 0; b < 8; b++) {
				size_t slot = n * idx + i * 8 + b;
				uint8_t t = cs.tags[slot];
				uintptr_t h = cs.base + (slot << TAG_SHIFT);

				if (t == 0)
					continue;
				ci = t & TAG_CLASS_MASK;
				if (ci >= RTE_PCPU_CACHE_NB_CLASSES ||
				    ((t & TAG_LIVE) != 0) ==
				    ((t & TAG_CACHED) != 0) ||
				    obj_bytes((void *)h) != class_size[ci])
					AUDIT_FAIL("tag %#x at %p, chunk object of %u bytes there",
						t, (void *)h,
						obj_bytes((void *)h));
				if (t & TAG_CACHED)
					tagged_cached++;
				else
					tagged_live++;
			}
		}
	}
	if (tagged_cached != in_caches)
		AUDIT_FAIL("%" PRIu64 " objects tagged cached, caches hold %"
			PRIu64, tagged_cached, in_caches);
	*cached = in_caches;
	return 0;
}

/* A registered thread unregisters: give its caches back. */
static void
cache_leave(unsigned int lcore_id)
{
	struct lcore_cache *lc;

	if (lcore_id < RTE_MAX_LCORE &&
	    __atomic_load_n(&cs.state, __ATOMIC_ACQUIRE) == CS_ON) {
		lc = cs.lcores[lcore_id];
		if (lc != NULL)
			lcore_flush(lc);
	}
	if (prev_leave_hook != NULL)
		prev_leave_hook(lcore_id);
}

/* rte_pcpu_cleanup(): objects back to the chunks, state dropped. */
static void
cache_cleanup(void)
{
	unsigned int l;

	pthread_mutex_lock(&cs.mutex);
	if (cs.state == CS_ON) {
		for (l = 0; l < RTE_MAX_LCORE; l++) {
			if (cs.lcores[l] == NULL)
				continue;
			lcore_flush(cs.lcores[l]);
			rte_free(cs.lcores[l]);
			cs.lcores[l] = NULL;
		}
		munmap(cs.tags, cs.tags_len);
		cs.tags = NULL;
		free(cs.chunk_used);
		cs.chunk_used = NULL;
		cs.global_cap = 0;
	}
	__atomic_store_n(&cs.state, CS_OFF, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cs.mutex);
	if (prev_cleanup_hook != NULL)
		prev_cleanup_hook();
}

RTE_INIT(pcpu_cache_hooks)
{
	/* chain: the pool layer may hook in as well */
	prev_leave_hook = pcpu_lcore_leave_hook;
	pcpu_lcore_leave_hook = cache_leave;
	prev_cleanup_hook = pcpu_cleanup_hook;
	pcpu_cleanup_hook = cache_cleanup;
	pcpu_freed_hook = tags_freed;
}
