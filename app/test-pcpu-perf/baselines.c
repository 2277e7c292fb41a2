/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * What a DPDK 22.11 user would write instead of rte_pcpu, each laid out as
 * its users lay it out:
 *
 * - TLS: one RTE_DEFINE_PER_LCORE variable (static, one object only);
 * - static: `struct perf_pair stats[RTE_MAX_LCORE][PERF_STATIC_OBJS]` in
 *   .bss, one row per lcore and the objects packed in it, as DPDK
 *   applications keep per-lcore arrays (sized at build time; only the
 *   rows of lcores that write are ever populated);
 * - lcore_var: the layout of rte_lcore_var (DPDK 24.11): a bump allocator
 *   over libc buffers of RTE_MAX_LCORE x PERF_LCORE_VAR_MAX bytes, lcore
 *   i's copy at handle + i x PERF_LCORE_VAR_MAX, and, as
 *   rte_lcore_var_alloc() does, every one of the RTE_MAX_LCORE copies
 *   zeroed at allocation (1 M objects of 16 B populate 2 GiB);
 * - zmalloc: one rte_zmalloc_socket() block per lcore (on its socket)
 *   holding every object, reached through a per-lcore pointer table;
 * - vpp: VPP's combined counters: one vector per thread, index = object,
 *   cache-line aligned, validated (grown, here by doubling) for every
 *   thread as each object is created; growing them in a live dataplane
 *   needs a worker barrier, not modelled here; on the EAL's page size
 *   (vec_alloc());
 * - atomic: one shared block per object, updated with relaxed atomic adds
 *   by every lcore.
 *
 * Every loop reads its object's handle or index from the stream of flow
 * entries (perf_access_ctx), an 8-byte slot per entry whichever it holds,
 * as the RTE_PCPU loop reads its handle.
 *
 * Also the naive percpu allocator (rte_zmalloc_socket per lcore per
 * object) and rte_mempool's get+put loop.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_per_lcore.h>

#include "perf_shim.h"

/*
 * Objects the static layout holds: 100,000 x 128 lcores x 16 B = 195 MiB
 * of .bss address space (rows of lcores that never write stay unpopulated).
 * 1 M objects would take 2 GiB of .bss: the access table shows n/a there.
 */
#define PERF_STATIC_OBJS 100000u
/* rte_lcore_var's per-variable (and per-buffer) size in DPDK 24.11. */
#define PERF_LCORE_VAR_MAX (128u * 1024u)
/* Most memory the lcore_var layout takes in a smoke run. */
#define PERF_LCORE_VAR_SMOKE_MAX (UINT64_C(256) << 20)
/* Objects of the access cases other than static: 1 M (and a margin). */
#define PERF_HEAP_OBJS (1u << 21)

static RTE_DEFINE_PER_LCORE(struct perf_pair, perf_tls_pair);

static struct perf_pair perf_static[RTE_MAX_LCORE][PERF_STATIC_OBJS]
	__rte_cache_aligned;

uint32_t
perf_scheme_max_objs(enum perf_scheme s)
{
	switch (s) {
	case PERF_SCHEME_TLS:
		return 1;
	case PERF_SCHEME_STATIC:
		return PERF_STATIC_OBJS;
	case PERF_SCHEME_MAX:
		return 0;
	default:
		return PERF_HEAP_OBJS;
	}
}

const char *
perf_scheme_name(enum perf_scheme s)
{
	static const char * const names[PERF_SCHEME_MAX] = {
		[PERF_SCHEME_PCPU] = "pcpu",
		[PERF_SCHEME_PCPU_SIDE] = "pcpu_side_table",
		[PERF_SCHEME_TLS] = "tls",
		[PERF_SCHEME_STATIC] = "static_array",
		[PERF_SCHEME_LCORE_VAR] = "lcore_var_layout",
		[PERF_SCHEME_ZMALLOC] = "zmalloc_table",
		[PERF_SCHEME_VPP] = "vpp_vectors",
		[PERF_SCHEME_ATOMIC] = "atomic_shared",
	};

	return (unsigned int)s < PERF_SCHEME_MAX ? names[s] : "?";
}

