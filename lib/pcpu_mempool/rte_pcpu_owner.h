/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_OWNER_H_
#define _RTE_PCPU_OWNER_H_

/**
 * @file
 * Owners of percpu memory: who holds it, with limits.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Every live percpu allocation is charged to one *owner*, the idea of the
 * memory-cgroup accounting of Linux's percpu allocator (mm/percpu.c: one
 * obj_cgroup reference per allocation slot of every chunk since Linux
 * 5.14, no separate chunk types). An owner is a named account: a module,
 * a table, a pool. rte_pcpu_alloc() charges the *root* owner;
 * rte_pcpu_alloc_owner() charges the owner it is given; rte_pcpu_free()
 * uncharges whichever owner the object was charged to (each allocation
 * records its owner). Every rte_pcpu_mempool has an owner of its own,
 * named "pool:" and the pool's name, whose limit is the pool's
 * @c max_bytes; every rte_mempool with the "pcpu" ops has one named
 * "mempool:" and the pool's name. So the sum over the owners is always
 * what the users of the library hold, which rte_pcpu_audit() checks.
 *
 * What an allocation costs its owner: its size per lcore copy, as the
 * allocator holds it (rounded up to its size class when an lcore cache
 * serves it: RTE_PCPU_CACHE_MAX_SIZE and below, on an lcore, caches on,
 * an alignment the class has; else, and so for every allocation of an
 * unregistered thread, rounded up to the 4-byte granule), times the number of lcores with memory (the lcores
 * RTE_PCPU_FOREACH() visits: rte_pcpu_stats.nr_lcores, less unit 0 while
 * it is only lent to the object headers of "pcpu" mempools). An lcore that appears later
 * (rte_thread_register()) gets a copy of every object, so every owner's
 * charge grows by its bytes per copy; an owner may then be above its
 * limit, and allocates nothing more until frees bring it back within.
 * Objects parked in the size-class caches of the lcores belong to no
 * owner (the allocator holds them for the next allocation); objects of a
 * pool belong to the pool's owner whether they are out, cached or free in
 * the pool, since they exist for it.
 *
 * Limits. An allocation whose charge would take its owner above the
 * owner's limit fails with ENOMEM and counts a failure; limits are exact
 * (never exceeded by an allocation, whatever the number of threads).
 * Owners without a limit keep per-lcore counters, so that charging costs
 * no atomic operation; an owner with a limit also keeps one shared
 * reservation against its limit, changed with a compare-and-swap, which
 * each lcore takes in batches into a per-lcore stock (the idea of Linux's
 * memcg_stock), so that most charges and uncharges are plain stores; an
 * allocation the reservation refuses takes the other lcores' stocks back
 * first (a membarrier(2) system call) and fails only if the live
 * allocations leave no room (the programmer's guide, "Owners", gives the
 * costs).
 *
 * In a DPDK secondary process the owners are the primary's:
 * rte_pcpu_owner_walk(), rte_pcpu_owner_lookup() and
 * rte_pcpu_owner_stats_get() ask the primary (one request each), and the
 * functions that write (create, free, rte_pcpu_alloc_owner()) fail with
 * ENOTSUP.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_compat.h>
#include <rte_config.h>

#include "rte_pcpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest owner name, including the terminating NUL. */
#define RTE_PCPU_OWNER_NAMESIZE 48

/** Name of the root owner, charged by rte_pcpu_alloc(). */
#define RTE_PCPU_OWNER_ROOT_NAME "root"

/** Owners without a limit that can exist at once, the root included. */
#define RTE_PCPU_OWNER_MAX_UNLIMITED 511

/** Owners with a limit that can exist at once. */
#define RTE_PCPU_OWNER_MAX_LIMITED 512

/** An owner (opaque). */
struct rte_pcpu_owner;

/**
 * An owner's statistics. Bytes count every lcore with memory unless the
 * name says "copy"; counts are of allocations (objects).
 */
