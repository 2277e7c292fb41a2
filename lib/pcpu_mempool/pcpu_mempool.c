/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Pools of fixed-size percpu objects (rte_pcpu_mempool.h).
 *
 * Where each object is. Every object that exists (was allocated from the
 * percpu allocator, at most n of them) is in exactly one place: out (held
 * by the application), in one lcore's cache, in the pool's shared free
 * stack, or on the RCU defer queue. Objects are allocated on demand (or all
 * at creation with RTE_PCPU_MEMPOOL_F_PREFILL) and go back to the
 * allocator only when the pool is freed. mp->all lists every object, for
 * obj_init of lcores that appear later, for the audit and for the free.
 *
 * Per-lcore caches. An lcore's cache is a LIFO array of cache_size
 * handles, allocated on its first get or put (only lcores that use the
 * pool pay for one). Put appends while the cache has room; when it is
 * full, the coldest (bottom) objects go to the shared stack so that half
 * the capacity stays, the hot ones (the idea of DPDK 26.07's mempool cache
 * rework: capacity exactly cache_size, flush and refill by size/2). Get
 * pops the hottest object; a miss takes the rest from the shared stack and
 * refills the cache to half its capacity.
 *
 * Objects stranded in other lcores' caches (the rte_mempool pitfall where
 * a get fails while other caches are full) are taken back: when the
 * shared stack, the capacity and the budget cannot serve a get, the getter
 * *steals* every other lcore's cache into the shared stack. The owner's
 * fast path takes no lock and executes no atomic read-modify-write; it
 * only marks itself active with a plain store. Stealer and owner meet as in
 * Dekker's algorithm made asymmetric: the owner stores 'active' then loads
 * 'steal' with only a compiler barrier between them, the stealer stores
 * 'steal' then calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * runs a full memory barrier on every thread of the process, then waits
 * for 'active' to drop. Either the owner sees 'steal' and takes the locked
 * slow path, or the stealer sees it active and waits. (The asymmetric
 * fence idea is that of liburcu's membarrier flavour and of tcmalloc's
 * per-CPU cache draining.) Without membarrier(2) the owner uses a real
 * fence instead: correct, a few ns slower.
 *
 * Locks. A registry mutex guards the list of pools; one mutex per pool
 * guards the shared stack, growth, steals and every cache's slow path.
 * The shared stack is a plain LIFO array under that mutex rather than an
 * rte_ring or rte_stack: every operation that touches it (refill, flush,
 * growth, steal, the F_DEBUG table) needs the pool lock anyway, moves a
 * batch at a time, and a LIFO hands out the hottest objects.
 * Lock order: registry, pool, percpu allocator. Mutexes, not spinlocks:
 * with more lcores than CPUs a preempted holder must not make the others
 * spin for a time slice.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_string_fns.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "pcpu_private.h"
#include "pcpu_mempool_private.h"
#include "pcpu_asan.h"

/*
 * The lcore id of the calling thread, read through the initial-exec TLS
 * model. In a shared library the default (global-dynamic) model makes
 * every rte_lcore_id() a call to __tls_get_addr(), a third of the cost of
 * a cached get+put. EAL is a link-time dependency of this library, so its
 * TLS block is in the static TLS area and initial-exec is valid.
 */
extern __thread unsigned int per_lcore__lcore_id
	__attribute__((tls_model("initial-exec")));

static __rte_always_inline unsigned int
pool_lcore_id(void)
{
	return per_lcore__lcore_id;
}

#define MP_LOG(level, fmt, ...) PCPU_LOG(level, "mempool: " fmt, ##__VA_ARGS__)

#define POOL_FLAGS_ALL (RTE_PCPU_MEMPOOL_F_NO_ZERO | \
	RTE_PCPU_MEMPOOL_F_PREFILL | RTE_PCPU_MEMPOOL_F_DEBUG)
/* zero with a word loop up to this size, memset above */
#define ZERO_WORDS_MAX 64

struct rte_pcpu_mempool {
	/* what the inline get and put read (rte_pcpu_mempool.h): first */
	struct rte_pcpu_mempool_fast f;
	/* read by the fast paths, written at creation */
	uint32_t flags;
	uint32_t cache_size;
	uint32_t n;
	size_t elt_size;
	uint32_t zero_words;    /* elt_size / 8 for a word loop, else 0 */
	enum rte_pcpu_mempool_qsbr_mode rcu_mode;
	struct rte_rcu_qsbr *rcu_v;     /* NULL: puts are not deferred */
	struct rte_rcu_qsbr_dq *dq;     /* DQ mode */

	/* slow path, under lock */
	pthread_mutex_t lock __rte_cache_aligned;
	void **free_objs;       /* shared LIFO stack, n entries */
	unsigned int nb_free;
	void **all;             /* every object that exists, n entries */
	unsigned int nb_objs;
	uint64_t init_mask[RTE_PCPU_MASK_WORDS]; /* lcores whose copies are set up */
	uint64_t steals;        /* steal operations */
	uint64_t grows;         /* allocations from the percpu allocator */
	struct rte_hash *out;   /* F_DEBUG: objects out */

	/* updated with atomics (slow and failure paths) */
	uint64_t shared_gets;   /* objects got without a cache */
	uint64_t shared_puts;   /* objects put without a cache */
	uint64_t get_fail;
	uint64_t get_fail_budget;
	uint64_t put_refused;
	uint64_t rcu_enq;       /* objects given to the defer queue */
	uint64_t rcu_done;      /* objects back from the defer queue */

	/* configuration */
	uint64_t max_bytes;
	rte_pcpu_mempool_obj_cb_t *obj_init;
	void *obj_init_arg;
	unsigned int id;
	uint32_t dq_max_reclaim;
	TAILQ_ENTRY(rte_pcpu_mempool) next;
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
};

TAILQ_HEAD(pool_list, rte_pcpu_mempool);

static struct {
	pthread_mutex_t lock;       /* the registry */
	struct pool_list pools;
	unsigned int next_id;
	pthread_mutex_t setup_lock; /* lcore callback, hooks, membarrier */
	void *lcore_cb;
	int hook_installed;
	int membarrier_checked;
	void (*prev_cleanup_hook)(void);
} reg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.pools = TAILQ_HEAD_INITIALIZER(reg.pools),
	.setup_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Owners fence for real: membarrier(2) is not available. Set before the
 * first pool exists, never changed afterwards. */
int rte_pcpu_mempool_fence_needed;

static inline void
stat_add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

static inline uint64_t
stat_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Objects a cache served: gets - misses. The owner adds to gets before
 * misses, so reading misses first never gives a negative count. */
static inline uint64_t
cache_hits(const struct rte_pcpu_mempool_cache *c)
{
	uint64_t misses = __atomic_load_n(&c->misses, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&c->gets, __ATOMIC_ACQUIRE) - misses;
}

static unsigned int
nr_lcores_with_memory(void)
{
	unsigned int w, n = 0;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		n += (unsigned int)__builtin_popcountll(__atomic_load_n(
			&rte_pcpu_shared.lcore_mask[w], __ATOMIC_ACQUIRE));
	return n;
}

/* Bytes that @p nobjs objects cost against the budget now. */
static inline uint64_t
pool_charge(const struct rte_pcpu_mempool *mp, uint64_t nobjs)
{
	return nobjs * mp->elt_size * nr_lcores_with_memory();
}

/* Zero every lcore's copy (as listed in @p cp) of @p n objects. Out of
 * line: the get fast path stays small when the pool does not zero.
 * Objects of 8 .. 64 bytes (a multiple of 8) take stores specialised for
 * their size. */
