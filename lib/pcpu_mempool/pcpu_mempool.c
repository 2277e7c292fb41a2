/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Pools of fixed-size percpu objects (rte_pcpu_mempool.h): creation,
 * lookup, free and walk, the registry, the pools' part in the library's
 * life cycle, and lcores that gain memory or unregister.
 * pcpu_mempool_private.h describes where objects are and the locks.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include <rte_eal_memconfig.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>
#include <rte_tailq.h>

#include "pcpu_alloc.h"
#include "pcpu_asan.h"
#include "pcpu_fault.h"
#include "pcpu_fence.h"
#include "pcpu_front.h"
#include "pcpu_init.h"
#include "pcpu_mempool.h"
#include "pcpu_mempool_rcu.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"
#include "pcpu_util.h"

#define POOL_FLAGS_ALL (RTE_PCPU_MEMPOOL_F_NO_ZERO | \
	RTE_PCPU_MEMPOOL_F_PREFILL | RTE_PCPU_MEMPOOL_F_DEBUG)
/* zero with a word loop up to this size, memset above */
#define POOL_ZERO_WORDS_MAX 64

struct pcpu_pool_registry pcpu_pools = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static struct rte_tailq_elem pcpu_pool_tailq = {
	.name = "PCPU_MEMPOOL",
};
EAL_REGISTER_TAILQ(pcpu_pool_tailq)

static inline struct rte_tailq_entry_head *
pool_list(void)
{
	return RTE_TAILQ_CAST(pcpu_pool_tailq.head, rte_tailq_entry_head);
}

void
pcpu_pool_list_lock(void)
{
	if (pcpu_proc_secondary())
		rte_mcfg_tailq_read_lock();
	else
		pthread_mutex_lock(&pcpu_pools.lock);
}

void
pcpu_pool_list_unlock(void)
{
	if (pcpu_proc_secondary())
		rte_mcfg_tailq_read_unlock();
	else
		pthread_mutex_unlock(&pcpu_pools.lock);
}

struct pcpu_pool *
pcpu_pool_first(void)
{
	struct rte_tailq_entry *te;

	/* no head before rte_eal_init() */
	if (pcpu_pool_tailq.head == NULL)
		return NULL;
	te = TAILQ_FIRST(pool_list());
	return te != NULL ? te->data : NULL;
}

struct pcpu_pool *
pcpu_pool_next(const struct pcpu_pool *p)
{
	struct rte_tailq_entry *te = TAILQ_NEXT(p->te, next);

	return te != NULL ? te->data : NULL;
}

struct pcpu_pool *
pcpu_pool_find(const char *name)
{
	struct pcpu_pool *p;

	PCPU_POOL_FOREACH(p)
		if (strncmp(p->name, name, sizeof(p->name)) == 0)
			return p;
	return NULL;
}

static int
pool_listed(const struct pcpu_pool *q)
{
	struct pcpu_pool *p;

	PCPU_POOL_FOREACH(p)
		if (p == q)
			return 1;
	return 0;
}

/* Add to the list. Registry lock held. */
static void
pool_list_add(struct pcpu_pool *p)
{
	rte_mcfg_tailq_write_lock();
	TAILQ_INSERT_TAIL(pool_list(), p->te, next);
	rte_mcfg_tailq_write_unlock();
}

/* Take off the list. Registry lock held. */
static void
pool_list_remove(struct pcpu_pool *p)
{
	rte_mcfg_tailq_write_lock();
	TAILQ_REMOVE(pool_list(), p->te, next);
	rte_mcfg_tailq_write_unlock();
}

