/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_MEMPOOL_H_
#define _RTE_PCPU_MEMPOOL_H_

/**
 * @file
 * Pools of fixed-size percpu objects, with an rte_mempool-like API.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Every object is a percpu handle as returned by rte_pcpu_alloc():
 * RTE_PCPU(), RTE_PCPU_LCORE() and RTE_PCPU_FOREACH() work on it. A pool
 * caps the number of objects out (@c n), keeps a per-lcore cache of free
 * objects (@c cache_size), initialises objects (zero every lcore's copy on
 * get by default, or an obj_init callback once per lcore copy when the
 * object first enters the pool), can charge a byte budget (the
 * memcg-accounting idea of Linux mm/percpu.c: each object costs
 * elt_size x lcores with memory), and can defer puts until readers have
 * passed a quiescent state (rte_rcu_qsbr), like rte_hash_rcu_qsbr_add().
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_compat.h>
#include <rte_rcu_qsbr.h>

#include "rte_pcpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest pool name, including the terminating NUL. */
#define RTE_PCPU_MEMPOOL_NAMESIZE 32

/** Largest per-lcore cache size, in objects. */
#define RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE 512

/** Do not initialise objects on get: a reused object keeps its values. */
#define RTE_PCPU_MEMPOOL_F_NO_ZERO 0x1
/** Allocate all @c n objects at creation. */
#define RTE_PCPU_MEMPOOL_F_PREFILL 0x2
/** Debug checks: every put verifies the object is out of this pool
 * (refuses double puts and foreign objects) at the cost of a lookup. */
#define RTE_PCPU_MEMPOOL_F_DEBUG 0x4

struct rte_pcpu_mempool;

/**
 * Object initialiser: called once per lcore copy when an object first
 * enters the pool (and for a later lcore when it gains memory).
 *
 * @param mp Pool.
 * @param arg The @c obj_init_arg given at creation.
 * @param obj Lcore @p lcore_id's copy of the object (a real address).
 * @param lcore_id Lcore whose copy this is.
 */
typedef void (rte_pcpu_mempool_obj_cb_t)(struct rte_pcpu_mempool *mp,
		void *arg, void *obj, unsigned int lcore_id);

/** Put modes with RCU, as enum rte_hash_qsbr_mode. */
enum rte_pcpu_mempool_qsbr_mode {
	/** Put enqueues on a defer queue; reclaimed after a grace period. */
	RTE_PCPU_MEMPOOL_QSBR_MODE_DQ = 0,
	/** Put waits for a grace period (rte_rcu_qsbr_synchronize()). */
	RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC,
};

/** RCU configuration for rte_pcpu_mempool_rcu_qsbr_add(). */
struct rte_pcpu_mempool_rcu_config {
	struct rte_rcu_qsbr *v;        /**< QSBR variable of the readers. */
	enum rte_pcpu_mempool_qsbr_mode mode; /**< Defer queue or sync. */
	uint32_t dq_size;              /**< Defer queue size; 0 = n. */
	uint32_t trigger_reclaim_limit; /**< Reclaim when this many wait. */
	uint32_t max_reclaim_size;     /**< Most objects per reclaim; 0 = all. */
};

