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

#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_vect.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include <rte_pcpu_owner.h>

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
	/** Packets whose flow was looked up in the rte_hash: those whose
	 * flow the flow cache did not give when their burst was matched
	 * (every packet of a new flow in the burst of its first, those of
	 * flows not tracked), every one without a flow cache. */
	uint64_t hash_lookups;
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
	 * update their counters; every count stays 0. */
	int lookup_only;
	/** Speed test only: flow_burst_count() adds each packet to the flow
	 * cache set its hash selects (struct flow_cache_set, floor) and
	 * looks nothing up: the least a counted packet costs (a key built
	 * and hashed, one line reached). The table stays empty. Needs flow
	 * caches. */
	int count_floor;
};

/** Create the table, its pool and RCU defer queue; NULL on error
 * (rte_errno: EINVAL, ENOMEM, or the pool's or the RCU's error), logged
 * at DEBUG only: the caller reports it. */
struct flow_table *flow_table_create(const struct flow_table_conf *conf);

/**
 * A worker's flow cache in front of the rte_hash: 4-way sets of 64 bytes,
 * indexed by the key's hash, each way the key's 32-bit signature and this
 * lcore's counters of the flow, on whose line the key is compared. A hit
 * costs the set's line and the counter line, which counting needs anyway.
 * Only its owner lcore uses it.
 *
 * Safety with aging: a cached pointer is a flow handle held across
 * bursts, which RCU alone does not allow (a worker holds no handle across
 * its quiescent state). So every set carries the table's aging epoch that
 * its burst read, and is used only by bursts that read the same epoch.
 * After an aging pass deleted flows, the main lcore advances the epoch and
 * takes an RCU token; flow_table_reclaim() gives no deleted handle back
 * until every worker has passed a quiescent state after that token, after
 * which all its bursts read the new epoch.
 *
 * The layout is here for flow_cache_prefetch(), which a worker calls
 * while it parses; flow_table.c alone reads and writes the sets.
 */
#define FLOW_CACHE_WAYS 4

/**
 * A miss that finds its set full replaces a way (the next in turn) once in
 * this many; the other times its flow is counted through the rte_hash and
 * not cached. Replacing at every miss, traffic that cycles through more
 * flows than a set holds (round robin over 100,000 flows: a set gets a
 * Poisson number of them, 1.5 on average, and 7% of the flows share a set
 * with four others or more) evicts each flow before it comes back, and
 * all of those flows miss; holding on, only those beyond the fourth miss
 * (1.7%). Replacing still, a set whose flows went quiet takes new ones
 * before the next aging pass empties it. The first miss of a full set is
 * one that replaces: in real captures a new flow mostly comes back soon,
 * and counting from it so that the eighth replaced cost more lookups
 * (the sample app guide, "A full set keeps its flows").
 * devtools/flow-cache-model.py models round robin: 6.90% of packets miss
 * replacing every time, 2.12% one time in 4, 1.77% one in 8, 1.69% one
 * in 64 or never.
 */
#define FLOW_CACHE_REPLACE_EVERY 8

/** One set of a flow cache: valid only while @c epoch is the table's. */
struct flow_cache_set {
	union {
		struct {
			/** The flows' hashes. */
			uint32_t sig[FLOW_CACHE_WAYS];
			/** This lcore's counters of each flow (NULL: empty
			 * way). */
			struct flow_counters *c[FLOW_CACHE_WAYS];
		};
		/** With flow_table_conf.count_floor: the counts of every
		 * packet whose hash selects this set (no ways, no epoch). */
		struct {
			uint64_t pkts;
			uint64_t bytes;
			uint64_t last;  /**< TSC of the last packet. */
		} floor;
	};
	uint64_t epoch;                 /**< The table's, read by its bursts. */
	uint32_t victim;                /**< Next way to replace. */
	uint32_t full_misses;           /**< Misses that found it full. */
} __rte_cache_aligned;

/** A worker's flow cache. */
struct flow_cache {
	uint32_t mask;                  /**< Sets - 1. */
	struct flow_cache_set *set;     /**< The sets. */
};

/**
 * The flow table's hash of @p key: rte_hash_crc() over its 40 bytes, the
 * function its rte_hash was created with. Inline, so that a key built in
 * registers is hashed without going through memory; where the build has
 * SSE4.2, with its CRC32-C instruction directly, which gives the same
 * value as rte_hash_crc() (that checks at every 8 bytes which
 * implementation it chose at start).
 */
static inline hash_sig_t
flow_table_hash(const struct flow_key *key)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	uint64_t w[5];
	uint64_t crc = 0;
	unsigned int i;

	RTE_BUILD_BUG_ON(sizeof(*key) != sizeof(w));
	memcpy(w, key, sizeof(w));
	for (i = 0; i < RTE_DIM(w); i++)
		crc = _mm_crc32_u64(crc, w[i]);
	return (hash_sig_t)crc;
#else
	return rte_hash_crc(key, sizeof(*key), 0);
#endif
}

/** The set of @p fc where the flow of hash @p sig is (or would be). */
static inline struct flow_cache_set *
flow_cache_set_of(const struct flow_cache *fc, hash_sig_t sig)
{
	return &fc->set[sig & fc->mask];
}

