/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FLOW_TABLE_H_
#define _FLOW_TABLE_H_

/**
 * @file
 * Flow table of dpdk-flowcount: an rte_hash (lock-free readers, several
 * writers) from struct flow_key to a counter block (flow_counters.h): by
 * default a handle of an rte_pcpu_mempool object, struct flow_counters,
 * of which every lcore has its own copy.
 *
 * - Workers (the receiving lcores) look flows up in bursts and update
 *   only their own copy: no lock, no atomic read-modify-write.
 * - New flows are inserted under a small lock (insert-if-absent, so two
 *   lcores seeing the same new flow share one entry); at --max-flows
 *   entries, packets of new flows go to the overflow bucket.
 * - The main lcore ages idle flows: it deletes them from the hash; the
 *   hash's RCU support (rte_hash_rcu_qsbr_add) hands the handle back only
 *   after every reader passed a quiescent state; then the copies are
 *   summed once more (final, exact) into the totals kept for the dump, and
 *   the handle goes back to the pool.
 */

#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "flow_counters.h"
#include "flow_parse.h"

/** Summed view of a flow. */
struct flow_stat {
	struct flow_key key;
	uint64_t packets;
	uint64_t bytes;
};

/** Counters a worker keeps of its flow table work (its own copy). */
struct flow_worker_stats {
	uint64_t flows_created;   /**< Flows this lcore inserted. */
	uint64_t overflow_pkts;   /**< Packets of flows not tracked. */
	uint64_t overflow_bytes;
};

struct flow_table;

/** Flow table configuration. */
struct flow_table_conf {
	uint32_t max_flows;     /**< Entries (live + waiting for RCU). */
	uint32_t max_totals;    /**< Distinct keys kept for the dump. */
	struct rte_rcu_qsbr *qsbr; /**< Readers: workers, main, telemetry. */
	int socket_id;
	/** Where the counters live (the speed comparison of schemes). */
	enum flow_counters_scheme scheme;
	/** Speed test only: look flows up (and insert new ones) but never
	 * touch their counters; every count stays 0. */
	int lookup_only;
};

/** Create the table, its pool and RCU defer queue; NULL on error. */
struct flow_table *flow_table_create(const struct flow_table_conf *conf);

/**
 * A worker's flow cache: a direct-mapped array, indexed by the key's hash,
 * of {key, this lcore's copy of the flow's counters}, in front of the
 * rte_hash. A hit costs one cache line and a 40-byte compare instead of
 * the bucket walk. Only its owner lcore uses it.
 *
 * Safety with aging: a cached pointer is a flow handle held across
 * bursts, which RCU alone does not allow (a worker holds no handle across
 * its quiescent state). So every entry carries the table's aging epoch
 * that its burst read, and is used only by bursts that read the same
 * epoch. After an aging pass deleted flows, the main lcore advances the
 * epoch and takes an RCU token; flow_table_reclaim() gives no deleted
 * handle back to the pool until every worker has passed a quiescent state
 * after that token, after which all its bursts read the new epoch.
 */
struct flow_cache;

/**
 * Create the calling worker's cache of @p entries (a power of two, at
 * least 16) entries of 64 bytes; NULL on error.
 */
struct flow_cache *flow_cache_create(struct flow_table *ft,
		uint32_t entries, int socket_id);

/** Free a cache (NULL is fine). */
void flow_cache_free(struct flow_cache *fc);

/**
 * A worker's deferred counter updates: the flows of one burst, looked up
 * and with this lcore's copy of their counters prefetched, whose counters
 * are updated only at flow_defer_flush(), which the worker calls once it
 * has routed and sent the burst, so that the prefetches have that time to
 * complete.
 *
 * It holds flow handles, which RCU allows only between two quiescent
 * states: the worker must call flow_defer_flush() before its next
 * rte_rcu_qsbr_quiescent() (and, as it does, before its next RX call, so
 * that counts are never behind while the input is idle or blocks). Only
 * its owner lcore uses it.
 */
struct flow_defer;

/** Create the calling worker's deferred updates; NULL on error. */
struct flow_defer *flow_defer_create(const struct flow_table *ft,
		int socket_id);

