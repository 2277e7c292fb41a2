/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Pool get and put: the lcore caches (the engine of pcpu_objcache.h), the
 * shared stack behind them, growth from the percpu allocator, and
 * stealing.
 *
 * Per-lcore caches. An lcore's cache holds up to cache_size handles and is
 * allocated on its first get or put (only lcores that use the pool pay for
 * one). A put into a full cache moves the coldest (bottom) objects to the
 * shared stack so that half the capacity stays, the hot ones (the idea of
 * DPDK 26.07's mempool cache rework: capacity exactly cache_size, flush
 * and refill by size/2). A get pops the hottest object; a miss takes the
 * rest from the shared stack and refills the cache to half its capacity.
 * The inline halves of get and put are in rte_pcpu_mempool_core.h.
 *
 * Stealing. Objects stranded in other lcores' caches (the rte_mempool
 * pitfall where a get fails while other caches are full) are taken back:
 * when the shared stack, the capacity and the budget cannot serve a get,
 * the getter *steals* every other lcore's cache into the shared stack. The
 * owner's fast path takes no lock and executes no atomic read-modify-
 * write; it only marks itself active with a plain store. Stealer and owner
 * meet in the asymmetric handshake of pcpu_fence.h: the owner stores
 * 'active' then loads 'steal' across pcpu_fence_light(), the stealer
 * stores 'steal' then runs pcpu_fence_heavy() and waits for 'active' to
 * drop. Either the owner sees 'steal' and takes the locked slow path, or
 * the stealer sees it active and waits.
 */

#include <errno.h>
#include <sched.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "pcpu_alloc.h"
#include "pcpu_asan.h"
#include "pcpu_fault.h"
#include "pcpu_fence.h"
#include "pcpu_mempool_cache.h"
#include "pcpu_objcache.h"
#include "pcpu_proc.h"

unsigned int
pcpu_pool_nr_lcores(void)
{
	unsigned int w, n = 0;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		n += (unsigned int)__builtin_popcountll(__atomic_load_n(
			&rte_pcpu_shared.lcore_mask[w], __ATOMIC_ACQUIRE));
	return n;
}

/* Zero every lcore's copy (as listed in @p cp) of @p n objects. Out of
 * line: the get fast path stays small when the pool does not zero.
 * Objects of 8 .. 64 bytes (a multiple of 8) take stores specialised for
 * their size. */
static __rte_noinline void
pool_zero(const struct pcpu_pool *p, const struct rte_pcpu_copies *cp,
		void * const *objs, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		uintptr_t h = (uintptr_t)objs[i];

		switch (p->zero_words) {
		case 1: __rte_pcpu_copies_zero(cp, h, 8); break;
		case 2: __rte_pcpu_copies_zero(cp, h, 16); break;
		case 3: __rte_pcpu_copies_zero(cp, h, 24); break;
		case 4: __rte_pcpu_copies_zero(cp, h, 32); break;
		case 5: __rte_pcpu_copies_zero(cp, h, 40); break;
		case 6: __rte_pcpu_copies_zero(cp, h, 48); break;
		case 7: __rte_pcpu_copies_zero(cp, h, 56); break;
		case 8: __rte_pcpu_copies_zero(cp, h, 64); break;
		default:
			for (k = 0; k < cp->nr; k++)
				memset((void *)(h + cp->offs[k]), 0,
					p->elt_size);
			break;
		}
	}
}

/* After a get of @p n objects through cache @p c (NULL: a thread or pool
 * without one): bring the cache's copy list up to date, whether the pool
 * zeroes or not (the inline get leaves the work to the library while it
 * is not), and zero the objects if the pool zeroes. */
static void
pool_got(const struct pcpu_pool *p, struct rte_pcpu_mempool_cache *c,
		void * const *objs, unsigned int n)
{
	struct rte_pcpu_copies cp;

	if (c != NULL && !__rte_pcpu_copies_current(&c->copies))
		pcpu_objcache_copies_rebuild(&c->copies);
	if (p->pub.zero_bytes == 0)
		return;
	if (c != NULL) {
		pool_zero(p, &c->copies, objs, n);
	} else {
		pcpu_objcache_copies_rebuild(&cp);
		pool_zero(p, &cp, objs, n);
	}
}

/* ---------------------------------------------------------------------- */
/* The shared stack as the engine's source and sink. */

