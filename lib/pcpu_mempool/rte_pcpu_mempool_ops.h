/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_MEMPOOL_OPS_H_
#define _RTE_PCPU_MEMPOOL_OPS_H_

/**
 * @file
 * A DPDK mempool driver whose objects are percpu handles: the "pcpu"
 * rte_mempool ops.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The library registers mempool ops named "pcpu" (RTE_PCPU_MEMPOOL_OPS_NAME)
 * when it is loaded. A stock rte_mempool that uses them hands out percpu
 * handles: every object that rte_mempool_get() returns is a handle as
 * rte_pcpu_alloc() returns one, and RTE_PCPU(obj), RTE_PCPU_LCORE(l, obj)
 * and RTE_PCPU_FOREACH() reach each lcore's own copy. Everything else is
 * DPDK's: rte_mempool_get()/put() and their bulk forms with the
 * standard per-lcore mempool cache, rte_mempool_lookup(), walk, dump,
 * audit, obj_iter, mem_iter, avail/in-use counts, rte_mempool_from_obj()
 * and the /mempool/list and /mempool/info telemetry commands.
 *
 * @code
 * mp = rte_mempool_create_empty("flows", n, sizeof(struct flow_ctr),
 *         256, 0, SOCKET_ID_ANY, 0);
 * rte_mempool_set_ops_byname(mp, RTE_PCPU_MEMPOOL_OPS_NAME, NULL);
 * rte_mempool_populate_default(mp);
 * ...
 * rte_mempool_get(mp, (void **)&fc);
 * RTE_PCPU(fc)->packets++;                  // on any lcore
 * @endcode
 *
 * or in one call, rte_pcpu_mempool_ops_create() (rte_mempool_create()'s
 * signature and meaning).
 *
 * How it works. The driver's calc_mem_size asks rte_mempool for a token
 * of memory only, and its populate places the objects itself in blocks of
 * percpu memory (rte_pcpu_alloc(): NUMA-local copies, hugepages when the
 * allocator uses them, spans of whole chunks for large pools); the token
 * is what rte_mempool records as the pool's memory chunk. The store
 * behind enqueue and dequeue is an rte_ring, multi-producer and
 * multi-consumer unless the pool has RTE_MEMPOOL_F_SP_PUT or
 * RTE_MEMPOOL_F_SC_GET (as the ring_* ops). The memory is not for DMA:
 * the driver sets RTE_MEMPOOL_F_NO_IOVA_CONTIG on the pool, its objects
 * have no IOVA (RTE_BAD_IOVA) and the pool keeps RTE_MEMPOOL_F_NON_IO.
 *
 * Object layout. rte_mempool keeps a header (struct rte_mempool_objhdr,
 * 24 bytes: its element list, the pool, the IOVA) just before every
 * object, and with RTE_LIBRTE_MEMPOOL_DEBUG a trailer after it. It writes
 * them at the handle, that is in unit 0 only, but they take their bytes in
 * every unit, since every unit has the same layout. The driver packs
 * objects at a stride of header + elt_size (rounded up to 8) + trailer,
 * rounded up to RTE_CACHE_LINE_SIZE unless the pool has
 * RTE_MEMPOOL_F_NO_CACHE_ALIGN: per object and per lcore with memory,
 * 64, 128 and 320 bytes for elements of 16, 64 and 256 bytes (40, 88 and
 * 280 with RTE_MEMPOOL_F_NO_CACHE_ALIGN). It never pads for memory-channel
 * spreading (RTE_MEMPOOL_F_NO_SPREAD changes nothing), and it sets the
 * pool's header_size and trailer_size to that layout (their sum with
 * elt_size is the stride). Unit 0 needs memory for the headers even when
 * lcore 0 is not an lcore; the allocator then gives it memory, counted in
 * the populated bytes, without making lcore 0 an lcore.
 *
 * Zeroing. Objects are zero on every lcore when the pool is populated.
 * rte_mempool_get() never zeroes: an object comes back with what its last
 * user left on every lcore. Call rte_pcpu_zero(obj, elt_size) after the
 * get (before publishing the handle) when the next user expects zeros,
 * say for counters. It refuses (EINVAL) a range that leaves the object's
 * element: the header, the trailer and the next object are rte_mempool's.
 *
 * Lcores that appear later (rte_thread_register()) find their copies of
 * every object zero; obj_init is not called for them (rte_mempool has no
 * such hook). Objects that need another initial state on every lcore,
 * late lcores included, belong in an rte_pcpu_mempool (rte_pcpu_mempool.h),
 * which runs obj_init per lcore copy.
 *
 * Freeing. rte_mempool_free() gives the pool's percpu blocks back to the
 * allocator (a span's memory goes back to the system at once). As with
 * any rte_mempool, every object must be back in the pool and no lcore may
 * use a handle of it by then; DPDK does not check. The driver does: a
 * pool freed with objects still out gets one ERR log line naming it and
 * the count, and with RTE_PCPU_MEMPOOL_OPS_F_DEBUG its percpu memory is
 * kept instead (a write through a stale handle cannot reach another
 * object) and rte_pcpu_audit() fails, naming the pool, until
 * rte_pcpu_cleanup(). Free every such pool before rte_pcpu_cleanup(): one
 * still alive then gets a warning and is emptied (gets fail with
 * -ENOBUFS, as from an empty pool of the ring_* ops; rte_mempool_free()
 * of it stays safe).
 *
 * Not for mbufs. A NIC DMAs one buffer, an mbuf moves between lcores, and
 * rte_pktmbuf_init() fills unit 0's copy only: the driver refuses, at the
 * first populate, a pool whose private area rte_pktmbuf_pool_init() has
 * set up for its element size (rte_pktmbuf_pool_create() with "pcpu" ops
 * then fails with EINVAL and one log line). An mbuf pool with neither
 * data room nor private area (128-byte elements, a private area of zeros)
 * cannot be told from a pool of 128-byte objects whose private area is
 * zero, and is accepted.
 *
 * Processes. The objects live in the primary process's private percpu
 * area: only the primary may get, put or free objects. A secondary's
 * rte_mempool_get() fails with -ENOTSUP (the ops refuse it with a log
 * line each time DPDK asks them: twice for a pool with a cache, the
 * cache's refill then the get itself) when its lcore's mempool cache is
 * empty; DPDK serves a get from the cache of the caller's lcore id first,
 * and that cache, in the pool's shared memory, is the primary's lcore of
 * the same id: as with every DPDK mempool with caches, processes that
 * share the pool must run on distinct lcore ids. A secondary process
 * (dpdk-proc-info) reads the pool's counts and dump only if it registers
 * the same ops at the same index, for example by loading this library
 * with the EAL option -d before the default driver directory.
 *
 * Registration. The library registers the ops from a constructor, before
 * rte_eal_init() loads DPDK's driver plugins: Debian's DPDK 22.11
 * registers 14 of the RTE_MEMPOOL_MAX_OPS_IDX (16) slots from them, and a
 * full table makes a registration fail with only a log line.
 * rte_pcpu_init() checks, and rte_pcpu_mempool_ops_check() tells, whether
 * "pcpu" is registered, naming the cause when it is not. Linking the
 * static library with no reference to the driver drops its object file:
 * call rte_pcpu_mempool_ops_check() (or link with --whole-archive).
 */

