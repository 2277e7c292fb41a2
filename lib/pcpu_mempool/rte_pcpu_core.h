/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_CORE_H_
#define _RTE_PCPU_CORE_H_

/**
 * @file
 * Internals of the inline percpu accessors: the state they read and the
 * helpers behind RTE_PCPU(), RTE_PCPU_LCORE(), RTE_PCPU_FOREACH() and
 * rte_pcpu_sum_u64(), and the list of copy offsets that the inline pool
 * get uses to zero an object. As rte_ring_core.h is to rte_ring.h.
 *
 * Do not include this file directly: include <rte_pcpu.h>. Nothing here is
 * API; it may change with every release, and an application built against
 * one release's inline functions must be rebuilt for the next.
 */

#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_compat.h>
#include <rte_debug.h>
#include <rte_lcore.h>
#ifdef RTE_ARCH_X86
#include <emmintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @internal Words of the lcore mask. */
#define RTE_PCPU_MASK_WORDS ((RTE_MAX_LCORE + 63) / 64)

/**
 * @internal Size in bytes of struct rte_pcpu_shared, fixed.
 *
 * rte_pcpu_shared is a data symbol that inline code of applications reads,
 * so dynamically linked executables hold a copy of it (a copy relocation)
 * whose size is fixed when they are linked: the struct must never grow.
 * New fields take bytes of @c reserved.
 */
#define RTE_PCPU_SHARED_SIZE 512

/**
 * @internal What the inline accessors read, one instance per process.
 * Written by the library only: at initialisation (in a secondary process,
 * when it attaches to the primary's allocator), at cleanup, and when an
 * lcore gains memory (one bit of @c lcore_mask, with release order, after
 * the lcore's copies of every object exist and are initialised).
 */
struct rte_pcpu_shared {
	uintptr_t base;              /**< Address of unit 0. */
	uint32_t unit_shift;         /**< log2(unit_stride): unit 0 is
				       *  [base, base + (1 << unit_shift)). */
	uint32_t initialised;        /**< Non-zero once set up (or attached). */
	/** Bit i set: lcore id i has memory. */
	uint64_t lcore_mask[RTE_PCPU_MASK_WORDS];
	/**
	 * Bytes from one unit's start to the next one's: unit_stride +
	 * RTE_PCPU_UNIT_COLOUR. Lcore i's copy is at handle + i * unit_step.
	 *
	 * Unsigned long long, not uint64_t, on purpose: C lets a compiler
	 * assume that a store through a uint64_t * (on LP64 targets an
	 * unsigned long *, as size_t * and uintptr_t * are) never changes
	 * an object of another integer type. Counters in a copy are
	 * usually uint64_t, and with a uint64_t step a loop of RTE_PCPU()
	 * updates would reload the step and redo the multiply after every
	 * counter store; with this type GCC and clang keep the copy's
	 * offset in a register for the whole loop. The same size and
	 * alignment as uint64_t on every ABI: the layout is unchanged. On
	 * ILP32 targets uint64_t is unsigned long long, and nothing
	 * changes there.
	 */
	unsigned long long unit_step;
	/**
	 * Lcore ids below this may use a pool's lcore cache inline:
	 * RTE_MAX_LCORE in the process that owns the allocator once it is
	 * set up, 0 otherwise (a secondary process only reads: its lcore ids
	 * are not the primary's lcores). Compared where the inline paths
	 * compared the lcore id with RTE_MAX_LCORE: no extra instruction.
	 */
	uint32_t cache_lcore_limit;
	uint32_t reserved32;         /**< 0. */
	/**
	 * Incremented (release) after every change of @c lcore_mask, never
	 * reset: a list of copies made as of generation g is current while
	 * this is still g. One word to compare, where the mask is
	 * RTE_PCPU_MASK_WORDS.
	 */
	uint64_t lcore_gen;
	/** Keeps the size at RTE_PCPU_SHARED_SIZE. */
	uint8_t reserved[RTE_PCPU_SHARED_SIZE - sizeof(uintptr_t) -
		4 * sizeof(uint32_t) - RTE_PCPU_MASK_WORDS * sizeof(uint64_t) -
		sizeof(unsigned long long) - sizeof(uint64_t)];
} __rte_cache_aligned;

/** @internal The one instance, defined in the library. */
extern struct rte_pcpu_shared rte_pcpu_shared;