static __rte_noinline void
pool_zero(const struct rte_pcpu_mempool *mp, const struct rte_pcpu_copies *cp,
		void * const *objs, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		uintptr_t h = (uintptr_t)objs[i];

		switch (mp->zero_words) {
		case 1: rte_pcpu_copies_zero(cp, h, 8); break;
		case 2: rte_pcpu_copies_zero(cp, h, 16); break;
		case 3: rte_pcpu_copies_zero(cp, h, 24); break;
		case 4: rte_pcpu_copies_zero(cp, h, 32); break;
		case 5: rte_pcpu_copies_zero(cp, h, 40); break;
		case 6: rte_pcpu_copies_zero(cp, h, 48); break;
		case 7: rte_pcpu_copies_zero(cp, h, 56); break;
		case 8: rte_pcpu_copies_zero(cp, h, 64); break;
		default:
			for (k = 0; k < cp->nr; k++)
				memset((void *)(h + cp->offs[k]), 0,
					mp->elt_size);
			break;
		}
	}
}

/* Cheap validity check: inside lcore 0's unit, aligned as pool objects
 * (the inline put's check, rte_pcpu_mempool.h). */
#define pool_handle_ok rte_pcpu_mempool_handle_ok

/* The owner's side of the steal protocol (see the top of the file) is in
 * rte_pcpu_mempool.h, shared with the inline get and put. */
#define cache_enter rte_pcpu_mempool_cache_enter
#define cache_leave rte_pcpu_mempool_cache_leave
#define cache_stolen rte_pcpu_mempool_cache_stolen

/* The stealer's full barrier on every thread. */
static void
pool_heavy_fence(void)
{
	if (rte_pcpu_mempool_fence_needed) {
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		return;
	}
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
	    != 0)
		rte_panic("pcpu_mempool: membarrier failed after registration: %s\n",
			strerror(errno));
}

/*
 * Freeze every cache (but @p self): afterwards no owner is inside its
 * lock-free section and none enters it (they take the slow path and wait
 * on the pool lock, which the caller holds) until cache_thaw().
 */
static void
cache_freeze(struct rte_pcpu_mempool *mp, const struct rte_pcpu_mempool_cache *self)
{
	unsigned int l, spins;
	struct rte_pcpu_mempool_cache *c;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = mp->f.caches[l];
		if (c != NULL && c != self)
			__atomic_store_n(&c->steal, 1, __ATOMIC_RELAXED);
	}
	pool_heavy_fence();
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = mp->f.caches[l];
		if (c == NULL || c == self)
			continue;
		spins = 0;
		while (__atomic_load_n(&c->active, __ATOMIC_ACQUIRE) != 0) {
			/* the owner may be preempted: let it run */
			if (++spins < 64)
				rte_pause();
			else
				sched_yield();
		}
	}
}

static void
cache_thaw(struct rte_pcpu_mempool *mp, const struct rte_pcpu_mempool_cache *self)
{
	unsigned int l;
	struct rte_pcpu_mempool_cache *c;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = mp->f.caches[l];
		if (c != NULL && c != self)
			__atomic_store_n(&c->steal, 0, __ATOMIC_RELEASE);
	}
}

/* Move a cache's objects to the shared stack. Lock held, cache frozen or
 * its owner's. Returns the number moved. */
static unsigned int
cache_drain(struct rte_pcpu_mempool *mp, struct rte_pcpu_mempool_cache *c)
{
	unsigned int len = c->len;

	memcpy(&mp->free_objs[mp->nb_free], c->objs, len * sizeof(void *));
	mp->nb_free += len;
	__atomic_store_n(&c->len, 0, __ATOMIC_RELAXED);
	return len;
}

/* Take every other lcore's cached objects. Lock held. */
static unsigned int
pool_steal(struct rte_pcpu_mempool *mp, struct rte_pcpu_mempool_cache *self)
{
	unsigned int l, moved = 0, candidates = 0;
	struct rte_pcpu_mempool_cache *c;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = mp->f.caches[l];
		if (c != NULL && c != self &&
		    __atomic_load_n(&c->len, __ATOMIC_RELAXED) != 0)
			candidates++;
	}
	if (candidates == 0)
		return 0;
	cache_freeze(mp, self);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = mp->f.caches[l];
		if (c == NULL || c == self || c->len == 0)
			continue;
		moved += cache_drain(mp, c);
		stat_add(&c->stolen, 1);
	}
	cache_thaw(mp, self);
	mp->steals++;
	MP_LOG(DEBUG, "%s: took %u objects from other lcores' caches",
		mp->name, moved);
	return moved;
}

/* The calling lcore's cache, created on first use. Lock held. NULL for
 * unregistered threads, pools without caches, or no memory. */
static struct rte_pcpu_mempool_cache *
cache_get(struct rte_pcpu_mempool *mp, unsigned int lcore_id)
{
	struct rte_pcpu_mempool_cache *c;
	size_t sz;
	int socket;

	if (lcore_id >= RTE_MAX_LCORE || mp->cache_size == 0)
		return NULL;
	c = mp->f.caches[lcore_id];
	if (c != NULL)
		return c;
	sz = sizeof(*c) + (size_t)mp->cache_size * sizeof(void *);
	socket = (int)rte_lcore_to_socket_id(lcore_id);
	c = rte_zmalloc_socket("pcpu_mempool_cache", sz, RTE_CACHE_LINE_SIZE,
		socket);
	if (c == NULL)
		c = rte_zmalloc("pcpu_mempool_cache", sz, RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		MP_LOG(WARNING, "%s: no memory for lcore %u's cache: "
			"it uses the shared stack", mp->name, lcore_id);
		return NULL;
	}
	c->size = mp->cache_size;
	c->lcore_id = lcore_id;
	/* publish after the fields */
	__atomic_store_n(&mp->f.caches[lcore_id], c, __ATOMIC_RELEASE);
	return c;
}

/* Run obj_init for the copies of @p obj of every lcore in init_mask. */
static void
pool_obj_init_all(struct rte_pcpu_mempool *mp, void *obj)
{
	unsigned int w, lcore_id;
	uint64_t m;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++) {
		m = mp->init_mask[w];
		while (m != 0) {
			lcore_id = w * 64 + (unsigned int)__builtin_ctzll(m);
			m &= m - 1;
			mp->obj_init(mp, mp->obj_init_arg,
				rte_pcpu_lcore_ptr(lcore_id, obj), lcore_id);
		}
	}
}

/* Why a grow could not give all that was needed. */
enum grow_limit {
	GROW_OK = 0,
	GROW_CAPACITY,  /* n objects exist */
	GROW_BUDGET,    /* max_bytes reached */
	GROW_SYSTEM,    /* the allocator failed */
};

/*
 * Allocate up to @p want new objects (at least @p need if capacity and
 * budget allow) onto the shared stack. Lock held.
 */
static enum grow_limit
pool_grow(struct rte_pcpu_mempool *mp, unsigned int want, unsigned int need)
{
	unsigned int room = mp->n - mp->nb_objs, k, got;
	enum grow_limit why = GROW_OK;
	void **dst;

	if (want < need)
		want = need;
	if (want > room) {
		want = room;
		why = GROW_CAPACITY;
	}
	if (mp->max_bytes != 0) {
		uint64_t per = (uint64_t)mp->elt_size * nr_lcores_with_memory();
		uint64_t fit = per != 0 ? mp->max_bytes / per : room;

		fit = fit > mp->nb_objs ? fit - mp->nb_objs : 0;
		if (want > fit) {
			want = (unsigned int)fit;
			if (want < need)
				why = GROW_BUDGET;
		}
	}
	if (want == 0)
		return need == 0 ? GROW_OK : why;
	dst = &mp->free_objs[mp->nb_free];
	got = pcpu_alloc_bulk_slow(mp->elt_size, mp->f.align, dst, want, 1);
	/* rte_pcpu_free() of a pool object is refused from now on */
	if (got != 0 && pcpu_pool_own(dst, got, 1) != 0)
		MP_LOG(WARNING, "%s: no memory to mark objects as the pool's: "
			"rte_pcpu_free() of them is not refused", mp->name);
	for (k = 0; k < got; k++) {
		mp->all[mp->nb_objs++] = dst[k];
		if (mp->obj_init != NULL)
			pool_obj_init_all(mp, dst[k]);
		pcpu_asan_poison(dst[k], mp->elt_size);
	}
	mp->nb_free += got;
	mp->grows++;
	if (got < want) {
		MP_LOG(DEBUG, "%s: allocator gave %u of %u objects: %s",
			mp->name, got, want, rte_strerror(rte_errno));
		if (got < need)
			return GROW_SYSTEM;
	}
	return got < need ? why : GROW_OK;
}