/**
 * Prefetch the set of @p fc (NULL: none) where the flow of hash @p sig
 * would be, so that its miss is in flight during the worker's other work
 * before flow_burst_count() reads it.
 */
static inline void
flow_cache_prefetch(const struct flow_cache *fc, hash_sig_t sig)
{
	if (fc != NULL)
		rte_prefetch0(flow_cache_set_of(fc, sig));
}

/**
 * Create the calling worker's cache of @p entries (a power of two, at
 * least 16; 16 bytes each); NULL on error (rte_errno EINVAL: a bad
 * @p entries; ENOMEM).
 */
struct flow_cache *flow_cache_create(struct flow_table *ft,
		uint32_t entries, int socket_id);

/** Free a cache (NULL is fine). */
void flow_cache_free(struct flow_cache *fc);

/**
 * A worker's burst in the flow table, counted in three stages so that
 * each stage's cache misses are in flight together: the caller hashes
 * each key and prefetches its flow cache set as it parses, and gives the
 * burst to the table (flow_burst_add_bulk()); then flow_burst_count()
 * matches the signatures and prefetches the counter lines, compares the
 * keys on them, looks the rest up in the rte_hash (inserting new flows)
 * and counts. The caller's work between the prefetch of a packet's set
 * and flow_burst_count() (the rest of the burst's parse and forwarding,
 * or with --pipeline the next RX call) gives the set's miss time.
 *
 * flow_burst_count() holds flow handles, which RCU allows only between
 * two quiescent states, and none once it returns: the burst holds keys
 * only between the two calls. Only its owner lcore uses it.
 */
struct flow_burst;

/**
 * Create the calling worker's burst state.
 *
 * @param fc The worker's flow cache, or NULL for none (not with
 *   flow_table_conf.count_floor).
 * @return The state, or NULL (rte_errno ENOMEM; EINVAL: the floor without
 *   a flow cache).
 */
struct flow_burst *flow_burst_create(struct flow_table *ft,
		struct flow_cache *fc, int socket_id);

/** Free (NULL is fine); count its packets first. */
void flow_burst_free(struct flow_burst *b);

/**
 * Give the burst its @p n packets (at most 64): packet i of flow
 * @p keys[i], whose flow_table_hash() is @p sigs[i], of @p lens[i] bytes.
 * The arrays are read until flow_burst_count() and must stay unchanged:
 * one call per burst, after its parse, which hashed each key and
 * prefetched its flow cache set (flow_cache_prefetch()).
 */
void flow_burst_add_bulk(struct flow_burst *b, const struct flow_key *keys,
		const hash_sig_t *sigs, const uint32_t *lens, unsigned int n);

/**
 * Look the burst's flows up and count every packet in its flow or in
 * overflow, at TSC @p now (the calling lcore is a registered, online RCU
 * reader); its worker statistics are @p ws. Nothing added is fine.
 */
void flow_burst_count(struct flow_burst *b, uint64_t now,
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
	uint64_t closed;    /**< Live when the table was finished (stop). */
	uint64_t max_flows;
	uint64_t totals;    /**< Distinct keys in the totals. */
	uint64_t totals_overflow_pkts; /**< Aged packets not kept (totals full). */
	uint64_t totals_overflow_bytes;
	/** Name of the owner of the counter blocks' percpu memory (NULL: a
	 * scheme without it), and what it holds (once the blocks are freed,
	 * what it held then). */
	const char *counters_owner;
	struct rte_pcpu_owner_stats counters_mem;
	/** 0 when counters_mem holds the owner's figures; else the
	 * rte_errno of reading them (counters_mem is then zeroed and
	 * means nothing). */
	int counters_mem_errno;
};

/**
 * Read the table counters: any thread of the process that made the table,
 * or a secondary process reading the primary's table (the owner's figures
 * then come from the primary, one request to it).
 */
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
 * flow_table_flows() for a reader in another process (a DPDK secondary
 * process: dpdk-flowcount --monitor): no lock, no RCU, no key lookup
 * (rte_hash's hash function pointer is the creating process's). The
 * totals of aged flows are merged by key with the live flows, whose
 * counter blocks are checked to still count the key they were found
 * under. Exact once the primary's workers and aging are idle; while they
 * run, a flow being aged out may be missing, or counted twice, for a
 * moment.
 *
 * @param out Receives a malloc'd array, sorted in dump order (free() it).
 * @return Number of flows, or -1 on allocation failure.
 */
int flow_table_flows_reader(const struct flow_table *ft,
		struct flow_stat **out);

/**
 * flow_table_top() for a reader in another process, under the rules of
 * flow_table_flows_reader().
 *
 * @return Number of entries written to @p out.
 */
unsigned int flow_table_top_reader(const struct flow_table *ft,
		struct flow_stat *out, unsigned int n, enum flow_scope scope);

/**
 * After the workers stopped (RCU offline): fold the live flows and every
 * pending one into the totals, return all handles, free hash and pool.
 * The totals stay readable with flow_table_flows().
 */
void flow_table_finish(struct flow_table *ft);

/** Free what is left. */
void flow_table_free(struct flow_table *ft);

#endif /* _FLOW_TABLE_H_ */