/* Source: the hottest objects of the shared stack. */
static unsigned int
pool_shared_source(void *arg, uintptr_t *dst, unsigned int n)
{
	struct pcpu_pool *p = arg;
	unsigned int i;

	n = RTE_MIN(n, p->nb_free);
	for (i = 0; i < n; i++)
		dst[n - 1 - i] = p->free_objs[--p->nb_free];
	return n;
}

/* Sink: onto the shared stack. */
static void
pool_shared_sink(void *arg, uintptr_t *objs, unsigned int n)
{
	struct pcpu_pool *p = arg;

	memcpy(&p->free_objs[p->nb_free], objs, n * sizeof(uintptr_t));
	p->nb_free += n;
}

void
pcpu_pool_push_shared(struct pcpu_pool *p, void * const *objs, unsigned int n)
{
	pool_shared_sink(p, (uintptr_t *)(uintptr_t)objs, n);
}

/* ---------------------------------------------------------------------- */
/* Stealing. */

void
pcpu_pool_cache_freeze(struct pcpu_pool *p,
		const struct rte_pcpu_mempool_cache *self)
{
	struct rte_pcpu_mempool_cache *c;
	unsigned int l, spins;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = p->caches[l];
		if (c != NULL && c != self)
			__atomic_store_n(&c->steal, 1, __ATOMIC_RELAXED);
	}
	pcpu_fence_heavy();
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = p->caches[l];
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

void
pcpu_pool_cache_thaw(struct pcpu_pool *p,
		const struct rte_pcpu_mempool_cache *self)
{
	struct rte_pcpu_mempool_cache *c;
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = p->caches[l];
		if (c != NULL && c != self)
			__atomic_store_n(&c->steal, 0, __ATOMIC_RELEASE);
	}
}

unsigned int
pcpu_pool_cache_drain(struct pcpu_pool *p, struct rte_pcpu_mempool_cache *c)
{
	return pcpu_objcache_drain(&c->oc, pool_shared_sink, p);
}

/* Take every other lcore's cached objects. Pool lock held. */
static unsigned int
pool_steal(struct pcpu_pool *p, struct rte_pcpu_mempool_cache *self)
{
	unsigned int l, moved = 0, candidates = 0;
	struct rte_pcpu_mempool_cache *c;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = p->caches[l];
		if (c != NULL && c != self &&
		    __atomic_load_n(&c->oc.len, __ATOMIC_RELAXED) != 0)
			candidates++;
	}
	if (candidates == 0)
		return 0;
	pcpu_pool_cache_freeze(p, self);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = p->caches[l];
		if (c == NULL || c == self || c->oc.len == 0)
			continue;
		moved += pcpu_pool_cache_drain(p, c);
		pcpu_pool_stat_add(&c->stolen, 1);
	}
	pcpu_pool_cache_thaw(p, self);
	p->steals++;
	MP_LOG(DEBUG, "%s: took %u objects from other lcores' caches",
		p->name, moved);
	return moved;
}

/* ---------------------------------------------------------------------- */
/* Caches and growth. */

/* The calling lcore's cache, created on first use. Pool lock held. NULL
 * for unregistered threads, pools without caches, or no memory. */
static struct rte_pcpu_mempool_cache *
pool_cache_get(struct pcpu_pool *p, unsigned int lcore_id)
{
	struct rte_pcpu_mempool_cache *c;
	size_t sz;
	int socket;

	if (lcore_id >= RTE_MAX_LCORE || p->cache_size == 0)
		return NULL;
	c = p->caches[lcore_id];
	if (c != NULL)
		return c;
	sz = sizeof(*c) + (size_t)p->cache_size * sizeof(uintptr_t);
	socket = (int)rte_lcore_to_socket_id(lcore_id);
	c = pcpu_fault_rte_zmalloc_socket("pcpu_mempool_cache", sz,
		RTE_CACHE_LINE_SIZE, socket);
	if (c == NULL)
		c = pcpu_fault_rte_zmalloc("pcpu_mempool_cache", sz,
			RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		MP_LOG(WARNING, "%s: no memory for lcore %u's cache: "
			"it uses the shared stack", p->name, lcore_id);
		return NULL;
	}
	pcpu_objcache_init(&c->oc, (uintptr_t *)(c + 1), p->cache_size);
	c->lcore_id = lcore_id;
	pcpu_objcache_copies_rebuild(&c->copies);
	/* publish after the fields; to the inline paths only if they may
	 * serve the pool (inline_ok is cleared under the lock too) */
	__atomic_store_n(&p->caches[lcore_id], c, __ATOMIC_RELEASE);
	if (p->inline_ok)
		__atomic_store_n(&p->pub.inline_caches[lcore_id], c,
			__ATOMIC_RELEASE);
	return c;
}