/* MemAvailable of /proc/meminfo in bytes (0 if unknown). */
static uint64_t
perf_mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

/* lcore_var layout: buffers of RTE_MAX_LCORE units, bump allocation */
struct perf_lv {
	void **bufs;
	unsigned int nb_bufs;
};

static int
lv_setup(struct perf_access_ctx *c, char *why, size_t why_len)
{
	const size_t per_buf = PERF_LCORE_VAR_MAX / sizeof(struct perf_pair);
	const size_t buf_size = (size_t)PERF_LCORE_VAR_MAX * RTE_MAX_LCORE;
	struct perf_lv *lv;
	unsigned int b, l;
	uint64_t need, avail;
	uint32_t i;

	need = (uint64_t)((c->nb_objs + per_buf - 1) / per_buf) * buf_size;
	avail = perf_mem_available();
	/* the smoke run (CI) skips the 2 GiB of 1 M objects */
	if (perf_is_smoke() && need > PERF_LCORE_VAR_SMOKE_MAX) {
		snprintf(why, why_len, "needs %.1f GiB (all %u copies zeroed), "
			"not in a smoke run", (double)need / (1 << 30),
			RTE_MAX_LCORE);
		return 1;
	}
	/* every copy is written: leave the machine half of what it has */
	if (avail != 0 && need > avail / 2) {
		snprintf(why, why_len, "needs %.1f GiB (all %u copies zeroed), "
			"%.1f GiB available", (double)need / (1 << 30),
			RTE_MAX_LCORE, (double)avail / (1 << 30));
		return 1;
	}
	lv = calloc(1, sizeof(*lv));
	if (lv == NULL)
		return -1;
	c->priv = lv;
	lv->nb_bufs = (c->nb_objs + per_buf - 1) / per_buf;
	lv->bufs = calloc(lv->nb_bufs, sizeof(void *));
	c->handles = calloc(c->nb_objs, sizeof(void *));
	c->stream_h = calloc(c->nb_objs, sizeof(void *));
	if (lv->bufs == NULL || c->handles == NULL || c->stream_h == NULL)
		return -1;
	for (b = 0; b < lv->nb_bufs; b++) {
		lv->bufs[b] = aligned_alloc(RTE_CACHE_LINE_SIZE, buf_size);
		if (lv->bufs[b] == NULL)
			return -1;
	}
	for (i = 0; i < c->nb_objs; i++) {
		char *h = (char *)lv->bufs[i / per_buf] +
			(i % per_buf) * sizeof(struct perf_pair);

		c->handles[i] = h;
		/* rte_lcore_var_alloc(): every lcore id's copy */
		for (l = 0; l < RTE_MAX_LCORE; l++)
			memset(h + (size_t)l * PERF_LCORE_VAR_MAX, 0,
				sizeof(struct perf_pair));
	}
	for (i = 0; i < c->nb_objs; i++)
		c->stream_h[i] = c->handles[c->order[i]];
	c->populated = (uint64_t)lv->nb_bufs * buf_size;
	return 0;
}

static void
lv_free(struct perf_access_ctx *c)
{
	struct perf_lv *lv = c->priv;
	unsigned int b;

	if (lv == NULL)
		return;
	for (b = 0; lv->bufs != NULL && b < lv->nb_bufs; b++)
		free(lv->bufs[b]);
	free(lv->bufs);
	free(lv);
}

/* vpp: a vector per thread, validated (grown by doubling) per new object */
struct perf_vec {
	struct perf_pair *v;
	uint32_t len;
	uint32_t cap;
};

/*
 * The page size of the vectors: VPP's heaps (the main heap, the stats
 * segment that holds its counters) use the system's default page size
 * unless configured with 2 MiB pages ("main-heap-page-size",
 * "statseg { page-size }"), which a VPP deployment on hugepages does. So
 * the vectors follow the EAL, as the library's automatic page mode does:
 * 4 KiB pages under --no-huge; with EAL hugepages, a vector of 2 MiB or
 * more is 2 MiB aligned and advised to transparent hugepages (2 MiB pages
 * when the kernel has free ones; this machine's THP mode is "madvise").
 */