/* Record objects going out (F_DEBUG). Lock held. */
static void
pool_debug_out(struct rte_pcpu_mempool *mp, void * const *objs,
		unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (rte_hash_lookup(mp->out, &objs[i]) >= 0)
			MP_LOG(ERR, "%s: BUG: %p handed out twice", mp->name,
				objs[i]);
		if (rte_hash_add_key(mp->out, &objs[i]) < 0)
			MP_LOG(ERR, "%s: debug table full at %p", mp->name,
				objs[i]);
	}
}

/* Objects of RCU puts waiting for a grace period. */
static inline uint64_t
pool_rcu_pending(const struct rte_pcpu_mempool *mp)
{
	uint64_t done = __atomic_load_n(&mp->rcu_done, __ATOMIC_ACQUIRE);
	uint64_t enq = __atomic_load_n(&mp->rcu_enq, __ATOMIC_ACQUIRE);

	return enq > done ? enq - done : 0;
}

/* Reclaim from the defer queue. Pool lock NOT held (the free callback
 * takes it). */
static void
pool_rcu_reclaim(struct rte_pcpu_mempool *mp)
{
	unsigned int freed, pending, avail;

	if (mp->dq != NULL && pool_rcu_pending(mp) != 0)
		rte_rcu_qsbr_dq_reclaim(mp->dq, mp->dq_max_reclaim, &freed,
			&pending, &avail);
}

static __rte_noinline int
pool_get_slow(struct rte_pcpu_mempool *mp, unsigned int lcore_id,
		void **objs, unsigned int n)
{
	enum grow_limit why = GROW_OK;
	struct rte_pcpu_mempool_cache *c;
	unsigned int have, from_cache, i, half;
	int reclaimed = 0, ret;

	if (mp->dq != NULL)
		pool_rcu_reclaim(mp);
	pthread_mutex_lock(&mp->lock);
	c = cache_get(mp, lcore_id);
again:
	have = (c != NULL ? c->len : 0) + mp->nb_free;
	if (have < n) {
		if (mp->dq != NULL && !reclaimed && pool_rcu_pending(mp) != 0) {
			pthread_mutex_unlock(&mp->lock);
			pool_rcu_reclaim(mp);
			pthread_mutex_lock(&mp->lock);
			reclaimed = 1;
			goto again;
		}
		half = c != NULL ? c->size / 2 : 0;
		why = pool_grow(mp, n - have + half, n - have);
		have = (c != NULL ? c->len : 0) + mp->nb_free;
		if (have < n) {
			pool_steal(mp, c);
			have = (c != NULL ? c->len : 0) + mp->nb_free;
		}
		if (have < n)
			goto fail;
	}
	/* the hottest first: own cache top, then the shared stack top */
	from_cache = 0;
	if (c != NULL) {
		from_cache = RTE_MIN(n, c->len);
		for (i = 0; i < from_cache; i++)
			objs[i] = c->objs[c->len - 1 - i];
		__atomic_store_n(&c->len, c->len - from_cache,
			__ATOMIC_RELAXED);
	}
	for (i = from_cache; i < n; i++)
		objs[i] = mp->free_objs[--mp->nb_free];
	if (c != NULL) {
		/* refill to half the capacity */
		half = c->size / 2;
		while (c->len < half && mp->nb_free > 0)
			c->objs[c->len++] = mp->free_objs[--mp->nb_free];
		if (c->len > c->len_max)
			c->len_max = c->len;
		stat_add(&c->gets, n);
		/* release: a reader that sees these misses sees the gets */
		__atomic_store_n(&c->misses, c->misses + (n - from_cache),
			__ATOMIC_RELEASE);
		stat_add(&c->refills, 1);
	} else {
		__atomic_fetch_add(&mp->shared_gets, n, __ATOMIC_RELAXED);
	}
	if (mp->out != NULL)
		pool_debug_out(mp, objs, n);
	pthread_mutex_unlock(&mp->lock);
	for (i = 0; i < n; i++)
		pcpu_asan_unpoison(objs[i], mp->elt_size);
	if (mp->f.zero_bytes != 0) {
		if (c != NULL) {
			rte_pcpu_copies_check(&c->copies);
			pool_zero(mp, &c->copies, objs, n);
		} else {
			struct rte_pcpu_copies cp;

			rte_pcpu_copies_rebuild(&cp);
			pool_zero(mp, &cp, objs, n);
		}
	}
	return 0;

fail:
	pthread_mutex_unlock(&mp->lock);
	__atomic_fetch_add(&mp->get_fail, 1, __ATOMIC_RELAXED);
	if (why == GROW_BUDGET) {
		__atomic_fetch_add(&mp->get_fail_budget, 1, __ATOMIC_RELAXED);
		ret = -ENOMEM;
	} else if (why == GROW_SYSTEM) {
		ret = -ENOMEM;
	} else {
		ret = -ENOENT;
	}
	rte_errno = -ret;
	return ret;
}

static __rte_always_inline int
pool_get(struct rte_pcpu_mempool *mp, void **objs, unsigned int n)
{
	unsigned int lcore_id = pool_lcore_id(), len, i;
	struct rte_pcpu_mempool_cache *c = NULL;

	if (likely(lcore_id < RTE_MAX_LCORE))
		c = __atomic_load_n(&mp->f.caches[lcore_id], __ATOMIC_ACQUIRE);
	if (unlikely(c == NULL || (mp->flags & RTE_PCPU_MEMPOOL_F_DEBUG)))
		return pool_get_slow(mp, lcore_id, objs, n);
	cache_enter(c);
	if (unlikely(cache_stolen(c) || n > c->len)) {
		cache_leave(c);
		return pool_get_slow(mp, lcore_id, objs, n);
	}
	len = c->len;
	for (i = 0; i < n; i++)
		objs[i] = c->objs[len - 1 - i];
	__atomic_store_n(&c->len, len - n, __ATOMIC_RELAXED);
	stat_add(&c->gets, n);
	cache_leave(c);
	for (i = 0; i < n; i++)
		pcpu_asan_unpoison(objs[i], mp->elt_size);
	if (mp->f.zero_bytes != 0) {
		rte_pcpu_copies_check(&c->copies);
		pool_zero(mp, &c->copies, objs, n);
	}
	return 0;
}

