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
 * object first enters the pool), charges its objects to an owner of its
 * own with an optional byte budget as the owner's limit (rte_pcpu_owner.h,
 * the memcg-accounting idea of Linux mm/percpu.c: each object costs
 * elt_size x lcores with memory), and can defer puts until readers have
 * passed a quiescent state (rte_rcu_qsbr), like rte_hash_rcu_qsbr_add().
 *
 * Caches. An lcore's cache holds at most @c cache_size objects (its
 * capacity, as DPDK 26.07's mempool cache; not 1.5 x). A put into a full
 * cache moves the coldest objects to the pool's shared stack, keeping
 * cache_size / 2; a get from an empty cache takes what it needs from the
 * shared stack and refills the cache to cache_size / 2. Objects never
 * strand in other lcores' caches: when neither the shared stack, the
 * capacity nor the budget can serve a get, the getter takes back every
 * other lcore's cached objects (a membarrier(2) based handshake, so the
 * owners' fast path stays free of locks and atomic read-modify-writes).
 * A get therefore fails only when @c n objects are really out.
 *
 * Threads that are not lcores (rte_lcore_id() == LCORE_ID_ANY) and pools
 * with cache_size 0 use the shared stack under the pool's lock: correct,
 * slower.
 *
 * Objects are allocated from the percpu allocator on demand (a cache miss
 * allocates what it needs plus a refill) up to @c n, and go back to it
 * only when the pool is freed (or at rte_pcpu_cleanup(), which frees every
 * pool with everything it holds: its objects, its caches and its RCU defer
 * queue, even with puts still waiting for a reader that is online).
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_compat.h>
#include <rte_errno.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool_core.h"
#include "rte_pcpu_owner.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_rcu_qsbr;

/** Largest pool name, including the terminating NUL. */
#define RTE_PCPU_MEMPOOL_NAMESIZE 32

/** Largest per-lcore cache size, in objects. */
#define RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE 512

/** Do not initialise objects on get: a reused object keeps its values (a
 * new one is zero, as the allocator hands it out). */
#define RTE_PCPU_MEMPOOL_F_NO_ZERO 0x1
/** Allocate all @c n objects at creation. */
#define RTE_PCPU_MEMPOOL_F_PREFILL 0x2
/**
 * Debug checks: the pool keeps a hash table (rte_hash) of the objects out;
 * every put verifies the object is out of this pool, refusing double puts
 * and objects of other pools or of rte_pcpu_alloc(), and every get that
 * an object is not handed out twice. All gets and puts then take the pool
 * lock. Without this flag a put still refuses, cheaply, NULL and pointers
 * that are not handles aligned as this pool's objects.
 */
#define RTE_PCPU_MEMPOOL_F_DEBUG 0x4

/**
 * Object initialiser: called once per lcore copy when an object first
 * enters the pool (and for a later lcore when it gains memory: the pool
 * registers an lcore callback). It is never called again for that copy,
 * and such a pool never zeroes objects.
 *
 * It runs with the pool's lock held, on the thread whose get allocated
 * the object (or that created a prefilled pool, or that registered as a
 * new lcore): it must not call functions of the same pool.
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
	uint32_t dq_size;              /**< Defer queue entries, at most
					 * 2^30 - 1; 0 = n. */
	uint32_t trigger_reclaim_limit; /**< Reclaim when this many wait. */
	uint32_t max_reclaim_size;     /**< Most objects per reclaim; 0 = all. */
};