/**
 * @internal Attach a secondary process to the primary's allocator if it
 * is not yet; nothing in a primary. Called by the inline readers of the
 * lcore mask when rte_pcpu_shared is not set up; rate-limited while the
 * primary has no allocator. Not marked experimental: the inline functions
 * that call it are, and including a header must draw no warning.
 *
 * Thread-safety: MT-safe.
 */
void __rte_pcpu_attach(void);

/**
 * @internal Make sure rte_pcpu_shared is set up in a secondary process:
 * one load and a branch that is not taken once it is.
 */
static inline void
__rte_pcpu_attach_check(void)
{
	if (unlikely(__atomic_load_n(&rte_pcpu_shared.initialised,
			__ATOMIC_ACQUIRE) == 0))
		__rte_pcpu_attach();
}

/**
 * @internal Whether lcore @p lcore_id has memory.
 *
 * @param lcore_id Lcore id, any value.
 * @return 1 or 0.
 */
static inline int
__rte_pcpu_lcore_has_memory(unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return 0;
	return (__atomic_load_n(&rte_pcpu_shared.lcore_mask[lcore_id / 64],
			__ATOMIC_ACQUIRE) >> (lcore_id % 64)) & 1;
}

/**
 * @internal First lcore id >= @p lcore_id that has memory.
 *
 * @param lcore_id First lcore id to consider.
 * @return The lcore id, or RTE_MAX_LCORE if there is none.
 */
static inline unsigned int
__rte_pcpu_lcore_next(unsigned int lcore_id)
{
	while (lcore_id < RTE_MAX_LCORE) {
		uint64_t w = __atomic_load_n(
			&rte_pcpu_shared.lcore_mask[lcore_id / 64],
			__ATOMIC_ACQUIRE) >> (lcore_id % 64);

		if (w != 0)
			return lcore_id + (unsigned int)__builtin_ctzll(w);
		lcore_id = (lcore_id | 63) + 1;
	}
	return RTE_MAX_LCORE;
}

/**
 * @internal First lcore id that has memory, attaching a secondary process
 * first if need be: where RTE_PCPU_FOREACH() and rte_pcpu_sum_u64()
 * start. The first mask word is what __rte_pcpu_lcore_next(0) loads
 * anyway: only when it is 0 (a secondary not attached yet, or no lcore
 * below 64 with memory) is there more to look at.
 *
 * @return The lcore id, or RTE_MAX_LCORE if there is none.
 */
static inline unsigned int
__rte_pcpu_lcore_first(void)
{
	uint64_t w = __atomic_load_n(&rte_pcpu_shared.lcore_mask[0],
		__ATOMIC_ACQUIRE);

	if (likely(w != 0))
		return (unsigned int)__builtin_ctzll(w);
	__rte_pcpu_attach_check();
	return __rte_pcpu_lcore_next(0);
}

/**
 * @internal Untyped address of lcore @p lcore_id's copy of @p handle.
 *
 * @param lcore_id Lcore id, below RTE_MAX_LCORE.
 * @param handle Handle from rte_pcpu_alloc().
 * @return Address of that lcore's copy.
 */
static inline void *
__rte_pcpu_lcore_ptr(unsigned int lcore_id, const void *handle)
{
	RTE_ASSERT(lcore_id < RTE_MAX_LCORE);
	/* one multiply (a single instruction, where a shift by a variable
	 * count is two or three on x86) and one add */
	return (void *)((uintptr_t)handle +
		(uintptr_t)lcore_id * (uintptr_t)rte_pcpu_shared.unit_step);
}

/**
 * @internal The calling lcore's copy; asserts (debug builds) that the
 * caller is an lcore.
 *
 * @param handle Handle from rte_pcpu_alloc().
 * @return Address of the calling lcore's copy.
 */
static inline void *
__rte_pcpu_self_ptr(const void *handle)
{
	unsigned int lcore_id = rte_lcore_id();

	RTE_ASSERT(lcore_id != LCORE_ID_ANY);
	return __rte_pcpu_lcore_ptr(lcore_id, handle);
}

/**
 * @internal Where every lcore's copy of an object lies, relative to lcore
 * 0's copy (the handle), as of one look at rte_pcpu_shared.lcore_mask.
 * Each fast path that zeroes copies (an lcore's cache buckets, a pool's
 * lcore cache) keeps its own, used by one thread only; checking that it is
 * current costs one load and one comparison.
 */