/* Run obj_init for the copies of @p obj of every lcore in init_mask. */
static void
pool_obj_init_all(struct pcpu_pool *p, void *obj)
{
	unsigned int w, lcore_id;
	uint64_t m;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++) {
		m = p->init_mask[w];
		while (m != 0) {
			lcore_id = w * 64 + (unsigned int)__builtin_ctzll(m);
			m &= m - 1;
			p->obj_init(&p->pub, p->obj_init_arg,
				__rte_pcpu_lcore_ptr(lcore_id, obj), lcore_id);
		}
	}
}

enum pcpu_pool_grow_limit
pcpu_pool_grow(struct pcpu_pool *p, unsigned int want, unsigned int need)
{
	unsigned int room = p->n - p->nb_objs, k, got;
	enum pcpu_pool_grow_limit why = PCPU_POOL_GROW_OK;
	uint32_t owner = p->owner->id;
	void **dst;

	if (want < need)
		want = need;
	if (want > room) {
		want = room;
		why = PCPU_POOL_GROW_CAPACITY;
	}
	if (want == 0)
		return need == 0 ? PCPU_POOL_GROW_OK : why;
	/* the budget: as many as the owner's limit lets in, charged now
	 * (fewer than needed still help a steal) */
	k = pcpu_owner_charge_upto(owner, p->charge_size, 1, want);
	if (k < want && k < need)
		why = PCPU_POOL_GROW_BUDGET;
	if (k == 0)
		return need == 0 ? PCPU_POOL_GROW_OK : why;
	want = k;
	/* the shared stack has room for n: the new ones go on its top */
	dst = (void **)&p->free_objs[p->nb_free];
	got = pcpu_alloc_bulk(p->elt_size, p->pub.align, dst, want, 1, 0);
	if (got < want)
		pcpu_owner_refund_any(owner, (uint64_t)(want - got) *
			p->charge_size, want - got);
	/* rte_pcpu_free() of a pool object is refused from now on */
	if (got != 0 && pcpu_alloc_pool_mark(dst, got, 1) != 0)
		MP_LOG(WARNING, "%s: no memory to mark objects as the pool's: "
			"rte_pcpu_free() of them is not refused", p->name);
	for (k = 0; k < got; k++) {
		p->all[p->nb_objs++] = dst[k];
		if (p->obj_init != NULL)
			pool_obj_init_all(p, dst[k]);
		pcpu_asan_poison(dst[k], p->elt_size);
	}
	p->nb_free += got;
	p->grows++;
	if (got < want) {
		MP_LOG(DEBUG, "%s: allocator gave %u of %u objects: %s",
			p->name, got, want, rte_strerror(rte_errno));
		if (got < need)
			return PCPU_POOL_GROW_SYSTEM;
	}
	return got < need ? why : PCPU_POOL_GROW_OK;
}

/* ---------------------------------------------------------------------- */
/* Get. */

/* Record objects going out (F_DEBUG). Pool lock held. */
static void
pool_debug_out(struct pcpu_pool *p, void * const *objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (rte_hash_lookup(p->out, &objs[i]) >= 0)
			MP_LOG(ERR, "%s: BUG: %p handed out twice", p->name,
				objs[i]);
		if (rte_hash_add_key(p->out, &objs[i]) < 0)
			MP_LOG(ERR, "%s: debug table full at %p", p->name,
				objs[i]);
	}
}

/* Make sure @p n objects are free (cache @p c, shared stack), growing and
 * stealing if needed. Pool lock held; it is dropped and taken again to
 * reclaim RCU puts. Returns PCPU_POOL_GROW_OK or why not. */