int
rte_pcpu_mempool_get_bulk(struct rte_pcpu_mempool *mp, void **objs,
		unsigned int n)
{
	if (unlikely(mp == NULL || objs == NULL || n == 0 || n > mp->n)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return pool_get(mp, objs, n);
}

/* Log and count a refused put. */
static int
pool_refuse(struct rte_pcpu_mempool *mp, const void *obj, const char *why)
{
	MP_LOG(ERR, "%s: put of %p refused: %s", mp->name, obj, why);
	__atomic_fetch_add(&mp->put_refused, 1, __ATOMIC_RELAXED);
	rte_errno = EINVAL;
	return -EINVAL;
}

/*
 * Check objects being put and, with F_DEBUG, take them off the out table.
 * Lock held when F_DEBUG. Returns how many of @p objs are accepted (a
 * prefix) and *ret.
 */
static unsigned int
pool_put_check(struct rte_pcpu_mempool *mp, void * const *objs,
		unsigned int n, int *ret)
{
	unsigned int i;

	*ret = 0;
	for (i = 0; i < n; i++) {
		if (!pool_handle_ok(mp, objs[i])) {
			*ret = pool_refuse(mp, objs[i],
				"not a percpu handle aligned as this pool's objects");
			break;
		}
		if (mp->out != NULL && rte_hash_del_key(mp->out, &objs[i]) < 0) {
			*ret = pool_refuse(mp, objs[i],
				"not out of this pool (double put or foreign object)");
			break;
		}
	}
	return i;
}

/* Put accepted objects into cache @p c (may be NULL) or the shared stack,
 * flushing the coldest to the shared stack. Lock held. */
static void
pool_push_locked(struct rte_pcpu_mempool *mp, struct rte_pcpu_mempool_cache *c,
		void * const *objs, unsigned int n)
{
	unsigned int len, total, keep, flush, j;

	if (c == NULL) {
		memcpy(&mp->free_objs[mp->nb_free], objs, n * sizeof(void *));
		mp->nb_free += n;
		__atomic_fetch_add(&mp->shared_puts, n, __ATOMIC_RELAXED);
		return;
	}
	len = c->len;
	total = len + n;
	if (total <= c->size) {
		memcpy(&c->objs[len], objs, n * sizeof(void *));
		keep = total;
	} else {
		/* the sequence cache bottom..top, then objs: keep its top
		 * half a cache, move the rest (the coldest) out */
		keep = RTE_MIN(c->size / 2, total);
		flush = total - keep;
		for (j = 0; j < flush; j++)
			mp->free_objs[mp->nb_free++] =
				j < len ? c->objs[j] : objs[j - len];
		for (j = flush; j < total; j++)
			c->objs[j - flush] = j < len ? c->objs[j] : objs[j - len];
		stat_add(&c->flushes, 1);
	}
	__atomic_store_n(&c->len, keep, __ATOMIC_RELAXED);
	if (keep > c->len_max)
		c->len_max = keep;
	stat_add(&c->puts, n);
}

static __rte_noinline int
pool_put_slow(struct rte_pcpu_mempool *mp, unsigned int lcore_id,
		void * const *objs, unsigned int n)
{
	unsigned int ok, i;
	int ret;

	pthread_mutex_lock(&mp->lock);
	ok = pool_put_check(mp, objs, n, &ret);
	for (i = 0; i < ok; i++)
		pcpu_asan_poison(objs[i], mp->elt_size);
	pool_push_locked(mp, cache_get(mp, lcore_id), objs, ok);
	pthread_mutex_unlock(&mp->lock);
	return ret;
}

/* Put without RCU. */
static __rte_always_inline int
pool_put_now(struct rte_pcpu_mempool *mp, void * const *objs, unsigned int n)
{
	unsigned int lcore_id = pool_lcore_id(), len, i;
	struct rte_pcpu_mempool_cache *c = NULL;

	if (likely(lcore_id < RTE_MAX_LCORE))
		c = __atomic_load_n(&mp->f.caches[lcore_id], __ATOMIC_ACQUIRE);
	if (unlikely(c == NULL || (mp->flags & RTE_PCPU_MEMPOOL_F_DEBUG)))
		return pool_put_slow(mp, lcore_id, objs, n);
	for (i = 0; i < n; i++)
		if (unlikely(!pool_handle_ok(mp, objs[i])))
			return pool_put_slow(mp, lcore_id, objs, n);
	cache_enter(c);
	/* c->len only after the steal check: see rte_pcpu_mempool_get() */
	if (unlikely(cache_stolen(c) || c->len + n > c->size)) {
		cache_leave(c);
		return pool_put_slow(mp, lcore_id, objs, n);
	}
	len = c->len;
	for (i = 0; i < n; i++) {
		pcpu_asan_poison(objs[i], mp->elt_size);
		c->objs[len + i] = objs[i];
	}
	len += n;
	__atomic_store_n(&c->len, len, __ATOMIC_RELAXED);
	if (unlikely(len > c->len_max))
		c->len_max = len;
	stat_add(&c->puts, n);
	cache_leave(c);
	return 0;
}

/* Defer-queue free callback: objects past their grace period. */
static void
pool_rcu_free(void *p, void *e, unsigned int n)
{
	struct rte_pcpu_mempool *mp = p;
	unsigned int i;

	/* past the grace period: no reader holds them any more */
	for (i = 0; i < n; i++)
		pcpu_asan_poison(((void **)e)[i], mp->elt_size);
	pthread_mutex_lock(&mp->lock);
	memcpy(&mp->free_objs[mp->nb_free], e, n * sizeof(void *));
	mp->nb_free += n;
	pthread_mutex_unlock(&mp->lock);
	__atomic_fetch_add(&mp->rcu_done, n, __ATOMIC_RELEASE);
}

/* Put with RCU attached. */
static __rte_noinline int
pool_put_rcu(struct rte_pcpu_mempool *mp, void * const *objs, unsigned int n)
{
	unsigned int lcore_id = pool_lcore_id(), ok, i;
	struct rte_pcpu_mempool_cache *c = NULL;
	int ret;

	if (mp->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC) {
		/* the putter must not be an online reader of v */
		rte_rcu_qsbr_synchronize(mp->rcu_v, RTE_QSBR_THRID_INVALID);
		return pool_put_now(mp, objs, n);
	}
	if (mp->out != NULL)
		pthread_mutex_lock(&mp->lock);
	ok = pool_put_check(mp, objs, n, &ret);
	if (mp->out != NULL)
		pthread_mutex_unlock(&mp->lock);
	if (lcore_id < RTE_MAX_LCORE)
		c = __atomic_load_n(&mp->f.caches[lcore_id], __ATOMIC_ACQUIRE);
	for (i = 0; i < ok; i++) {
		void *obj = objs[i];

		__atomic_fetch_add(&mp->rcu_enq, 1, __ATOMIC_RELEASE);
		if (c != NULL)
			stat_add(&c->puts, 1);
		else
			__atomic_fetch_add(&mp->shared_puts, 1,
				__ATOMIC_RELAXED);
		if (rte_rcu_qsbr_dq_enqueue(mp->dq, &obj) == 0)
			continue;
		/* queue full: wait for the grace period here */
		rte_rcu_qsbr_synchronize(mp->rcu_v, RTE_QSBR_THRID_INVALID);
		pool_rcu_free(mp, &obj, 1);
	}
	return ret;
}

int
rte_pcpu_mempool_put_bulk(struct rte_pcpu_mempool *mp, void * const *objs,
		unsigned int n)
{
	if (unlikely(mp == NULL || objs == NULL || n == 0 || n > mp->n)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (unlikely(mp->rcu_v != NULL))
		return pool_put_rcu(mp, objs, n);
	return pool_put_now(mp, objs, n);
}

/* Objects out, including RCU puts waiting; may be transiently off while
 * other threads get and put. */
static int64_t
pool_out(const struct rte_pcpu_mempool *mp)
{
	int64_t out = 0;
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&mp->f.caches[l], __ATOMIC_ACQUIRE);

		if (c != NULL)
			out += (int64_t)(stat_read(&c->gets) -
				stat_read(&c->puts));
	}
	out += (int64_t)(stat_read(&mp->shared_gets) -
		stat_read(&mp->shared_puts));
	out += (int64_t)pool_rcu_pending(mp);
	return out;
}

unsigned int
rte_pcpu_mempool_in_use_count(const struct rte_pcpu_mempool *mp)
{
	int64_t out;

	if (mp == NULL) {
		rte_errno = EINVAL;
		return 0;
	}
	out = pool_out(mp);
	if (out < 0)
		return 0;
	return out > mp->n ? mp->n : (unsigned int)out;
}