#include <stdint.h>
/* ssize_t, which rte_mempool.h uses, is POSIX, not C11 */
#include <sys/types.h>

#include <rte_compat.h>
#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Name of the mempool ops of this library, for rte_mempool_set_ops_byname()
 * and the EAL option --mbuf-pool-ops-name (which would be refused). */
#define RTE_PCPU_MEMPOOL_OPS_NAME "pcpu"

/**
 * Flag of struct rte_pcpu_mempool_ops_conf: debug checks. A pool freed
 * with objects out keeps its percpu memory (never reused, so a stale
 * handle cannot corrupt another object) and rte_pcpu_audit() fails with
 * EFAULT naming it, until rte_pcpu_cleanup().
 */
#define RTE_PCPU_MEMPOOL_OPS_F_DEBUG 0x1u

/**
 * Configuration of a pool with "pcpu" ops: the pool_config argument of
 * rte_mempool_set_ops_byname(). Read at the pool's first populate; NULL
 * means all zero.
 */
struct rte_pcpu_mempool_ops_conf {
	uint32_t flags; /**< RTE_PCPU_MEMPOOL_OPS_F_*; other bits: EINVAL. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Check that the "pcpu" mempool ops are registered, and registered as the
 * first ops of that name (rte_mempool_set_ops_byname() takes the first).
 * rte_pcpu_init() runs the same check and logs the same line.
 *
 * @return
 *   0; or -1 with rte_errno and one log line naming the cause: ENOSPC
 *   (DPDK's table of RTE_MEMPOOL_MAX_OPS_IDX mempool ops was full when the
 *   library was loaded; the line lists the registered ops), EEXIST
 *   (other ops named "pcpu" were registered first).
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
int rte_pcpu_mempool_ops_check(void);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create and populate an rte_mempool with "pcpu" ops: rte_mempool_create()
 * with the driver set before population. The arguments mean what they
 * mean there, with objects that are percpu handles:
 *
 * @param name
 *   Pool name (RTE_MEMPOOL_NAMESIZE - 1 characters at most), each
 *   printable ASCII (0x20 to 0x7e) but '"' and '\\', no space at either
 *   end: it names the pool's
 *   owner, "mempool:" and @p name, with the rule of
 *   rte_pcpu_owner_create(). The same holds for any rte_mempool given the
 *   "pcpu" ops: populating one with another name fails with EINVAL.
 * @param n
 *   Number of objects.
 * @param elt_size
 *   Bytes of each object, per lcore copy; the pool's stride per object
 *   and per lcore with memory is given in the file description.
 * @param cache_size
 *   Per-lcore mempool cache, as rte_mempool_create() (at most
 *   RTE_MEMPOOL_CACHE_MAX_SIZE, and 1.5 times it at most @p n).
 * @param private_data_size
 *   Private area after the pool structure (rte_mempool_get_priv()).
 * @param mp_init
 *   NULL, or called once on the pool before it is populated.
 * @param mp_init_arg
 *   Its argument.
 * @param obj_init
 *   NULL, or called once per object after population, with the handle as
 *   @c obj. Every lcore's copy exists and is zero then; initialise each
 *   with RTE_PCPU_FOREACH(lcore_id, copy, (struct my_obj *)obj). Lcores
 *   that appear later find their copies zero.
 * @param obj_init_arg
 *   Its argument.
 * @param socket_id
 *   NUMA socket of the pool structure, its ring and its token (the
 *   objects' copies are each on their lcore's node), or SOCKET_ID_ANY.
 * @param flags
 *   RTE_MEMPOOL_F_* as rte_mempool_create(): RTE_MEMPOOL_F_NO_CACHE_ALIGN
 *   packs objects at 8-byte alignment, RTE_MEMPOOL_F_SP_PUT and
 *   RTE_MEMPOOL_F_SC_GET make the ring single-producer or -consumer;
 *   RTE_MEMPOOL_F_NO_IOVA_CONTIG is set whatever is passed.
 * @return
 *   The pool, or NULL with rte_errno: the errors of
 *   rte_mempool_create_empty() (EINVAL, ENAMETOOLONG, EEXIST, ENOMEM),
 *   EEXIST (an rte_ring is named "PC_" and @p name: the pool's ring),
 *   ENOSPC or EEXIST (the ops are not registered, see
 *   rte_pcpu_mempool_ops_check()), ENOSPC (every owner id without a limit
 *   is taken: each pool has its own owner, see rte_pcpu_owner.h), EINVAL
 *   (a pool that looks like an mbuf pool, a name with a character outside
 *   the rule of @p name, @p elt_size above RTE_PCPU_MAX_SIZE, or one
 *   object larger than RTE_PCPU_MAX_SIZE with its header and trailer),
 *   ENOMEM (the percpu memory could not be allocated: the populated-bytes
 *   limit, the address space, the system; nothing is kept), ENOTSUP (a
 *   secondary process: only the primary creates and populates "pcpu"
 *   pools). Each failure logs one line.
 *
 * Thread-safety: MT-safe, as rte_mempool_create(). Free the pool with
 * rte_mempool_free() once every object is back (see the file
 * description).
 */
__rte_experimental
struct rte_mempool *
rte_pcpu_mempool_ops_create(const char *name, unsigned int n,
		unsigned int elt_size, unsigned int cache_size,
		unsigned int private_data_size, rte_mempool_ctor_t *mp_init,
		void *mp_init_arg, rte_mempool_obj_cb_t *obj_init,
		void *obj_init_arg, int socket_id, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PCPU_MEMPOOL_OPS_H_ */