struct rte_pcpu_copies {
	uint64_t gen;                  /**< rte_pcpu_shared.lcore_gen then. */
	unsigned int nr;               /**< Entries of offs[]. */
	uintptr_t offs[RTE_MAX_LCORE]; /**< lcore_id * unit_step. */
};

/**
 * @internal Whether @p cp still lists every lcore with memory.
 *
 * @param cp A list of copy offsets.
 * @return Non-zero if current; 0 if the library must rebuild it.
 */
static __rte_always_inline int
__rte_pcpu_copies_current(const struct rte_pcpu_copies *cp)
{
	return __atomic_load_n(&rte_pcpu_shared.lcore_gen, __ATOMIC_ACQUIRE) ==
		cp->gen;
}

/**
 * @internal Zero @p sz bytes (a multiple of 8, constant at each call site)
 * of every copy in @p cp of the object at @p h. On x86 with 16-byte
 * stores: a constant-size memset of 96..512 bytes compiles to "rep stos",
 * whose start-up cost dominates at these sizes.
 *
 * @param cp Copy offsets (current).
 * @param h The object's handle (lcore 0's copy).
 * @param sz Bytes per copy, a multiple of 8.
 */
static __rte_always_inline void
__rte_pcpu_copies_zero(const struct rte_pcpu_copies *cp, uintptr_t h,
		unsigned int sz)
{
	/* read once: the stores below could alias it for the compiler */
	unsigned int nr = cp->nr, i, k;

	for (i = 0; i < nr; i++) {
		uintptr_t p = h + cp->offs[i];

#ifdef RTE_ARCH_X86
		const __m128i z = _mm_setzero_si128();

		for (k = 0; k + 16 <= sz; k += 16)
			_mm_storeu_si128((__m128i *)(p + k), z);
		if (sz & 8)
			*(volatile uint64_t *)(p + k) = 0;
#else
		RTE_SET_USED(k);
		memset((void *)p, 0, sz);
#endif
	}
}

/**
 * @internal A per-lcore cache of free handles, the one cache engine of the
 * library: the size-class caches behind rte_pcpu_alloc() and the lcore
 * caches of the pools are both made of it (the library's pcpu_objcache.h
 * has the slow paths: refill, flush, drain). A LIFO: objs[len - 1] is the
 * most recently freed, hottest handle. Only the owning lcore changes it,
 * except that a pool's cache can be taken over by another thread under
 * the handshake of rte_pcpu_mempool_core.h. Counters are written by the
 * owner with relaxed atomic stores, so statistics can read them at any
 * time.
 */
struct rte_pcpu_objcache {
	/* the fast path's fields first (32 bytes), the slow paths' after */
	uint32_t len;        /**< Handles held now. */
	uint32_t capacity;   /**< Handles it may hold between operations. */
	uintptr_t *objs;     /**< The array, allocated by the owner. */
	uint64_t nr_get;     /**< Handles taken out (by users). */
	uint64_t nr_put;     /**< Handles put in (by users). */
	uint64_t nr_refill;  /**< Refills: calls that brought handles in. */
	uint64_t refilled;   /**< Handles refills brought in. */
	uint64_t nr_flush;   /**< Flushes: calls that sent handles out. */
	uint64_t flushed;    /**< Handles flushes sent out. */
};

/**
 * @internal Take the hottest handle; the cache must not be empty.
 *
 * @param oc The calling lcore's cache.
 * @return The handle.
 */
static __rte_always_inline uintptr_t
__rte_pcpu_objcache_pop(struct rte_pcpu_objcache *oc)
{
	uint32_t len = oc->len - 1;
	uintptr_t h = oc->objs[len];

	__atomic_store_n(&oc->len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&oc->nr_get, oc->nr_get + 1, __ATOMIC_RELAXED);
	return h;
}

/**
 * @internal Add a handle on top; the array must have room for it.
 *
 * @param oc The calling lcore's cache.
 * @param h The handle (with the owner's flag bits, if any).
 */
static __rte_always_inline void
__rte_pcpu_objcache_push(struct rte_pcpu_objcache *oc, uintptr_t h)
{
	uint32_t len = oc->len;

	oc->objs[len] = h;
	__atomic_store_n(&oc->len, len + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&oc->nr_put, oc->nr_put + 1, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_CORE_H_ */
