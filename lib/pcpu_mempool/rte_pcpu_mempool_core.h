/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_MEMPOOL_CORE_H_
#define _RTE_PCPU_MEMPOOL_CORE_H_

/**
 * @file
 * Internals of the inline pool get and put: the part of a pool and of its
 * lcore caches that they read, and the owner's side of the handshake with
 * which another thread takes a cache's objects back. As rte_ring_core.h is
 * to rte_ring.h.
 *
 * Do not include this file directly: include <rte_pcpu_mempool.h>. Nothing
 * here is API; an application built against one release's inline
 * functions must be rebuilt for the next.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>

#include "rte_pcpu_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @internal One lcore's cache of a pool. Written by the owner lcore only,
 * except while a stealer (holding the pool lock) has it frozen: the owner
 * sets @c active around its lock-free section and leaves it at once if
 * @c steal is set, membarrier(2) making the stealer's fence cover the
 * owner's plain accesses (when membarrier(2) is not available the owner
 * fences for real, in the library's paths only: the inline ones are not
 * used then; see the library's pcpu_mempool_cache.c).
 */
struct rte_pcpu_mempool_cache {
	/* the fields of the inline get and put share the first cache line
	 * with the hot half of oc */
	uint32_t active;   /**< Owner inside its lock-free section. */
	uint32_t steal;    /**< A stealer or the audit wants the cache. */
	uint32_t len_max;  /**< High-water mark of oc.len. */
	uint32_t lcore_id; /**< Owner. */
	struct rte_pcpu_objcache oc; /**< The free handles (LIFO). */
	uint64_t misses;   /**< Objects got from the shared stack. */
	uint64_t stolen;   /**< Times stealers emptied the cache. */
	/** Copies to zero (owner only). */
	struct rte_pcpu_copies copies;
} __rte_cache_aligned;

/**
 * @internal The part of a pool that the inline get and put read; the
 * library's private state follows it in the same allocation. Written at
 * creation (@c inline_caches[] when an lcore first uses the pool, and
 * when RCU is attached).
 */
struct rte_pcpu_mempool {
	uint32_t zero_bytes;   /**< Bytes to zero per copy on get, or 0. */
	uint32_t reserved;     /**< 0. */
	size_t align;          /**< Every object is aligned to this. */
	/**
	 * The bits that are 0 in (handle - rte_pcpu_shared.base) for every
	 * object of the pool: those from log2(unit_stride) up (a handle lies
	 * in lcore 0's unit) and those below @c align (base is aligned to
	 * 2 MiB, @c align is at most a cache line). One mask makes the check
	 * of a put's handle a subtraction and a test, and catches NULL too
	 * (0 - base has the high bits set).
	 */
	uintptr_t handle_mask;
	/**
	 * The lcore caches that the inline paths may use: NULL until the
	 * lcore first uses the pool, and for every lcore while the pool
	 * needs the library's paths (a debug flag, RCU, zeroing of other
	 * sizes than 8, 16, 32 or 64 bytes, owners that must fence for real,
	 * AddressSanitizer). The inline paths then test one pointer that
	 * they load anyway, and no flag.
	 */
	struct rte_pcpu_mempool_cache *inline_caches[RTE_MAX_LCORE];
};

/**
 * @internal Enter the lock-free section of cache @p c (owner only), where
 * membarrier(2) gives the stealer's side of the fence: the compiler is
 * kept from moving the section's accesses above the store, the CPU's
 * reordering is the stealer's membarrier(2) to undo. Only caches of
 * mp->inline_caches[] are entered this way.
 *
 * @param c The calling lcore's cache.
 */