/** Pool statistics (counts of objects unless said otherwise). */
struct rte_pcpu_mempool_stats {
	uint64_t get_success;   /**< Objects handed out. */
	uint64_t get_fail;      /**< Get calls that failed (empty or budget). */
	uint64_t get_fail_budget; /**< Of which failed on the byte budget. */
	uint64_t put;           /**< Objects put back. */
	uint64_t cache_hits;    /**< Gets served by the lcore cache. */
	uint64_t cache_misses;  /**< Gets that went to the shared pool. */
	uint64_t put_refused;   /**< Double or foreign puts refused. */
	uint64_t rcu_pending;   /**< Puts waiting for a grace period. */
	uint64_t charged_bytes; /**< Bytes charged to the budget now. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a pool.
 *
 * @param name Unique name, shorter than RTE_PCPU_MEMPOOL_NAMESIZE.
 * @param n Capacity: most objects out or cached at once (hard cap), >= 1.
 * @param elt_size Bytes per lcore copy, 1 .. RTE_PCPU_MAX_SIZE.
 * @param cache_size Per-lcore cache, 0 .. RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE
 *   objects, at most @p n.
 * @param max_bytes Byte budget (elt_size x lcores with memory per object),
 *   0 for none.
 * @param obj_init Initialiser or NULL (then objects are zeroed on get
 *   unless RTE_PCPU_MEMPOOL_F_NO_ZERO).
 * @param obj_init_arg Argument for @p obj_init.
 * @param flags RTE_PCPU_MEMPOOL_F_*.
 * @return The pool, or NULL with rte_errno: EINVAL (bad argument or
 *   flag), ENAMETOOLONG, EEXIST (name in use), ENOMEM.
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
struct rte_pcpu_mempool *
rte_pcpu_mempool_create(const char *name, unsigned int n, size_t elt_size,
		unsigned int cache_size, uint64_t max_bytes,
		rte_pcpu_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		unsigned int flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Find a pool by name.
 *
 * @param name Name given to rte_pcpu_mempool_create().
 * @return The pool, or NULL with rte_errno = ENOENT (or EINVAL for NULL).
 * Thread-safety: MT-safe.
 */
__rte_experimental
struct rte_pcpu_mempool *rte_pcpu_mempool_lookup(const char *name);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free a pool and all its free objects.
 *
 * @param mp Pool; NULL is a no-op returning 0.
 * @return 0, or -1 with rte_errno = EBUSY while objects are out (or
 *   waiting on RCU); the pool is left intact.
 * Thread-safety: MT-safe against other pools; no thread may use @p mp.
 */
__rte_experimental
int rte_pcpu_mempool_free(struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Get one object.
 *
 * @param mp Pool.
 * @param obj Receives the handle.
 * @return 0, or a negative errno (also in rte_errno): -ENOENT (the pool
 *   has @c n objects out), -ENOMEM (byte budget or system memory),
 *   -EINVAL (NULL argument).
 * Thread-safety: MT-safe; lcores use their cache, other threads a lock.
 */
__rte_experimental
int rte_pcpu_mempool_get(struct rte_pcpu_mempool *mp, void **obj);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Get @p n objects, all or none.
 *
 * @param mp Pool.
 * @param objs Array of at least @p n entries that receives the handles.
 * @param n Number of objects.
 * @return 0, or a negative errno as rte_pcpu_mempool_get(); on error no
 *   object is taken.
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_get_bulk(struct rte_pcpu_mempool *mp, void **objs,
		unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Put one object back (deferred through RCU if configured).
 *
 * @param mp Pool.
 * @param obj Handle got from @p mp.
 * @return 0, or -EINVAL (also in rte_errno) for NULL arguments, and, with
 *   RTE_PCPU_MEMPOOL_F_DEBUG, for an object that is not out of this pool
 *   (double put, foreign object); a refused put logs one line and changes
 *   nothing.
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_put(struct rte_pcpu_mempool *mp, void *obj);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Put @p n objects back.
 *
 * @param mp Pool.
 * @param objs Handles got from @p mp.
 * @param n Number of handles in @p objs.
 * @return 0, or -EINVAL as rte_pcpu_mempool_put(); objects before the
 *   refused one were put.
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_put_bulk(struct rte_pcpu_mempool *mp,
		void * const *objs, unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Objects that a get could still return: @c n minus objects out.
 *
 * @param mp Pool.
 * @return Number of objects.
 * Thread-safety: MT-safe, approximate while others get and put.
 */
__rte_experimental
unsigned int rte_pcpu_mempool_avail_count(const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Objects out (got and not put, including puts waiting for RCU).
 *
 * @param mp Pool.
 * @return Number of objects.
 * Thread-safety: MT-safe, approximate while others get and put.
 */
__rte_experimental
unsigned int rte_pcpu_mempool_in_use_count(const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Call @p fn for every pool.
 *
 * @param fn Callback, given each pool and @p arg.
 * @param arg Opaque argument for @p fn.
 * Thread-safety: MT-safe; @p fn must not create or free pools.
 */
__rte_experimental
void rte_pcpu_mempool_walk(void (*fn)(struct rte_pcpu_mempool *mp, void *arg),
		void *arg);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Print a pool's configuration, counts, statistics and per-lcore caches.
 *
 * @param f Output stream.
 * @param mp Pool.
 * @return 0, or -1 with rte_errno = EINVAL.
 */
__rte_experimental
int rte_pcpu_mempool_dump(FILE *f, const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Check a pool's invariants (counts, caches, free list, no object twice).
 *
 * @param mp Pool.
 * @return 0, or -1 with rte_errno = EFAULT and one log line.
 */
__rte_experimental
int rte_pcpu_mempool_audit(const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read a pool's statistics.
 *
 * @param mp Pool.
 * @param stats Filled on success.
 * @return 0, or -1 with rte_errno = EINVAL.
 */
__rte_experimental
int rte_pcpu_mempool_stats_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of a pool.
 *
 * @param mp Pool.
 * @return The name, or NULL when @p mp is NULL.
 */
__rte_experimental
const char *rte_pcpu_mempool_name(const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Attach an RCU QSBR variable: from now on a put is reused only after every
 * reader registered on @p cfg->v has reported a quiescent state, as
 * rte_hash_rcu_qsbr_add().
 *
 * @param mp Pool.
 * @param cfg RCU configuration; @c cfg->v must be initialised.
 * @return 0, or -1 with rte_errno: EINVAL (bad argument), EEXIST (already
 *   attached), ENOMEM (defer queue).
 * Thread-safety: call before the pool is shared.
 */
__rte_experimental
int rte_pcpu_mempool_rcu_qsbr_add(struct rte_pcpu_mempool *mp,
		const struct rte_pcpu_mempool_rcu_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_MEMPOOL_H_ */
