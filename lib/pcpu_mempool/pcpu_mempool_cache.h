/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_MEMPOOL_CACHE_H_
#define _PCPU_MEMPOOL_CACHE_H_

/**
 * @file
 * @internal The pools' one private struct, and get and put without RCU:
 * the lcore caches, the shared stack, stealing, growth
 * (pcpu_mempool_cache.c, the bottom of the pool module). The files above
 * it: pcpu_mempool_rcu.c (deferred puts), pcpu_mempool.c (creation,
 * lookup, free, the registry, the life cycle, lcores, put_bulk) and
 * pcpu_mempool_audit.c (statistics, dump, audit, telemetry); each calls
 * only the ones after it.
 *
 * Where each object is. Every object that exists (was allocated from the
 * percpu allocator, at most n of them) is in exactly one place: out (held
 * by the application), in one lcore's cache, in the pool's shared free
 * stack, or on the RCU defer queue. Objects are allocated on demand (or all
 * at creation with RTE_PCPU_MEMPOOL_F_PREFILL) and go back to the
 * allocator only when the pool is freed. @c all lists every object, for
 * obj_init of lcores that appear later, for the audit and for the free.
 * Every object that exists is charged to the pool's owner (pcpu_owner.h)
 * when it is allocated and uncharged when the pool is freed: the pool is
 * the owner reference of its objects, which the allocator does not record
 * one by one.
 *
 * Memory. The pool, its arrays (every object, the shared stack) and its
 * lcore caches are EAL memory (rte_malloc), shared with secondary
 * processes, which read them (statistics, dump) but never change them;
 * the objects' copies are in the percpu area.
 *
 * Locks. A registry mutex guards the list of pools; one mutex per pool
 * guards the shared stack, growth, steals and every cache's slow path.
 * The shared stack is a plain LIFO array under that mutex rather than an
 * rte_ring or rte_stack: every operation that touches it (refill, flush,
 * growth, steal, the F_DEBUG table) needs the pool lock anyway, moves a
 * batch at a time, and a LIFO hands out the hottest objects. Lock order:
 * registry, pool, percpu allocator. Mutexes, not spinlocks: with more
 * lcores than CPUs a preempted holder must not make the others spin for a
 * time slice.
 */

#include <pthread.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_rcu_qsbr.h>
#include <rte_tailq.h>
#include <rte_telemetry.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"