/** Pool statistics (counts of objects unless said otherwise). */
struct rte_pcpu_mempool_stats {
	uint64_t get_success;   /**< Objects handed out. */
	uint64_t get_fail;      /**< Get calls that failed (empty or budget). */
	uint64_t get_fail_budget; /**< Of which failed on the byte budget. */
	uint64_t put;           /**< Objects put back (RCU: when queued). */
	uint64_t cache_hits;    /**< Objects got from the lcore's cache. */
	uint64_t cache_misses;  /**< Objects got from the shared stack (or
				 * new), including all gets of threads and
				 * pools without a cache. */
	uint64_t put_refused;   /**< Double or foreign puts refused. */
	uint64_t rcu_pending;   /**< Puts waiting for a grace period. */
	/** Bytes charged to the budget now: objects that exist x elt_size
	 * (rounded up to 4) x lcores with memory (also without a budget):
	 * the live_bytes of the pool's owner. */
	uint64_t charged_bytes;
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a pool.
 *
 * @param name Unique name, shorter than RTE_PCPU_MEMPOOL_NAMESIZE, each
 *   character printable ASCII (0x20 to 0x7e) but '"' and '\\', no space
 *   at either end, as the names of owners (rte_pcpu_owner_create()).
 * @param n Capacity: most objects out or cached at once (hard cap), >= 1.
 * @param elt_size Bytes per lcore copy, 1 .. RTE_PCPU_CHUNK_OBJ_MAX_SIZE
 *   (256 KiB: pool objects live inside chunks).
 * @param cache_size Per-lcore cache, 0 .. RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE
 *   objects, at most @p n.
 * @param max_bytes Byte budget, 0 for none: the limit of the pool's owner,
 *   "pool:" and @p name (rte_pcpu_owner.h; rte_pcpu_mempool_owner()).
 *   Every object that exists (allocated by the pool, whether out or free)
 *   is charged to that owner elt_size (rounded up to 4) x the number of
 *   lcores with memory (the memcg-accounting idea of Linux mm/percpu.c);
 *   a get that needs a new object beyond the budget fails with -ENOMEM
 *   and counts get_fail_budget and the owner's nr_fail. The charge
 *   follows the number of lcores, so lcores appearing later can push a
 *   pool above its budget; it then allocates no new object.
 * @param obj_init Initialiser or NULL (then objects are zeroed on get
 *   unless RTE_PCPU_MEMPOOL_F_NO_ZERO).
 * @param obj_init_arg Argument for @p obj_init.
 * @param flags RTE_PCPU_MEMPOOL_F_*.
 * @return The pool, or NULL with rte_errno: EINVAL (NULL or empty name,
 *   a name with a character outside the rule of @p name, n 0, elt_size 0 or above RTE_PCPU_CHUNK_OBJ_MAX_SIZE, cache_size above
 *   RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE or above n, unknown flag),
 *   ENAMETOOLONG (name of RTE_PCPU_MEMPOOL_NAMESIZE characters or more),
 *   EEXIST (name in use),
 *   ENOSPC (no owner left: RTE_PCPU_OWNER_MAX_UNLIMITED or
 *   RTE_PCPU_OWNER_MAX_LIMITED exist), ENOMEM (no memory, or
 *   RTE_PCPU_MEMPOOL_F_PREFILL could not allocate n objects within the
 *   budget or the allocator's limit), EINVAL also when EAL is not
 *   initialised or was cleaned up. Errors of rte_pcpu_init() when the
 *   allocator was not set up.
 *
 * Objects are aligned naturally (the largest power of two dividing
 * elt_size rounded up to 8, at most 64). The first pool sets the allocator
 * up with defaults if rte_pcpu_init() was not called.
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
 * @return The pool, or NULL with rte_errno = ENOENT (or EINVAL for NULL,
 *   or when EAL is not initialised or was cleaned up). A secondary
 *   process attaches to the primary's area first: the errors of
 *   rte_pcpu_init() there (ENOMEM, ENOTCONN, EADDRINUSE, ETIMEDOUT, with
 *   one log line; ENOENT while the primary has no allocator, logged at
 *   DEBUG only).
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
 * @return 0, or -1 with rte_errno and one log line, the pool left
 *   intact: EBUSY while objects are out (or waiting on RCU: puts whose
 *   grace period is over are reclaimed first), as rte_pcpu_owner_free()
 *   of a busy owner; EINVAL if @p mp is not a pool, or EAL was cleaned up
 *   while the library was set up (rte_pcpu_cleanup()).
 * Thread-safety: MT-safe against other pools; no thread may use @p mp.
 */
__rte_experimental
int rte_pcpu_mempool_free(struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Get @p n objects, all or none.
 *
 * @param mp Pool.
 * @param objs Array of at least @p n entries that receives the handles.
 * @param n Number of objects, 1 .. the pool's capacity.
 * @return 0, or a negative errno as rte_pcpu_mempool_get() (-EINVAL also
 *   for @p n 0 or above the capacity); on error no object is taken.
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_get_bulk(struct rte_pcpu_mempool *mp, void **objs,
		unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Put @p n objects back.
 *
 * @param mp Pool.
 * @param objs Handles got from @p mp.
 * @param n Number of handles in @p objs, 1 .. the pool's capacity.
 * @return 0, or -EINVAL as rte_pcpu_mempool_put() (also for @p n 0 or
 *   above the capacity, then nothing is put); objects before a refused
 *   one were put.
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_put_bulk(struct rte_pcpu_mempool *mp,
		void * const *objs, unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Get one object.
 *
 * @param mp Pool.
 * @param obj Receives the handle.
 * @return 0, or a negative errno (also in rte_errno): -ENOENT (the pool
 *   has @c n objects out, counting RCU puts not yet reclaimed), -ENOMEM
 *   (a new object was needed beyond the byte budget, or the allocator
 *   failed), -EINVAL (NULL argument, with one log line).
 *
 * Unless the pool has obj_init or RTE_PCPU_MEMPOOL_F_NO_ZERO, every
 * lcore's copy of the object is zero (elt_size bytes each).
 *
 * An inline function: on an lcore whose cache holds an object, with no
 * debug flag, no RCU and zeroing of 8, 16, 32 or 64 bytes (or none), it
 * takes the object without a call, as rte_mempool_get() does; otherwise it
 * calls rte_pcpu_mempool_get_bulk().
 *
 * Thread-safety: MT-safe; lcores use their cache, other threads a lock.
 */
__rte_experimental
static inline int
rte_pcpu_mempool_get(struct rte_pcpu_mempool *mp, void **obj)
{
	/* the library refuses a NULL argument with its log line; the
	 * constant result lets the caller's error branch fold, as before */
	if (unlikely(mp == NULL || obj == NULL)) {
		__rte_pcpu_mempool_get_slow(mp, obj);
		return -EINVAL;
	}
	if (likely(__rte_pcpu_mempool_cache_get(mp, obj) == 0))
		return 0;
	return __rte_pcpu_mempool_get_slow(mp, obj);
}

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Put one object back (deferred through RCU if configured).
 *
 * @param mp Pool.
 * @param obj Handle got from @p mp.
 * @return 0, or -EINVAL (also in rte_errno) for a NULL pool or object,
 *   for a pointer that is not a handle aligned as this pool's objects
 *   (always checked, a few instructions), and, with
 *   RTE_PCPU_MEMPOOL_F_DEBUG only, for an object that is not out of this
 *   pool (double put, object of another pool). A refused put logs one
 *   line, counts put_refused (a NULL pool aside) and changes nothing.
 *   Without the debug flag a double put of a real object is NOT detected
 *   and corrupts the pool.
 *
 * With RCU in DQ mode the object goes to the defer queue (it still counts
 * in use); in SYNC mode the call waits for a grace period first, so the
 * caller must not be an online reader of the QSBR variable.
 *
 * An inline function, as rte_pcpu_mempool_get(): the cases it does not
 * handle itself go to rte_pcpu_mempool_put_bulk().
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
static inline int
rte_pcpu_mempool_put(struct rte_pcpu_mempool *mp, void *obj)
{
	/* the library refuses a NULL pool with its log line (constant
	 * result: as in rte_pcpu_mempool_get()) */
	if (unlikely(mp == NULL)) {
		__rte_pcpu_mempool_put_slow(mp, obj);
		return -EINVAL;
	}
	/* NULL fails the inline handle check: the library refuses it */
	if (likely(__rte_pcpu_mempool_cache_put(mp, obj) == 0))
		return 0;
	return __rte_pcpu_mempool_put_slow(mp, obj);
}

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Objects that a get could still return: @c n minus objects out (free
 * objects in any cache count: a get takes them back).
 *
 * @param mp Pool.
 * @return Number of objects; 0 with rte_errno = EINVAL for NULL.
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
 * @return Number of objects; 0 with rte_errno = EINVAL for NULL.
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
 * @param fn Callback, given each pool and @p arg; NULL does nothing, as does a
 *   call when EAL is not initialised or was cleaned up.
 * @param arg Opaque argument for @p fn.
 * Thread-safety: MT-safe; @p fn runs with the pool registry locked and
 * must not create, look up or free pools.
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
 * @return 0, or -1 with rte_errno = EINVAL (NULL argument).
 * Thread-safety: MT-safe; values read while others run are approximate.
 */
__rte_experimental
int rte_pcpu_mempool_dump(FILE *f, const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Check a pool's invariants: counts within capacity, every free object (in
 * a cache or the shared stack) an object of the pool and free only once,
 * cached + shared + out == objects, and with RTE_PCPU_MEMPOOL_F_DEBUG the
 * table of objects out against the counters.
 *
 * @param mp Pool.
 * @return 0, or -1 with rte_errno = EFAULT and one log line; EINVAL for
 *   NULL, ENOMEM without memory for the check.
 * Thread-safety: MT-safe: it holds the pool lock and freezes every cache
 * for the check (lcores using the pool wait on the lock meanwhile). A get
 * or put with RCU in flight at that moment can make the count check fail.
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
 * @return 0, or -1 with rte_errno = EINVAL (NULL argument).
 * Thread-safety: MT-safe, lock-free; sums of per-lcore counters read while
 * others run are approximate.
 */
__rte_experimental
int rte_pcpu_mempool_stats_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_stats *stats);

/** A pool's configuration and where its objects are, as
 * rte_pcpu_mempool_info_get() reports it. */
struct rte_pcpu_mempool_info {
	uint32_t n;             /**< Capacity, objects. */
	uint32_t cache_size;    /**< Per-lcore cache, objects (0: none). */
	uint32_t flags;         /**< RTE_PCPU_MEMPOOL_F_* given at creation. */
	uint32_t nb_objs;       /**< Objects that exist (taken from the
				 *  percpu allocator so far). */
	uint32_t nb_free;       /**< Of which on the shared free stack. */
	uint32_t nb_caches;     /**< Lcores that have a cache of it. */
	uint64_t elt_size;      /**< Bytes per lcore copy. */
	uint64_t align;         /**< Alignment of every object, bytes. */
	uint64_t max_bytes;     /**< Byte budget (0: none). */
	uint32_t obj_init;      /**< 1: created with an obj_init. */
	uint32_t rcu;           /**< 0: no RCU; 1: defer queue; 2: sync. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read a pool's configuration and object counts. Works in a secondary
 * process too (the pool is in shared memory).
 *
 * @param mp Pool.
 * @param info Filled on success.
 * @return 0, or -1 with rte_errno = EINVAL (NULL argument).
 * Thread-safety: MT-safe, lock-free; the counts read while others get and
 * put are approximate.
 */
__rte_experimental
int rte_pcpu_mempool_info_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_info *info);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The owner a pool charges its objects to (rte_pcpu_owner.h), named
 * "pool:" and the pool's name, with the pool's @c max_bytes as its limit.
 * It lives as long as the pool; rte_pcpu_owner_stats_get() reads it, and
 * only the pool allocates with it or frees it.
 *
 * @param mp Pool.
 * @return The owner, or NULL (rte_errno = EINVAL) when @p mp is NULL.
 * Thread-safety: MT-safe.
 */
__rte_experimental
struct rte_pcpu_owner *rte_pcpu_mempool_owner(const struct rte_pcpu_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of a pool.
 *
 * @param mp Pool.
 * @return The name, or NULL (rte_errno = EINVAL) when @p mp is NULL.
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
 * DQ mode: a put enqueues the object on an rte_rcu_qsbr defer queue
 * (rte_rcu_qsbr_dq_create(), @c dq_size entries, default @c n so it never
 * fills; when a smaller queue is full the put waits for a grace period).
 * Objects come back to the shared stack when reclaimed: up to
 * @c max_reclaim_size at a time (0: all) on puts once
 * @c trigger_reclaim_limit objects wait (0: on every put) and on every
 * get that misses its cache; every put whose grace period is over before
 * a get fails and in rte_pcpu_mempool_free().
 * SYNC mode: a put calls rte_rcu_qsbr_synchronize() first.
 * Either way objects waiting count as in use.
 *
 * @param mp Pool.
 * @param cfg RCU configuration; @c cfg->v must be initialised.
 * @return 0, or -1 with rte_errno: EINVAL (NULL argument, bad mode, or in
 *   DQ mode a defer queue of more than 2^30 - 1 entries, @c dq_size or
 *   by default @c n: DPDK 22.11's ring arithmetic cannot hold it; EAL
 *   cleaned up while the library was set up),
 *   EEXIST (already attached, or in DQ mode an rte_ring already has the
 *   defer queue's name, "pcpu_mp_<id>"), ENOMEM (defer queue). On
 *   failure the pool is as before: no RCU attached, usable.
 * Thread-safety: call before the pool is shared.
 */
__rte_experimental
int rte_pcpu_mempool_rcu_qsbr_add(struct rte_pcpu_mempool *mp,
		const struct rte_pcpu_mempool_rcu_config *cfg);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_MEMPOOL_H_ */