#define PERF_VEC_HUGE_SZ (UINT64_C(2) << 20)

static void *
vec_alloc(size_t size)
{
	void *v;

	if (!rte_eal_has_hugepages() || size < PERF_VEC_HUGE_SZ)
		return aligned_alloc(RTE_CACHE_LINE_SIZE,
			RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE));
	size = RTE_ALIGN_CEIL(size, PERF_VEC_HUGE_SZ);
	v = aligned_alloc(PERF_VEC_HUGE_SZ, size);
	if (v != NULL)
		(void)madvise(v, size, MADV_HUGEPAGE);
	return v;
}

static int
vec_validate_aligned(struct perf_vec *vec, uint32_t i)
{
	if (i >= vec->cap) {
		uint32_t cap = vec->cap ? vec->cap : 16;
		struct perf_pair *v;

		while (cap <= i)
			cap *= 2;
		v = vec_alloc((size_t)cap * sizeof(*v));
		if (v == NULL)
			return -1;
		if (vec->len > 0)
			memcpy(v, vec->v, (size_t)vec->len * sizeof(*v));
		free(vec->v);
		vec->v = v;
		vec->cap = cap;
	}
	while (vec->len <= i)
		vec->v[vec->len++] = (struct perf_pair){ 0, 0 };
	return 0;
}

static int
vpp_setup(struct perf_access_ctx *c)
{
	struct perf_vec *vecs = calloc(RTE_MAX_LCORE, sizeof(*vecs));
	unsigned int l;
	uint32_t i;

	if (vecs == NULL)
		return -1;
	c->priv = vecs;
	/* objects are created one by one, each validating every vector */
	for (i = 0; i < c->nb_objs; i++)
		RTE_LCORE_FOREACH(l)
			if (vec_validate_aligned(&vecs[l], i) != 0)
				return -1;
	RTE_LCORE_FOREACH(l) {
		c->per_lcore[l] = vecs[l].v;
		c->populated += (uint64_t)vecs[l].cap * sizeof(struct perf_pair);
	}
	return 0;
}

int
perf_baseline_access_setup(struct perf_access_ctx *c, char *why,
		size_t why_len)
{
	unsigned int l;

	why[0] = '\0';
	if (c->nb_objs == 0 || c->nb_objs > perf_scheme_max_objs(c->scheme)) {
		snprintf(why, why_len, "holds at most %u objects",
			perf_scheme_max_objs(c->scheme));
		return 1;
	}
	c->per_lcore = calloc(RTE_MAX_LCORE, sizeof(void *));
	if (c->per_lcore == NULL)
		return -1;
	switch (c->scheme) {
	case PERF_SCHEME_TLS:
		RTE_PER_LCORE(perf_tls_pair) = (struct perf_pair){ 0, 0 };
		c->populated = sizeof(struct perf_pair);
		return 0;
	case PERF_SCHEME_STATIC:
		RTE_LCORE_FOREACH(l)
			memset(perf_static[l], 0,
				(size_t)c->nb_objs * sizeof(struct perf_pair));
		c->populated = (uint64_t)c->nb_objs * rte_lcore_count() *
			sizeof(struct perf_pair);
		return 0;
	case PERF_SCHEME_LCORE_VAR:
		return lv_setup(c, why, why_len);
	case PERF_SCHEME_ZMALLOC:
		RTE_LCORE_FOREACH(l) {
			c->per_lcore[l] = rte_zmalloc_socket("perf_zt",
				(size_t)c->nb_objs * sizeof(struct perf_pair),
				RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(l));
			if (c->per_lcore[l] == NULL)
				return -1;
			c->populated += (uint64_t)c->nb_objs *
				sizeof(struct perf_pair);
		}
		return 0;
	case PERF_SCHEME_VPP:
		return vpp_setup(c);
	case PERF_SCHEME_ATOMIC:
		c->shared = aligned_alloc(RTE_CACHE_LINE_SIZE,
			RTE_ALIGN_CEIL((size_t)c->nb_objs *
				sizeof(struct perf_pair), RTE_CACHE_LINE_SIZE));
		if (c->shared == NULL)
			return -1;
		memset(c->shared, 0, (size_t)c->nb_objs *
			sizeof(struct perf_pair));
		c->populated = (uint64_t)c->nb_objs * sizeof(struct perf_pair);
		return 0;
	default:
		snprintf(why, why_len, "not a baseline");
		return -1;
	}
}

