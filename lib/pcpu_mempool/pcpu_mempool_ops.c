/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The "pcpu" rte_mempool ops (rte_pcpu_mempool_ops.h): a stock rte_mempool
 * whose objects are percpu handles.
 *
 * The driver adds placement only. calc_mem_size asks for a token (one
 * cache line of EAL memory that rte_mempool records as the pool's memory
 * chunk and frees with it); populate allocates the objects' memory as
 * blocks from the percpu allocator (pcpu_alloc_one(), spans for large
 * pools), charged to the pool's owner ("mempool:" and its name, created
 * by alloc, freed by free), and hands every object to rte_mempool's
 * callback, which writes the object header at the handle, in unit 0. The
 * store behind enqueue and dequeue is an rte_ring, as the ring_* ops have
 * it.
 *
 * Life of a pool's blocks: allocated by populate, all or none per call
 * (a populate that cannot get its memory frees what it took and places
 * nothing: it returns 0, since DPDK 22.11's rte_mempool_populate_iova()
 * mishandles a negative count); released by free, or by the next
 * populate once rte_mempool_free_memchunks() dropped every object (after
 * a failed rte_mempool_populate_default(): populated_size is 0 again).
 *
 * Objects still out when the pool is freed: one ERR line, and under
 * RTE_PCPU_MEMPOOL_OPS_F_DEBUG the blocks are kept in quarantine, where
 * rte_pcpu_audit() reports them. DPDK 22.11 gives a driver no public hook
 * before rte_mempool_free() drops the objects (its event callbacks are an
 * internal API), so the driver counts what that drop does:
 * rte_mempool_free_memchunks() dequeues one object at a time,
 * populated_size times, and the dequeues that find the ring empty are the
 * objects that were out or in an lcore's mempool cache (the caches are
 * not flushed, their lengths still stand when free runs). @c misses counts
 * single-object dequeues that found the ring empty since its last
 * enqueue or successful dequeue; if the ring was empty before the free,
 * misses from earlier gets add to it, but then every object was out or
 * cached, so the count is capped at the objects placed.
 *
 * Locks: ops_pools.lock guards the registry of pools with these ops, the
 * quarantine and every pool's block list (the audit reads them); placing
 * the objects runs without it. rte_mempool serialises a pool's own life
 * cycle (create, populate and free are not concurrent for one pool). Lock
 * order: this lock, then the allocator's. Invariant of a listed pool, at
 * any moment: objects in its ring <= populated_size <= objects in its
 * blocks (more only between a failed rte_mempool_populate_default() and
 * the next populate or the free).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_string_fns.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool_ops.h"
#include "pcpu_alloc.h"
#include "pcpu_fault.h"
#include "pcpu_front.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_mempool_ops.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"
#include "pcpu_util.h"

