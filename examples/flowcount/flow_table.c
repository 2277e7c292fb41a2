/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Flow table of dpdk-flowcount, see flow_table.h.
 *
 * Life of a flow entry:
 *   insert (worker, under add_lock): flow_counters_get() (every lcore's
 *     copy zeroed) -> rte_hash_add_key_data(key, handle)
 *   count (worker): flow_counters_lcore(handle, self)->packets/bytes/
 *     last_seen, plain (relaxed atomic) stores into the lcore's own copy
 *     (atomic adds into the shared block with --counters atomic)
 *   age (main): rte_hash_del_key(); remember handle -> key (pending)
 *   grace period over (rte_hash RCU defer queue, on whichever thread
 *     reclaims): free_key_data() pushes the handle on reclaim_ring
 *   reclaim (main): sum the copies one last time (no writer can touch them
 *     any more, so the sum is exact), add them to the totals under the key,
 *     give the handle back (flow_counters_put()).
 *
 * The totals (main lcore only) keep every aged flow's counts merged by key,
 * so a flow that ages out and comes back appears once in the dump.
 *
 * A reader in another process (dpdk-flowcount --monitor, a DPDK secondary
 * process) sees the table, the hashes, the totals and the counter blocks
 * in EAL's shared memory, at the same addresses. It takes no lock and no
 * part in RCU (a reader that is killed must hold the primary up in
 * nothing): it iterates the flows' hash (lock-free for readers) and the
 * totals' array, and checks that each counter block still carries the
 * key it was found under (flow_counters_read_key()). It never looks a key
 * up: rte_hash calls its hash function through a pointer, valid only in
 * the process that created the table.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_spinlock.h>
#include <rte_vect.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "flow_table.h"
#include "pcpu_compat.h"

#define BURST_MAX 64
#define AGE_BATCH 1024

struct pending {
	struct flow_key key;
};

struct total {
	struct flow_key key;
	uint64_t packets;
	uint64_t bytes;
};

struct flow_table {
	struct rte_hash *h;             /* key -> block, lock-free readers */
	struct flow_counter_blocks *blocks; /* the flows' counters */
	/* the owner they are charged to (NULL: no percpu memory); its
	 * record outlives it, so readers may ask it at any time, and its
	 * last figures and name are kept when the blocks are freed */
	struct rte_pcpu_owner *owner;
	struct rte_pcpu_owner_stats owner_final;
	char owner_name[RTE_PCPU_OWNER_NAMESIZE];
	struct rte_ring *reclaim_ring;  /* handles past their grace period */
	struct rte_hash *pending;       /* handle -> key (main only) */
	struct rte_hash *totals;        /* key -> struct total (main writes) */
	/* taken by main to change the totals, by other threads to read
	 * them; main reads them without it */
	pthread_mutex_t totals_lock;
	struct rte_rcu_qsbr *qsbr;
	uint32_t max_flows;
	uint32_t max_totals;
	rte_spinlock_t add_lock;        /* insert-if-absent */
	uint32_t out;                   /* blocks out (atomic) */
	uint64_t aged;                  /* written by main only */
	uint64_t closed;                /* live at flow_table_finish() */
	uint64_t nb_pending;            /* written by main only */
	uint64_t nb_totals;             /* written by main only */
	uint64_t totals_overflow_pkts;
	uint64_t totals_overflow_bytes;
	struct total *total_mem;        /* max_totals entries */
	struct pending *pending_mem;    /* indexed by pending hash position */
	int finished;
	uint32_t nb_caches;             /* flow caches created (atomic) */
	int epoch_wait;                 /* reclaim waits for epoch_token */
	uint64_t epoch_token;           /* RCU token taken after the epoch */
	int lookup_only;                /* speed test: no counter updates */
	int count_floor;                /* speed test: no lookup at all */
	/* aging epoch: advanced by main after it deleted flows, read by
	 * the workers at the start of every burst (flow caches) */
	uint64_t epoch __rte_cache_aligned;
};

/*
 * A worker's burst in the flow table (owner lcore only), counted in three
 * stages so that each one's cache misses are in flight together: the
 * worker hashes the keys and prefetches their flow cache sets as it
 * parses (flow_table_hash(), flow_cache_prefetch()); flow_burst_count()
 * matches the signatures and prefetches the counter lines (stage 2), then
 * compares the keys on those lines, looks the rest up in the rte_hash
 * (inserting new flows), and counts (stage 3).
 */
struct flow_burst {
	struct flow_table *ft;
	struct flow_cache *fc;          /* NULL: the rte_hash alone */
	struct flow_worker_stats *ws;
	enum flow_counters_scheme scheme;
	unsigned int n;                 /* keys added, hashed */
	uint64_t now;
	uint64_t epoch;
	const struct flow_key *key;     /* the caller's n keys, */
	const hash_sig_t *sig;          /* their hashes */
	const uint32_t *len;            /* and packet lengths */
	struct flow_counters *c[BURST_MAX];  /* this lcore's, or candidate */
} __rte_cache_aligned;

/* Once per packet: the 40 bytes as two 16-byte vectors and a 64-bit word
 * where the build has SSE4.1 (about half the instructions of five 64-bit
 * words), else as five words. */