static enum pcpu_pool_grow_limit
pool_get_supply(struct pcpu_pool *p, struct rte_pcpu_mempool_cache *c,
		unsigned int n)
{
	enum pcpu_pool_grow_limit why = PCPU_POOL_GROW_OK;
	unsigned int have, half = c != NULL ? c->oc.capacity / 2 : 0;
	int reclaimed = 0;

	for (;;) {
		have = (c != NULL ? c->oc.len : 0) + p->nb_free;
		if (have >= n)
			return PCPU_POOL_GROW_OK;
		if (p->rcu_reclaim == NULL || reclaimed ||
		    pcpu_pool_rcu_pending(p) == 0)
			break;
		/* before the get fails: every put whose grace period is
		 * over, not only max_reclaim_size of them */
		pthread_mutex_unlock(&p->lock);
		p->rcu_reclaim(p, PCPU_POOL_RECLAIM_ALL);
		pthread_mutex_lock(&p->lock);
		reclaimed = 1;
	}
	why = pcpu_pool_grow(p, n - have + half, n - have);
	have = (c != NULL ? c->oc.len : 0) + p->nb_free;
	if (have < n) {
		pool_steal(p, c);
		have = (c != NULL ? c->oc.len : 0) + p->nb_free;
	}
	return have >= n ? PCPU_POOL_GROW_OK :
		why != PCPU_POOL_GROW_OK ? why : PCPU_POOL_GROW_CAPACITY;
}

static __rte_noinline int
pool_get_slow(struct pcpu_pool *p, unsigned int lcore_id, void **objs,
		unsigned int n)
{
	enum pcpu_pool_grow_limit why;
	struct rte_pcpu_mempool_cache *c;
	unsigned int from_cache = 0, i;
	int ret;

	/* a secondary process comes here: it has no lcore cache */
	if (unlikely(pcpu_proc_refuse("rte_pcpu_mempool_get")))
		return -ENOTSUP;
	if (p->rcu_reclaim != NULL)
		p->rcu_reclaim(p, p->dq_max_reclaim);
	pthread_mutex_lock(&p->lock);
	c = pool_cache_get(p, lcore_id);
	why = pool_get_supply(p, c, n);
	if (why != PCPU_POOL_GROW_OK)
		goto fail;
	/* the hottest first: own cache top, then the shared stack top */
	if (c != NULL)
		from_cache = pcpu_objcache_take(&c->oc, (uintptr_t *)objs, n);
	if (c != NULL && from_cache < n && n - from_cache <= c->oc.capacity / 2) {
		/* the cache is empty (the supply made sure the shared stack
		 * has the rest): refill it with the rest and half the
		 * capacity, and hand the rest out of it, so that they come
		 * out in the ascending order of the refill (sequential use
		 * then walks memory forwards) */
		pcpu_objcache_refill(&c->oc, n - from_cache +
			c->oc.capacity / 2, pool_shared_source, p);
		pcpu_objcache_take(&c->oc, (uintptr_t *)objs + from_cache,
			n - from_cache);
	} else {
		for (i = from_cache; i < n; i++)
			objs[i] = (void *)p->free_objs[--p->nb_free];
		if (c != NULL) {
			/* straight from the shared stack: they passed
			 * through */
			pcpu_pool_stat_add(&c->oc.refilled, n - from_cache);
			pcpu_pool_stat_add(&c->oc.nr_get, n - from_cache);
		}
	}
	if (c != NULL) {
		/* release: a reader that sees these misses sees the gets */
		__atomic_store_n(&c->misses, c->misses + (n - from_cache),
			__ATOMIC_RELEASE);
		/* refill to half the capacity */
		if (c->oc.len < c->oc.capacity / 2 && p->nb_free > 0)
			pcpu_objcache_refill(&c->oc,
				c->oc.capacity / 2 - c->oc.len,
				pool_shared_source, p);
		if (c->oc.len > c->len_max)
			c->len_max = c->oc.len;
	} else {
		__atomic_fetch_add(&p->shared_gets, n, __ATOMIC_RELAXED);
	}
	if (p->out != NULL)
		pool_debug_out(p, objs, n);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < n; i++)
		pcpu_asan_unpoison(objs[i], p->elt_size);
	pool_got(p, c, objs, n);
	return 0;

fail:
	pthread_mutex_unlock(&p->lock);
	__atomic_fetch_add(&p->get_fail, 1, __ATOMIC_RELAXED);
	if (why == PCPU_POOL_GROW_BUDGET) {
		__atomic_fetch_add(&p->get_fail_budget, 1, __ATOMIC_RELAXED);
		pcpu_owner_count_fail(p->owner->id);
		ret = -ENOMEM;
	} else if (why == PCPU_POOL_GROW_SYSTEM) {
		ret = -ENOMEM;
	} else {
		ret = -ENOENT;
	}
	rte_errno = -ret;
	return ret;
}