#define OPS_LOG_PREFIX "mempool ops: "
#define OPS_LOG(level, fmt, ...) \
	PCPU_LOG(level, OPS_LOG_PREFIX fmt, ##__VA_ARGS__)
/* OPS_LOG() of a failure's context (PCPU_LOG_CONTEXT()) */
#define OPS_LOG_CONTEXT(mark, fmt, ...) \
	PCPU_LOG_CONTEXT(mark, OPS_LOG_PREFIX fmt, ##__VA_ARGS__)

/* What calc_mem_size asks for: rte_mempool_populate_iova() needs some
 * memory to record as the chunk, and aligns it to a cache line. */
#define OPS_TOKEN_SIZE RTE_MEMPOOL_ALIGN
/* rte_mempool's object trailer: a cookie in its debug builds only. */
#ifdef RTE_LIBRTE_MEMPOOL_DEBUG
#define OPS_TRAILER_SIZE sizeof(struct rte_mempool_objtlr)
#else
#define OPS_TRAILER_SIZE 0
#endif
/* Objects enqueued at once while populating. */
#define OPS_ENQUEUE_BATCH 64u

/** A block of percpu memory holding consecutive objects of one pool. */
struct ops_block {
	void *h;           /**< Its handle (rte_pcpu_alloc()). */
	uint32_t nb_objs;  /**< Objects placed in it. */
};

/** A pool's driver data (mp->pool_data), in EAL memory so that a
 * secondary process can read its counts. */
struct ops_pool {
	struct rte_ring *ring;      /**< The store. */
	struct rte_mempool *mp;
	TAILQ_ENTRY(ops_pool) next; /**< Registry or quarantine. */
	uint32_t flags;             /**< RTE_PCPU_MEMPOOL_OPS_F_*. */
	uint32_t stride;            /**< Bytes from one object to the next. */
	uint32_t lead;              /**< Offset of the first object. */
	uint32_t tail;              /**< Bytes from an object's start to its
				      *  end: elt_size and the trailer. */
	uint32_t align;             /**< Of the blocks and the objects. */
	uint32_t block_objs;        /**< Most objects in one block. */
	uint32_t nb_blocks;
	uint32_t max_blocks;
	struct ops_block *blocks;   /**< malloc(): the primary's only. */
	/** The owner its blocks are charged to (the primary's only); NULL
	 * once rte_pcpu_cleanup() took it. */
	struct rte_pcpu_owner *owner;
	uint32_t misses;            /**< See the file comment. */
	uint32_t out_at_free;       /**< Objects out when it was freed. */
	int last_error;             /**< Why the last populate failed. */
	int dead;                   /**< rte_pcpu_cleanup() took the blocks. */
	char name[RTE_MEMPOOL_NAMESIZE];
};

TAILQ_HEAD(ops_pool_list, ops_pool);

static struct {
	pthread_mutex_t lock;
	struct ops_pool_list pools;       /**< Pools with these ops. */
	struct ops_pool_list quarantine;  /**< Freed with objects out
					    *  (F_DEBUG), blocks kept. */
	int ops_index;                    /**< Ours, or -1. */
	int register_ret;                 /**< rte_mempool_register_ops(). */
} ops_pools = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.pools = TAILQ_HEAD_INITIALIZER(ops_pools.pools),
	.quarantine = TAILQ_HEAD_INITIALIZER(ops_pools.quarantine),
	.ops_index = -1,
};

static inline struct ops_pool *
ops_pool_of(const struct rte_mempool *mp)
{
	return mp->pool_data;
}

/* ---------------------------------------------------------------------- */
/* Registration. */

static int
ops_check_quiet(int *first_index)
{
	int i;

	*first_index = -1;
	for (i = 0; i < (int)rte_mempool_ops_table.num_ops; i++) {
		if (strcmp(rte_mempool_ops_table.ops[i].name,
				RTE_PCPU_MEMPOOL_OPS_NAME) == 0) {
			*first_index = i;
			break;
		}
	}
	if (ops_pools.ops_index >= 0 && *first_index == ops_pools.ops_index)
		return 0;
	return ops_pools.ops_index < 0 ? ENOSPC : EEXIST;
}

int
rte_pcpu_mempool_ops_check(void)
{
	char names[RTE_MEMPOOL_MAX_OPS_IDX * (RTE_MEMPOOL_OPS_NAMESIZE + 1)];
	unsigned int i, nb = rte_mempool_ops_table.num_ops;
	int first, err, off = 0;

	err = ops_check_quiet(&first);
	if (err == 0)
		return 0;
	if (err == EEXIST) {
		OPS_LOG(ERR, "other mempool ops named \"%s\" were registered "
			"first (index %d, ours %d): rte_mempool_set_ops_byname() "
			"picks those", RTE_PCPU_MEMPOOL_OPS_NAME, first,
			ops_pools.ops_index);
	} else {
		names[0] = '\0';
		for (i = 0; i < nb && off < (int)sizeof(names); i++)
			off += snprintf(names + off, sizeof(names) - off, "%s%s",
				i ? " " : "", rte_mempool_ops_table.ops[i].name);
		OPS_LOG(ERR, "mempool ops \"%s\" not registered (%s): DPDK's "
			"table of RTE_MEMPOOL_MAX_OPS_IDX = %d ops was full when "
			"the library was loaded; registered: %s",
			RTE_PCPU_MEMPOOL_OPS_NAME,
			strerror(-ops_pools.register_ret),
			RTE_MEMPOOL_MAX_OPS_IDX, names);
	}
	rte_errno = err;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* Layout and refusals. */

/*
 * Whether @p mp is an mbuf pool: rte_pktmbuf_pool_init() has written its
 * private area, whose sizes make up the element size. An mbuf pool with
 * neither data room nor private area and no flag looks like any pool of
 * 128-byte objects with a zeroed private area: not taken for one.
 */
static int
ops_is_mbuf_pool(const struct rte_mempool *mp)
{
	const struct rte_pktmbuf_pool_private *pp;
	size_t want;

	if (mp->private_data_size < sizeof(*pp) ||
	    mp->elt_size < sizeof(struct rte_mbuf))
		return 0;
	pp = rte_mempool_get_priv((struct rte_mempool *)(uintptr_t)mp);
	if ((pp->flags & ~RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) != 0 ||
	    pp->mbuf_priv_size % RTE_MBUF_PRIV_ALIGN != 0 ||
	    (pp->mbuf_data_room_size == 0 && pp->mbuf_priv_size == 0 &&
	     pp->flags == 0))
		return 0;
	if (pp->flags & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF)
		want = sizeof(struct rte_mbuf) + pp->mbuf_priv_size +
			sizeof(struct rte_mbuf_ext_shared_info);
	else
		want = sizeof(struct rte_mbuf) + pp->mbuf_priv_size +
			pp->mbuf_data_room_size;
	return mp->elt_size == RTE_ALIGN_CEIL(want, sizeof(uint64_t));
}

/*
 * Lay objects out at the smallest stride the pool's flags allow: header,
 * element, trailer, rounded up to the alignment (a cache line unless
 * RTE_MEMPOOL_F_NO_CACHE_ALIGN, then 8 bytes). The first object sits at
 * the header rounded up to the alignment; every later one's header lies
 * in the stride's slack after the previous object. 0 or -EINVAL.
 */
static int
ops_layout(struct ops_pool *p, const struct rte_mempool *mp)
{
	uint64_t hdr = sizeof(struct rte_mempool_objhdr);
	uint64_t tlr = OPS_TRAILER_SIZE;
	uint64_t align = (mp->flags & RTE_MEMPOOL_F_NO_CACHE_ALIGN) ?
		sizeof(uint64_t) : RTE_MEMPOOL_ALIGN;
	uint64_t stride = RTE_ALIGN_CEIL(hdr + mp->elt_size + tlr, align);
	uint64_t lead = RTE_ALIGN_CEIL(hdr, align);

	if (lead + mp->elt_size + tlr > RTE_PCPU_MAX_SIZE) {
		OPS_LOG(ERR, "pool %s: an object of %u bytes takes %" PRIu64
			" with its header and trailer, more than "
			"RTE_PCPU_MAX_SIZE (%u)", mp->name, mp->elt_size,
			lead + mp->elt_size + tlr, RTE_PCPU_MAX_SIZE);
		return -EINVAL;
	}
	p->align = (uint32_t)align;
	p->stride = (uint32_t)stride;
	p->lead = (uint32_t)lead;
	p->tail = (uint32_t)(mp->elt_size + tlr);
	p->block_objs = (uint32_t)RTE_MIN((RTE_PCPU_MAX_SIZE - lead -
		p->tail) / stride + 1, (uint64_t)mp->size);
	return 0;
}

/* Bytes of a block of @p k objects. */
static inline size_t
ops_block_bytes(const struct ops_pool *p, uint32_t k)
{
	return (size_t)p->lead + (size_t)(k - 1) * p->stride + p->tail;
}

/* The listed or quarantined pool whose blocks are charged to owner @p id,
 * or NULL. Registry lock held. */
static const struct ops_pool *
ops_pool_of_owner(uint32_t id)
{
	const struct ops_pool *p;

	TAILQ_FOREACH(p, &ops_pools.pools, next)
		if (p->owner != NULL && p->owner->id == id)
			return p;
	TAILQ_FOREACH(p, &ops_pools.quarantine, next)
		if (p->owner != NULL && p->owner->id == id)
			return p;
	return NULL;
}

/*
 * rte_pcpu_zero() of [@p p, +@p size) inside block @p handle, charged to
 * owner @p owner (pcpu_front_zero_check_t). The owner names the pool (one
 * per pool, charged by nothing else), and the pool's layout places object
 * k of a block at lead + k * stride, elt_size bytes of element each; what
 * lies between (rte_mempool's header before each, the trailer and padding
 * after) is not the user's. The allocator found the range inside the
 * block, so an object it starts in exists.
 */
static const char *
ops_zero_check(uintptr_t handle, uint32_t owner, uintptr_t p, size_t size)
{
	const struct ops_pool *op;
	const char *why;
	uint64_t in, elt;

	pthread_mutex_lock(&ops_pools.lock);
	op = ops_pool_of_owner(owner);
	if (op == NULL) {
		why = "a block of no mempool with \"pcpu\" ops";
	} else {
		elt = op->tail - OPS_TRAILER_SIZE;
		in = p - handle;
		in = in < op->lead ? UINT64_MAX : (in - op->lead) % op->stride;
		if (in >= elt)
			why = "it starts outside every element of a mempool's "
				"objects (in an rte_mempool header or trailer)";
		else if (size > elt - in)
			why = "it runs past the end of a mempool object's "
				"element (elt_size bytes)";
		else
			why = NULL;
	}
	pthread_mutex_unlock(&ops_pools.lock);
	return why;
}

/* ---------------------------------------------------------------------- */
/* The ops. */

static int
ops_alloc(struct rte_mempool *mp)
{
	const struct rte_pcpu_mempool_ops_conf *conf = mp->pool_config;
	char owner_name[RTE_PCPU_OWNER_NAMESIZE];
	char rg_name[RTE_RING_NAMESIZE];
	unsigned int rg_flags = 0;
	struct ops_pool *p;
	int ret;

	/* rte_errno too: DPDK's callers pass the return value through */
	if (pcpu_proc_refuse("populating a \"pcpu\" rte_mempool"))
		return -ENOTSUP;
	if (ops_is_mbuf_pool(mp)) {
		OPS_LOG(ERR, "pool %s is an mbuf pool (rte_pktmbuf_pool_init()"
			" set it up): percpu objects cannot be mbufs (one "
			"buffer per NIC DMA, mbufs move between lcores); use "
			"another mempool ops", mp->name);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (conf != NULL && (conf->flags & ~RTE_PCPU_MEMPOOL_OPS_F_DEBUG)) {
		OPS_LOG(ERR, "pool %s: unknown flags %#x in its pool_config",
			mp->name, conf->flags);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (pcpu_name_check("mempool ops: populate", mp->name) != 0)
		return -EINVAL;
	if (pcpu_init_ensure("mempool ops: populate") != 0)
		return -rte_errno;
	p = pcpu_fault_rte_zmalloc_socket("pcpu_mempool_ops", sizeof(*p),
		RTE_CACHE_LINE_SIZE, mp->socket_id);
	if (p == NULL) {
		OPS_LOG(ERR, "pool %s: no memory for the driver data", mp->name);
		return -ENOMEM;
	}
	p->mp = mp;
	p->flags = conf != NULL ? conf->flags : 0;
	rte_strscpy(p->name, mp->name, sizeof(p->name));
	if (ops_layout(p, mp) != 0) {
		rte_free(p);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (mp->flags & RTE_MEMPOOL_F_SP_PUT)
		rg_flags |= RING_F_SP_ENQ;
	if (mp->flags & RTE_MEMPOOL_F_SC_GET)
		rg_flags |= RING_F_SC_DEQ;
	ret = snprintf(rg_name, sizeof(rg_name), "PC_%s", mp->name);
	if (ret < 0 || ret >= (int)sizeof(rg_name)) {
		rte_free(p);
		return -ENAMETOOLONG;
	}
	/* DPDK's failed create would log a line of its own */
	if (rte_ring_lookup(rg_name) != NULL) {
		OPS_LOG(ERR, "pool %s: its ring's name %s is taken", mp->name,
			rg_name);
		rte_free(p);
		return -EEXIST;
	}
	p->ring = pcpu_fault_rte_ring_create(rg_name,
		rte_align32pow2(mp->size + 1), mp->socket_id, rg_flags);
	if (p->ring == NULL) {
		ret = -rte_errno;
		OPS_LOG(ERR, "pool %s: cannot create its ring: %s", mp->name,
			rte_strerror(rte_errno));
		rte_free(p);
		return ret;
	}
	RTE_BUILD_BUG_ON(sizeof("mempool:") - 1 + RTE_MEMPOOL_NAMESIZE >
		RTE_PCPU_OWNER_NAMESIZE);
	snprintf(owner_name, sizeof(owner_name), "mempool:%s", mp->name);
	p->owner = pcpu_owner_create(owner_name, 0, PCPU_OWNER_KIND_MEMPOOL);
	if (p->owner == NULL) {
		ret = -rte_errno;
		rte_ring_free(p->ring);
		rte_free(p);
		return ret;
	}
	/* no DMA from percpu memory: never IOVA-contiguous, and the pool
	 * stays RTE_MEMPOOL_F_NON_IO (populate hands out RTE_BAD_IOVA) */
	mp->flags |= RTE_MEMPOOL_F_NO_IOVA_CONTIG;
	/* what dump and /mempool/info show: this layout, whose sum is the
	 * stride, not the one rte_mempool_create_empty() computed */
	mp->header_size = sizeof(struct rte_mempool_objhdr);
	mp->trailer_size = p->stride - mp->header_size - mp->elt_size;
	mp->pool_data = p;
	pthread_mutex_lock(&ops_pools.lock);
	TAILQ_INSERT_TAIL(&ops_pools.pools, p, next);
	pthread_mutex_unlock(&ops_pools.lock);
	return 0;
}

/* Give the blocks back to the allocator (not after rte_pcpu_cleanup()).
 * Registry lock held, or the pool unlisted. */
static void
ops_release_blocks(struct ops_pool *p)
{
	uint32_t i;

	for (i = 0; i < p->nb_blocks && !p->dead; i++)
		if (rte_pcpu_free(p->blocks[i].h) != 0)
			OPS_LOG(ERR, "pool %s: block %p not freed", p->name,
				p->blocks[i].h);
	free(p->blocks);
	p->blocks = NULL;
	p->nb_blocks = 0;
	p->max_blocks = 0;
}

/* The blocks are released: the owner goes. */
static void
ops_owner_free(struct ops_pool *p)
{
	if (p->owner != NULL &&
	    pcpu_owner_free(p->owner, 1u << PCPU_OWNER_KIND_MEMPOOL) != 0)
		OPS_LOG(ERR, "pool %s: its owner is not freed", p->name);
	p->owner = NULL;
}

/* Objects out when rte_mempool_free() dropped them (the file comment says
 * how): neither in the ring nor in an lcore's cache. */
static uint32_t
ops_objects_out(const struct ops_pool *p, const struct rte_mempool *mp)
{
	uint64_t placed = 0, cached = 0, missed;
	unsigned int i;

	for (i = 0; i < p->nb_blocks; i++)
		placed += p->blocks[i].nb_objs;
	if (mp->cache_size != 0)
		for (i = 0; i < RTE_MAX_LCORE; i++)
			cached += mp->local_cache[i].len;
	missed = RTE_MIN((uint64_t)p->misses, placed);
	return missed > cached ? (uint32_t)(missed - cached) : 0;
}

static void
ops_free(struct rte_mempool *mp)
{
	struct ops_pool *p = ops_pool_of(mp);

	if (p == NULL)
		return;
	if (!p->dead) {
		p->out_at_free = ops_objects_out(p, mp);
		if (p->out_at_free != 0)
			OPS_LOG(ERR, "rte_mempool_free(%s): %u objects still "
				"out: %s", p->name, p->out_at_free,
				(p->flags & RTE_PCPU_MEMPOOL_OPS_F_DEBUG) ?
				"its percpu memory is kept and "
				"rte_pcpu_audit() reports it" :
				"their handles now point into freed percpu "
				"memory; put every object back first");
	}
	mp->pool_data = NULL;
	rte_ring_free(p->ring);
	p->ring = NULL;
	pthread_mutex_lock(&ops_pools.lock);
	TAILQ_REMOVE(&ops_pools.pools, p, next);
	if (p->out_at_free != 0 && (p->flags & RTE_PCPU_MEMPOOL_OPS_F_DEBUG) &&
	    !p->dead && p->nb_blocks != 0) {
		/* quarantine: the memory stays allocated, the audit reports
		 * it (the record leaves EAL memory: nobody else reads it) */
		struct ops_pool *q = pcpu_fault_malloc(sizeof(*q));

		if (q != NULL) {
			*q = *p;
			q->mp = NULL;
			TAILQ_INSERT_TAIL(&ops_pools.quarantine, q, next);
			pthread_mutex_unlock(&ops_pools.lock);
			rte_free(p);
			return;
		}
	}
	pthread_mutex_unlock(&ops_pools.lock);
	/* unlisted: nobody else reads its blocks */
	ops_release_blocks(p);
	ops_owner_free(p);
	rte_free(p);
}

/* A miss counter that is 0 is only read: the common case writes
 * nothing shared beyond the ring. */
static inline void
ops_misses_reset(struct ops_pool *p)
{
	if (unlikely(__atomic_load_n(&p->misses, __ATOMIC_RELAXED) != 0))
		__atomic_store_n(&p->misses, 0, __ATOMIC_RELAXED);
}

static int
ops_enqueue(struct rte_mempool *mp, void * const *obj_table, unsigned int n)
{
	struct ops_pool *p = ops_pool_of(mp);

	ops_misses_reset(p);
	return rte_ring_enqueue_bulk(p->ring, obj_table, n, NULL) == 0 ?
		-ENOBUFS : 0;
}

static int
ops_dequeue(struct rte_mempool *mp, void **obj_table, unsigned int n)
{
	struct ops_pool *p = ops_pool_of(mp);

	/* a secondary maps the area read-only: it could not use an object
	 * (nor can it the ones an lcore cache of the pool would give it) */
	if (unlikely(pcpu_proc_refuse("rte_mempool_get of a \"pcpu\" pool")))
		return -ENOTSUP;
	if (likely(rte_ring_dequeue_bulk(p->ring, obj_table, n, NULL) != 0)) {
		ops_misses_reset(p);
		return 0;
	}
	if (n == 1)
		__atomic_fetch_add(&p->misses, 1, __ATOMIC_RELAXED);
	return -ENOBUFS;
}

static unsigned int
ops_get_count(const struct rte_mempool *mp)
{
	return rte_ring_count(ops_pool_of(mp)->ring);
}

static ssize_t
ops_calc_mem_size(const struct rte_mempool *mp __rte_unused,
		uint32_t obj_num __rte_unused, uint32_t pg_shift __rte_unused,
		size_t *min_chunk_size, size_t *align)
{
	*min_chunk_size = OPS_TOKEN_SIZE;
	*align = RTE_MEMPOOL_ALIGN;
	return OPS_TOKEN_SIZE;
}

/* Allocate blocks for @p n objects, appended to the pool's list: all or
 * none. Registry lock held. 0, or -errno (logged). */
static int
ops_take_blocks(struct ops_pool *p, uint32_t n)
{
	uint32_t want = p->nb_blocks + (n + p->block_objs - 1) / p->block_objs;
	uint32_t first = p->nb_blocks, k;
	unsigned int mark;
	struct ops_block *b;
	int err;

	if (want > p->max_blocks) {
		b = pcpu_fault_realloc(p->blocks, want * sizeof(*b));
		if (b == NULL) {
			OPS_LOG(ERR, "pool %s: no memory for its block list",
				p->name);
			return -ENOMEM;
		}
		p->blocks = b;
		p->max_blocks = want;
	}
	while (n > 0) {
		k = RTE_MIN(n, p->block_objs);
		b = &p->blocks[p->nb_blocks];
		mark = PCPU_LOG_MARK();
		b->h = pcpu_alloc_one(ops_block_bytes(p, k), p->align,
			p->owner->id);
		if (b->h == NULL) {
			err = rte_errno;
			OPS_LOG_CONTEXT(mark, "pool %s: no percpu memory for "
				"%u objects (%zu bytes per lcore): %s", p->name,
				k, ops_block_bytes(p, k), rte_strerror(err));
			while (p->nb_blocks > first)
				rte_pcpu_free(p->blocks[--p->nb_blocks].h);
			return -err;
		}
		b->nb_objs = k;
		p->nb_blocks++;
		n -= k;
	}
	return 0;
}

static int
ops_populate(struct rte_mempool *mp, unsigned int max_objs,
		void *vaddr __rte_unused, rte_iova_t iova __rte_unused,
		size_t len __rte_unused, rte_mempool_populate_obj_cb_t *obj_cb,
		void *obj_cb_arg)
{
	struct ops_pool *p = ops_pool_of(mp);
	void *batch[OPS_ENQUEUE_BATCH];
	uint32_t first, last, i, j, nb = 0;
	unsigned int mark;
	int ret;

	pthread_mutex_lock(&ops_pools.lock);
	/* rte_mempool_free_memchunks() dropped every object: the blocks
	 * are left over from a failed populate */
	if (mp->populated_size == 0 && p->nb_blocks != 0)
		ops_release_blocks(p);
	p->last_error = 0;
	first = p->nb_blocks;
	/* the headers go in unit 0, lcore 0 or not */
	mark = PCPU_LOG_MARK();
	ret = pcpu_alloc_handle_unit_ensure();
	if (ret != 0)
		OPS_LOG_CONTEXT(mark, "pool %s: unit 0 cannot get memory for "
			"the object headers", p->name);
	else
		ret = ops_take_blocks(p, max_objs);
	last = p->nb_blocks;
	pthread_mutex_unlock(&ops_pools.lock);
	if (ret != 0) {
		/* 0, not an error: see the file comment */
		p->last_error = -ret;
		return 0;
	}
	for (i = first; i < last; i++) {
		char *obj = (char *)p->blocks[i].h + p->lead;

		for (j = 0; j < p->blocks[i].nb_objs; j++, obj += p->stride) {
			obj_cb(mp, obj_cb_arg, obj, RTE_BAD_IOVA);
			batch[nb++] = obj;
			if (nb == OPS_ENQUEUE_BATCH) {
				rte_mempool_ops_enqueue_bulk(mp, batch, nb);
				nb = 0;
			}
		}
	}
	if (nb != 0)
		rte_mempool_ops_enqueue_bulk(mp, batch, nb);
	return (int)max_objs;
}

static const struct rte_mempool_ops ops_pcpu = {
	.name = RTE_PCPU_MEMPOOL_OPS_NAME,
	.alloc = ops_alloc,
	.free = ops_free,
	.enqueue = ops_enqueue,
	.dequeue = ops_dequeue,
	.get_count = ops_get_count,
	.calc_mem_size = ops_calc_mem_size,
	.populate = ops_populate,
};

/*
 * Registered from a constructor, so before rte_eal_init() loads DPDK's
 * driver plugins (which take 14 of the 16 slots in Debian's DPDK), and at
 * the class priority, so ahead of the drivers' own constructors (default
 * priority) in a static link too. The log type exists by then (it is
 * registered at the log priority).
 */
RTE_INIT_PRIO(pcpu_mempool_ops_register, CLASS)
{
	int ret = rte_mempool_register_ops(&ops_pcpu);

	ops_pools.register_ret = ret < 0 ? ret : 0;
	ops_pools.ops_index = ret;
	pcpu_front_zero_check_register(ops_zero_check);
	if (ret < 0)
		OPS_LOG(ERR, "cannot register mempool ops \"%s\": %s",
			RTE_PCPU_MEMPOOL_OPS_NAME, strerror(-ret));
}

/* ---------------------------------------------------------------------- */
/* The helper, the life cycle. */

struct rte_mempool *
rte_pcpu_mempool_ops_create(const char *name, unsigned int n,
		unsigned int elt_size, unsigned int cache_size,
		unsigned int private_data_size, rte_mempool_ctor_t *mp_init,
		void *mp_init_arg, rte_mempool_obj_cb_t *obj_init,
		void *obj_init_arg, int socket_id, unsigned int flags)
{
	struct rte_mempool *mp;
	int ret, err;

	if (name == NULL) {
		OPS_LOG(ERR, "create: no name");
		rte_errno = EINVAL;
		return NULL;
	}
	/* before DPDK rounds elt_size up to 8 in 32 bits, which wraps to a
	 * zero-sized element from UINT32_MAX - 6 on */
	if (elt_size > RTE_PCPU_MAX_SIZE) {
		OPS_LOG(ERR, "create %s: elt_size %u above RTE_PCPU_MAX_SIZE "
			"(%u)", name, elt_size, RTE_PCPU_MAX_SIZE);
		rte_errno = EINVAL;
		return NULL;
	}
	if (pcpu_name_check("mempool ops: create", name) != 0)
		return NULL;
	if (pcpu_init_refuse("rte_pcpu_mempool_ops_create"))
		return NULL;
	if (rte_pcpu_mempool_ops_check() != 0)
		return NULL;
	mp = rte_mempool_create_empty(name, n, elt_size, cache_size,
		private_data_size, socket_id, flags);
	if (mp == NULL) {
		err = rte_errno;
		OPS_LOG(ERR, "create %s: rte_mempool_create_empty(): %s",
			name, rte_strerror(err));
		rte_errno = err;
		return NULL;
	}
	ret = rte_mempool_set_ops_byname(mp, RTE_PCPU_MEMPOOL_OPS_NAME, NULL);
	if (ret != 0) {
		rte_mempool_free(mp);
		OPS_LOG(ERR, "create %s: set ops: %s", name, strerror(-ret));
		rte_errno = -ret;
		return NULL;
	}
	if (mp_init != NULL)
		mp_init(mp, mp_init_arg);
	ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		/* the driver knows the cause better than -ENOBUFS */
		err = mp->pool_data != NULL && ops_pool_of(mp)->last_error ?
			ops_pool_of(mp)->last_error : -ret;
		rte_mempool_free(mp);
		rte_errno = err;
		return NULL;
	}
	if (obj_init != NULL)
		rte_mempool_obj_iter(mp, obj_init, obj_init_arg);
	return mp;
}

/* The library's set-up: say at once if the ops are missing. */
static int
ops_layer_init(void)
{
	rte_pcpu_mempool_ops_check();
	return 0;
}

/*
 * The library is going away with pools alive: their blocks go back now
 * (so the allocator sees no object left), and each pool is emptied so
 * that a get fails and a later rte_mempool_free() reads no header from
 * the released area. Quarantined blocks are forgotten.
 */
static void
ops_layer_cleanup(void)
{
	struct ops_pool *p;
	struct rte_mempool *mp;
	void *obj;
	unsigned int l;

	pthread_mutex_lock(&ops_pools.lock);
	TAILQ_FOREACH(p, &ops_pools.pools, next) {
		mp = p->mp;
		OPS_LOG(WARNING, "cleanup: pool %s with \"%s\" ops still exists:"
			" emptied, free it before rte_pcpu_cleanup()", p->name,
			RTE_PCPU_MEMPOOL_OPS_NAME);
		while (rte_ring_dequeue(p->ring, &obj) == 0)
			;
		for (l = 0; l < RTE_MAX_LCORE && mp->cache_size != 0; l++)
			mp->local_cache[l].len = 0;
		STAILQ_INIT(&mp->elt_list);
		mp->populated_size = 0;
		ops_release_blocks(p);
		ops_owner_free(p);
		p->dead = 1;
	}
	/* the quarantine has served: the allocator goes */
	while ((p = TAILQ_FIRST(&ops_pools.quarantine)) != NULL) {
		TAILQ_REMOVE(&ops_pools.quarantine, p, next);
		ops_release_blocks(p);
		ops_owner_free(p);
		free(p);
	}
	pthread_mutex_unlock(&ops_pools.lock);
}

PCPU_INIT_LAYER(ops_layer, "mempool ops", ops_layer_init, ops_layer_cleanup)

/* ---------------------------------------------------------------------- */
/* The library's audit and dump. */

int
pcpu_mempool_ops_audit(char *msg, size_t len)
{
	const struct ops_pool *p;
	uint32_t i, objs;
	int ret = 0;

	pthread_mutex_lock(&ops_pools.lock);
	TAILQ_FOREACH(p, &ops_pools.quarantine, next) {
		snprintf(msg, len, "pool %s (\"%s\" ops) was freed with %u "
			"objects out; its percpu memory is kept",
			p->name, RTE_PCPU_MEMPOOL_OPS_NAME, p->out_at_free);
		ret = -1;
		goto out;
	}
	TAILQ_FOREACH(p, &ops_pools.pools, next) {
		for (i = 0, objs = 0; i < p->nb_blocks; i++) {
			objs += p->blocks[i].nb_objs;
			if (pcpu_alloc_obj_bytes(p->blocks[i].h) <
			    ops_block_bytes(p, p->blocks[i].nb_objs)) {
				snprintf(msg, len, "pool %s: block %p is not a "
					"live allocation of %zu bytes", p->name,
					p->blocks[i].h, ops_block_bytes(p,
						p->blocks[i].nb_objs));
				ret = -1;
				goto out;
			}
		}
		if (p->mp->populated_size > objs ||
		    rte_ring_count(p->ring) > p->mp->populated_size) {
			snprintf(msg, len, "pool %s: %u objects in blocks, %u "
				"populated, %u in its ring", p->name, objs,
				p->mp->populated_size, rte_ring_count(p->ring));
			ret = -1;
			goto out;
		}
	}
out:
	pthread_mutex_unlock(&ops_pools.lock);
	return ret;
}

void
pcpu_mempool_ops_dump(FILE *f)
{
	const struct ops_pool *p;

	pthread_mutex_lock(&ops_pools.lock);
	TAILQ_FOREACH(p, &ops_pools.pools, next)
		fprintf(f, "  mempool %s (\"%s\" ops): %u objects, stride %u, "
			"%u blocks, %u in the ring\n", p->name,
			RTE_PCPU_MEMPOOL_OPS_NAME, p->mp->populated_size,
			p->stride, p->nb_blocks, rte_ring_count(p->ring));
	TAILQ_FOREACH(p, &ops_pools.quarantine, next)
		fprintf(f, "  mempool %s (\"%s\" ops): freed with %u objects "
			"out, %u blocks kept\n", p->name,
			RTE_PCPU_MEMPOOL_OPS_NAME, p->out_at_free, p->nb_blocks);
	pthread_mutex_unlock(&ops_pools.lock);
}