static inline int
key_eq(const struct flow_key *a, const struct flow_key *b)
{
	uint64_t x4, y4;

	RTE_BUILD_BUG_ON(sizeof(struct flow_key) != 40);
	memcpy(&x4, (const uint8_t *)a + 32, sizeof(x4));
	memcpy(&y4, (const uint8_t *)b + 32, sizeof(y4));
#if defined(RTE_ARCH_X86) && defined(__SSE4_1__)
	{
		__m128i d = _mm_or_si128(
			_mm_xor_si128(_mm_loadu_si128((const void *)a),
				_mm_loadu_si128((const void *)b)),
			_mm_xor_si128(_mm_loadu_si128(
				(const void *)((const uint8_t *)a + 16)),
				_mm_loadu_si128(
				(const void *)((const uint8_t *)b + 16))));

		return _mm_testz_si128(d, d) & (x4 == y4);
	}
#else
	{
		uint64_t x[4], y[4];

		memcpy(x, a, sizeof(x));
		memcpy(y, b, sizeof(y));
		return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
			(x[3] ^ y[3]) | (x4 ^ y4)) == 0;
	}
#endif
}

static inline void
counter_add(uint64_t *c, uint64_t v)
{
	/* only the owning lcore writes: a relaxed store is a plain store */
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

/* rte_hash RCU: called once a deleted entry's grace period has ended, on
 * the thread that reclaims (main in rte_hash_del_key/free, a worker when
 * an add finds no free slot). Hand the handle to the main lcore. */
static void
free_key_data(void *p, void *key_data)
{
	struct flow_table *ft = p;

	if (key_data == NULL)   /* the reclaim sentinel, see kick_reclaim() */
		return;
	if (rte_ring_mp_enqueue(ft->reclaim_ring, key_data) != 0)
		RTE_LOG(ERR, USER1, "flowcount: reclaim ring full, handle %p "
			"lost\n", key_data);
}

static struct rte_hash *
make_hash(const char *name, uint32_t entries, uint32_t key_len, int socket,
		uint8_t flags)
{
	struct rte_hash_parameters p = {
		.name = name,
		.entries = RTE_MAX(entries, 64u),
		.key_len = key_len,
		.hash_func = rte_hash_crc,
		.hash_func_init_val = 0,
		.socket_id = socket,
		.extra_flag = flags,
	};
	struct rte_hash *h;

	/* rte_hash_create() says EINVAL or EEXIST itself, but not that
	 * memory ran out: rte_errno is then as an earlier lookup left it
	 * (ENOENT) */
	rte_errno = 0;
	h = rte_hash_create(&p);
	if (h == NULL && (rte_errno == 0 || rte_errno == ENOENT))
		rte_errno = ENOMEM;
	return h;
}

struct flow_table *
flow_table_create(const struct flow_table_conf *conf)
{
	struct rte_hash_rcu_config rcfg = { 0 };
	struct flow_table *ft;
	uint32_t n;

	if (conf->max_flows == 0 || conf->qsbr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	ft = rte_zmalloc_socket("flow_table", sizeof(*ft), RTE_CACHE_LINE_SIZE,
		conf->socket_id);
	if (ft == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ft->max_flows = conf->max_flows;
	ft->max_totals = RTE_MAX(conf->max_totals, 64u);
	ft->qsbr = conf->qsbr;
	ft->lookup_only = conf->lookup_only;
	ft->count_floor = conf->count_floor;
	rte_spinlock_init(&ft->add_lock);
	pthread_mutex_init(&ft->totals_lock, NULL);

	/* Cuckoo hashing may refuse an insert before it is full: give it
	 * twice the room; --max-flows is enforced by the handle count. */
	ft->h = make_hash("fc_flows", conf->max_flows * 2,
		sizeof(struct flow_key), conf->socket_id,
		RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
		RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD);
	if (ft->h == NULL)
		goto fail;
	rcfg.v = conf->qsbr;
	rcfg.mode = RTE_HASH_QSBR_MODE_DQ;
	/* reclaim everything whose grace period is over at each delete */
	rcfg.trigger_reclaim_limit = 0;
	rcfg.max_reclaim_size = conf->max_flows * 2;
	rcfg.key_data_ptr = ft;
	rcfg.free_key_data_func = free_key_data;
	if (rte_hash_rcu_qsbr_add(ft->h, &rcfg) != 0)
		goto fail;

	/* the flow limit itself is ft->out */
	n = conf->max_flows;
	ft->blocks = flow_counters_create(&(struct flow_counters_conf){
		.scheme = conf->scheme,
		.capacity = n,
		.socket_id = conf->socket_id,
	});
	if (ft->blocks == NULL)
		goto fail;
	ft->owner = flow_counters_owner(ft->blocks);
	if (ft->owner != NULL)
		snprintf(ft->owner_name, sizeof(ft->owner_name), "%s",
			rte_pcpu_owner_name(ft->owner));
	ft->reclaim_ring = rte_ring_create("fc_reclaim",
		rte_align32pow2(n + 1), conf->socket_id, RING_F_SC_DEQ);
	if (ft->reclaim_ring == NULL)
		goto fail;
	ft->pending = make_hash("fc_pending", n, sizeof(void *),
		conf->socket_id, 0);
	ft->totals = make_hash("fc_totals", ft->max_totals,
		sizeof(struct flow_key), conf->socket_id, 0);
	if (ft->pending == NULL || ft->totals == NULL)
		goto fail;
	/* EAL memory: a secondary process reads the totals (the monitor) */
	ft->total_mem = rte_zmalloc_socket("fc_totals_mem",
		(size_t)ft->max_totals * sizeof(*ft->total_mem), 0,
		conf->socket_id);
	ft->pending_mem = calloc((size_t)rte_hash_max_key_id(ft->pending) + 1,
		sizeof(*ft->pending_mem));
	if (ft->total_mem == NULL || ft->pending_mem == NULL) {
		rte_errno = ENOMEM;
		goto fail;
	}
	return ft;
fail:
	/* the caller says it, with what it was creating the table for */
	RTE_LOG(DEBUG, USER1, "flowcount: flow table: %s\n",
		rte_strerror(rte_errno));
	flow_table_free(ft);
	return NULL;
}

struct flow_cache *
flow_cache_create(struct flow_table *ft, uint32_t entries, int socket_id)
{
	struct flow_cache *fc;
	uint32_t sets = entries / FLOW_CACHE_WAYS;

	if (entries < 16 || !rte_is_power_of_2(entries)) {
		rte_errno = EINVAL;
		return NULL;
	}
	fc = rte_zmalloc_socket("flow_cache", sizeof(*fc), RTE_CACHE_LINE_SIZE,
		socket_id);
	if (fc == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	fc->set = rte_zmalloc_socket("flow_cache_set",
		(size_t)sets * sizeof(*fc->set), RTE_CACHE_LINE_SIZE,
		socket_id);
	if (fc->set == NULL) {
		rte_free(fc);
		rte_errno = ENOMEM;
		return NULL;
	}
	fc->mask = sets - 1;
	__atomic_fetch_add(&ft->nb_caches, 1, __ATOMIC_RELEASE);
	return fc;
}

void
flow_cache_free(struct flow_cache *fc)
{
	if (fc == NULL)
		return;
	rte_free(fc->set);
	rte_free(fc);
}

/* Insert-if-absent; returns the flow's handle, or NULL when the flow
 * cannot be tracked (table full). */
static struct flow_counters *
flow_insert(struct flow_table *ft, const struct flow_key *key,
		struct flow_worker_stats *ws)
{
	void *handle = NULL;

	rte_spinlock_lock(&ft->add_lock);
	if (rte_hash_lookup_data(ft->h, key, &handle) >= 0)
		goto out;
	handle = NULL;
	if (__atomic_load_n(&ft->out, __ATOMIC_RELAXED) >= ft->max_flows)
		goto out;
	handle = flow_counters_get(ft->blocks, key);
	if (handle == NULL)
		goto out;
	if (rte_hash_add_key_data(ft->h, key, handle) != 0) {
		/* never published: no reader can hold it */
		flow_counters_put(ft->blocks, handle);
		handle = NULL;
		goto out;
	}
	__atomic_fetch_add(&ft->out, 1, __ATOMIC_RELAXED);
	counter_add(&ws->flows_created, 1);
out:
	rte_spinlock_unlock(&ft->add_lock);
	return handle;
}

struct flow_burst *
flow_burst_create(struct flow_table *ft, struct flow_cache *fc,
		int socket_id)
{
	struct flow_burst *b;

	/* the floor counts in the flow cache's sets */
	if (ft->count_floor && fc == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	b = rte_zmalloc_socket("flow_burst", sizeof(*b), RTE_CACHE_LINE_SIZE,
		socket_id);
	if (b == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	b->ft = ft;
	b->fc = fc;
	b->scheme = ft->blocks->scheme;
	return b;
}

void
flow_burst_free(struct flow_burst *b)
{
	rte_free(b);
}

void
flow_burst_add_bulk(struct flow_burst *b, const struct flow_key *keys,
		const hash_sig_t *sigs, const uint32_t *lens, unsigned int n)
{
	RTE_ASSERT(b->n == 0 && n <= BURST_MAX);
	b->key = keys;
	b->sig = sigs;
	b->len = lens;
	b->n = n;
}

/*
 * Cache the flow of hash @sig, whose counters on this lcore are @c, in its
 * set of @fc, the epoch of whose burst is @epoch: nothing when an earlier
 * packet of the burst cached it (a flow takes one way); else an empty
 * way; else, one time in FLOW_CACHE_REPLACE_EVERY, the next way in turn.
 * The one writer of the sets' ways, called for the packets the rte_hash
 * was asked about: kept out of line, off the path of the hits.
 */
static __rte_noinline void
flow_cache_fill(struct flow_cache *fc, uint64_t epoch, hash_sig_t sig,
		struct flow_counters *c)
{
	struct flow_cache_set *e = flow_cache_set_of(fc, sig);
	unsigned int w, empty = FLOW_CACHE_WAYS;

	RTE_BUILD_BUG_ON(sizeof(struct flow_cache_set) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(!RTE_IS_POWER_OF_2(FLOW_CACHE_REPLACE_EVERY));
	if (e->epoch != epoch) {
		memset(e->c, 0, sizeof(e->c));
		e->epoch = epoch;
	}
	for (w = 0; w < FLOW_CACHE_WAYS; w++) {
		if (e->c[w] == c)
			return;
		if (e->c[w] == NULL && empty == FLOW_CACHE_WAYS)
			empty = w;
	}
	w = empty;
	if (w == FLOW_CACHE_WAYS) {
		if (e->full_misses++ % FLOW_CACHE_REPLACE_EVERY != 0)
			return;
		w = e->victim;
		e->victim = (w + 1) % FLOW_CACHE_WAYS;
	}
	e->sig[w] = sig;
	e->c[w] = c;
}

/* Find the flows of @idx[0..nm) in the rte_hash (inserting new ones), set
 * b->c[] to this lcore's counters of each (NULL: not tracked), cache them
 * in the flow cache as its replacement rule allows, and prefetch the
 * counters when @prefetch. */
static __rte_always_inline void
flow_burst_lookup(struct flow_burst *b, const uint8_t *idx, unsigned int nm,
		int prefetch, enum flow_counters_scheme scheme)
{
	struct flow_table *ft = b->ft;
	const void *kp[BURST_MAX];
	hash_sig_t sig[BURST_MAX];
	void *data[BURST_MAX];
	uint64_t hits = 0;
	unsigned int lcore = rte_lcore_id();
	unsigned int i;

	counter_add(&b->ws->hash_lookups, nm);
	for (i = 0; i < nm; i++) {
		kp[i] = &b->key[idx[i]];
		sig[i] = b->sig[idx[i]];
	}
	rte_hash_lookup_with_hash_bulk_data(ft->h, kp, sig, nm, &hits, data);
	for (i = 0; i < nm; i++) {
		unsigned int k = idx[i];
		void *h;

		if (likely(hits & (UINT64_C(1) << i)))
			h = data[i];
		else
			h = flow_insert(ft, &b->key[k], b->ws);
		if (unlikely(h == NULL)) {
			b->c[k] = NULL;
			continue;
		}
		b->c[k] = flow_counters_lcore(ft->blocks, scheme, h, lcore);
		if (prefetch)
			rte_prefetch0(b->c[k]);
		if (b->fc != NULL)
			flow_cache_fill(b->fc, b->epoch, b->sig[k], b->c[k]);
	}
}

/* Count packet @i of the burst in @c, this lcore's counters of its flow
 * (NULL: the flow is not tracked). */
static __rte_always_inline void
flow_burst_count_one(struct flow_burst *b, enum flow_counters_scheme scheme,
		int lookup_only, struct flow_counters *c, unsigned int i)
{
	if (unlikely(c == NULL)) {
		counter_add(&b->ws->overflow_pkts, 1);
		counter_add(&b->ws->overflow_bytes, b->len[i]);
	} else if (!lookup_only) {
		flow_counters_add(scheme, c, b->len[i], b->now);
	}
}

/* Stage 3 and the counter updates (see struct flow_burst): a packet whose
 * candidate line carries its key is counted at once; the others are
 * looked up in the rte_hash, together, and counted after. */
static __rte_always_inline void
flow_burst_finish(struct flow_burst *b, enum flow_counters_scheme scheme,
		int lookup_only)
{
	uint8_t idx[BURST_MAX];
	unsigned int i, nm = 0;

	if (b->fc == NULL) {
		/* the rte_hash gave the counters at count */
		for (i = 0; i < b->n; i++)
			flow_burst_count_one(b, scheme, lookup_only, b->c[i],
				i);
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		struct flow_counters *c = b->c[i];

		if (likely(c != NULL && key_eq(&c->key, &b->key[i])))
			flow_burst_count_one(b, scheme, lookup_only, c, i);
		else
			idx[nm++] = (uint8_t)i;
	}
	if (likely(nm == 0))
		goto out;
	flow_burst_lookup(b, idx, nm, 0, scheme);
	for (i = 0; i < nm; i++)
		flow_burst_count_one(b, scheme, lookup_only, b->c[idx[i]],
			idx[i]);
out:
	b->n = 0;
}

/* Stage 2 (see struct flow_burst): with a flow cache, the sets' ways give
 * candidate counter lines; without, the rte_hash gives the counters. */
static __rte_always_inline void
flow_burst_match(struct flow_burst *b, enum flow_counters_scheme scheme)
{
	uint8_t idx[BURST_MAX];
	unsigned int i, w;

	if (b->fc == NULL) {
		for (i = 0; i < b->n; i++)
			idx[i] = (uint8_t)i;
		flow_burst_lookup(b, idx, b->n, 1, scheme);
		return;
	}
	for (i = 0; i < b->n; i++) {
		const struct flow_cache_set *e =
			flow_cache_set_of(b->fc, b->sig[i]);

		b->c[i] = NULL;
		if (unlikely(e->epoch != b->epoch))
			continue;
		for (w = 0; w < FLOW_CACHE_WAYS; w++)
			if (e->sig[w] == b->sig[i] && e->c[w] != NULL) {
				b->c[i] = e->c[w];
				rte_prefetch0(b->c[i]);
				break;
			}
	}
}

/* Stages 2 and 3 of scheme @scheme. */
static __rte_always_inline void
flow_burst_match_finish(struct flow_burst *b,
		enum flow_counters_scheme scheme, int lookup_only)
{
	flow_burst_match(b, scheme);
	flow_burst_finish(b, scheme, lookup_only);
}

/* The speed test flow_table_conf.count_floor: each packet is added to
 * the flow cache set its hash selects, as if the set were its flow's
 * counters, found with no way to match and no key to compare. */
static void
flow_burst_floor(struct flow_burst *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		struct flow_cache_set *e = flow_cache_set_of(b->fc, b->sig[i]);

		counter_add(&e->floor.pkts, 1);
		counter_add(&e->floor.bytes, b->len[i]);
		__atomic_store_n(&e->floor.last, b->now, __ATOMIC_RELAXED);
	}
	b->n = 0;
}

void
flow_burst_count(struct flow_burst *b, uint64_t now,
		struct flow_worker_stats *ws)
{
	if (b->n == 0)
		return;
	b->now = now;
	b->ws = ws;
	if (unlikely(b->ft->count_floor)) {
		flow_burst_floor(b);
		return;
	}
	/* Flow cache sets of an older epoch may hold deleted flows: not
	 * used. The acquire pairs with the release in flow_table_age(): a
	 * burst that sees the new epoch also sees the deletes. */
	if (b->fc != NULL)
		b->epoch = __atomic_load_n(&b->ft->epoch, __ATOMIC_ACQUIRE);
	if (unlikely(b->ft->lookup_only)) {
		flow_burst_match_finish(b, b->scheme, 1);
		return;
	}
	/* one copy of the stages per scheme: no switch per packet */
	switch (b->scheme) {
	case FLOW_COUNTERS_ATOMIC:
		flow_burst_match_finish(b, FLOW_COUNTERS_ATOMIC, 0);
		break;
	case FLOW_COUNTERS_ARRAY:
		flow_burst_match_finish(b, FLOW_COUNTERS_ARRAY, 0);
		break;
	default:
		flow_burst_match_finish(b, FLOW_COUNTERS_PCPU, 0);
		break;
	}
}

/* Add counts to the totals under @key (main only). */
static void
totals_add(struct flow_table *ft, const struct flow_key *key,
		uint64_t packets, uint64_t bytes)
{
	void *d;

	if (packets == 0 && bytes == 0)
		return;
	pthread_mutex_lock(&ft->totals_lock);
	/* relaxed stores: a monitor reads them as they change; an entry is
	 * complete before nb_totals counts it (release) */
	if (rte_hash_lookup_data(ft->totals, key, &d) >= 0) {
		struct total *t = d;

		__atomic_store_n(&t->packets, t->packets + packets,
			__ATOMIC_RELAXED);
		__atomic_store_n(&t->bytes, t->bytes + bytes,
			__ATOMIC_RELAXED);
	} else if (ft->nb_totals < ft->max_totals) {
		struct total *t = &ft->total_mem[ft->nb_totals];

		t->key = *key;
		t->packets = packets;
		t->bytes = bytes;
		if (rte_hash_add_key_data(ft->totals, key, t) == 0) {
			__atomic_store_n(&ft->nb_totals, ft->nb_totals + 1,
				__ATOMIC_RELEASE);
		} else {
			ft->totals_overflow_pkts += packets;
			ft->totals_overflow_bytes += bytes;
		}
	} else {
		ft->totals_overflow_pkts += packets;
		ft->totals_overflow_bytes += bytes;
	}
	pthread_mutex_unlock(&ft->totals_lock);
}

/*
 * DPDK 22.11 has no call to run the hash's RCU defer queue
 * (rte_hash_rcu_qsbr_dq_reclaim() came in 24.07): the queue is reclaimed
 * when a key is deleted. While handles wait, add and delete a sentinel key
 * (family 0, which no packet has) so that they come back without waiting
 * for the next aged flow. Main lcore only.
 */
static void
kick_reclaim(struct flow_table *ft)
{
	struct flow_key sentinel;

	if (ft->h == NULL || ft->nb_pending == 0 ||
			rte_ring_count(ft->reclaim_ring) >= ft->nb_pending)
		return;
	memset(&sentinel, 0, sizeof(sentinel));
	if (rte_hash_add_key_data(ft->h, &sentinel, NULL) == 0)
		rte_hash_del_key(ft->h, &sentinel);
}

void
flow_table_reclaim(struct flow_table *ft)
{
	void *handles[64];
	unsigned int n, i;

	kick_reclaim(ft);
	/* flow caches: wait until no worker can use an entry filled before
	 * the last aging pass (see flow_table_age()) */
	if (ft->epoch_wait) {
		if (rte_rcu_qsbr_check(ft->qsbr, ft->epoch_token, false) != 1)
			return;
		ft->epoch_wait = 0;
	}

	while ((n = rte_ring_sc_dequeue_burst(ft->reclaim_ring, handles,
			RTE_DIM(handles), NULL)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t pk, by;
			int32_t pos;

			pos = rte_hash_lookup(ft->pending, &handles[i]);
			flow_counters_read(ft->blocks, handles[i], &pk, &by,
				NULL);
			if (pos >= 0) {
				totals_add(ft, &ft->pending_mem[pos].key, pk,
					by);
				rte_hash_del_key(ft->pending, &handles[i]);
				ft->nb_pending--;
			} else {
				RTE_LOG(ERR, USER1, "flowcount: reclaimed "
					"handle %p has no key\n", handles[i]);
			}
			flow_counters_put(ft->blocks, handles[i]);
			__atomic_fetch_sub(&ft->out, 1, __ATOMIC_RELAXED);
		}
	}
}

unsigned int
flow_table_age(struct flow_table *ft, uint64_t now, uint64_t timeout_tsc,
		unsigned int rcu_id)
{
	static struct flow_key cand[AGE_BATCH];
	static void *cand_h[AGE_BATCH];
	unsigned int nb = 0, deleted = 0, kept = 0, i;
	const void *key;
	void *data;
	uint32_t next = 0;

	flow_table_reclaim(ft);
	rte_rcu_qsbr_thread_online(ft->qsbr, rcu_id);
	for (;;) {
		nb = 0;
		while (nb < AGE_BATCH &&
				rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
			uint64_t pk, by, last;

			if (data == NULL)   /* reclaim sentinel */
				continue;
			flow_counters_read(ft->blocks, data, &pk, &by, &last);
			/* last 0: inserted, first packet not stored yet */
			if (last != 0 && now > last &&
					now - last > timeout_tsc) {
				cand[nb] = *(const struct flow_key *)key;
				cand_h[nb] = data;
				nb++;
			}
		}
		for (i = 0; i < nb; i++) {
			int32_t ppos;

			/* seen twice by an iteration racing with inserts */
			if (rte_hash_lookup(ft->pending, &cand_h[i]) >= 0)
				continue;
			/* record the key before the entry can be reclaimed */
			ppos = rte_hash_add_key(ft->pending, &cand_h[i]);
			if (ppos < 0) {
				/* aged again once reclaim catches up */
				kept++;
				continue;
			}
			ft->pending_mem[ppos].key = cand[i];
			if (rte_hash_del_key(ft->h, &cand[i]) < 0) {
				rte_hash_del_key(ft->pending, &cand_h[i]);
				continue;
			}
			ft->nb_pending++;
			ft->aged++;
			deleted++;
		}
		if (nb < AGE_BATCH)
			break;
	}
	if (kept > 0)
		/* one line per pass: a stalled reclaim would repeat it for
		 * every flow of every pass */
		RTE_LOG(WARNING, USER1, "flowcount: pending table full: %u "
			"aged flows kept (counted) until reclaim catches up\n",
			kept);
	if (deleted > 0 && __atomic_load_n(&ft->nb_caches, __ATOMIC_ACQUIRE)) {
		/* Flow caches may still hold the deleted flows (an entry
		 * filled by a lookup that ran before the delete). New epoch,
		 * then an RCU token: once every worker has passed a
		 * quiescent state after it, its every later burst loads the
		 * new epoch (that quiescent state's acquire load of the
		 * token orders it) and never uses an older entry again.
		 * flow_table_reclaim() gives no handle back to the pool
		 * before then. */
		__atomic_fetch_add(&ft->epoch, 1, __ATOMIC_RELEASE);
		ft->epoch_token = rte_rcu_qsbr_start(ft->qsbr);
		ft->epoch_wait = 1;
	}
	rte_rcu_qsbr_quiescent(ft->qsbr, rcu_id);
	rte_rcu_qsbr_thread_offline(ft->qsbr, rcu_id);
	flow_table_reclaim(ft);
	return deleted;
}

/*
 * The figures of the counter blocks' owner into @p st: 0, or the rte_errno
 * of reading them (@p st then zeroed).
 *
 * ft->owner is a pointer of the process that made the table: a secondary
 * process (the monitor) has its own handles of the primary's owners, so
 * it finds the owner by name, which asks the primary. In the primary, an
 * owner freed with the blocks (flow_table_finish()) is read from the
 * figures kept when they were freed.
 */
static int
counters_owner_stats(const struct flow_table *ft,
		struct rte_pcpu_owner_stats *st)
{
	const struct rte_pcpu_owner *owner = ft->owner;

	if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
		owner = rte_pcpu_owner_lookup(ft->owner_name);
		if (owner == NULL)
			return rte_errno;
	} else if (ft->blocks == NULL) {
		*st = ft->owner_final;
		return 0;
	}
	if (rte_pcpu_owner_stats_get(owner, st) != 0) {
		memset(st, 0, sizeof(*st));
		return rte_errno;
	}
	return 0;
}

void
flow_table_info(const struct flow_table *ft, struct flow_table_info *info)
{
	uint64_t out = __atomic_load_n(&ft->out, __ATOMIC_RELAXED);

	memset(info, 0, sizeof(*info));
	info->aged = __atomic_load_n(&ft->aged, __ATOMIC_RELAXED);
	info->pending = __atomic_load_n(&ft->nb_pending, __ATOMIC_RELAXED);
	info->closed = __atomic_load_n(&ft->closed, __ATOMIC_RELAXED);
	/* handles out are live flows or deleted ones waiting for RCU */
	info->live = out > info->pending ? out - info->pending : 0;
	info->max_flows = ft->max_flows;
	info->totals = __atomic_load_n(&ft->nb_totals, __ATOMIC_RELAXED);
	info->totals_overflow_pkts = __atomic_load_n(&ft->totals_overflow_pkts,
		__ATOMIC_RELAXED);
	info->totals_overflow_bytes = __atomic_load_n(
		&ft->totals_overflow_bytes, __ATOMIC_RELAXED);
	if (ft->owner == NULL)
		return;
	info->counters_owner = ft->owner_name;
	info->counters_mem_errno = counters_owner_stats(ft, &info->counters_mem);
}

unsigned int
flow_stat_top_insert(struct flow_stat *out, unsigned int n, unsigned int max,
		const struct flow_stat *s)
{
	unsigned int i;

	if (max == 0)
		return 0;
	if (n == max && s->bytes <= out[n - 1].bytes)
		return n;
	i = n < max ? n : max - 1;
	while (i > 0 && out[i - 1].bytes < s->bytes) {
		out[i] = out[i - 1];
		i--;
	}
	out[i] = *s;
	return n < max ? n + 1 : n;
}

/* the totals kept of @key, under totals_lock; 0 when none */
static void
totals_get(struct flow_table *ft, const struct flow_key *key,
		uint64_t *packets, uint64_t *bytes)
{
	void *d;

	*packets = 0;
	*bytes = 0;
	if (rte_hash_lookup_data(ft->totals, key, &d) >= 0) {
		const struct total *t = d;

		*packets = t->packets;
		*bytes = t->bytes;
	}
}

unsigned int
flow_table_top(struct flow_table *ft, struct flow_stat *out, unsigned int n,
		enum flow_scope scope, unsigned int rcu_id)
{
	const void *key;
	void *data;
	uint32_t next = 0;
	unsigned int cnt = 0;
	uint64_t i;
	bool live = ft->h != NULL && !ft->finished;

	pthread_mutex_lock(&ft->totals_lock);
	if (live)
		rte_rcu_qsbr_thread_online(ft->qsbr, rcu_id);
	/* live flows, with what they counted before they last aged out */
	while (live && scope != FLOW_SCOPE_AGED &&
			rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
		struct flow_stat s;

		if (data == NULL)   /* reclaim sentinel */
			continue;
		s.key = *(const struct flow_key *)key;
		flow_counters_read(ft->blocks, data, &s.packets, &s.bytes,
			NULL);
		if (scope == FLOW_SCOPE_ALL) {
			uint64_t pk, by;

			totals_get(ft, &s.key, &pk, &by);
			s.packets += pk;
			s.bytes += by;
		}
		cnt = flow_stat_top_insert(out, cnt, n, &s);
	}
	/* aged flows; with ALL, only those not live again (counted above) */
	for (i = 0; scope != FLOW_SCOPE_LIVE && i < ft->nb_totals; i++) {
		const struct total *t = &ft->total_mem[i];
		struct flow_stat s = {
			.key = t->key,
			.packets = t->packets,
			.bytes = t->bytes,
		};

		if (scope == FLOW_SCOPE_ALL && live &&
				rte_hash_lookup(ft->h, &t->key) >= 0)
			continue;
		cnt = flow_stat_top_insert(out, cnt, n, &s);
	}
	if (live)
		rte_rcu_qsbr_thread_offline(ft->qsbr, rcu_id);
	pthread_mutex_unlock(&ft->totals_lock);
	return cnt;
}

void
flow_table_finish(struct flow_table *ft)
{
	const void *key;
	void *data;
	uint32_t next = 0;
	void **live;
	unsigned int nb = 0, i;
	int32_t count = rte_hash_count(ft->h);

	/* the workers are offline: no flow cache is used any more */
	ft->epoch_wait = 0;
	flow_table_reclaim(ft);
	live = calloc((size_t)RTE_MAX(count, 1), sizeof(*live));
	/* workers are offline: every copy is final */
	while (rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
		uint64_t pk, by;

		if (data == NULL)
			continue;
		flow_counters_read(ft->blocks, data, &pk, &by, NULL);
		totals_add(ft, key, pk, by);
		if (live != NULL && nb < (unsigned int)count)
			live[nb++] = data;
	}
	/* freeing the hash reclaims its defer queue: pending handles come
	 * back through free_key_data() */
	rte_hash_free(ft->h);
	ft->h = NULL;
	__atomic_store_n(&ft->closed, nb, __ATOMIC_RELAXED);
	ft->finished = 1;
	flow_table_reclaim(ft);
	for (i = 0; i < nb; i++) {
		flow_counters_put(ft->blocks, live[i]);
		__atomic_fetch_sub(&ft->out, 1, __ATOMIC_RELAXED);
	}
	free(live);
	if (ft->nb_pending != 0)
		RTE_LOG(WARNING, USER1, "flowcount: %" PRIu64 " aged flows "
			"never came back from RCU\n", ft->nb_pending);
	if (__atomic_load_n(&ft->out, __ATOMIC_RELAXED) != 0)
		RTE_LOG(WARNING, USER1, "flowcount: %u counter blocks still "
			"out\n", __atomic_load_n(&ft->out, __ATOMIC_RELAXED));
	else {
		/* what the counters held, for the summary */
		if (ft->owner != NULL)
			rte_pcpu_owner_stats_get(ft->owner, &ft->owner_final);
		flow_counters_free(ft->blocks);
		ft->blocks = NULL;
	}
}

static int
stat_cmp(const void *a, const void *b)
{
	return flow_key_cmp(&((const struct flow_stat *)a)->key,
		&((const struct flow_stat *)b)->key);
}

int
flow_table_flows(struct flow_table *ft, struct flow_stat **out,
		unsigned int rcu_id)
{
	struct flow_stat *v;
	const void *key;
	void *data;
	uint32_t next = 0;
	size_t n, cap, i;

	/* the totals first (main owns them: no lock to read), then every
	 * live flow added to its total or appended */
	n = (size_t)ft->nb_totals;
	cap = n + (ft->h != NULL ? (size_t)rte_hash_count(ft->h) : 0) + 64;
	v = malloc(cap * sizeof(*v));
	if (v == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		v[i].key = ft->total_mem[i].key;
		v[i].packets = ft->total_mem[i].packets;
		v[i].bytes = ft->total_mem[i].bytes;
	}
	if (ft->h != NULL && !ft->finished) {
		rte_rcu_qsbr_thread_online(ft->qsbr, rcu_id);
		while (rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
			struct flow_stat s;
			void *t;

			if (data == NULL)   /* reclaim sentinel */
				continue;
			s.key = *(const struct flow_key *)key;
			flow_counters_read(ft->blocks, data, &s.packets,
				&s.bytes, NULL);
			if (rte_hash_lookup_data(ft->totals, &s.key, &t) >= 0) {
				struct flow_stat *m = &v[(struct total *)t -
					ft->total_mem];

				m->packets += s.packets;
				m->bytes += s.bytes;
				continue;
			}
			if (s.packets == 0)  /* inserted, not counted yet */
				continue;
			if (n == cap) {
				struct flow_stat *g;

				cap *= 2;
				g = realloc(v, cap * sizeof(*v));
				if (g == NULL) {
					rte_rcu_qsbr_thread_offline(ft->qsbr,
						rcu_id);
					free(v);
					return -1;
				}
				v = g;
			}
			v[n++] = s;
		}
		rte_rcu_qsbr_thread_offline(ft->qsbr, rcu_id);
	}
	qsort(v, n, sizeof(*v), stat_cmp);
	*out = v;
	return (int)n;
}

void
flow_table_free(struct flow_table *ft)
{
	if (ft == NULL)
		return;
	rte_hash_free(ft->h);
	if (ft->reclaim_ring != NULL && ft->blocks != NULL)
		flow_table_reclaim(ft);
	flow_counters_free(ft->blocks);
	rte_ring_free(ft->reclaim_ring);
	rte_hash_free(ft->pending);
	rte_hash_free(ft->totals);
	rte_free(ft->total_mem);
	free(ft->pending_mem);
	pthread_mutex_destroy(&ft->totals_lock);
	rte_free(ft);
}

/* ------------------------------------------------------------------ */
/* A reader in another process (see the top of the file). */

/* Grow @v to hold @need entries; 0 or -1. */
static int
reader_reserve(struct flow_stat **v, size_t *cap, size_t need)
{
	struct flow_stat *g;
	size_t c = *cap != 0 ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	g = realloc(*v, c * sizeof(*g));
	if (g == NULL)
		return -1;
	*v = g;
	*cap = c;
	return 0;
}

/* Index of @key in sorted @v[0..n), or -1. */
static long
reader_find(const struct flow_stat *v, size_t n, const struct flow_key *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = flow_key_cmp(&v[mid].key, key);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int
flow_table_flows_reader(const struct flow_table *ft, struct flow_stat **out)
{
	uint64_t nt = __atomic_load_n(&ft->nb_totals, __ATOMIC_ACQUIRE);
	struct flow_stat *v = NULL, s;
	size_t n = 0, cap = 0, i, sorted;
	const void *key;
	void *data;
	uint32_t next = 0;
	long k;

	*out = NULL;
	if (reader_reserve(&v, &cap, (size_t)nt + 64) != 0)
		return -1;
	for (i = 0; i < nt; i++) {
		const struct total *t = &ft->total_mem[i];

		v[n].key = t->key;
		v[n].packets = __atomic_load_n(&t->packets, __ATOMIC_RELAXED);
		v[n].bytes = __atomic_load_n(&t->bytes, __ATOMIC_RELAXED);
		n++;
	}
	qsort(v, n, sizeof(*v), stat_cmp);
	sorted = n;
	while (ft->h != NULL && !ft->finished &&
			rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
		if (data == NULL)   /* reclaim sentinel */
			continue;
		s.key = *(const struct flow_key *)key;
		if (flow_counters_read_key(ft->blocks, data, &s.key,
				&s.packets, &s.bytes) != 0)
			continue;   /* given back meanwhile */
		k = reader_find(v, sorted, &s.key);
		if (k >= 0) {
			v[k].packets += s.packets;
			v[k].bytes += s.bytes;
			continue;
		}
		if (s.packets == 0)  /* inserted, not counted yet */
			continue;
		if (reader_reserve(&v, &cap, n + 1) != 0) {
			free(v);
			return -1;
		}
		v[n++] = s;
	}
	qsort(v, n, sizeof(*v), stat_cmp);
	*out = v;
	return (int)n;
}

unsigned int
flow_table_top_reader(const struct flow_table *ft, struct flow_stat *out,
		unsigned int n, enum flow_scope scope)
{
	struct flow_stat *v, s;
	const void *key;
	void *data;
	uint32_t next = 0;
	unsigned int cnt = 0;
	uint64_t nt, i;
	int nv;

	if (scope == FLOW_SCOPE_ALL) {
		nv = flow_table_flows_reader(ft, &v);
		for (i = 0; nv > 0 && i < (uint64_t)nv; i++)
			cnt = flow_stat_top_insert(out, cnt, n, &v[i]);
		free(v);
		return cnt;
	}
	if (scope == FLOW_SCOPE_AGED) {
		nt = __atomic_load_n(&ft->nb_totals, __ATOMIC_ACQUIRE);
		for (i = 0; i < nt; i++) {
			s.key = ft->total_mem[i].key;
			s.packets = __atomic_load_n(&ft->total_mem[i].packets,
				__ATOMIC_RELAXED);
			s.bytes = __atomic_load_n(&ft->total_mem[i].bytes,
				__ATOMIC_RELAXED);
			cnt = flow_stat_top_insert(out, cnt, n, &s);
		}
		return cnt;
	}
	while (ft->h != NULL && !ft->finished &&
			rte_hash_iterate(ft->h, &key, &data, &next) >= 0) {
		if (data == NULL)
			continue;
		s.key = *(const struct flow_key *)key;
		if (flow_counters_read_key(ft->blocks, data, &s.key,
				&s.packets, &s.bytes) == 0)
			cnt = flow_stat_top_insert(out, cnt, n, &s);
	}
	return cnt;
}
