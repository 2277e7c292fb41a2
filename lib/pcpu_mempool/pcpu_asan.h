/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_ASAN_H_
#define _PCPU_ASAN_H_

/**
 * @file
 * @internal AddressSanitizer annotations of percpu objects.
 *
 * In a build with -fsanitize=address, every lcore's copy of a free object
 * is poisoned, so that a use after free through any lcore's copy
 * (RTE_PCPU(), RTE_PCPU_LCORE(), rte_pcpu_sum_u64()) is reported as
 * "use-after-poison". Poisoned: objects freed to the chunk allocator,
 * objects parked in the per-lcore cache buckets, free objects of pools
 * (after their RCU grace period, if any). Unpoisoned: an object the
 * moment it is handed out, before the library zeroes it, and every range
 * of a unit when it is populated. For the lcores that have memory, a
 * populated range holds no object yet; for an lcore that gains memory
 * later (rte_thread_register()), its copies of every existing object are
 * populated then and start unpoisoned, free ones included, until they
 * are allocated and freed again (fewer reports, never a false one). This
 * also clears stale shadow left by an earlier chunk or an earlier
 * rte_pcpu_init() at the same address.
 *
 * ASan's shadow has an 8-byte granule; objects are at least 8-byte
 * aligned (RTE_PCPU_MIN_ALIGN), so no two objects share a shadow byte and
 * poisoning one never affects another. Poison calls must happen while the
 * caller still owns the object (before it becomes visible to another
 * allocator), unpoison calls after it is owned by the new user.
 *
 * Without ASan every helper is an empty inline function.
 */

#include <stddef.h>

#include <rte_common.h>

#include "rte_pcpu.h"

#if defined(__SANITIZE_ADDRESS__)
#define PCPU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PCPU_ASAN 1
#endif
#endif

/** 1 in AddressSanitizer builds, else 0 (for use in expressions). */
#ifdef PCPU_ASAN
#define PCPU_ASAN_ON 1
#else
#define PCPU_ASAN_ON 0
#endif

#ifdef PCPU_ASAN

#include <sanitizer/asan_interface.h>

/** Poison @p size bytes of every lcore's copy of @p handle. */
static inline void
pcpu_asan_poison(const void *handle, size_t size)
{
	unsigned int lcore_id;

	for (lcore_id = __rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = __rte_pcpu_lcore_next(lcore_id + 1))
		ASAN_POISON_MEMORY_REGION(__rte_pcpu_lcore_ptr(lcore_id, handle),
			size);
}

/** Unpoison @p size bytes of every lcore's copy of @p handle. */
static inline void
pcpu_asan_unpoison(const void *handle, size_t size)
{
	unsigned int lcore_id;

	for (lcore_id = __rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = __rte_pcpu_lcore_next(lcore_id + 1))
		ASAN_UNPOISON_MEMORY_REGION(
			__rte_pcpu_lcore_ptr(lcore_id, handle), size);
}

/** Unpoison one range of memory (pages being populated). */
static inline void
pcpu_asan_unpoison_range(const void *addr, size_t len)
{
	ASAN_UNPOISON_MEMORY_REGION(addr, len);
}

#else /* !PCPU_ASAN */

static inline void
pcpu_asan_poison(const void *handle, size_t size)
{
	RTE_SET_USED(handle);
	RTE_SET_USED(size);
}

static inline void
pcpu_asan_unpoison(const void *handle, size_t size)
{
	RTE_SET_USED(handle);
	RTE_SET_USED(size);
}

static inline void
pcpu_asan_unpoison_range(const void *addr, size_t len)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(len);
}

#endif /* PCPU_ASAN */

#endif /* _PCPU_ASAN_H_ */