struct pcpu_pool *
pcpu_pool_bulk_refuse(const struct rte_pcpu_mempool *mp, const void *objs,
		unsigned int n, const char *fn)
{
	if (mp == NULL)
		MP_LOG(ERR, "%s: pool NULL", fn);
	else if (objs == NULL)
		MP_LOG(ERR, "%s %s: objects array NULL", fn,
			pcpu_pool(mp)->name);
	else
		MP_LOG(ERR, "%s %s: %u objects, not in 1..%u (the capacity)",
			fn, pcpu_pool(mp)->name, n, pcpu_pool(mp)->n);
	rte_errno = EINVAL;
	return NULL;
}

int
rte_pcpu_mempool_get_bulk(struct rte_pcpu_mempool *mp, void **objs,
		unsigned int n)
{
	unsigned int lcore_id = pcpu_pool_lcore_id(), len, i;
	struct pcpu_pool *p = pcpu_pool_bulk_args(mp, objs, n, "get_bulk");
	struct rte_pcpu_mempool_cache *c = NULL;

	if (unlikely(p == NULL))
		return -EINVAL;
	/* 0 in a secondary process: the slow path refuses */
	if (likely(lcore_id < rte_pcpu_shared.cache_lcore_limit))
		c = __atomic_load_n(&p->caches[lcore_id], __ATOMIC_ACQUIRE);
	if (unlikely(c == NULL || (p->flags & RTE_PCPU_MEMPOOL_F_DEBUG)))
		return pool_get_slow(p, lcore_id, objs, n);
	pcpu_pool_cache_enter(p, c);
	/* the length only after the steal check: see
	 * __rte_pcpu_mempool_cache_get() */
	if (unlikely(__rte_pcpu_mempool_cache_stolen(c) || n > c->oc.len)) {
		__rte_pcpu_mempool_cache_leave(c);
		return pool_get_slow(p, lcore_id, objs, n);
	}
	len = c->oc.len;
	for (i = 0; i < n; i++)
		objs[i] = (void *)c->oc.objs[len - 1 - i];
	__atomic_store_n(&c->oc.len, len - n, __ATOMIC_RELAXED);
	pcpu_pool_stat_add(&c->oc.nr_get, n);
	__rte_pcpu_mempool_cache_leave(c);
	for (i = 0; i < n; i++)
		pcpu_asan_unpoison(objs[i], p->elt_size);
	pool_got(p, c, objs, n);
	return 0;
}

