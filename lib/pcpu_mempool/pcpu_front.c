/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The public entry points of rte_pcpu.h that allocate, free and give
 * memory back: argument checks, then one call down. Sizes the size-class
 * caches serve go to them (pcpu_cache.c), the others straight to the
 * allocator (pcpu_alloc.c).
 *
 *   rte_pcpu_alloc()  -> pcpu_cache_alloc() -> [refill] pcpu_alloc_bulk()
 *                     -> pcpu_alloc_one()                (larger sizes)
 *   rte_pcpu_alloc_owner(): the same, charged to the owner given, where
 *   rte_pcpu_alloc() charges the root (pcpu_owner.h); an owner with a
 *   limit goes to pcpu_cache_alloc_limited() instead
 *   rte_pcpu_free()   -> pcpu_cache_free()  -> [flush]  pcpu_alloc_free_bulk()
 *                                           -> pcpu_alloc_free() (others)
 *   rte_pcpu_zero()   -> pcpu_alloc_range_find(), pcpu_cache_obj_freed(),
 *                        [a mempool's block] the registered check,
 *                        then pcpu_alloc_zero()
 *
 * Sizes above RTE_PCPU_CHUNK_OBJ_MAX_SIZE become spans inside the
 * allocator (pcpu_alloc_span.c); nothing here tells them apart.
 *
 * A secondary process only reads: what would change anything fails there
 * (pcpu_proc_refuse()); what reads goes to the primary.
 */

#include <errno.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rte_pcpu.h"
#include "rte_pcpu_owner.h"
#include "pcpu_alloc.h"
#include "pcpu_cache.h"
#include "pcpu_front.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"
#include "pcpu_util.h"

/* rte_pcpu_alloc() calls refused for their arguments (statistics). */
static uint64_t front_arg_fail;

uint64_t
pcpu_front_arg_failures(void)
{
	return __atomic_load_n(&front_arg_fail, __ATOMIC_RELAXED);
}

size_t
pcpu_front_natural_align(size_t size)
{
	size_t r = RTE_ALIGN_CEIL(size, RTE_PCPU_MIN_ALIGN);

	return RTE_MIN(r & -r, (size_t)RTE_CACHE_LINE_SIZE);
}

/* Whether @p size and @p align are valid alloc arguments (align 0: the
 * natural alignment). */
static inline int
front_alloc_args_valid(size_t size, size_t align)
{
	return size - 1 < RTE_PCPU_MAX_SIZE &&
		(align == 0 || pcpu_is_pow2(align)) &&
		align <= RTE_PCPU_MAX_ALIGN;
}

/* A refused call: counted, rte_errno EINVAL. */
static void *
front_refuse(void)
{
	__atomic_fetch_add(&front_arg_fail, 1, __ATOMIC_RELAXED);
	rte_errno = EINVAL;
	return NULL;
}

/* Alloc arguments front_alloc_args_valid() refused: one log line. */
static __rte_noinline void *
front_alloc_bad_args(size_t size, size_t align)
{
	if (size == 0 || size > RTE_PCPU_MAX_SIZE)
		PCPU_LOG(ERR, "alloc: size %zu not in 1..%u", size,
			RTE_PCPU_MAX_SIZE);
	else
		PCPU_LOG(ERR, "alloc: align %zu not a power of two up to %u",
			align, RTE_PCPU_MAX_ALIGN);
	return front_refuse();
}

/*
 * An allocation in a process whose library is set up: check and normalise
 * the arguments, then to the caches or, above their sizes, the allocator.
 * @p limited (a constant): @p owner has a limit, whose cache path is its
 * own. Only tail calls, so that the allocation saves no register.
 */
static __rte_always_inline void *
front_alloc_ready(size_t size, size_t align, uint32_t owner, int limited)
{
	if (unlikely(!front_alloc_args_valid(size, align)))
		return front_alloc_bad_args(size, align);
	if (align == 0)
		align = pcpu_front_natural_align(size);
	else if (align < RTE_PCPU_MIN_ALIGN)
		align = RTE_PCPU_MIN_ALIGN;
	if (size > RTE_PCPU_CACHE_MAX_SIZE)
		return pcpu_alloc_one(size, align, owner);
	return limited ? pcpu_cache_alloc_limited(size, align, owner) :
		pcpu_cache_alloc(size, align, owner);
}

/* An allocation in a process not known to be a primary with the library
 * set up: refused in a secondary, or sets the library up; bad arguments
 * first, so that a refused call changes nothing. */
static __rte_noinline void *
front_alloc_setup(size_t size, size_t align, uint32_t owner)
{
	const char *what = owner == PCPU_OWNER_ROOT ? "rte_pcpu_alloc" :
		"rte_pcpu_alloc_owner";

	if (unlikely(!front_alloc_args_valid(size, align)))
		return front_alloc_bad_args(size, align);
	if (pcpu_proc_refuse(what) || pcpu_init_ensure(what) != 0)
		return NULL;
	if (owner >= PCPU_OWNER_LIMITED)
		return front_alloc_ready(size, align, owner, 1);
	return front_alloc_ready(size, align, owner, 0);
}

/*
 * The allocation entry points' common part, for owner @p owner (its id),
 * with a limit or not as @p limited (a constant) says; each tail-calls it,
 * and it tail-calls the caches or the allocator in turn.
 */
static __rte_always_inline void *
front_alloc_common(size_t size, size_t align, uint32_t owner, int limited)
{
	if (unlikely(!pcpu_proc_primary_is_ready()))
		return front_alloc_setup(size, align, owner);
	return front_alloc_ready(size, align, owner, limited);
}

/* An allocation charged to an owner without a limit (the root's too). */
static __rte_noinline void *
front_alloc(size_t size, size_t align, uint32_t owner)
{
	return front_alloc_common(size, align, owner, 0);
}

/* An allocation charged to an owner with a limit: told apart here, where
 * the owner's id is first known, so that no other allocation tests it. */
static __rte_noinline void *
front_alloc_limited(size_t size, size_t align, uint32_t owner)
{
	return front_alloc_common(size, align, owner, 1);
}

void *
rte_pcpu_alloc(size_t size, size_t align)
{
	return front_alloc(size, align, PCPU_OWNER_ROOT);
}

/* rte_pcpu_alloc_owner() of an owner it may not charge: one log line. */
static __rte_noinline void *
front_bad_owner(const struct rte_pcpu_owner *owner)
{
	/* a secondary process has no owners of its own: it only reads */
	if (pcpu_proc_refuse("rte_pcpu_alloc_owner"))
		return NULL;
	PCPU_LOG(ERR, "alloc: %p is %s", (const void *)owner,
		pcpu_owner_valid(owner) == NULL ? "not a live owner" :
		"a pool's owner: only its pool charges it");
	return front_refuse();
}

void *
rte_pcpu_alloc_owner(size_t size, size_t align, struct rte_pcpu_owner *owner)
{
	uint32_t id = pcpu_owner_alloc_id(owner);

	if (unlikely(id == PCPU_OWNER_NONE))
		return front_bad_owner(owner);
	if (id >= PCPU_OWNER_LIMITED)
		return front_alloc_limited(size, align, id);
	return front_alloc(size, align, id);
}

/* rte_pcpu_free() in a process not known to be a set-up primary: a
 * secondary refuses; a primary goes on (the layers below refuse a free
 * before set-up). Out of line, so that the common free needs no stack
 * frame: it ends in a tail call. */
static __rte_noinline int
front_free_not_ready(void *handle)
{
	if (pcpu_proc_refuse_slow("rte_pcpu_free"))
		return -1;
	return pcpu_cache_free(handle);
}

int
rte_pcpu_free(void *handle)
{
	/* an allocator that is not set up is found below, off the fast
	 * path: the caches are off then, and the allocator refuses */
	if (unlikely(handle == NULL))
		return 0;
	if (unlikely(!pcpu_proc_primary_is_ready()))
		return front_free_not_ready(handle);
	return pcpu_cache_free(handle);
}

/* The check of the blocks of "pcpu" mempools (pcpu_mempool_ops.c). */
static pcpu_front_zero_check_t *front_zero_check;

void
pcpu_front_zero_check_register(pcpu_front_zero_check_t *check)
{
	__atomic_store_n(&front_zero_check, check, __ATOMIC_RELEASE);
}

/*
 * Why [obj, obj + size) is not one user's to zero, or NULL: it must lie
 * inside one live allocation (the allocator's maps), that allocation must
 * not sit freed in an lcore cache (its tag, as rte_pcpu_free() reads it),
 * and inside a mempool's block it must stay within one element (the
 * registered check): headers, trailers and other objects are not the
 * user's.
 */
static const char *
front_zero_refusal(const void *obj, size_t size)
{
	pcpu_front_zero_check_t *check;
	uintptr_t handle;
	uint32_t owner;
	const char *why;

	if (pcpu_alloc_range_find(obj, size, &handle, &owner) != 0)
		return pcpu_alloc_range_find(obj, 1, &handle, &owner) == 0 ?
			"it runs past the end of the live allocation it starts "
			"in (its size rounded up to its size class)" :
			"no live allocation holds it";
	why = pcpu_cache_obj_freed((const void *)handle);
	if (why != NULL)
		return why;
	if (pcpu_owner_kind_of(owner) != PCPU_OWNER_KIND_MEMPOOL)
		return NULL;
	check = __atomic_load_n(&front_zero_check, __ATOMIC_ACQUIRE);
	return check == NULL ? "a mempool's block, and no layer checks it" :
		check(handle, owner, (uintptr_t)obj, size);
}

int
rte_pcpu_zero(void *obj, size_t size)
{
	const char *why;

	if (pcpu_init_refuse("rte_pcpu_zero"))
		return -1;
	if (obj == NULL || size == 0) {
		PCPU_LOG(ERR, "zero: %s", obj == NULL ? "object NULL" :
			"size 0");
		rte_errno = EINVAL;
		return -1;
	}
	why = front_zero_refusal(obj, size);
	if (why != NULL) {
		PCPU_LOG(ERR, "zero: [%p, +%zu) is not inside one live "
			"allocation: %s", obj, size, why);
		rte_errno = EINVAL;
		return -1;
	}
	/* outside any lock: the caller owns the range */
	pcpu_alloc_zero(obj, size);
	return 0;
}

int64_t
rte_pcpu_reclaim(void)
{
	if (pcpu_init_refuse("rte_pcpu_reclaim") ||
	    pcpu_init_not_set_up("reclaim"))
		return -1;
	return (int64_t)pcpu_alloc_reclaim();
}

int
rte_pcpu_cache_flush(void)
{
	if (pcpu_init_refuse("rte_pcpu_cache_flush") ||
	    pcpu_init_not_set_up("cache flush"))
		return -1;
	return (int)RTE_MIN(pcpu_cache_flush(rte_lcore_id()),
		(uint64_t)INT32_MAX);
}

int
rte_pcpu_lcore_socket_id(unsigned int lcore_id)
{
	if (pcpu_proc_secondary())
		return pcpu_proc_lcore_socket(lcore_id);
	return pcpu_alloc_lcore_socket(lcore_id);
}