unsigned int
rte_pcpu_mempool_avail_count(const struct rte_pcpu_mempool *mp)
{
	if (mp == NULL) {
		rte_errno = EINVAL;
		return 0;
	}
	return mp->n - rte_pcpu_mempool_in_use_count(mp);
}

/*
 * Creation, lookup, free.
 */

static size_t
pool_natural_align(size_t size)
{
	size_t r = RTE_ALIGN_CEIL(size, RTE_PCPU_MIN_ALIGN);

	return RTE_MIN(r & -r, (size_t)RTE_CACHE_LINE_SIZE);
}

static int
lcore_init_cb(unsigned int lcore_id, void *arg);
static void
lcore_uninit_cb(unsigned int lcore_id, void *arg);
static void
pool_cleanup_hook(void);

/* Once per process: membarrier registration and the cleanup hook. Per
 * allocator lifetime: the lcore callback (registered after the
 * allocator's, so it runs after the new lcore has memory). Takes neither
 * the registry lock nor pool locks (EAL calls lcore_init_cb under its
 * lcore lock while we register). */
static int
pool_global_setup(void)
{
	void *cb;
	long q;

	pthread_mutex_lock(&reg.setup_lock);
	if (!reg.membarrier_checked) {
		/* the environment variable forces the fallback, for tests */
		q = getenv("PCPU_MEMPOOL_NO_MEMBARRIER") != NULL ? -1 :
			syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		if (q < 0 || !(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
		    syscall(__NR_membarrier,
			    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)
		    != 0) {
			rte_pcpu_mempool_fence_needed = 1;
			MP_LOG(INFO, "membarrier(2) unavailable: pool caches "
				"use a full fence per operation");
		}
		reg.membarrier_checked = 1;
	}
	if (!reg.hook_installed) {
		/* chain whoever set the hook before us */
		reg.prev_cleanup_hook = pcpu_cleanup_hook;
		pcpu_cleanup_hook = pool_cleanup_hook;
		reg.hook_installed = 1;
	}
	if (reg.lcore_cb == NULL) {
		cb = rte_lcore_callback_register("pcpu_mempool_pools",
			lcore_init_cb, lcore_uninit_cb, NULL);
		if (cb == NULL) {
			pthread_mutex_unlock(&reg.setup_lock);
			MP_LOG(ERR, "cannot register the lcore callback");
			rte_errno = ENOMEM;
			return -1;
		}
		reg.lcore_cb = cb;
	}
	pthread_mutex_unlock(&reg.setup_lock);
	return 0;
}

static struct rte_pcpu_mempool *
pool_find(const char *name)
{
	struct rte_pcpu_mempool *mp;

	TAILQ_FOREACH(mp, &reg.pools, next)
		if (strncmp(mp->name, name, sizeof(mp->name)) == 0)
			return mp;
	return NULL;
}

static int
pool_listed(const struct rte_pcpu_mempool *p)
{
	struct rte_pcpu_mempool *mp;

	TAILQ_FOREACH(mp, &reg.pools, next)
		if (mp == p)
			return 1;
	return 0;
}

/* Give everything back. The pool is off the list; nobody uses it. */
static void
pool_destroy(struct rte_pcpu_mempool *mp)
{
	unsigned int l, done;

	if (mp->dq != NULL && rte_rcu_qsbr_dq_delete(mp->dq) != 0)
		MP_LOG(WARNING, "%s: defer queue not empty at free", mp->name);
	if (mp->nb_objs != 0) {
		pcpu_pool_own(mp->all, mp->nb_objs, 0);
		done = pcpu_free_bulk_slow(mp->all, mp->nb_objs, 0);
		if (done != mp->nb_objs)
			MP_LOG(ERR, "%s: %u of %u objects not freed", mp->name,
				mp->nb_objs - done, mp->nb_objs);
	}
	for (l = 0; l < RTE_MAX_LCORE; l++)
		rte_free(mp->f.caches[l]);
	rte_hash_free(mp->out);
	free(mp->free_objs);
	free(mp->all);
	pthread_mutex_destroy(&mp->lock);
	rte_free(mp);
}

static int
pool_args_check(const char *name, unsigned int n, size_t elt_size,
		unsigned int cache_size, unsigned int flags)
{
	if (name == NULL || name[0] == '\0') {
		MP_LOG(ERR, "create: no name");
		rte_errno = EINVAL;
		return -1;
	}
	if (strnlen(name, RTE_PCPU_MEMPOOL_NAMESIZE) >=
	    RTE_PCPU_MEMPOOL_NAMESIZE) {
		MP_LOG(ERR, "create: name longer than %u characters",
			RTE_PCPU_MEMPOOL_NAMESIZE - 1);
		rte_errno = ENAMETOOLONG;
		return -1;
	}
	if (n == 0 || elt_size == 0 || elt_size > RTE_PCPU_MAX_SIZE ||
	    cache_size > RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE || cache_size > n ||
	    (flags & ~POOL_FLAGS_ALL) != 0) {
		MP_LOG(ERR, "create %s: bad arguments: n %u elt_size %zu "
			"cache_size %u flags %#x", name, n, elt_size,
			cache_size, flags);
		rte_errno = EINVAL;
		return -1;
	}
	return 0;
}

struct rte_pcpu_mempool *
rte_pcpu_mempool_create(const char *name, unsigned int n, size_t elt_size,
		unsigned int cache_size, uint64_t max_bytes,
		rte_pcpu_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		unsigned int flags)
{
	struct rte_pcpu_mempool *mp;
	pthread_mutexattr_t attr;
	unsigned int w;
	int err;

	if (pool_args_check(name, n, elt_size, cache_size, flags) != 0)
		return NULL;
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_init(NULL) != 0 && rte_errno != EALREADY)
		return NULL;
	if (pool_global_setup() != 0)
		return NULL;

	mp = rte_zmalloc("pcpu_mempool", sizeof(*mp), RTE_CACHE_LINE_SIZE);
	if (mp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_strscpy(mp->name, name, sizeof(mp->name));
	mp->n = n;
	mp->elt_size = elt_size;
	mp->f.align = pool_natural_align(elt_size);
	mp->cache_size = cache_size;
	mp->flags = flags;
	mp->max_bytes = max_bytes;
	mp->obj_init = obj_init;
	mp->obj_init_arg = obj_init_arg;
	mp->zero_words = (elt_size % 8 == 0 && elt_size <= ZERO_WORDS_MAX) ?
		(uint32_t)(elt_size / 8) : 0;
	/* the inline get and put (rte_pcpu_mempool.h) serve the pool unless
	 * it needs a check or a poisoning they do not do */
	mp->f.zero_bytes = obj_init == NULL &&
		!(flags & RTE_PCPU_MEMPOOL_F_NO_ZERO) ? (uint32_t)elt_size : 0;
	mp->f.inline_ok = !(flags & RTE_PCPU_MEMPOOL_F_DEBUG) && !PCPU_ASAN_ON &&
		(mp->f.zero_bytes == 0 || mp->f.zero_bytes == 8 ||
		 mp->f.zero_bytes == 16 || mp->f.zero_bytes == 32);
	pthread_mutexattr_init(&attr);
	pthread_mutex_init(&mp->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	mp->free_objs = malloc((size_t)n * sizeof(void *));
	mp->all = malloc((size_t)n * sizeof(void *));
	if (mp->free_objs == NULL || mp->all == NULL) {
		err = ENOMEM;
		goto fail;
	}

	pthread_mutex_lock(&reg.lock);
	if (pool_find(name) != NULL) {
		pthread_mutex_unlock(&reg.lock);
		MP_LOG(ERR, "create: pool %s exists", name);
		err = EEXIST;
		goto fail;
	}
	mp->id = reg.next_id++;
	if (flags & RTE_PCPU_MEMPOOL_F_DEBUG) {
		struct rte_hash_parameters hp = {
			.entries = RTE_MAX(n, 8u),
			.key_len = sizeof(void *),
			.socket_id = SOCKET_ID_ANY,
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};
		char hname[RTE_HASH_NAMESIZE];

		snprintf(hname, sizeof(hname), "pcpu_mp_out_%u", mp->id);
		hp.name = hname;
		mp->out = rte_hash_create(&hp);
		if (mp->out == NULL) {
			pthread_mutex_unlock(&reg.lock);
			MP_LOG(ERR, "create %s: no debug table", name);
			err = ENOMEM;
			goto fail;
		}
	}
	/* lcores appearing from now on get obj_init from lcore_init_cb */
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		mp->init_mask[w] = __atomic_load_n(
			&rte_pcpu_shared.lcore_mask[w], __ATOMIC_ACQUIRE);
	if (flags & RTE_PCPU_MEMPOOL_F_PREFILL) {
		enum grow_limit why;

		pthread_mutex_lock(&mp->lock);
		why = pool_grow(mp, n, n);
		pthread_mutex_unlock(&mp->lock);
		if (why != GROW_OK) {
			pthread_mutex_unlock(&reg.lock);
			MP_LOG(ERR, "create %s: cannot prefill %u objects "
				"(%s)", name, n, why == GROW_BUDGET ?
				"byte budget" : "no memory");
			err = ENOMEM;
			goto fail;
		}
	}
	TAILQ_INSERT_TAIL(&reg.pools, mp, next);
	pthread_mutex_unlock(&reg.lock);
	MP_LOG(DEBUG, "created %s: n %u elt_size %zu cache %u budget %" PRIu64
		" flags %#x", name, n, elt_size, cache_size, max_bytes, flags);
	return mp;

fail:
	pool_destroy(mp);
	rte_errno = err;
	return NULL;
}

struct rte_pcpu_mempool *
rte_pcpu_mempool_lookup(const char *name)
{
	struct rte_pcpu_mempool *mp;

	if (name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&reg.lock);
	mp = pool_find(name);
	pthread_mutex_unlock(&reg.lock);
	if (mp == NULL)
		rte_errno = ENOENT;
	return mp;
}

int
rte_pcpu_mempool_free(struct rte_pcpu_mempool *mp)
{
	int64_t out;

	if (mp == NULL)
		return 0;
	pthread_mutex_lock(&reg.lock);
	if (!pool_listed(mp)) {
		pthread_mutex_unlock(&reg.lock);
		MP_LOG(ERR, "free: %p is not a pool", (void *)mp);
		rte_errno = EINVAL;
		return -1;
	}
	/* objects whose grace period is over are not in use */
	pool_rcu_reclaim(mp);
	pthread_mutex_lock(&mp->lock);
	out = pool_out(mp);
	if (out != 0) {
		pthread_mutex_unlock(&mp->lock);
		pthread_mutex_unlock(&reg.lock);
		MP_LOG(DEBUG, "free %s: %" PRId64 " objects in use", mp->name,
			out);
		rte_errno = EBUSY;
		return -1;
	}
	TAILQ_REMOVE(&reg.pools, mp, next);
	pthread_mutex_unlock(&mp->lock);
	pthread_mutex_unlock(&reg.lock);
	pool_destroy(mp);
	return 0;
}

/* The allocator is going away: every pool goes with it. */
static void
pool_cleanup_hook(void)
{
	struct rte_pcpu_mempool *mp;
	void *cb;

	pthread_mutex_lock(&reg.lock);
	while ((mp = TAILQ_FIRST(&reg.pools)) != NULL) {
		int64_t out = pool_out(mp);

		if (out != 0)
			MP_LOG(WARNING, "cleanup: pool %s freed with %" PRId64
				" objects in use", mp->name, out);
		TAILQ_REMOVE(&reg.pools, mp, next);
		if (mp->dq != NULL) {
			/* whatever waits is dropped with the pool */
			rte_rcu_qsbr_dq_delete(mp->dq);
			mp->dq = NULL;
		}
		pool_destroy(mp);
	}
	pthread_mutex_unlock(&reg.lock);

	pthread_mutex_lock(&reg.setup_lock);
	cb = reg.lcore_cb;
	reg.lcore_cb = NULL;
	pthread_mutex_unlock(&reg.setup_lock);
	if (cb != NULL)
		rte_lcore_callback_unregister(cb);
	if (reg.prev_cleanup_hook != NULL)
		reg.prev_cleanup_hook();
}

/* A new lcore has memory: run obj_init on its copies, once per pool. */
static int
lcore_init_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	struct rte_pcpu_mempool *mp;
	uint64_t bit = UINT64_C(1) << (lcore_id % 64);
	unsigned int i;

	if (!rte_pcpu_lcore_has_memory(lcore_id))
		return 0; /* the allocator refused it: nothing to set up */
	pthread_mutex_lock(&reg.lock);
	TAILQ_FOREACH(mp, &reg.pools, next) {
		pthread_mutex_lock(&mp->lock);
		if (!(mp->init_mask[lcore_id / 64] & bit)) {
			if (mp->obj_init != NULL)
				for (i = 0; i < mp->nb_objs; i++)
					mp->obj_init(mp, mp->obj_init_arg,
						rte_pcpu_lcore_ptr(lcore_id,
							mp->all[i]), lcore_id);
			mp->init_mask[lcore_id / 64] |= bit;
		}
		pthread_mutex_unlock(&mp->lock);
	}
	pthread_mutex_unlock(&reg.lock);
	return 0;
}

/* A thread unregisters: its cached objects go back to the shared stacks. */
static void
lcore_uninit_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_mempool_cache *c;

	pthread_mutex_lock(&reg.lock);
	TAILQ_FOREACH(mp, &reg.pools, next) {
		pthread_mutex_lock(&mp->lock);
		c = mp->f.caches[lcore_id];
		if (c != NULL)
			cache_drain(mp, c);
		pthread_mutex_unlock(&mp->lock);
	}
	pthread_mutex_unlock(&reg.lock);
}