void
perf_baseline_access_free(struct perf_access_ctx *c)
{
	unsigned int l;

	switch (c->scheme) {
	case PERF_SCHEME_LCORE_VAR:
		lv_free(c);
		break;
	case PERF_SCHEME_ZMALLOC:
		for (l = 0; c->per_lcore != NULL && l < RTE_MAX_LCORE; l++)
			rte_free(c->per_lcore[l]);
		break;
	case PERF_SCHEME_VPP:
		if (c->priv != NULL) {
			struct perf_vec *vecs = c->priv;

			for (l = 0; l < RTE_MAX_LCORE; l++)
				free(vecs[l].v);
			free(vecs);
		}
		break;
	case PERF_SCHEME_ATOMIC:
		free(c->shared);
		break;
	default:
		break;
	}
	free(c->handles);
	free(c->stream_h);
	free(c->per_lcore);
	c->handles = NULL;
	c->stream_h = NULL;
	c->per_lcore = NULL;
	c->shared = NULL;
	c->priv = NULL;
}

uint64_t
perf_baseline_access_sum(struct perf_access_ctx *c)
{
	const struct perf_pair *sh = c->shared;
	uint64_t sum = 0;
	unsigned int l;
	uint32_t i;

	if (c->scheme == PERF_SCHEME_ATOMIC) {
		for (i = 0; i < c->nb_objs; i++)
			sum += sh[i].packets;
		return sum;
	}
	if (c->scheme == PERF_SCHEME_TLS)
		return RTE_PER_LCORE(perf_tls_pair).packets;
	RTE_LCORE_FOREACH(l) {
		for (i = 0; i < c->nb_objs; i++) {
			const struct perf_pair *p;

			switch (c->scheme) {
			case PERF_SCHEME_STATIC:
				p = &perf_static[l][i];
				break;
			case PERF_SCHEME_LCORE_VAR:
				p = (const struct perf_pair *)
					((const char *)c->handles[i] +
					 (size_t)l * PERF_LCORE_VAR_MAX);
				break;
			default: /* zmalloc, vpp */
				p = (const struct perf_pair *)c->per_lcore[l] + i;
				break;
			}
			sum += p->packets;
		}
	}
	return sum;
}

/* The loops: only ADDR (e: the stream entry) and UPDATE (of p) differ. */

#define DEFINE_ACCESS(name, STREAM, ADDR, UPDATE)			\
static uint64_t								\
access_##name(void *arg, unsigned int idx, uint64_t deadline)		\
{									\
	struct perf_access_ctx *c = arg;				\
									\
	return PERF_ACCESS_LOOP(c, idx, deadline, STREAM, ADDR, UPDATE);	\
}

/* one object: the entry is not read */
DEFINE_ACCESS(tls, c->order, &RTE_PER_LCORE(perf_tls_pair),
	PERF_PAIR_INC(p))

/* stats[rte_lcore_id()][index] */
DEFINE_ACCESS(static, c->order, &perf_static[rte_lcore_id()][e],
	PERF_PAIR_INC(p))

/* RTE_LCORE_VAR_VALUE(handle): handle + lcore id x RTE_MAX_LCORE_VAR */
DEFINE_ACCESS(lcore_var, c->stream_h, (struct perf_pair *)
	((char *)e + (size_t)rte_lcore_id() * PERF_LCORE_VAR_MAX),
	PERF_PAIR_INC(p))

/* zmalloc table and VPP's vlib_increment_combined_counter():
 * counters[thread][index] */