static __rte_always_inline void
__rte_pcpu_mempool_cache_enter(struct rte_pcpu_mempool_cache *c)
{
	__atomic_store_n(&c->active, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/**
 * @internal Leave the lock-free section of cache @p c (owner only).
 *
 * @param c The calling lcore's cache.
 */
static __rte_always_inline void
__rte_pcpu_mempool_cache_leave(struct rte_pcpu_mempool_cache *c)
{
	__atomic_store_n(&c->active, 0, __ATOMIC_RELEASE);
}

/**
 * @internal Whether a stealer wants cache @p c; ask inside the section.
 *
 * @param c The calling lcore's cache.
 * @return Non-zero if the owner must leave and take the locked path.
 */
static __rte_always_inline int
__rte_pcpu_mempool_cache_stolen(struct rte_pcpu_mempool_cache *c)
{
	return __atomic_load_n(&c->steal, __ATOMIC_ACQUIRE) != 0;
}

/**
 * @internal Cheap check that @p obj can be an object of @p mp: not NULL,
 * a handle in lcore 0's unit, aligned as the pool's objects (three
 * instructions; RTE_PCPU_MEMPOOL_F_DEBUG checks membership).
 *
 * @param mp Pool (not NULL).
 * @param obj Pointer to check.
 * @return Non-zero if it passes.
 */
static __rte_always_inline int
__rte_pcpu_mempool_handle_ok(const struct rte_pcpu_mempool *mp,
		const void *obj)
{
	/* below base, the difference wraps to a value with the high bits
	 * set: one unsigned test covers both ends of the unit */
	return (((uintptr_t)obj - rte_pcpu_shared.base) & mp->handle_mask) == 0;
}

/**
 * @internal The calling lcore's cache of a pool, if the inline paths may
 * use it.
 *
 * @param mp Pool (not NULL).
 * @return The cache, or NULL (not an lcore, no cache yet, a secondary
 *   process, or the pool needs the library's paths).
 */
static __rte_always_inline struct rte_pcpu_mempool_cache *
__rte_pcpu_mempool_inline_cache(struct rte_pcpu_mempool *mp)
{
	unsigned int lcore_id = rte_lcore_id();

	/* the limit is RTE_MAX_LCORE in the primary, 0 in a secondary
	 * process, which must not touch the primary's lcore caches */
	if (unlikely(lcore_id >= rte_pcpu_shared.cache_lcore_limit))
		return NULL;
	return __atomic_load_n(&mp->inline_caches[lcore_id], __ATOMIC_ACQUIRE);
}

/**
 * @internal Zero every lcore's copy of the object at @p h: the zeroing of
 * the inline get, with stores of a size known at compile time for each
 * size the inline paths serve.
 *
 * @param cp Copy offsets (current).
 * @param h The object's handle.
 * @param zb Bytes per copy: 8, 16, 32 or 64 (the pool's zero_bytes, when
 *   the inline paths serve it).
 */
static __rte_always_inline void
__rte_pcpu_mempool_zero(const struct rte_pcpu_copies *cp, uintptr_t h,
		unsigned int zb)
{
	/* the size of counters first; a cache line of them (four 16-byte
	 * stores per copy) is still cheaper than the call to the library */
	if (zb == 16)
		__rte_pcpu_copies_zero(cp, h, 16);
	else if (zb == 8)
		__rte_pcpu_copies_zero(cp, h, 8);
	else if (zb == 32)
		__rte_pcpu_copies_zero(cp, h, 32);
	else
		__rte_pcpu_copies_zero(cp, h, 64);
}

/**
 * @internal Take one object from the calling lcore's cache without a call:
 * the inline half of rte_pcpu_mempool_get().
 *
 * @param mp Pool (not NULL).
 * @param obj Receives the handle.
 * @return 0, or -1 when the library must serve the get (no usable cache,
 *   cache empty or being stolen, copy list out of date).
 */
static __rte_always_inline int
__rte_pcpu_mempool_cache_get(struct rte_pcpu_mempool *mp, void **obj)
{
	struct rte_pcpu_mempool_cache *c = __rte_pcpu_mempool_inline_cache(mp);
	unsigned int zb;
	uintptr_t h;

	if (unlikely(c == NULL))
		return -1;
	/* a new lcore gained memory: the library rebuilds the copy list
	 * (kept current in pools that do not zero too: one comparison, no
	 * test of zero_bytes before it) */
	if (unlikely(!__rte_pcpu_copies_current(&c->copies)))
		return -1;
	zb = mp->zero_bytes;
	__rte_pcpu_mempool_cache_enter(c);
	/*
	 * Read the length only after the steal check. A stealer that did not
	 * see this section start may freeze, drain (len = 0) and thaw
	 * (steal = 0) before the check; the check then reads the thaw's 0,
	 * and only its acquire makes the drained length visible. A length read
	 * before it could be the old one: objects handed out twice.
	 */
	if (unlikely(__rte_pcpu_mempool_cache_stolen(c) || c->oc.len == 0)) {
		__rte_pcpu_mempool_cache_leave(c);
		return -1;
	}
	h = __rte_pcpu_objcache_pop(&c->oc);
	__rte_pcpu_mempool_cache_leave(c);
	/* one test when the pool does not zero, the size's stores when it
	 * does */
	if (zb != 0)
		__rte_pcpu_mempool_zero(&c->copies, h, zb);
	*obj = (void *)h;
	return 0;
}

/**
 * @internal Put one object into the calling lcore's cache without a call:
 * the inline half of rte_pcpu_mempool_put().
 *
 * @param mp Pool (not NULL).
 * @param obj The handle (NULL fails the cheap check).
 * @return 0, or -1 when the library must serve the put (no usable cache,
 *   cache full or being stolen, or @p obj fails the cheap check).
 */
static __rte_always_inline int
__rte_pcpu_mempool_cache_put(struct rte_pcpu_mempool *mp, void *obj)
{
	struct rte_pcpu_mempool_cache *c = __rte_pcpu_mempool_inline_cache(mp);
	uint32_t len;

	if (unlikely(c == NULL || !__rte_pcpu_mempool_handle_ok(mp, obj)))
		return -1;
	__rte_pcpu_mempool_cache_enter(c);
	/* the length only after the steal check: see the get above */
	if (unlikely(__rte_pcpu_mempool_cache_stolen(c)))
		goto refuse;
	len = c->oc.len;
	if (unlikely(len >= c->oc.capacity))
		goto refuse;
	__rte_pcpu_objcache_push(&c->oc, (uintptr_t)obj);
	/* the length as pushed: the push's atomic store would make the
	 * compiler load it again */
	if (unlikely(len >= c->len_max))
		c->len_max = len + 1;
	__rte_pcpu_mempool_cache_leave(c);
	return 0;
refuse:
	__rte_pcpu_mempool_cache_leave(c);
	return -1;
}

/**
 * @internal The slow half of rte_pcpu_mempool_get(): rte_pcpu_mempool_get_bulk()
 * of one object. Not marked experimental (the inline function that calls
 * it is), so that including the header draws no warning. The inline
 * function also sends its NULL arguments here, to be refused with one
 * log line out of its path.
 *
 * @param mp Pool, or NULL (refused: -EINVAL).
 * @param obj Where to store the object, or NULL (refused: -EINVAL).
 * @return As rte_pcpu_mempool_get_bulk().
 */
int __rte_pcpu_mempool_get_slow(struct rte_pcpu_mempool *mp, void **obj);

/**
 * @internal The slow half of rte_pcpu_mempool_put(): rte_pcpu_mempool_put_bulk()
 * of one object. Not marked experimental, as __rte_pcpu_mempool_get_slow().
 * The inline function also sends a NULL pool here, to be refused with one
 * log line.
 *
 * @param mp Pool, or NULL (refused: -EINVAL).
 * @param obj The object.
 * @return As rte_pcpu_mempool_put_bulk().
 */
int __rte_pcpu_mempool_put_slow(struct rte_pcpu_mempool *mp, void *obj);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_MEMPOOL_CORE_H_ */