void
rte_pcpu_mempool_walk(void (*fn)(struct rte_pcpu_mempool *mp, void *arg),
		void *arg)
{
	struct rte_pcpu_mempool *mp;

	if (fn == NULL)
		return;
	pthread_mutex_lock(&reg.lock);
	TAILQ_FOREACH(mp, &reg.pools, next)
		fn(mp, arg);
	pthread_mutex_unlock(&reg.lock);
}

const char *
rte_pcpu_mempool_name(const struct rte_pcpu_mempool *mp)
{
	if (mp == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	return mp->name;
}

int
rte_pcpu_mempool_stats_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_stats *s)
{
	unsigned int l;

	if (mp == NULL || s == NULL) {
		rte_errno = EINVAL;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&mp->f.caches[l], __ATOMIC_ACQUIRE);

		if (c == NULL)
			continue;
		s->get_success += stat_read(&c->gets);
		s->put += stat_read(&c->puts);
		s->cache_hits += cache_hits(c);
		s->cache_misses += stat_read(&c->misses);
	}
	s->get_success += stat_read(&mp->shared_gets);
	s->cache_misses += stat_read(&mp->shared_gets);
	s->put += stat_read(&mp->shared_puts);
	s->get_fail = stat_read(&mp->get_fail);
	s->get_fail_budget = stat_read(&mp->get_fail_budget);
	s->put_refused = stat_read(&mp->put_refused);
	s->rcu_pending = pool_rcu_pending(mp);
	s->charged_bytes = pool_charge(mp,
		__atomic_load_n(&mp->nb_objs, __ATOMIC_RELAXED));
	return 0;
}

