/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Per-flow counter blocks, see flow_counters.h.
 *
 * ATOMIC and ARRAY blocks are indexes into arrays sized for the capacity,
 * handed out by a ring of free indexes; the reference is index + 1, so
 * that no reference is NULL. (The flow's rte_hash position would serve as
 * the index too, but the hash frees a position as soon as its grace period
 * ends, before the flow table has read the flow's final counts; an index
 * of its own is given back only after that read, as a percpu handle is.)
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <rte_pcpu_mempool.h>
#include <rte_pcpu_mempool_ops.h>
#include <rte_pcpu_owner.h>

#include "flow_counters.h"

/* objects parked in each lcore's cache of the PCPU pool */
#define FLOW_COUNTERS_POOL_CACHE 32

static const char *const flow_counters_names[] = {
	[FLOW_COUNTERS_PCPU] = "pcpu",
	[FLOW_COUNTERS_ATOMIC] = "atomic",
	[FLOW_COUNTERS_ARRAY] = "array",
	[FLOW_COUNTERS_MEMPOOL] = "mempool",
};

const char *
flow_counters_scheme_name(enum flow_counters_scheme s)
{
	if ((unsigned int)s >= RTE_DIM(flow_counters_names))
		return "?";
	return flow_counters_names[s];
}

int
flow_counters_scheme_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(flow_counters_names); i++)
		if (strcmp(name, flow_counters_names[i]) == 0)
			return (int)i;
	return -1;
}

/* ATOMIC, ARRAY: the ring of free indexes, all free */
static int
flow_counters_index_ring(struct flow_counter_blocks *fb, int socket_id)
{
	uint32_t i;

	fb->free_idx = rte_ring_create("fc_counter_idx", fb->capacity,
		socket_id, RING_F_EXACT_SZ);
	if (fb->free_idx == NULL)
		return -1;
	for (i = 0; i < fb->capacity; i++)
		rte_ring_enqueue(fb->free_idx, (void *)(uintptr_t)(i + 1));
	return 0;
}

struct flow_counter_blocks *
flow_counters_create(const struct flow_counters_conf *conf)
{
	struct flow_counter_blocks *fb;
	size_t bytes = (size_t)conf->capacity * sizeof(struct flow_counters);
	unsigned int lcore;

	if (conf->capacity == 0 ||
			(unsigned int)conf->scheme >= RTE_DIM(flow_counters_names)) {
		rte_errno = EINVAL;
		return NULL;
	}
	fb = rte_zmalloc_socket("fc_counters", sizeof(*fb), RTE_CACHE_LINE_SIZE,
		conf->socket_id);
	if (fb == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	fb->scheme = conf->scheme;
	fb->capacity = conf->capacity;
	switch (conf->scheme) {
	case FLOW_COUNTERS_PCPU:
		/* room for the objects parked in the lcores' caches: the
		 * flow limit itself is the flow table's */
		fb->pool = rte_pcpu_mempool_create("fc_flows", conf->capacity +
			FLOW_COUNTERS_POOL_CACHE * 2 * rte_lcore_count(),
			sizeof(struct flow_counters), FLOW_COUNTERS_POOL_CACHE,
			0, NULL, NULL, 0);
		if (fb->pool == NULL)
			goto fail;
		break;
	case FLOW_COUNTERS_MEMPOOL:
		/* the same room; the pool's objects are all created now */
		fb->mempool = rte_pcpu_mempool_ops_create("fc_flows_mp",
			conf->capacity + FLOW_COUNTERS_POOL_CACHE * 2 *
			rte_lcore_count(), sizeof(struct flow_counters),
			FLOW_COUNTERS_POOL_CACHE, 0, NULL, NULL, NULL, NULL,
			conf->socket_id, 0);
		if (fb->mempool == NULL)
			goto fail;
		break;
	case FLOW_COUNTERS_ATOMIC:
		fb->shared = rte_zmalloc_socket("fc_counters_shared", bytes,
			RTE_CACHE_LINE_SIZE, conf->socket_id);
		if (fb->shared == NULL || flow_counters_index_ring(fb,
				conf->socket_id) != 0)
			goto fail;
		break;
	case FLOW_COUNTERS_ARRAY:
		/* every lcore that may count: its array on its socket */
		RTE_LCORE_FOREACH(lcore) {
			fb->lcore_arr[lcore] = rte_zmalloc_socket(
				"fc_counters_lcore", bytes, RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));
			if (fb->lcore_arr[lcore] == NULL)
				goto fail;
		}
		if (flow_counters_index_ring(fb, conf->socket_id) != 0)
			goto fail;
		break;
	}
	return fb;
fail:
	if (rte_errno == 0)
		rte_errno = ENOMEM;
	flow_counters_free(fb);
	return NULL;
}

void
flow_counters_free(struct flow_counter_blocks *fb)
{
	unsigned int i;

	if (fb == NULL)
		return;
	rte_pcpu_mempool_free(fb->pool);
	rte_mempool_free(fb->mempool);
	rte_free(fb->shared);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		rte_free(fb->lcore_arr[i]);
	rte_ring_free(fb->free_idx);
	rte_free(fb);
}

struct rte_pcpu_owner *
flow_counters_owner(const struct flow_counter_blocks *fb)
{
	char name[RTE_PCPU_OWNER_NAMESIZE];

	switch (fb->scheme) {
	case FLOW_COUNTERS_PCPU:
		return rte_pcpu_mempool_owner(fb->pool);
	case FLOW_COUNTERS_MEMPOOL:
		/* the "pcpu" ops name their pools' owners after the pools */
		snprintf(name, sizeof(name), "mempool:%s", fb->mempool->name);
		return rte_pcpu_owner_lookup(name);
	default:
		return NULL;
	}
}