DEFINE_ACCESS(table, c->order,
	(struct perf_pair *)c->per_lcore[rte_lcore_id()] + e,
	PERF_PAIR_INC(p))

DEFINE_ACCESS(atomic, c->order, (struct perf_pair *)c->shared + e, ({
	__atomic_fetch_add(&p->packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->bytes, 64, __ATOMIC_RELAXED);
}))

perf_loop_fn *
perf_baseline_access_loop(enum perf_scheme s)
{
	switch (s) {
	case PERF_SCHEME_TLS:
		return access_tls;
	case PERF_SCHEME_STATIC:
		return access_static;
	case PERF_SCHEME_LCORE_VAR:
		return access_lcore_var;
	case PERF_SCHEME_ZMALLOC:
	case PERF_SCHEME_VPP:
		return access_table;
	case PERF_SCHEME_ATOMIC:
		return access_atomic;
	default:
		return NULL;
	}
}

/* The naive percpu allocator: each lcore's copy a separate rte_zmalloc. */
struct perf_naive {
	unsigned int nb_lcores;
	unsigned int nb_objs;
	size_t size;
	int socket[RTE_MAX_LCORE];
	void **ptrs; /* nb_objs x nb_lcores */
};

struct perf_naive *
perf_naive_create(unsigned int nb_objs, size_t size)
{
	struct perf_naive *na = calloc(1, sizeof(*na));
	unsigned int l;

	if (na == NULL)
		return NULL;
	RTE_LCORE_FOREACH(l)
		na->socket[na->nb_lcores++] = (int)rte_lcore_to_socket_id(l);
	na->nb_objs = nb_objs;
	na->size = size;
	na->ptrs = calloc((size_t)nb_objs * na->nb_lcores, sizeof(void *));
	if (na->ptrs == NULL) {
		free(na);
		return NULL;
	}
	return na;
}

int
perf_naive_alloc(struct perf_naive *na, unsigned int i)
{
	void **p = &na->ptrs[(size_t)i * na->nb_lcores];
	unsigned int k;

	for (k = 0; k < na->nb_lcores; k++) {
		p[k] = rte_zmalloc_socket(NULL, na->size, 0, na->socket[k]);
		if (p[k] == NULL) {
			while (k-- > 0) {
				rte_free(p[k]);
				p[k] = NULL;
			}
			return -1;
		}
	}
	return 0;
}

void
perf_naive_free(struct perf_naive *na, unsigned int i)
{
	void **p = &na->ptrs[(size_t)i * na->nb_lcores];
	unsigned int k;

	for (k = 0; k < na->nb_lcores; k++) {
		rte_free(p[k]);
		p[k] = NULL;
	}
}

void
perf_naive_destroy(struct perf_naive *na)
{
	size_t i;

	if (na == NULL)
		return;
	for (i = 0; i < (size_t)na->nb_objs * na->nb_lcores; i++)
		rte_free(na->ptrs[i]);
	free(na->ptrs);
	free(na);
}

/*
 * rte_mempool as applications create it (l3fwd: rte_pktmbuf_pool_create,
 * a cache of 256): rte_mempool_create() with no flags picks the
 * "ring_mp_mc" ops, a multi-producer multi-consumer ring behind the
 * per-lcore caches.
 */
void *
perf_mempool_create(size_t size, unsigned int n)
{
	static unsigned int seq;
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "perf_mp%u", seq++);
	return rte_mempool_create(name, n, (unsigned int)size, 256, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
}

void
perf_mempool_free(void *mp)
{
	rte_mempool_free(mp);
}

const char *
perf_mempool_ops_name(void *mp)
{
	struct rte_mempool_ops *ops = rte_mempool_get_ops(
		((struct rte_mempool *)mp)->ops_index);

	return ops != NULL ? ops->name : "?";
}

uint64_t
perf_mempool_pair_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct rte_mempool *mp = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			if (unlikely(rte_mempool_get(mp, &o) != 0))
				return ops + i;
			rte_mempool_put(mp, o);
		}
		ops += 256;
	} while (rte_rdtsc() < deadline);
	return ops;
}