int
rte_pcpu_mempool_rcu_qsbr_add(struct rte_pcpu_mempool *mp,
		const struct rte_pcpu_mempool_rcu_config *cfg)
{
	struct rte_rcu_qsbr_dq_parameters params = { 0 };
	char dq_name[RTE_RING_NAMESIZE];

	if (mp == NULL || cfg == NULL || cfg->v == NULL ||
	    (cfg->mode != RTE_PCPU_MEMPOOL_QSBR_MODE_DQ &&
	     cfg->mode != RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC)) {
		MP_LOG(ERR, "rcu_qsbr_add: bad arguments");
		rte_errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&mp->lock);
	if (mp->rcu_v != NULL) {
		pthread_mutex_unlock(&mp->lock);
		MP_LOG(ERR, "%s: RCU already attached", mp->name);
		rte_errno = EEXIST;
		return -1;
	}
	if (cfg->mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ) {
		snprintf(dq_name, sizeof(dq_name), "pcpu_mp_%u", mp->id);
		params.name = dq_name;
		params.flags = 0; /* MT-safe */
		params.size = cfg->dq_size != 0 ? cfg->dq_size : mp->n;
		params.esize = sizeof(void *);
		params.trigger_reclaim_limit = cfg->trigger_reclaim_limit;
		params.max_reclaim_size = cfg->max_reclaim_size != 0 ?
			cfg->max_reclaim_size : params.size;
		params.free_fn = pool_rcu_free;
		params.p = mp;
		params.v = cfg->v;
		mp->dq = rte_rcu_qsbr_dq_create(&params);
		if (mp->dq == NULL) {
			pthread_mutex_unlock(&mp->lock);
			MP_LOG(ERR, "%s: cannot create the defer queue: %s",
				mp->name, rte_strerror(rte_errno));
			rte_errno = ENOMEM;
			return -1;
		}
		mp->dq_max_reclaim = params.max_reclaim_size;
	}
	mp->rcu_mode = cfg->mode;
	__atomic_store_n(&mp->rcu_v, cfg->v, __ATOMIC_RELEASE);
	/* puts must now go through the defer queue: no inline paths */
	__atomic_store_n(&mp->f.inline_ok, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mp->lock);
	return 0;
}

/*
 * Dump and audit.
 */

int
rte_pcpu_mempool_dump(FILE *f, const struct rte_pcpu_mempool *mp)
{
	struct rte_pcpu_mempool_stats s;
	unsigned int l;

	if (f == NULL || mp == NULL) {
		rte_errno = EINVAL;
		return -1;
	}
	rte_pcpu_mempool_stats_get(mp, &s);
	fprintf(f, "pcpu_mempool %s: n %u elt_size %zu align %zu cache_size %u"
		" flags %#x budget %" PRIu64 " obj_init %s rcu %s\n",
		mp->name, mp->n, mp->elt_size, mp->f.align, mp->cache_size,
		mp->flags, mp->max_bytes, mp->obj_init != NULL ? "yes" : "no",
		mp->rcu_v == NULL ? "no" :
		mp->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ ? "dq" : "sync");
	fprintf(f, "  objects %u free_shared %u in_use %u avail %u "
		"charged_bytes %" PRIu64 " steals %" PRIu64 " grows %" PRIu64
		"\n", __atomic_load_n(&mp->nb_objs, __ATOMIC_RELAXED),
		__atomic_load_n(&mp->nb_free, __ATOMIC_RELAXED),
		rte_pcpu_mempool_in_use_count(mp),
		rte_pcpu_mempool_avail_count(mp), s.charged_bytes,
		stat_read(&mp->steals), stat_read(&mp->grows));
	fprintf(f, "  get_success %" PRIu64 " get_fail %" PRIu64
		" get_fail_budget %" PRIu64 " put %" PRIu64 " cache_hits %"
		PRIu64 " cache_misses %" PRIu64 " put_refused %" PRIu64
		" rcu_pending %" PRIu64 "\n", s.get_success, s.get_fail,
		s.get_fail_budget, s.put, s.cache_hits, s.cache_misses,
		s.put_refused, s.rcu_pending);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&mp->f.caches[l], __ATOMIC_ACQUIRE);

		if (c == NULL)
			continue;
		fprintf(f, "  lcore %u cache: len %u size %u len_max %u gets %"
			PRIu64 " puts %" PRIu64 " hits %" PRIu64 " misses %"
			PRIu64 " refills %" PRIu64 " flushes %" PRIu64
			" stolen %" PRIu64 "\n", l,
			__atomic_load_n(&c->len, __ATOMIC_RELAXED), c->size,
			__atomic_load_n(&c->len_max, __ATOMIC_RELAXED),
			stat_read(&c->gets), stat_read(&c->puts),
			cache_hits(c),
			stat_read(&c->misses),
			stat_read(&c->refills), stat_read(&c->flushes),
			stat_read(&c->stolen));
	}
	return 0;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

/* Index of @p p in sorted @p v, or -1. */
static long
ptr_find(void * const *v, unsigned int n, const void *p)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((uintptr_t)v[mid] < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == p ? (long)lo : -1;
}

/* Mark free object @p p in @p seen; 0 or -1 with a message. */
static int
audit_mark(void * const *sorted, unsigned int n, uint8_t *seen,
		const void *p, const char *where, char *msg, size_t len)
{
	long i = ptr_find(sorted, n, p);

	if (i < 0) {
		snprintf(msg, len, "%p in %s is not an object of the pool",
			p, where);
		return -1;
	}
	if (seen[i]) {
		snprintf(msg, len, "%p is free twice (again in %s)", p, where);
		return -1;
	}
	seen[i] = 1;
	return 0;
}

static int
pool_audit_locked(struct rte_pcpu_mempool *mp, void **sorted, uint8_t *seen,
		char *msg, size_t len)
{
	unsigned int l, i, cached = 0, nb = mp->nb_objs;
	int64_t out;
	char where[32];

	if (nb > mp->n || mp->nb_free > nb) {
		snprintf(msg, len, "%u objects, %u free, capacity %u", nb,
			mp->nb_free, mp->n);
		return -1;
	}
	memcpy(sorted, mp->all, nb * sizeof(void *));
	qsort(sorted, nb, sizeof(void *), ptr_cmp);
	for (i = 0; i < nb; i++) {
		if (!pool_handle_ok(mp, sorted[i])) {
			snprintf(msg, len, "object %p is not a valid handle",
				sorted[i]);
			return -1;
		}
		if (i > 0 && sorted[i] == sorted[i - 1]) {
			snprintf(msg, len, "object %p listed twice", sorted[i]);
			return -1;
		}
	}
	for (i = 0; i < mp->nb_free; i++)
		if (audit_mark(sorted, nb, seen, mp->free_objs[i], "the shared stack",
				msg, len) != 0)
			return -1;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_pcpu_mempool_cache *c = mp->f.caches[l];

		if (c == NULL)
			continue;
		if (c->len > c->size) {
			snprintf(msg, len, "lcore %u cache holds %u > %u", l,
				c->len, c->size);
			return -1;
		}
		snprintf(where, sizeof(where), "lcore %u's cache", l);
		for (i = 0; i < c->len; i++)
			if (audit_mark(sorted, nb, seen, c->objs[i], where, msg,
					len) != 0)
				return -1;
		cached += c->len;
	}
	out = pool_out(mp);
	if ((int64_t)cached + mp->nb_free + out != nb) {
		snprintf(msg, len, "%u cached + %u shared + %" PRId64
			" out (incl. RCU) != %u objects", cached, mp->nb_free,
			out, nb);
		return -1;
	}
	if (mp->out != NULL) {
		const void *key;
		void *data;
		uint32_t it = 0;
		int32_t pos;
		int64_t nout = 0;

		while ((pos = rte_hash_iterate(mp->out, &key, &data, &it)) >= 0) {
			void *p = *(void * const *)key;
			long k = ptr_find(sorted, nb, p);

			if (k < 0 || seen[k]) {
				snprintf(msg, len, "out object %p is %s", p,
					k < 0 ? "not of the pool" : "also free");
				return -1;
			}
			nout++;
		}
		if (nout != out - (int64_t)pool_rcu_pending(mp)) {
			snprintf(msg, len, "debug table holds %" PRId64
				" objects, counters say %" PRId64 " out", nout,
				out - (int64_t)pool_rcu_pending(mp));
			return -1;
		}
	}
	return 0;
}