/* Give everything back. The pool is off the list; nobody uses it. */
static void
pool_destroy(struct pcpu_pool *p)
{
	unsigned int l, done;

	pcpu_pool_rcu_delete(p);
	if (p->nb_objs != 0) {
		pcpu_alloc_pool_mark(p->all, p->nb_objs, 0);
		done = pcpu_alloc_free_bulk(p->all, p->nb_objs, NULL, NULL);
		if (done != p->nb_objs)
			MP_LOG(ERR, "%s: %u of %u objects not freed", p->name,
				p->nb_objs - done, p->nb_objs);
		pcpu_owner_uncharge_any(p->owner->id, (uint64_t)done *
			p->charge_size, done);
	}
	if (p->owner != NULL &&
	    pcpu_owner_free(p->owner, 1u << PCPU_OWNER_KIND_POOL) != 0)
		MP_LOG(ERR, "%s: its owner %s is not freed", p->name,
			p->owner->name);
	for (l = 0; l < RTE_MAX_LCORE; l++)
		rte_free(p->caches[l]);
	rte_hash_free(p->out);
	rte_free(p->free_objs);
	rte_free(p->all);
	rte_free(p->te);
	pthread_mutex_destroy(&p->lock);
	rte_free(p);
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
	if (pcpu_name_check("mempool: create", name) != 0)
		return -1;
	if (n == 0 || elt_size == 0 || elt_size > RTE_PCPU_CHUNK_OBJ_MAX_SIZE ||
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

/* A new pool, not registered yet; NULL with rte_errno. */
static struct pcpu_pool *
pool_alloc(const char *name, unsigned int n, size_t elt_size,
		unsigned int cache_size, uint64_t max_bytes,
		rte_pcpu_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		unsigned int flags)
{
	struct pcpu_pool *p;

	p = pcpu_fault_rte_zmalloc("pcpu_mempool", sizeof(*p),
		RTE_CACHE_LINE_SIZE);
	if (p == NULL) {
		MP_LOG(ERR, "create %s: no memory for the pool", name);
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_strscpy(p->name, name, sizeof(p->name));
	p->n = n;
	p->elt_size = elt_size;
	p->pub.align = pcpu_front_natural_align(elt_size);
	/* base is aligned to 2 MiB (pcpu_arena.h), align to at most a cache
	 * line: the low bits of (handle - base) are the handle's */
	p->pub.handle_mask = ~(((uintptr_t)1 << rte_pcpu_shared.unit_shift) - 1) |
		(p->pub.align - 1);
	p->fence_needed = (uint32_t)pcpu_fence_fallback;
	p->cache_size = cache_size;
	p->flags = flags;
	p->max_bytes = max_bytes;
	p->charge_size = (uint32_t)pcpu_alloc_obj_size(elt_size);
	p->obj_init = obj_init;
	p->obj_init_arg = obj_init_arg;
	p->zero_words = (elt_size % 8 == 0 && elt_size <= POOL_ZERO_WORDS_MAX) ?
		(uint32_t)(elt_size / 8) : 0;
	/* the inline get and put serve the pool unless it needs a check or a
	 * poisoning they do not do */
	p->pub.zero_bytes = obj_init == NULL &&
		!(flags & RTE_PCPU_MEMPOOL_F_NO_ZERO) ? (uint32_t)elt_size : 0;
	p->inline_ok = !(flags & RTE_PCPU_MEMPOOL_F_DEBUG) &&
		!PCPU_ASAN_ON && !p->fence_needed &&
		(p->pub.zero_bytes == 0 || p->pub.zero_bytes == 8 ||
		p->pub.zero_bytes == 16 || p->pub.zero_bytes == 32 ||
		p->pub.zero_bytes == 64);
	pthread_mutex_init(&p->lock, NULL);
	/* EAL memory: a secondary process reads them */
	p->free_objs = pcpu_fault_rte_malloc("pcpu_mempool_free",
		(size_t)n * sizeof(*p->free_objs), 0);
	p->all = pcpu_fault_rte_malloc("pcpu_mempool_all",
		(size_t)n * sizeof(*p->all), 0);
	p->te = pcpu_fault_rte_zmalloc("pcpu_mempool_entry", sizeof(*p->te), 0);
	if (p->free_objs == NULL || p->all == NULL || p->te == NULL) {
		MP_LOG(ERR, "create %s: no EAL memory for %u object slots",
			name, n);
		pool_destroy(p);
		rte_errno = ENOMEM;
		return NULL;
	}
	return p;
}

/* The F_DEBUG table of objects out. Registry lock held. 0 or -1. */
static int
pool_debug_table(struct pcpu_pool *p)
{
	char hname[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.entries = RTE_MAX(p->n, 8u),
		.key_len = sizeof(void *),
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	snprintf(hname, sizeof(hname), "pcpu_mp_out_%u", p->id);
	hp.name = hname;
	p->out = pcpu_fault_rte_hash_create(&hp);
	if (p->out == NULL) {
		MP_LOG(ERR, "create %s: no debug table", p->name);
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
	char owner_name[RTE_PCPU_OWNER_NAMESIZE];
	struct pcpu_pool *p;
	int err;

	if (pcpu_proc_refuse("rte_pcpu_mempool_create"))
		return NULL;
	RTE_BUILD_BUG_ON(sizeof("pool:") - 1 + RTE_PCPU_MEMPOOL_NAMESIZE >
		RTE_PCPU_OWNER_NAMESIZE);
	if (pool_args_check(name, n, elt_size, cache_size, flags) != 0)
		return NULL;
	if (pcpu_init_ensure("rte_pcpu_mempool_create") != 0)
		return NULL;
	/* the library may have been set up before rte_eal_cleanup(): the
	 * pool would go into EAL memory that is gone */
	if (!pcpu_init_eal_running()) {
		MP_LOG(ERR, "create %s: EAL is not initialised, or was cleaned "
			"up", name);
		rte_errno = EINVAL;
		return NULL;
	}
	p = pool_alloc(name, n, elt_size, cache_size, max_bytes, obj_init,
		obj_init_arg, flags);
	if (p == NULL)
		return NULL;
	pthread_mutex_lock(&pcpu_pools.lock);
	if (pcpu_pool_find(name) != NULL) {
		MP_LOG(ERR, "create: pool %s exists", name);
		err = EEXIST;
		goto fail;
	}
	p->id = pcpu_pools.next_id++;
	/* its owner: the budget is the owner's limit */
	snprintf(owner_name, sizeof(owner_name), "pool:%s", name);
	p->owner = pcpu_owner_create(owner_name, max_bytes,
		PCPU_OWNER_KIND_POOL);
	if (p->owner == NULL) {
		err = rte_errno;
		goto fail;
	}
	if ((flags & RTE_PCPU_MEMPOOL_F_DEBUG) && pool_debug_table(p) != 0) {
		err = ENOMEM;
		goto fail;
	}
	/* lcores arriving from now on get obj_init from the listener; one
	 * arriving now is in the allocator's set already (its listener may
	 * have run before this pool was listed) */
	pcpu_alloc_lcores(p->init_mask);
	if (flags & RTE_PCPU_MEMPOOL_F_PREFILL) {
		unsigned int mark = PCPU_LOG_MARK();
		enum pcpu_pool_grow_limit why;

		pthread_mutex_lock(&p->lock);
		why = pcpu_pool_grow(p, n, n);
		pthread_mutex_unlock(&p->lock);
		if (why != PCPU_POOL_GROW_OK) {
			MP_LOG_CONTEXT(mark, "create %s: cannot prefill %u "
				"objects (%s)", name, n,
				why == PCPU_POOL_GROW_BUDGET ? "byte budget" :
				"no memory");
			err = ENOMEM;
			goto fail;
		}
	}
	p->te->data = p;
	pool_list_add(p);
	pthread_mutex_unlock(&pcpu_pools.lock);
	MP_LOG(DEBUG, "created %s: n %u elt_size %zu cache %u budget %" PRIu64
		" flags %#x", name, n, elt_size, cache_size, max_bytes, flags);
	return &p->pub;

fail:
	pthread_mutex_unlock(&pcpu_pools.lock);
	pool_destroy(p);
	rte_errno = err;
	return NULL;
}

struct rte_pcpu_mempool *
rte_pcpu_mempool_lookup(const char *name)
{
	struct pcpu_pool *p;

	if (name == NULL) {
		MP_LOG(ERR, "lookup: name NULL");
		rte_errno = EINVAL;
		return NULL;
	}
	/* the list's head is in EAL's memory, unmapped by rte_eal_cleanup() */
	if (!pcpu_init_eal_running()) {
		MP_LOG(ERR, "lookup %s: EAL is not initialised, or was cleaned up",
			name);
		rte_errno = EINVAL;
		return NULL;
	}
	/* a secondary process reads its objects: the area, mapped */
	if (pcpu_proc_secondary() && pcpu_proc_attach() != 0)
		return NULL;
	pcpu_pool_list_lock();
	p = pcpu_pool_find(name);
	pcpu_pool_list_unlock();
	if (p == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	return &p->pub;
}

/* More puts than gets (@p out below 0): objects not the pool's were put,
 * which only RTE_PCPU_MEMPOOL_F_DEBUG refuses. */
static void
pool_log_foreign_puts(const struct pcpu_pool *p, const char *what,
		int64_t out)
{
	MP_LOG(ERR, "%s %s: %" PRId64 " more objects put than got: objects "
		"not the pool's were put (RTE_PCPU_MEMPOOL_F_DEBUG refuses "
		"them, rte_pcpu_mempool_audit() names them)", what, p->name,
		-out);
}

int
rte_pcpu_mempool_free(struct rte_pcpu_mempool *mp)
{
	struct pcpu_pool *p;
	int64_t out;

	if (mp == NULL)
		return 0;
	if (pcpu_init_refuse("rte_pcpu_mempool_free"))
		return -1;
	p = pcpu_pool(mp);
	pthread_mutex_lock(&pcpu_pools.lock);
	if (!pool_listed(p)) {
		pthread_mutex_unlock(&pcpu_pools.lock);
		MP_LOG(ERR, "free: %p is not a pool", (void *)mp);
		rte_errno = EINVAL;
		return -1;
	}
	/* objects whose grace period is over are not in use: all of them
	 * come back, whatever max_reclaim_size says */
	if (p->rcu_reclaim != NULL)
		p->rcu_reclaim(p, PCPU_POOL_RECLAIM_ALL);
	pthread_mutex_lock(&p->lock);
	out = pcpu_pool_out(p);
	if (out != 0) {
		pthread_mutex_unlock(&p->lock);
		pthread_mutex_unlock(&pcpu_pools.lock);
		if (out > 0)
			MP_LOG(ERR, "free %s: %" PRId64 " objects in use "
				"(RCU puts waiting included): put them first",
				p->name, out);
		else
			pool_log_foreign_puts(p, "free", out);
		rte_errno = EBUSY;
		return -1;
	}
	pool_list_remove(p);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&pcpu_pools.lock);
	pool_destroy(p);
	return 0;
}

int
rte_pcpu_mempool_put_bulk(struct rte_pcpu_mempool *mp, void * const *objs,
		unsigned int n)
{
	struct pcpu_pool *p = pcpu_pool_bulk_args(mp, objs, n,
		"put_bulk");

	if (unlikely(p == NULL))
		return -EINVAL;
	if (unlikely(p->rcu_v != NULL))
		return pcpu_pool_put_rcu(p, objs, n);
	return pcpu_pool_put_now(p, objs, n);
}

int
__rte_pcpu_mempool_put_slow(struct rte_pcpu_mempool *mp, void *obj)
{
	/* rte_pcpu_mempool_put() sends a NULL pool here (a NULL object goes
	 * on, to the handle check's refusal) */
	if (unlikely(mp == NULL)) {
		MP_LOG(ERR, "put: pool NULL");
		rte_errno = EINVAL;
		return -EINVAL;
	}
	return rte_pcpu_mempool_put_bulk(mp, &obj, 1);
}

void
rte_pcpu_mempool_walk(void (*fn)(struct rte_pcpu_mempool *mp, void *arg),
		void *arg)
{
	struct pcpu_pool *p;

	/* the list's head is in EAL's memory, unmapped by rte_eal_cleanup() */
	if (fn == NULL || !pcpu_init_eal_running())
		return;
	if (pcpu_proc_secondary() && pcpu_proc_attach() != 0)
		return;
	pcpu_pool_list_lock();
	PCPU_POOL_FOREACH(p)
		fn(&p->pub, arg);
	pcpu_pool_list_unlock();
}

const struct pcpu_pool *
pcpu_pool_of_query(const struct rte_pcpu_mempool *mp, const char *op)
{
	if (mp != NULL)
		return pcpu_pool(mp);
	MP_LOG(ERR, "%s: pool NULL", op);
	rte_errno = EINVAL;
	return NULL;
}

struct rte_pcpu_owner *
rte_pcpu_mempool_owner(const struct rte_pcpu_mempool *mp)
{
	const struct pcpu_pool *p = pcpu_pool_of_query(mp, "owner");

	return p == NULL ? NULL : p->owner;
}

const char *
rte_pcpu_mempool_name(const struct rte_pcpu_mempool *mp)
{
	const struct pcpu_pool *p = pcpu_pool_of_query(mp, "name");

	return p == NULL ? NULL : p->name;
}

/* ---------------------------------------------------------------------- */
/* Lcores and the life cycle. */

/* A new lcore has memory: run obj_init on its copies, once per pool. It
 * is not yet visible to readers. */
static void
pool_lcore_arrive(unsigned int lcore_id)
{
	uint64_t bit = UINT64_C(1) << (lcore_id % 64);
	struct pcpu_pool *p;
	unsigned int i;

	pthread_mutex_lock(&pcpu_pools.lock);
	PCPU_POOL_FOREACH(p) {
		pthread_mutex_lock(&p->lock);
		if (!(p->init_mask[lcore_id / 64] & bit)) {
			if (p->obj_init != NULL)
				for (i = 0; i < p->nb_objs; i++)
					p->obj_init(&p->pub, p->obj_init_arg,
						__rte_pcpu_lcore_ptr(lcore_id,
							p->all[i]), lcore_id);
			p->init_mask[lcore_id / 64] |= bit;
		}
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&pcpu_pools.lock);
}

/* A thread unregisters: its cached objects go back to the shared stacks. */
static void
pool_lcore_leave(unsigned int lcore_id)
{
	struct rte_pcpu_mempool_cache *c;
	struct pcpu_pool *p;

	pthread_mutex_lock(&pcpu_pools.lock);
	PCPU_POOL_FOREACH(p) {
		pthread_mutex_lock(&p->lock);
		c = p->caches[lcore_id];
		if (c != NULL)
			pcpu_pool_cache_drain(p, c);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&pcpu_pools.lock);
}

static struct pcpu_lcore_listener pool_listener = {
	.name = "pools",
	.arrive = pool_lcore_arrive,
	.leave = pool_lcore_leave,
};

/* The pools' set-up, once per rte_pcpu_init(): the lcore listener. */
static int
pool_layer_init(void)
{
	pcpu_alloc_listener_register(&pool_listener);
	return 0;
}

/* The library is going away: every pool goes with it. */
static void
pool_layer_cleanup(void)
{
	struct pcpu_pool *p;

	pcpu_alloc_listener_unregister(&pool_listener);
	pthread_mutex_lock(&pcpu_pools.lock);
	while ((p = pcpu_pool_first()) != NULL) {
		int64_t out = pcpu_pool_out(p);

		if (out > 0)
			MP_LOG(WARNING, "cleanup: pool %s freed with %" PRId64
				" objects in use", p->name, out);
		else if (out < 0)
			pool_log_foreign_puts(p, "cleanup", out);
		pool_list_remove(p);
		pool_destroy(p);
	}
	pthread_mutex_unlock(&pcpu_pools.lock);
}

PCPU_INIT_LAYER(pool_layer, "pools", pool_layer_init, pool_layer_cleanup)