/* a zeroed block of @key */
static inline void
flow_counters_init(struct flow_counters *c, const struct flow_key *key)
{
	memset(c, 0, offsetof(struct flow_counters, key));
	c->key = *key;
}

void *
flow_counters_get(struct flow_counter_blocks *fb, const struct flow_key *key)
{
	struct flow_counters *c;
	void *ref;
	uintptr_t idx;
	unsigned int lcore;

	RTE_BUILD_BUG_ON(sizeof(struct flow_counters) != RTE_CACHE_LINE_SIZE);
	if (fb->scheme == FLOW_COUNTERS_PCPU ||
	    fb->scheme == FLOW_COUNTERS_MEMPOOL) {
		if (fb->scheme == FLOW_COUNTERS_PCPU ?
		    rte_pcpu_mempool_get(fb->pool, &ref) != 0 :
		    rte_mempool_get(fb->mempool, &ref) != 0)
			return NULL;
		/* nobody reads it before it is published */
		RTE_PCPU_FOREACH(lcore, c, (struct flow_counters *)ref)
			flow_counters_init(c, key);
		return ref;
	}
	if (rte_ring_dequeue(fb->free_idx, &ref) != 0)
		return NULL;
	idx = (uintptr_t)ref - 1;
	/* nobody writes a free index's blocks: set them before the flow is
	 * published */
	if (fb->scheme == FLOW_COUNTERS_ATOMIC) {
		flow_counters_init(&fb->shared[idx], key);
		return &fb->shared[idx];
	}
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++)
		if (fb->lcore_arr[lcore] != NULL)
			flow_counters_init(&fb->lcore_arr[lcore][idx], key);
	return ref;
}

void
flow_counters_put(struct flow_counter_blocks *fb, void *ref)
{
	switch (fb->scheme) {
	case FLOW_COUNTERS_PCPU:
		rte_pcpu_mempool_put(fb->pool, ref);
		break;
	case FLOW_COUNTERS_MEMPOOL:
		rte_mempool_put(fb->mempool, ref);
		break;
	case FLOW_COUNTERS_ATOMIC:
		rte_ring_enqueue(fb->free_idx, (void *)(uintptr_t)
			((struct flow_counters *)ref - fb->shared + 1));
		break;
	case FLOW_COUNTERS_ARRAY:
		rte_ring_enqueue(fb->free_idx, ref);
		break;
	}
}

void
flow_counters_read(const struct flow_counter_blocks *fb, const void *ref,
		uint64_t *packets, uint64_t *bytes, uint64_t *last_seen)
{
	const struct flow_counters *c;
	uint64_t pk = 0, by = 0, last = 0, t;
	unsigned int lcore;

	switch (fb->scheme) {
	case FLOW_COUNTERS_PCPU:
	case FLOW_COUNTERS_MEMPOOL: {
		uint64_t sum[2];

		rte_pcpu_sum_u64(ref, 2, sum);
		pk = sum[0];
		by = sum[1];
		if (last_seen != NULL)
			RTE_PCPU_FOREACH(lcore, c, ref) {
				t = __atomic_load_n(&c->last_seen,
					__ATOMIC_RELAXED);
				last = RTE_MAX(last, t);
			}
		break;
	}
	case FLOW_COUNTERS_ATOMIC:
		c = ref;
		pk = __atomic_load_n(&c->packets, __ATOMIC_RELAXED);
		by = __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
		last = __atomic_load_n(&c->last_seen, __ATOMIC_RELAXED);
		break;
	case FLOW_COUNTERS_ARRAY:
		for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
			if (fb->lcore_arr[lcore] == NULL)
				continue;
			c = &fb->lcore_arr[lcore][(uintptr_t)ref - 1];
			pk += __atomic_load_n(&c->packets, __ATOMIC_RELAXED);
			by += __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
			t = __atomic_load_n(&c->last_seen, __ATOMIC_RELAXED);
			last = RTE_MAX(last, t);
		}
		break;
	}
	*packets = pk;
	*bytes = by;
	if (last_seen != NULL)
		*last_seen = last;
}

/* The key in the block's copy of the first lcore that has one. */
static const struct flow_key *
flow_counters_key(const struct flow_counter_blocks *fb, const void *ref)
{
	const struct flow_counters *c;
	unsigned int lcore;

	switch (fb->scheme) {
	case FLOW_COUNTERS_ATOMIC:
		return &((const struct flow_counters *)ref)->key;
	case FLOW_COUNTERS_ARRAY:
		for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++)
			if (fb->lcore_arr[lcore] != NULL)
				return &fb->lcore_arr[lcore][
					(uintptr_t)ref - 1].key;
		return NULL;
	case FLOW_COUNTERS_PCPU:
	case FLOW_COUNTERS_MEMPOOL:
	default:
		RTE_PCPU_FOREACH(lcore, c, (const struct flow_counters *)ref)
			return &c->key;
		return NULL;
	}
}

int
flow_counters_read_key(const struct flow_counter_blocks *fb, const void *ref,
		const struct flow_key *key, uint64_t *packets, uint64_t *bytes)
{
	const struct flow_key *k;
	struct flow_key now;

	flow_counters_read(fb, ref, packets, bytes, NULL);
	/* the key is written before the block is published, with plain
	 * stores: read it after the counts, as a whole */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	k = flow_counters_key(fb, ref);
	if (k == NULL)
		return -1;
	memcpy(&now, (const void *)k, sizeof(now));
	return memcmp(&now, key, sizeof(now)) == 0 ? 0 : -1;
}