#define MP_LOG_PREFIX "mempool: "
#define MP_LOG(level, fmt, ...) \
	PCPU_LOG(level, MP_LOG_PREFIX fmt, ##__VA_ARGS__)
/** MP_LOG() of a failure's context (PCPU_LOG_CONTEXT()). */
#define MP_LOG_CONTEXT(mark, fmt, ...) \
	PCPU_LOG_CONTEXT(mark, MP_LOG_PREFIX fmt, ##__VA_ARGS__)

/** A pool. */
struct pcpu_pool {
	/** What the inline get and put read (rte_pcpu_mempool_core.h); the
	 * handle applications hold points here. */
	struct rte_pcpu_mempool pub;
	/** Every lcore's cache, NULL until the lcore first uses the pool:
	 * the library's paths, stealers and the audit go through these;
	 * pub.inline_caches[] lists the same caches while inline_ok. */
	struct rte_pcpu_mempool_cache *caches[RTE_MAX_LCORE];
	/** Non-zero while the inline paths may serve the pool (no debug
	 * flag, no RCU, zeroing of 0, 8, 16, 32 or 64 bytes, no real fence, no
	 * AddressSanitizer); pool lock held to clear it. */
	uint32_t inline_ok;
	/** Non-zero when membarrier(2) is not available: the owner of a
	 * cache fences for real when it enters its section. */
	uint32_t fence_needed;
	/* read by the fast paths, written at creation */
	uint32_t flags;
	uint32_t cache_size;
	uint32_t n;
	size_t elt_size;
	uint32_t zero_words;    /**< elt_size / 8 for a word loop, else 0. */
	enum rte_pcpu_mempool_qsbr_mode rcu_mode;
	struct rte_rcu_qsbr *rcu_v;     /**< NULL: puts are not deferred. */
	struct rte_rcu_qsbr_dq *dq;     /**< DQ mode. */
	/** DQ mode: returns up to @p max puts past their grace period to
	 * the shared stack (pool lock NOT held); PCPU_POOL_RECLAIM_ALL:
	 * every one. NULL without a defer queue. */
	void (*rcu_reclaim)(struct pcpu_pool *p, unsigned int max);

	/* slow path, under lock */
	pthread_mutex_t lock __rte_cache_aligned;
	uintptr_t *free_objs;   /**< Shared LIFO stack, n entries. */
	unsigned int nb_free;
	void **all;             /**< Every object that exists, n entries. */
	unsigned int nb_objs;
	/** Lcores whose copies of every object are set up. */
	uint64_t init_mask[RTE_PCPU_MASK_WORDS];
	uint64_t steals;        /**< Steal operations. */
	uint64_t grows;         /**< Allocations from the percpu allocator. */
	struct rte_hash *out;   /**< F_DEBUG: objects out. */

	/* updated with atomics (slow and failure paths) */
	uint64_t shared_gets;   /**< Objects got without a cache. */
	uint64_t shared_puts;   /**< Objects put without a cache. */
	uint64_t get_fail;
	uint64_t get_fail_budget;
	uint64_t put_refused;
	uint64_t rcu_enq;       /**< Objects given to the defer queue. */
	uint64_t rcu_done;      /**< Objects back from the defer queue. */

	/* configuration */
	uint64_t max_bytes;     /**< Budget: the limit of its owner. */
	/** Its owner, "pool:" and its name: every object that exists is
	 * charged to it (charge_size per copy). Read only by the
	 * allocating process: what others read of the charge is derived
	 * from nb_objs, which the audit checks against the owner. */
	struct rte_pcpu_owner *owner;
	uint32_t charge_size;   /**< pcpu_alloc_obj_size(elt_size). */
	rte_pcpu_mempool_obj_cb_t *obj_init;
	void *obj_init_arg;
	unsigned int id;
	uint32_t dq_max_reclaim;
	struct rte_tailq_entry *te;   /**< Its entry in the registry. */
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
};

/** Enter cache @p c's lock-free section in the library's paths (the owner,
 * pool lock not needed): with a real fence where membarrier(2) cannot
 * give the stealer's side of it. */
static inline void
pcpu_pool_cache_enter(const struct pcpu_pool *p,
		struct rte_pcpu_mempool_cache *c)
{
	__rte_pcpu_mempool_cache_enter(c);
	if (unlikely(p->fence_needed))
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/** rcu_reclaim() of every put whose grace period is over. */
#define PCPU_POOL_RECLAIM_ALL UINT32_MAX

/** The private pool behind a handle. */
static inline struct pcpu_pool *
pcpu_pool(const struct rte_pcpu_mempool *mp)
{
	return container_of(mp, struct pcpu_pool, pub);
}

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
pcpu_pool_lcore_id(void)
{
	return per_lcore__lcore_id;
}

/** Statistics counters: relaxed stores, read lock-free. */
static inline void
pcpu_pool_stat_add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

static inline uint64_t
pcpu_pool_stat_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/** Objects of RCU puts waiting for a grace period. */
static inline uint64_t
pcpu_pool_rcu_pending(const struct pcpu_pool *p)
{
	uint64_t done = __atomic_load_n(&p->rcu_done, __ATOMIC_ACQUIRE);
	uint64_t enq = __atomic_load_n(&p->rcu_enq, __ATOMIC_ACQUIRE);

	return enq > done ? enq - done : 0;
}

/** pcpu_pool_bulk_args() refused the arguments of @p fn: one log line,
 * rte_errno = EINVAL. Out of line, off the bulk calls' path.
 * @return NULL. */
struct pcpu_pool *pcpu_pool_bulk_refuse(const struct rte_pcpu_mempool *mp,
		const void *objs, unsigned int n, const char *fn);

/** The pool of a get_bulk or put_bulk (@p fn, for the log line) with valid
 * arguments (@p n 1 .. the capacity), else NULL with rte_errno = EINVAL
 * and one log line. */
static inline struct pcpu_pool *
pcpu_pool_bulk_args(const struct rte_pcpu_mempool *mp, const void *objs,
		unsigned int n, const char *fn)
{
	if (unlikely(mp == NULL || objs == NULL || n == 0 ||
			n > pcpu_pool(mp)->n))
		return pcpu_pool_bulk_refuse(mp, objs, n, fn);
	return pcpu_pool(mp);
}

/** Lcores with memory now. */
unsigned int pcpu_pool_nr_lcores(void);

/** Objects out, including RCU puts waiting; may be transiently off while
 * other threads get and put. */
int64_t pcpu_pool_out(const struct pcpu_pool *p);

/** Why a grow could not give all that was needed. */
enum pcpu_pool_grow_limit {
	PCPU_POOL_GROW_OK = 0,
	PCPU_POOL_GROW_CAPACITY,  /**< n objects exist. */
	PCPU_POOL_GROW_BUDGET,    /**< The owner's limit (max_bytes). */
	PCPU_POOL_GROW_SYSTEM,    /**< The allocator failed. */
};

/** Allocate up to @p want new objects (at least @p need if capacity and
 * budget allow) onto the shared stack, charged to the pool's owner. Pool
 * lock held. */
enum pcpu_pool_grow_limit pcpu_pool_grow(struct pcpu_pool *p,
		unsigned int want, unsigned int need);

/** Move a cache's objects to the shared stack (one flush). Pool lock held,
 * cache frozen or its owner's. Returns the number moved. */
unsigned int pcpu_pool_cache_drain(struct pcpu_pool *p,
		struct rte_pcpu_mempool_cache *c);

/** Freeze every cache but @p self: afterwards no owner is inside its
 * lock-free section and none enters it until pcpu_pool_cache_thaw().
 * Pool lock held. */
void pcpu_pool_cache_freeze(struct pcpu_pool *p,
		const struct rte_pcpu_mempool_cache *self);

/** Let the owners in again. */
void pcpu_pool_cache_thaw(struct pcpu_pool *p,
		const struct rte_pcpu_mempool_cache *self);

/** Put accepted objects (@p n of them) on the shared stack. Pool lock held. */
void pcpu_pool_push_shared(struct pcpu_pool *p, void * const *objs,
		unsigned int n);

/** Check objects being put (and with F_DEBUG take them off the out table,
 * pool lock held then). Returns how many of @p objs are accepted (a
 * prefix) and *ret (0 or -EINVAL: the first refused one was logged and
 * counted). */
unsigned int pcpu_pool_put_check(struct pcpu_pool *p, void * const *objs,
		unsigned int n, int *ret);

/** Put without RCU (the library half of rte_pcpu_mempool_put_bulk()). */
int pcpu_pool_put_now(struct pcpu_pool *p, void * const *objs, unsigned int n);

#endif /* _PCPU_MEMPOOL_CACHE_H_ */