int
rte_pcpu_mempool_audit(const struct rte_pcpu_mempool *cmp)
{
	struct rte_pcpu_mempool *mp = (struct rte_pcpu_mempool *)(uintptr_t)cmp;
	void **sorted;
	uint8_t *seen;
	char msg[160];
	int ret;

	if (mp == NULL) {
		rte_errno = EINVAL;
		return -1;
	}
	sorted = malloc((size_t)mp->n * sizeof(void *) + 1);
	seen = calloc(mp->n, 1);
	if (sorted == NULL || seen == NULL) {
		free(sorted);
		free(seen);
		rte_errno = ENOMEM;
		return -1;
	}
	pthread_mutex_lock(&mp->lock);
	cache_freeze(mp, NULL);
	ret = pool_audit_locked(mp, sorted, seen, msg, sizeof(msg));
	cache_thaw(mp, NULL);
	pthread_mutex_unlock(&mp->lock);
	free(sorted);
	free(seen);
	if (ret != 0) {
		MP_LOG(ERR, "audit %s: %s", mp->name, msg);
		rte_errno = EFAULT;
		return -1;
	}
	return 0;
}

/*
 * Telemetry (called from pcpu_telemetry.c on the telemetry thread).
 */

void
pcpu_mempool_tel_list(struct rte_tel_data *d)
{
	struct rte_pcpu_mempool *mp;

	pthread_mutex_lock(&reg.lock);
	TAILQ_FOREACH(mp, &reg.pools, next)
		rte_tel_data_add_array_string(d, mp->name);
	pthread_mutex_unlock(&reg.lock);
}

/* Per-lcore cache fields, one array each, indexed like "lcore_ids". */
enum tel_cache_field {
	TEL_LCORE, TEL_LEN, TEL_LEN_MAX, TEL_GETS, TEL_PUTS, TEL_HITS,
	TEL_MISSES, TEL_REFILLS, TEL_FLUSHES, TEL_STOLEN, TEL_NR_FIELDS
};

static const char * const tel_cache_keys[TEL_NR_FIELDS] = {
	"lcore_ids", "lcore_cache_len", "lcore_cache_len_max", "lcore_gets",
	"lcore_puts", "lcore_hits", "lcore_misses", "lcore_refills",
	"lcore_flushes", "lcore_stolen",
};

int
pcpu_mempool_tel_info(const char *name, struct rte_tel_data *d)
{
	struct rte_tel_data *arr[TEL_NR_FIELDS] = { NULL };
	struct rte_pcpu_mempool_stats s;
	struct rte_pcpu_mempool *mp;
	unsigned int l, f;
	int ret = 0;

	for (f = 0; f < TEL_NR_FIELDS; f++) {
		arr[f] = rte_tel_data_alloc();
		if (arr[f] == NULL) {
			ret = -ENOMEM;
			goto out_free;
		}
		rte_tel_data_start_array(arr[f], RTE_TEL_U64_VAL);
	}
	pthread_mutex_lock(&reg.lock);
	mp = pool_find(name);
	if (mp == NULL) {
		pthread_mutex_unlock(&reg.lock);
		ret = -ENOENT;
		goto out_free;
	}
	rte_pcpu_mempool_stats_get(mp, &s);
	rte_tel_data_add_dict_string(d, "name", mp->name);
	rte_tel_data_add_dict_u64(d, "elt_size", mp->elt_size);
	rte_tel_data_add_dict_u64(d, "align", mp->f.align);
	rte_tel_data_add_dict_u64(d, "n", mp->n);
	rte_tel_data_add_dict_u64(d, "cache_size", mp->cache_size);
	rte_tel_data_add_dict_u64(d, "flags", mp->flags);
	rte_tel_data_add_dict_u64(d, "in_use", rte_pcpu_mempool_in_use_count(mp));
	rte_tel_data_add_dict_u64(d, "avail", rte_pcpu_mempool_avail_count(mp));
	rte_tel_data_add_dict_u64(d, "objects",
		__atomic_load_n(&mp->nb_objs, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "free_shared",
		__atomic_load_n(&mp->nb_free, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "budget_bytes", mp->max_bytes);
	rte_tel_data_add_dict_u64(d, "charged_bytes", s.charged_bytes);
	rte_tel_data_add_dict_string(d, "init", mp->obj_init != NULL ?
		"obj_init" : mp->f.zero_bytes != 0 ? "zero_on_get" : "none");
	rte_tel_data_add_dict_string(d, "rcu", mp->rcu_v == NULL ? "none" :
		mp->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ ? "dq" : "sync");
	rte_tel_data_add_dict_u64(d, "get_success", s.get_success);
	rte_tel_data_add_dict_u64(d, "get_fail", s.get_fail);
	rte_tel_data_add_dict_u64(d, "get_fail_budget", s.get_fail_budget);
	rte_tel_data_add_dict_u64(d, "put", s.put);
	rte_tel_data_add_dict_u64(d, "cache_hits", s.cache_hits);
	rte_tel_data_add_dict_u64(d, "cache_misses", s.cache_misses);
	rte_tel_data_add_dict_u64(d, "put_refused", s.put_refused);
	rte_tel_data_add_dict_u64(d, "rcu_pending", s.rcu_pending);
	rte_tel_data_add_dict_u64(d, "steals", stat_read(&mp->steals));
	/* watermarks: flush above cache_size, refill/flush to half */
	rte_tel_data_add_dict_u64(d, "cache_high_watermark", mp->cache_size);
	rte_tel_data_add_dict_u64(d, "cache_low_watermark", mp->cache_size / 2);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&mp->f.caches[l], __ATOMIC_ACQUIRE);

		if (c == NULL)
			continue;
		rte_tel_data_add_array_u64(arr[TEL_LCORE], l);
		rte_tel_data_add_array_u64(arr[TEL_LEN],
			__atomic_load_n(&c->len, __ATOMIC_RELAXED));
		rte_tel_data_add_array_u64(arr[TEL_LEN_MAX],
			__atomic_load_n(&c->len_max, __ATOMIC_RELAXED));
		rte_tel_data_add_array_u64(arr[TEL_GETS], stat_read(&c->gets));
		rte_tel_data_add_array_u64(arr[TEL_PUTS], stat_read(&c->puts));
		rte_tel_data_add_array_u64(arr[TEL_HITS],
			cache_hits(c));
		rte_tel_data_add_array_u64(arr[TEL_MISSES],
			stat_read(&c->misses));
		rte_tel_data_add_array_u64(arr[TEL_REFILLS],
			stat_read(&c->refills));
		rte_tel_data_add_array_u64(arr[TEL_FLUSHES],
			stat_read(&c->flushes));
		rte_tel_data_add_array_u64(arr[TEL_STOLEN],
			stat_read(&c->stolen));
	}
	pthread_mutex_unlock(&reg.lock);
	for (f = 0; f < TEL_NR_FIELDS; f++) {
		/* keep = 0: d takes ownership */
		if (rte_tel_data_add_dict_container(d, tel_cache_keys[f],
				arr[f], 0) != 0)
			rte_tel_data_free(arr[f]);
		arr[f] = NULL;
	}
	return 0;

out_free:
	for (f = 0; f < TEL_NR_FIELDS; f++)
		rte_tel_data_free(arr[f]);
	return ret;
}
