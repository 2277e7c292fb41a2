/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FLOW_COUNTERS_H_
#define _FLOW_COUNTERS_H_

/**
 * @file
 * Per-flow counter blocks of dpdk-flowcount, behind one small interface so
 * that the flow table does not depend on where the counters live.
 *
 * A block is what one flow counts into; the flow table stores its
 * reference (a non-NULL void *) as the data of the flow's hash entry. A
 * worker reaches its own counters of a flow with flow_counters_lcore() and
 * updates them with flow_counters_add(); any thread sums a block with
 * flow_counters_read(). Three schemes, chosen at creation:
 *
 * - FLOW_COUNTERS_PCPU: percpu objects of an rte_pcpu_mempool (the
 *   product): every lcore has its own copy, reached with one shift and one
 *   add from the handle, updated with plain stores.
 * - FLOW_COUNTERS_MEMPOOL: the same percpu objects, from a stock
 *   rte_mempool with the library's "pcpu" mempool ops
 *   (rte_pcpu_mempool_ops_create()): DPDK's own get and put, cache and
 *   tooling (/mempool/ telemetry, dpdk-proc-info); counted as PCPU.
 * - FLOW_COUNTERS_ATOMIC: one shared block per flow, updated with atomic
 *   adds by every lcore (what a flow entry with counters in it does).
 * - FLOW_COUNTERS_ARRAY: one array of blocks per lcore, allocated at start
 *   for the most flows, indexed by the flow's index (the static
 *   [lcore][flow] layout of VPP's counter vectors).
 *
 * A scheme is added here only: a case in the create, get, put and read
 * functions and in flow_counters_lcore(). A block is given back only after
 * its final read, which the flow table does once no worker can hold it.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_pcpu.h>

#include "flow_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where per-flow counters live. */
enum flow_counters_scheme {
	FLOW_COUNTERS_PCPU = 0, /**< rte_pcpu_mempool objects (default). */
	FLOW_COUNTERS_ATOMIC,   /**< Shared blocks, atomic adds. */
	FLOW_COUNTERS_ARRAY,    /**< Per-lcore arrays indexed by flow. */
	FLOW_COUNTERS_MEMPOOL,  /**< rte_mempool with "pcpu" ops. */
};

/**
 * One lcore's counters of one flow, and the flow's key: one cache line.
 * The key is written into every copy when the block is handed out, so
 * that a worker's flow cache (flow_table.h) checks the key on the very
 * line it then counts into: a cached flow costs the cache's line and this
 * one.
 */
struct flow_counters {
	uint64_t packets;   /**< Packets counted. */
	uint64_t bytes;     /**< Bytes (packet length) counted. */
	uint64_t last_seen; /**< TSC of the last packet counted. */
	struct flow_key key; /**< The flow's key (never changes). */
} __rte_aligned(64);

/** A set of counter blocks; the fields are read by the inline functions. */
struct flow_counter_blocks {
	enum flow_counters_scheme scheme;
	uint32_t capacity;                  /**< Blocks at most. */
	struct rte_pcpu_mempool *pool;      /**< PCPU: the pool. */
	struct rte_mempool *mempool;        /**< MEMPOOL: the pool. */
	struct flow_counters *shared;       /**< ATOMIC: capacity blocks. */
	struct rte_ring *free_idx;          /**< ATOMIC, ARRAY: free indexes. */
	/** ARRAY: each lcore's array of capacity blocks (NULL: no lcore). */
	struct flow_counters *lcore_arr[RTE_MAX_LCORE];
};

/** Creation parameters. */
struct flow_counters_conf {
	enum flow_counters_scheme scheme;
	uint32_t capacity;  /**< Blocks out at once, at most. */
	int socket_id;      /**< Memory of the shared parts. */
};

/**
 * Create a set of blocks.
 *
 * @return The set, or NULL with rte_errno set (EINVAL for a bad scheme or
 *   a zero capacity, ENOMEM).
 */
struct flow_counter_blocks *flow_counters_create(
		const struct flow_counters_conf *conf);

/** Free a set; every block must have been put back. NULL is fine. */
void flow_counters_free(struct flow_counter_blocks *fb);

/**
 * Get a block whose every lcore's counters are zero and hold @p key.
 *
 * @return Its reference, or NULL when none is left (or, PCPU, the pool
 *   cannot grow). MT-safe.
 */
void *flow_counters_get(struct flow_counter_blocks *fb,
		const struct flow_key *key);

/** Give a block back, after its final read. MT-safe. */
void flow_counters_put(struct flow_counter_blocks *fb, void *ref);

/**
 * Sum a block over all lcores with relaxed atomic loads: each field is
 * exact, the pair may be a few packets apart while workers count.
 *
 * @param last_seen Receives the newest last_seen of any lcore; may be NULL.
 */
void flow_counters_read(const struct flow_counter_blocks *fb, const void *ref,
		uint64_t *packets, uint64_t *bytes, uint64_t *last_seen);

/**
 * flow_counters_read() of a block that the reader found under @p key
 * without holding it (a secondary process, which takes no part in the
 * flow table's RCU): the block may have been given back and handed out
 * again for another flow meanwhile. The key every block carries tells:
 * the sums are taken, then the key checked.
 *
 * @return 0, or -1 when the block no longer counts @p key (nothing to
 *   report for it now).
 */
int flow_counters_read_key(const struct flow_counter_blocks *fb,
		const void *ref, const struct flow_key *key, uint64_t *packets,
		uint64_t *bytes);

/**
 * The owner of percpu memory the blocks are charged to (rte_pcpu_owner.h):
 * the pool's own owner, "pool:fc_flows" (PCPU) or "mempool:fc_flows_mp"
 * (MEMPOOL); NULL for the schemes without percpu memory.
 */
struct rte_pcpu_owner *flow_counters_owner(const struct flow_counter_blocks *fb);

/** Name of a scheme ("pcpu", "atomic", "array", "mempool"). */
const char *flow_counters_scheme_name(enum flow_counters_scheme s);

/** Scheme of a name; -1 if unknown. */
int flow_counters_scheme_parse(const char *name);

/**
 * The counters of block @p ref that lcore @p lcore_id updates: its own
 * copy (PCPU, ARRAY) or the shared block (ATOMIC).
 */
static __rte_always_inline struct flow_counters *
flow_counters_lcore(const struct flow_counter_blocks *fb,
		enum flow_counters_scheme scheme, void *ref, unsigned int lcore_id)
{
	switch (scheme) {
	case FLOW_COUNTERS_ATOMIC:
		return ref;
	case FLOW_COUNTERS_ARRAY:
		return fb->lcore_arr[lcore_id] + ((uintptr_t)ref - 1);
	case FLOW_COUNTERS_PCPU:
	case FLOW_COUNTERS_MEMPOOL:
	default:
		return RTE_PCPU_LCORE(lcore_id, (struct flow_counters *)ref);
	}
}

/**
 * Count one packet of @p len bytes at TSC @p now into @p c, as returned by
 * flow_counters_lcore() for the calling lcore. PCPU and ARRAY: the lcore
 * is the only writer, so a relaxed store is a plain store (readers load
 * atomically); ATOMIC: atomic adds, as every lcore writes the block.
 */
static __rte_always_inline void
flow_counters_add(enum flow_counters_scheme scheme, struct flow_counters *c,
		uint32_t len, uint64_t now)
{
	if (scheme == FLOW_COUNTERS_ATOMIC) {
		__atomic_fetch_add(&c->packets, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->bytes, len, __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&c->packets, c->packets + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&c->bytes, c->bytes + len, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->last_seen, now, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* _FLOW_COUNTERS_H_ */