int
__rte_pcpu_mempool_get_slow(struct rte_pcpu_mempool *mp, void **obj)
{
	/* rte_pcpu_mempool_get() sends its NULL arguments here: named as
	 * the call they were given to, not as get_bulk */
	if (unlikely(mp == NULL || obj == NULL)) {
		if (mp == NULL)
			MP_LOG(ERR, "get: pool NULL");
		else
			MP_LOG(ERR, "get %s: obj NULL", pcpu_pool(mp)->name);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return rte_pcpu_mempool_get_bulk(mp, obj, 1);
}

/* ---------------------------------------------------------------------- */
/* Put. */

/* Log and count a refused put. */
static int
pool_refuse(struct pcpu_pool *p, const void *obj, const char *why)
{
	MP_LOG(ERR, "%s: put of %p refused: %s", p->name, obj, why);
	__atomic_fetch_add(&p->put_refused, 1, __ATOMIC_RELAXED);
	rte_errno = EINVAL;
	return -EINVAL;
}

unsigned int
pcpu_pool_put_check(struct pcpu_pool *p, void * const *objs, unsigned int n,
		int *ret)
{
	unsigned int i;

	*ret = 0;
	for (i = 0; i < n; i++) {
		if (!__rte_pcpu_mempool_handle_ok(&p->pub, objs[i])) {
			*ret = pool_refuse(p, objs[i],
				"not a percpu handle aligned as this pool's objects");
			break;
		}
		if (p->out != NULL && rte_hash_del_key(p->out, &objs[i]) < 0) {
			*ret = pool_refuse(p, objs[i],
				"not out of this pool (double put or foreign object)");
			break;
		}
	}
	return i;
}

static __rte_noinline int
pool_put_slow(struct pcpu_pool *p, unsigned int lcore_id, void * const *objs,
		unsigned int n)
{
	struct rte_pcpu_mempool_cache *c;
	unsigned int ok, i;
	int ret;

	/* a secondary process comes here: it has no lcore cache */
	if (unlikely(pcpu_proc_refuse("rte_pcpu_mempool_put")))
		return -ENOTSUP;
	pthread_mutex_lock(&p->lock);
	ok = pcpu_pool_put_check(p, objs, n, &ret);
	for (i = 0; i < ok; i++)
		pcpu_asan_poison(objs[i], p->elt_size);
	c = pool_cache_get(p, lcore_id);
	if (c == NULL) {
		pcpu_pool_push_shared(p, objs, ok);
		__atomic_fetch_add(&p->shared_puts, ok, __ATOMIC_RELAXED);
	} else if (ok != 0) {
		/* what does not fit: the coldest to the shared stack,
		 * keeping half a cache */
		pcpu_objcache_put_spill(&c->oc, (const uintptr_t *)objs, ok,
			c->oc.capacity / 2, pool_shared_sink, p);
		if (c->oc.len > c->len_max)
			c->len_max = c->oc.len;
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

int
pcpu_pool_put_now(struct pcpu_pool *p, void * const *objs, unsigned int n)
{
	unsigned int lcore_id = pcpu_pool_lcore_id(), len, i;
	struct rte_pcpu_mempool_cache *c = NULL;

	/* 0 in a secondary process: the slow path refuses */
	if (likely(lcore_id < rte_pcpu_shared.cache_lcore_limit))
		c = __atomic_load_n(&p->caches[lcore_id], __ATOMIC_ACQUIRE);
	if (unlikely(c == NULL || (p->flags & RTE_PCPU_MEMPOOL_F_DEBUG)))
		return pool_put_slow(p, lcore_id, objs, n);
	for (i = 0; i < n; i++)
		if (unlikely(!__rte_pcpu_mempool_handle_ok(&p->pub, objs[i])))
			return pool_put_slow(p, lcore_id, objs, n);
	pcpu_pool_cache_enter(p, c);
	/* the length only after the steal check: see
	 * __rte_pcpu_mempool_cache_get() */
	if (unlikely(__rte_pcpu_mempool_cache_stolen(c) ||
			c->oc.len + n > c->oc.capacity)) {
		__rte_pcpu_mempool_cache_leave(c);
		return pool_put_slow(p, lcore_id, objs, n);
	}
	len = c->oc.len;
	for (i = 0; i < n; i++) {
		pcpu_asan_poison(objs[i], p->elt_size);
		c->oc.objs[len + i] = (uintptr_t)objs[i];
	}
	len += n;
	__atomic_store_n(&c->oc.len, len, __ATOMIC_RELAXED);
	if (unlikely(len > c->len_max))
		c->len_max = len;
	pcpu_pool_stat_add(&c->oc.nr_put, n);
	__rte_pcpu_mempool_cache_leave(c);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Counts. */

int64_t
pcpu_pool_out(const struct pcpu_pool *p)
{
	int64_t out = 0;
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&p->caches[l], __ATOMIC_ACQUIRE);

		if (c != NULL)
			out += (int64_t)(pcpu_pool_stat_read(&c->oc.nr_get) -
				pcpu_pool_stat_read(&c->oc.nr_put));
	}
	out += (int64_t)(pcpu_pool_stat_read(&p->shared_gets) -
		pcpu_pool_stat_read(&p->shared_puts));
	out += (int64_t)pcpu_pool_rcu_pending(p);
	return out;
}

unsigned int
rte_pcpu_mempool_in_use_count(const struct rte_pcpu_mempool *mp)
{
	int64_t out;

	if (mp == NULL) {
		MP_LOG(ERR, "in_use_count: pool NULL");
		rte_errno = EINVAL;
		return 0;
	}
	out = pcpu_pool_out(pcpu_pool(mp));
	if (out < 0)
		return 0;
	return out > pcpu_pool(mp)->n ? pcpu_pool(mp)->n : (unsigned int)out;
}

unsigned int
rte_pcpu_mempool_avail_count(const struct rte_pcpu_mempool *mp)
{
	if (mp == NULL) {
		MP_LOG(ERR, "avail_count: pool NULL");
		rte_errno = EINVAL;
		return 0;
	}
	return pcpu_pool(mp)->n - rte_pcpu_mempool_in_use_count(mp);
}