struct rte_pcpu_owner_stats {
	uint64_t live_bytes;      /**< Charged now: live_copy_bytes x
				    *  nr_lcores. */
	uint64_t live_copy_bytes; /**< Bytes per lcore copy of its live
				    *  allocations. */
	uint64_t peak_bytes;      /**< High-water mark of live_copy_bytes,
				    *  times nr_lcores now (see
				    *  rte_pcpu_owner_stats_get()). */
	uint64_t limit_bytes;     /**< Its limit, 0 for none. */
	uint64_t nr_alloc;        /**< Allocations charged, lifetime. */
	uint64_t nr_free;         /**< Frees uncharged, lifetime. */
	uint64_t nr_live;         /**< Live allocations: nr_alloc - nr_free. */
	uint64_t nr_fail;         /**< Allocations refused at the limit (as
				    *  memcg's failcnt). */
	uint32_t nr_lcores;       /**< Lcores with memory the charges count. */
	uint32_t id;              /**< Its number: 1 for the root; owners with
				    *  a limit have ids from 512. */
	/** live_bytes per NUMA socket id: live_copy_bytes x the lcores with
	 * memory on that socket. */
	uint64_t live_bytes_socket[RTE_MAX_NUMA_NODES];
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create an owner.
 *
 * @param name
 *   Unique name, 1 .. RTE_PCPU_OWNER_NAMESIZE - 1 characters, each
 *   printable ASCII (0x20 to 0x7e) but '"' and '\\', no space at either
 *   end (names go into telemetry's JSON and tables as they are: "root "
 *   would pass for "root"); it may not start with "pool:" or
 *   "mempool:", the prefixes of the owners the pools make.
 * @param limit_bytes
 *   Most bytes its live allocations may hold, summed over every lcore
 *   with memory (bytes per copy x lcores); 0 for no limit. An owner's
 *   limit is fixed at its creation: with a limit it is charged through
 *   the lcores' stocks of one shared reservation, without one with
 *   per-lcore counters only.
 * @return
 *   The owner, or NULL with rte_errno: EINVAL (@p name NULL, empty, with
 *   a character outside the rule above or a reserved prefix; EAL cleaned
 *   up while the library was set up),
 *   ENAMETOOLONG (RTE_PCPU_OWNER_NAMESIZE characters or more), EEXIST
 *   (name in use), ENOSPC (RTE_PCPU_OWNER_MAX_UNLIMITED or
 *   RTE_PCPU_OWNER_MAX_LIMITED owners of that kind exist), ENOTSUP (in a
 *   secondary process); errors of
 *   rte_pcpu_init() when the allocator was not set up (the first owner
 *   sets it up with defaults).
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
struct rte_pcpu_owner *rte_pcpu_owner_create(const char *name,
		uint64_t limit_bytes);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free an owner that holds nothing.
 *
 * @param owner
 *   Owner from rte_pcpu_owner_create(); NULL is a no-op returning 0.
 * @return
 *   0, or -1 with rte_errno and one log line, the owner unchanged: EBUSY
 *   (allocations charged to it are live: free them first), EPERM (the
 *   root, or the owner of a pool, which goes with its pool), EINVAL (not
 *   an owner, or already freed; EAL cleaned up while the library was set
 *   up), ENOTSUP (in a secondary process).
 *
 * Thread-safety: MT-safe against other owners; no thread may allocate
 * with @p owner meanwhile or use it afterwards.
 */
__rte_experimental
int rte_pcpu_owner_free(struct rte_pcpu_owner *owner);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Find an owner by name: RTE_PCPU_OWNER_ROOT_NAME, a name given to
 * rte_pcpu_owner_create(), "pool:NAME" for the owner of rte_pcpu_mempool
 * NAME, "mempool:NAME" for that of the rte_mempool NAME with "pcpu" ops.
 *
 * @param name
 *   The name.
 * @return
 *   The owner, or NULL with rte_errno: EINVAL (@p name NULL; EAL cleaned
 *   up while the library was set up), ENOENT (no
 *   such owner, also before the allocator is set up); in a secondary
 *   process also the errors of a request to the primary (ETIMEDOUT,
 *   EPROTO, ENOMEM).
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
struct rte_pcpu_owner *rte_pcpu_owner_lookup(const char *name);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of an owner.
 *
 * @param owner
 *   The owner.
 * @return
 *   Its name, or NULL with rte_errno = EINVAL (NULL or not an owner).
 *
 * Thread-safety: MT-safe; the string lives as long as the owner.
 */
__rte_experimental
const char *rte_pcpu_owner_name(const struct rte_pcpu_owner *owner);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read an owner's statistics.
 *
 * The live figures are exact while no thread allocates or frees with the
 * owner; meanwhile they are read counter by counter. peak_bytes, since
 * the lcores count apart, is the highest sum seen at every read and each
 * time an lcore (or the threads without an lcore id, which share a count)
 * has allocated a step since it last looked, frees not deducted: the step
 * is 256 KiB per copy, or for an owner with a smaller limit a sixteenth
 * of its limit per copy shared among the lcores. So the peak may miss up
 * to one step per lcore, and one more for those threads, however objects
 * move between them. A sum read while lcores count may also be higher
 * than what was live at any one time; for an owner with a limit the peak
 * is bounded by the bytes reserved against the limit (which every live
 * byte holds), so it never exceeds what the limit let through.
 *
 * @param owner
 *   The owner.
 * @param stats
 *   Filled on success.
 * @return
 *   0, or -1 with rte_errno = EINVAL (NULL argument, not an owner; EAL
 *   cleaned up while the library was set up, one log line); in a
 *   secondary process also ENOENT (the primary freed the owner since it
 *   was found) and the errors of a request to the primary (ETIMEDOUT,
 *   EPROTO, ENOMEM).
 *
 * Thread-safety: MT-safe, lock-free (in a primary process).
 */
__rte_experimental
int rte_pcpu_owner_stats_get(const struct rte_pcpu_owner *owner,
		struct rte_pcpu_owner_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Call @p fn for every owner, the root first, in the order of their ids.
 *
 * @param fn
 *   Callback, given each owner and @p arg; NULL does nothing.
 * @param arg
 *   Opaque argument for @p fn.
 *
 * Thread-safety: MT-safe; @p fn runs with the owner registry locked and
 * must not create or free owners or pools. In a secondary process it runs
 * over the owners the primary listed, without a lock, and walks nothing
 * (one log line) when the primary does not answer.
 */
__rte_experimental
void rte_pcpu_owner_walk(void (*fn)(struct rte_pcpu_owner *owner, void *arg),
		void *arg);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * rte_pcpu_alloc() charged to @p owner: allocate an object that has one
 * copy per lcore, every copy zeroed, unless the charge would take the
 * owner above its limit. rte_pcpu_free() uncharges it.
 *
 * @param size
 *   Bytes per copy, as rte_pcpu_alloc().
 * @param align
 *   Alignment, as rte_pcpu_alloc().
 * @param owner
 *   The owner: the root (rte_pcpu_owner_lookup(RTE_PCPU_OWNER_ROOT_NAME))
 *   or one from rte_pcpu_owner_create(); not a pool's owner, which only
 *   its pool charges.
 * @return
 *   The handle, or NULL with rte_errno: as rte_pcpu_alloc(); ENOMEM also
 *   when the charge would exceed the owner's limit (counted in the
 *   owner's nr_fail); EINVAL also for @p owner NULL, not a live owner, or
 *   a pool's owner; ENOTSUP in a secondary process. After
 *   rte_eal_cleanup() with the library still set up this call is a
 *   program error (see rte_pcpu_cleanup()).
 *
 * Thread-safety: MT-safe, as rte_pcpu_alloc().
 */
__rte_experimental
void *rte_pcpu_alloc_owner(size_t size, size_t align,
		struct rte_pcpu_owner *owner);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_OWNER_H_ */