/** Free (NULL is fine); flush it first. */
void flow_defer_free(struct flow_defer *d);

/** Apply every held update (NULL is fine). */
void flow_defer_flush(struct flow_defer *d);

/**
 * Count a burst of packets on the calling lcore (a registered, online
 * RCU reader).
 *
 * @param fc The calling lcore's flow cache, or NULL for none.
 * @param d The calling lcore's deferred updates, or NULL to update the
 *   counters of this burst before returning. With @p d, this burst's
 *   updates are held in @p d (after applying any it still held) until
 *   flow_defer_flush().
 * @param keys Keys of the packets.
 * @param lens Packet lengths.
 * @param n Number of packets, at most 64.
 * @param now TSC now.
 * @param ws The calling lcore's worker statistics.
 */
void flow_table_count(struct flow_table *ft, struct flow_cache *fc,
		struct flow_defer *d, const struct flow_key *keys,
		const uint32_t *lens, unsigned int n, uint64_t now,
		struct flow_worker_stats *ws);

/**
 * Main lcore: delete flows idle for more than @p timeout_tsc, and fold the
 * handles whose grace period has ended into the totals.
 *
 * @param rcu_id RCU thread id of the caller (registered).
 * @return Flows deleted by this call.
 */
unsigned int flow_table_age(struct flow_table *ft, uint64_t now,
		uint64_t timeout_tsc, unsigned int rcu_id);

/** Main lcore: fold handles whose grace period has ended into totals. */
void flow_table_reclaim(struct flow_table *ft);

/** Table counters. */
struct flow_table_info {
	uint64_t live;      /**< Entries in the hash. */
	uint64_t aged;      /**< Flows deleted by aging. */
	uint64_t pending;   /**< Deleted, waiting for a grace period. */
	uint64_t max_flows;
	uint64_t totals;    /**< Distinct keys in the totals. */
	uint64_t totals_overflow_pkts; /**< Aged packets not kept (totals full). */
	uint64_t totals_overflow_bytes;
};

/** Read the table counters (any thread). */
void flow_table_info(const struct flow_table *ft, struct flow_table_info *i);

/** Which flows flow_table_top() ranks. */
enum flow_scope {
	FLOW_SCOPE_LIVE = 0, /**< Flows in the table now. */
	FLOW_SCOPE_AGED,     /**< Counts kept of flows aged out. */
	FLOW_SCOPE_ALL,      /**< Both, merged by key (the dump's rows). */
};

/**
 * Top @p n flows of @p scope by bytes, largest first. Any thread; flows
 * deleted by aging and still waiting for their grace period (a few
 * milliseconds) are in neither scope.
 *
 * @param rcu_id RCU thread id of the caller (registered; made online
 *   during the walk).
 * @return Number of entries written to @p out.
 */
unsigned int flow_table_top(struct flow_table *ft, struct flow_stat *out,
		unsigned int n, enum flow_scope scope, unsigned int rcu_id);

/**
 * Every flow counted so far: the totals of aged flows merged by key with
 * the live flows, sorted in dump order. Main lcore (the owner of the
 * totals) only; also after flow_table_finish().
 *
 * @param out Receives a malloc'd array (free() it).
 * @param rcu_id RCU thread id of the caller (registered).
 * @return Number of flows, or -1 on allocation failure.
 */
int flow_table_flows(struct flow_table *ft, struct flow_stat **out,
		unsigned int rcu_id);

/** Top-N insertion: keep @p out[0..n) sorted by bytes, largest first.
 * @return The new number of entries (at most @p max). */
unsigned int flow_stat_top_insert(struct flow_stat *out, unsigned int n,
		unsigned int max, const struct flow_stat *s);

/**
 * After the workers stopped (RCU offline): fold the live flows and every
 * pending one into the totals, return all handles, free hash and pool.
 * The totals stay readable with flow_table_flows().
 */
void flow_table_finish(struct flow_table *ft);

/** Free what is left. */
void flow_table_free(struct flow_table *ft);

#endif /* _FLOW_TABLE_H_ */
