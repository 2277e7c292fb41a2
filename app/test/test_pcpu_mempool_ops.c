/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_mempool_ops_autotest: stock rte_mempools with the "pcpu" ops
 * (rte_pcpu_mempool_ops.h).
 *
 * The cases of DPDK's own mempool test that apply to a driver (basic get
 * and put with and without the per-lcore cache, bulk, a user-owned cache
 * and its flush, audit, obj_iter, mem_iter, walk, lookup, dump, free and
 * re-create, the single-producer/consumer flags, the NON_IO flag), written
 * here for this driver, plus what a percpu driver must show: the objects
 * are handles with one copy per lcore (isolation on every lcore,
 * concurrent get and put with an ownership check per object, a thread
 * registered later), the layout, n of 1, 1,000 and 100,000, element sizes
 * 8 B .. 4 KiB, the populated-bytes limit reached during populate (clear
 * error, nothing leaked), mbuf pools refused, rte_pcpu_zero() after a get,
 * objects out at the free (the log line, the debug quarantine), the anon
 * populate path and the ops registration.
 *
 * Every case frees its pools and ends with rte_pcpu_cleanup(), so cases
 * are independent. Run with --lcores='(0-7)@(0,1)' for 8 lcores on 2 CPUs;
 * the meson test pcpu_mempool_ops_autotest_no_lcore0 runs it without lcore
 * 0 (unit 0 then gets memory for the object headers, and the thread
 * registered later receives lcore id 0).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_string_fns.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool_ops.h>

#include "test.h"
#include "test_pcpu_util.h"

/* rte_mempool_objhdr: next, mp, iova */
#define OPS_HDR 24u

struct ctr {
	uint64_t packets;
	uint64_t bytes;
};

/* Names of the pools a failed case left behind. */
static void
leftover_cb(struct rte_mempool *mp, void *arg)
{
	char (*names)[RTE_MEMPOOL_NAMESIZE] = arg;
	unsigned int i;

	if (strncmp(mp->name, "ops_", 4) != 0)
		return;
	for (i = 0; i < 16 && names[i][0] != '\0'; i++)
		;
	if (i < 16)
		rte_strscpy(names[i], mp->name, RTE_MEMPOOL_NAMESIZE);
}

static void
ops_reset(void)
{
	char names[16][RTE_MEMPOOL_NAMESIZE];
	unsigned int i;

	memset(names, 0, sizeof(names));
	rte_mempool_walk(leftover_cb, names);
	for (i = 0; i < 16 && names[i][0] != '\0'; i++)
		rte_mempool_free(rte_mempool_lookup(names[i]));
	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_cleanup() != 0)
		printf("rte_pcpu_cleanup: %s\n", rte_strerror(rte_errno));
}

static int
ops_setup(void)
{
	ops_reset();
	return rte_pcpu_init(NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* The stock three calls. */
static struct rte_mempool *
ops_pool(const char *name, unsigned int n, unsigned int elt_size,
		unsigned int cache_size, unsigned int flags,
		const struct rte_pcpu_mempool_ops_conf *conf)
{
	struct rte_mempool *mp;

	mp = rte_mempool_create_empty(name, n, elt_size, cache_size, 0,
		SOCKET_ID_ANY, flags);
	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, RTE_PCPU_MEMPOOL_OPS_NAME,
			(void *)(uintptr_t)conf) != 0 ||
	    rte_mempool_populate_default(mp) != (int)n) {
		rte_mempool_free(mp);
		return NULL;
	}
	return mp;
}

static void
mz_count_cb(const struct rte_memzone *mz __rte_unused, void *arg)
{
	(*(unsigned int *)arg)++;
}

static unsigned int
memzones(void)
{
	unsigned int n = 0;

	rte_memzone_walk(mz_count_cb, &n);
	return n;
}

/* What the allocator holds, to compare before and after a case. */
struct ops_baseline {
	uint64_t live;
	/* per unit: unit 0 may gain memory for the headers meanwhile */
	uint64_t populated_pages;
	unsigned int memzones;
};

static void
baseline_take(struct ops_baseline *b)
{
	struct rte_pcpu_stats s;

	/* a steady state: the reserve of empty pages exists */
	rte_pcpu_free(rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0));
	rte_pcpu_cache_flush();
	rte_pcpu_reclaim();
	rte_pcpu_stats_get(&s);
	b->live = s.nr_cur_alloc;
	b->populated_pages = s.populated_pages;
	b->memzones = memzones();
}

static int
baseline_check(const struct ops_baseline *b0, const char *what)
{
	struct ops_baseline b;

	baseline_take(&b);
	TEST_ASSERT_EQUAL(b.live, b0->live, "%s: live percpu objects", what);
	TEST_ASSERT_EQUAL(b.populated_pages, b0->populated_pages,
		"%s: populated pages", what);
	TEST_ASSERT_EQUAL(b.memzones, b0->memzones, "%s: memzones", what);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "%s: audit", what);
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */

/* The ops are registered, first under their name, beside Debian's. */
static int
test_registered(void)
{
	unsigned int i, ours = UINT32_MAX, ring = UINT32_MAX;

	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_ops_check(), "ops check");
	for (i = 0; i < rte_mempool_ops_table.num_ops; i++) {
		const char *name = rte_mempool_ops_table.ops[i].name;

		printf(" %s", name);
		if (ours == UINT32_MAX &&
		    strcmp(name, RTE_PCPU_MEMPOOL_OPS_NAME) == 0)
			ours = i;
		if (strcmp(name, "ring_mp_mc") == 0)
			ring = i;
	}
	printf("\nregistered: %u mempool ops of %d, \"%s\" at index %u\n",
		rte_mempool_ops_table.num_ops, RTE_MEMPOOL_MAX_OPS_IDX,
		RTE_PCPU_MEMPOOL_OPS_NAME, ours);
	TEST_ASSERT(ours < rte_mempool_ops_table.num_ops, "\"pcpu\" missing");
	/* loaded with the program, before EAL loads the driver plugins */
	TEST_ASSERT(ring == UINT32_MAX || ours < ring,
		"\"pcpu\" (%u) registered after ring_mp_mc (%u)", ours, ring);
	return TEST_SUCCESS;
}

/* DPDK's basic case: counts, get, put, bulk, from_obj, iterators. */
static void
iter_count_cb(struct rte_mempool *mp __rte_unused, void *arg, void *obj,
		unsigned int idx)
{
	void **seen = arg;

	seen[idx] = obj;
}

static void
mem_count_cb(struct rte_mempool *mp __rte_unused, void *arg,
		struct rte_mempool_memhdr *memhdr __rte_unused,
		unsigned int idx __rte_unused)
{
	(*(unsigned int *)arg)++;
}

static int
basic(struct rte_mempool *mp, unsigned int n)
{
	void **objs = calloc(n + 1, sizeof(*objs));
	void **seen = calloc(n, sizeof(*seen));
	unsigned int i, chunks = 0;
	struct ctr *c;
	void *o;

	TEST_ASSERT(objs != NULL && seen != NULL, "no memory");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), n, "avail");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_EQUAL(rte_mempool_obj_iter(mp, iter_count_cb, seen), n,
		"obj_iter count");
	TEST_ASSERT_EQUAL(rte_mempool_mem_iter(mp, mem_count_cb, &chunks), 1u,
		"mem_iter count");
	TEST_ASSERT_EQUAL(chunks, 1u, "one memory chunk (the token)");
	TEST_ASSERT_EQUAL(mp->nb_mem_chunks, 1u, "nb_mem_chunks");
	/* a handle of every object, each with its header */
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(rte_mempool_from_obj(seen[i]), mp,
			"from_obj of object %u", i);

	TEST_ASSERT_SUCCESS(rte_mempool_get(mp, &o), "get");
	TEST_ASSERT_EQUAL(rte_mempool_from_obj(o), mp, "from_obj");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(mp), 1u, "in use 1");
	c = o;
	RTE_PCPU(c)->packets = 7;
	TEST_ASSERT_EQUAL(RTE_PCPU_LCORE(rte_lcore_id(), c)->packets,
		(uint64_t)7, "own copy");
	rte_mempool_put(mp, o);
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(mp), 0u, "in use 0");

	/* every object at once, then one more fails */
	TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(mp, objs, n), "get all");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), 0u, "avail 0");
	/* as the ring_* ops: -ENOBUFS */
	TEST_ASSERT_EQUAL(rte_mempool_get(mp, &objs[n]), -ENOBUFS,
		"get from an empty pool");
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(rte_mempool_from_obj(objs[i]), mp,
			"from_obj %u", i);
	rte_mempool_put_bulk(mp, objs, n);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), n, "avail n");
	rte_mempool_audit(mp);
	free(objs);
	free(seen);
	return TEST_SUCCESS;
}

static int
test_basic(unsigned int cache_size, int helper)
{
	struct ops_baseline b0;
	struct rte_mempool *mp;
	const unsigned int n = 1023;

	baseline_take(&b0);
	mp = helper ? rte_pcpu_mempool_ops_create("ops_basic", n,
		sizeof(struct ctr), cache_size, 0, NULL, NULL, NULL, NULL,
		SOCKET_ID_ANY, 0) : ops_pool("ops_basic", n,
		sizeof(struct ctr), cache_size, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create: %s", rte_strerror(rte_errno));
	TEST_ASSERT_EQUAL(strcmp(rte_mempool_get_ops(mp->ops_index)->name,
		RTE_PCPU_MEMPOOL_OPS_NAME), 0, "ops name");
	TEST_ASSERT_EQUAL(rte_mempool_lookup("ops_basic"), mp, "lookup");
	TEST_ASSERT_EQUAL(basic(mp, n), TEST_SUCCESS, "basic");
	rte_mempool_free(mp);
	TEST_ASSERT_NULL(rte_mempool_lookup("ops_basic"), "lookup after free");
	return baseline_check(&b0, "after the free");
}

static int test_basic_cache(void) { return test_basic(32, 0); }
static int test_basic_nocache(void) { return test_basic(0, 0); }
static int test_basic_helper(void) { return test_basic(256, 1); }

/* A user-owned cache, its generic get and put, and its flush. */
static int
test_flush(void)
{
	struct rte_mempool_cache *cache;
	struct rte_mempool *mp;
	void *objs[16];
	unsigned int i;

	mp = ops_pool("ops_flush", 256, 32, 0, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cache = rte_mempool_cache_create(32, SOCKET_ID_ANY);
	TEST_ASSERT_NOT_NULL(cache, "user cache");
	for (i = 0; i < RTE_DIM(objs); i++)
		TEST_ASSERT_SUCCESS(rte_mempool_generic_get(mp, &objs[i], 1,
			cache), "generic get %u", i);
	rte_mempool_generic_put(mp, objs, RTE_DIM(objs), cache);
	TEST_ASSERT(cache->len > 0, "the cache holds the objects put");
	TEST_ASSERT(rte_mempool_avail_count(mp) < 256, "not all in the ring");
	rte_mempool_cache_flush(cache, mp);
	TEST_ASSERT_EQUAL(cache->len, 0u, "flushed");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), 256u,
		"every object back in the ring");
	rte_mempool_cache_free(cache);
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

/* walk, lookup, dump, list dump */
static void
walk_cb(struct rte_mempool *mp, void *arg)
{
	unsigned int *n = arg;

	if (strncmp(mp->name, "ops_walk", 8) == 0)
		n[strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			RTE_PCPU_MEMPOOL_OPS_NAME) == 0]++;
}

static int
test_walk_lookup_dump(void)
{
	struct rte_mempool *a, *b, *ring;
	unsigned int seen[2] = { 0, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	a = ops_pool("ops_walk_a", 64, 16, 8, 0, NULL);
	b = rte_pcpu_mempool_ops_create("ops_walk_b", 64, 16, 8, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	ring = rte_mempool_create("ops_walk_ring", 64, 16, 8, 0, NULL, NULL,
		NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT(a != NULL && b != NULL && ring != NULL, "create");
	rte_mempool_walk(walk_cb, seen);
	TEST_ASSERT_EQUAL(seen[1], 2u, "walk: two pcpu pools");
	TEST_ASSERT_EQUAL(seen[0], 1u, "walk: one ring pool");
	TEST_ASSERT_EQUAL(rte_mempool_lookup("ops_walk_b"), b, "lookup");
	f = open_memstream(&buf, &len);
	TEST_ASSERT_NOT_NULL(f, "memstream");
	rte_mempool_dump(f, a);
	rte_mempool_list_dump(f);
	rte_pcpu_dump(f);
	fclose(f);
	TEST_ASSERT_NOT_NULL(strstr(buf, "ops_name: <pcpu>"),
		"dump names the ops");
	TEST_ASSERT_NOT_NULL(strstr(buf, "mempool <ops_walk_b>"),
		"list dump has the helper's pool");
	TEST_ASSERT_NOT_NULL(strstr(buf, "mempool ops_walk_a (\"pcpu\" ops): "
		"64 objects"), "rte_pcpu_dump has the pool");
	free(buf);
	rte_mempool_free(a);
	rte_mempool_free(b);
	rte_mempool_free(ring);
	return TEST_SUCCESS;
}

/* Free and re-create under the same name: nothing accumulates. */
static int
test_free_recreate(void)
{
	struct ops_baseline b0;
	struct rte_mempool *mp;
	unsigned int i;

	baseline_take(&b0);
	for (i = 0; i < 20; i++) {
		mp = ops_pool("ops_again", 5000, 64, 16, 0, NULL);
		TEST_ASSERT_NOT_NULL(mp, "create %u", i);
		rte_mempool_free(mp);
	}
	return baseline_check(&b0, "after 20 create/free");
}

/* Unit 0 gets memory with the first pool when lcore 0 is not an lcore
 * (the no_lcore0 variant), and keeps it after the last pool is freed, as
 * the guide says ("Which Lcores Have Memory"): units are never taken
 * back. With lcore 0 an lcore, nothing changes. */
static int
test_unit0_kept(void)
{
	struct rte_pcpu_stats s0, s1, s2;
	unsigned int want;
	struct rte_mempool *mp;

	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s0), "stats");
	/* lcore 0 has memory when it is an lcore, EAL's or registered */
	want = s0.nr_lcores + (rte_pcpu_lcore_has_memory(0) ? 0 : 1);
	mp = ops_pool("ops_unit0", 64, 16, 0, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s1), "stats");
	rte_mempool_free(mp);
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "reclaim");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s2), "stats");
	TEST_ASSERT(s1.nr_lcores == want && s2.nr_lcores == want,
		"units with memory: %u before, %u with the pool, %u after, "
		"want %u", s0.nr_lcores, s1.nr_lcores, s2.nr_lcores, want);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* Layout: the stride per object and per lcore, and the pool's sizes. */
static int
test_layout(void)
{
	static const struct {
		unsigned int elt, flags, stride;
	} want[] = {
		{ 16, 0, 64 }, { 64, 0, 128 }, { 256, 0, 320 },
		{ 16, RTE_MEMPOOL_F_NO_CACHE_ALIGN, 40 },
		{ 64, RTE_MEMPOOL_F_NO_CACHE_ALIGN, 88 },
		{ 256, RTE_MEMPOOL_F_NO_CACHE_ALIGN, 280 },
	};
	struct rte_mempool *mp, *stock;
	unsigned int k, i, align;
	void *seen[8];
	char name[32];

	for (k = 0; k < RTE_DIM(want); k++) {
		snprintf(name, sizeof(name), "ops_layout%u", k);
		mp = ops_pool(name, 8, want[k].elt, 0, want[k].flags, NULL);
		TEST_ASSERT_NOT_NULL(mp, "create %s", name);
		TEST_ASSERT_EQUAL(mp->header_size + mp->elt_size +
			mp->trailer_size, want[k].stride, "%u B%s: stride",
			want[k].elt, want[k].flags ? " no cache align" : "");
		TEST_ASSERT_EQUAL(mp->header_size, OPS_HDR, "header size");
		TEST_ASSERT_EQUAL(rte_mempool_obj_iter(mp, iter_count_cb, seen),
			8u, "objects");
		align = want[k].flags ? 8 : RTE_CACHE_LINE_SIZE;
		for (i = 0; i < 8; i++) {
			TEST_ASSERT_EQUAL((uintptr_t)seen[i] % align,
				(uintptr_t)0, "object %u aligned", i);
			if (i > 0)
				TEST_ASSERT_EQUAL((uintptr_t)seen[i] -
					(uintptr_t)seen[i - 1],
					(uintptr_t)want[k].stride, "stride");
		}
		/* a stock pool of the same flags, for comparison (its padding
		 * for memory channels depends on EAL's -n) */
		snprintf(name, sizeof(name), "ops_stock%u", k);
		stock = rte_mempool_create(name, 8, want[k].elt, 0, 0, NULL,
			NULL, NULL, NULL, SOCKET_ID_ANY, want[k].flags);
		TEST_ASSERT_NOT_NULL(stock, "stock pool");
		printf("layout: %u B elements%s: %u B per object per lcore "
			"(ring_mp_mc: %u B, once)\n", want[k].elt,
			want[k].flags ? ", no cache align" : "", want[k].stride,
			stock->header_size + stock->elt_size +
			stock->trailer_size);
		rte_mempool_free(stock);
		rte_mempool_free(mp);
	}
	return TEST_SUCCESS;
}

/* Flags: never IOVA-contiguous, never for IO. */
static int
test_flags(void)
{
	struct rte_mempool *mp;
	void *o;

	mp = ops_pool("ops_flags", 32, 64, 0, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT(mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG, "NO_IOVA_CONTIG");
	TEST_ASSERT(mp->flags & RTE_MEMPOOL_F_NON_IO, "NON_IO");
	TEST_ASSERT_SUCCESS(rte_mempool_get(mp, &o), "get");
	TEST_ASSERT_EQUAL(rte_mempool_virt2iova(o), RTE_BAD_IOVA, "no IOVA");
	rte_mempool_put(mp, o);
	rte_mempool_free(mp);
	/* single producer and consumer: the ring's flags */
	mp = ops_pool("ops_spsc", 32, 64, 0,
		RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create sp/sc");
	TEST_ASSERT_EQUAL(basic(mp, 32), TEST_SUCCESS, "sp/sc basic");
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Percpu objects. */

#define ISO_OBJS 512u
#define ISO_ROUNDS 50u

struct iso_arg {
	struct ctr **objs;
};

static int
iso_worker(void *p)
{
	struct iso_arg *a = p;
	unsigned int me = rte_lcore_id(), r, i;

	for (r = 0; r < ISO_ROUNDS; r++)
		for (i = 0; i < ISO_OBJS; i++) {
			struct ctr *c = RTE_PCPU(a->objs[i]);

			c->packets++;
			c->bytes += me + 1;
		}
	return 0;
}

/* Every lcore bumps its own copy of every object; the sums are exact. */
static int
test_isolation(void)
{
	struct ctr *objs[ISO_OBJS], *v;
	struct iso_arg a = { .objs = objs };
	uint64_t sum[2], want_bytes = 0;
	struct rte_mempool *mp;
	unsigned int i, l, n = 0;

	if (rte_lcore_count() < 2)
		TEST_SKIP("needs 2 lcores or more");
	mp = rte_pcpu_mempool_ops_create("ops_iso", ISO_OBJS, sizeof(struct ctr),
		64, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(mp, (void **)objs, ISO_OBJS),
		"get all");
	rte_eal_mp_remote_launch(iso_worker, &a, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	RTE_LCORE_FOREACH(l) {
		n++;
		want_bytes += (uint64_t)(l + 1) * ISO_ROUNDS;
	}
	for (i = 0; i < ISO_OBJS; i++) {
		RTE_PCPU_FOREACH(l, v, objs[i]) {
			uint64_t p = rte_lcore_is_enabled(l) ? ISO_ROUNDS : 0;

			TEST_ASSERT_EQUAL(v->packets, p, "object %u lcore %u", i,
				l);
			TEST_ASSERT_EQUAL(v->bytes, p * (l + 1),
				"object %u lcore %u bytes", i, l);
		}
		rte_pcpu_sum_u64(objs[i], 2, sum);
		TEST_ASSERT_EQUAL(sum[0], (uint64_t)n * ISO_ROUNDS, "packets");
		TEST_ASSERT_EQUAL(sum[1], want_bytes, "bytes");
	}
	rte_mempool_put_bulk(mp, (void **)objs, ISO_OBJS);
	rte_mempool_free(mp);
	printf("isolation: %u objects on %u lcores\n", ISO_OBJS, n);
	return TEST_SUCCESS;
}

/* Concurrent get and put on every lcore: no object is out twice. */
#define CONC_OBJS 256u
#define CONC_ITERS 20000u

struct conc_arg {
	struct rte_mempool *mp;
	void **sorted;             /* every object, by address */
	unsigned int *owner;       /* per object: lcore + 1, 0 free */
	uint64_t gets;
	int err;
};

static unsigned int
conc_index(const struct conc_arg *a, void *obj)
{
	unsigned int lo = 0, hi = CONC_OBJS;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (a->sorted[mid] < obj)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < CONC_OBJS && a->sorted[lo] == obj ? lo : UINT32_MAX;
}

static int
conc_worker(void *p)
{
	struct conc_arg *a = p;
	unsigned int me = rte_lcore_id(), it, k, n, idx[8];
	void *objs[8];

	for (it = 0; it < CONC_ITERS && !a->err; it++) {
		n = 1 + it % 8;
		if (rte_mempool_get_bulk(a->mp, objs, n) != 0)
			continue;
		for (k = 0; k < n; k++) {
			unsigned int zero = 0;

			idx[k] = conc_index(a, objs[k]);
			if (idx[k] == UINT32_MAX ||
			    !__atomic_compare_exchange_n(&a->owner[idx[k]],
				&zero, me + 1, 0, __ATOMIC_ACQUIRE,
				__ATOMIC_RELAXED)) {
				a->err = 1;
				return -1;
			}
			RTE_PCPU((struct ctr *)objs[k])->packets++;
		}
		for (k = 0; k < n; k++)
			__atomic_store_n(&a->owner[idx[k]], 0, __ATOMIC_RELEASE);
		rte_mempool_put_bulk(a->mp, objs, n);
		__atomic_fetch_add(&a->gets, n, __ATOMIC_RELAXED);
	}
	return 0;
}

static int
ptr_cmp(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(void * const *)x;
	uintptr_t b = (uintptr_t)*(void * const *)y;

	return a < b ? -1 : a > b;
}

static int
test_concurrent(void)
{
	struct conc_arg a = { 0 };
	uint64_t sum[2], total = 0;
	unsigned int i;

	if (rte_lcore_count() < 2)
		TEST_SKIP("needs 2 lcores or more");
	a.mp = ops_pool("ops_conc", CONC_OBJS, sizeof(struct ctr), 16, 0,
		NULL);
	a.sorted = calloc(CONC_OBJS, sizeof(void *));
	a.owner = calloc(CONC_OBJS, sizeof(unsigned int));
	TEST_ASSERT(a.mp != NULL && a.sorted != NULL && a.owner != NULL,
		"set-up");
	rte_mempool_obj_iter(a.mp, iter_count_cb, a.sorted);
	qsort(a.sorted, CONC_OBJS, sizeof(void *), ptr_cmp);
	rte_eal_mp_remote_launch(conc_worker, &a, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	TEST_ASSERT_EQUAL(a.err, 0, "an object was out twice, or unknown");
	for (i = 0; i < CONC_OBJS; i++) {
		rte_pcpu_sum_u64(a.sorted[i], 2, sum);
		total += sum[0];
	}
	TEST_ASSERT_EQUAL(total, a.gets, "every get counted once");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(a.mp), CONC_OBJS,
		"every object back");
	rte_mempool_audit(a.mp);
	printf("concurrent: %" PRIu64 " gets on %u lcores\n", a.gets,
		rte_lcore_count());
	rte_mempool_free(a.mp);
	free(a.sorted);
	free(a.owner);
	return TEST_SUCCESS;
}

/* A thread registered later: zero copies, its own copy writable, seen by
 * readers. Without lcore 0 in the EAL, it receives lcore id 0. */
struct late_arg {
	struct rte_mempool *mp;
	struct ctr *obj;
	unsigned int lcore_id;
	int ok;
};

static void *
late_thread(void *p)
{
	struct late_arg *a = p;
	struct ctr *c;

	if (rte_thread_register() != 0)
		return NULL;
	a->lcore_id = rte_lcore_id();
	c = RTE_PCPU(a->obj);
	a->ok = rte_pcpu_lcore_has_memory(a->lcore_id) && c->packets == 0 &&
		c->bytes == 0;
	c->packets = 1000 + a->lcore_id;
	/* it gets and puts through its own mempool cache */
	if (rte_mempool_get(a->mp, (void **)&c) == 0) {
		RTE_PCPU(c)->bytes = 5;
		rte_mempool_put(a->mp, c);
	} else {
		a->ok = 0;
	}
	rte_thread_unregister();
	return NULL;
}

static int
test_late_thread(void)
{
	struct late_arg a = { 0 };
	struct ctr *v;
	pthread_t t;
	unsigned int l, seen = 0;

	a.mp = rte_pcpu_mempool_ops_create("ops_late", 64, sizeof(struct ctr),
		8, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(a.mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get(a.mp, (void **)&a.obj), "get");
	TEST_ASSERT_EQUAL(pthread_create(&t, NULL, late_thread, &a), 0,
		"thread");
	pthread_join(t, NULL);
	TEST_ASSERT(a.ok, "the late thread's copy was not zero, or its get "
		"failed");
	printf("late thread: lcore id %u\n", a.lcore_id);
	TEST_ASSERT_EQUAL(RTE_PCPU_LCORE(a.lcore_id, a.obj)->packets,
		(uint64_t)1000 + a.lcore_id, "its copy, read from main");
	RTE_PCPU_FOREACH(l, v, a.obj)
		seen += l == a.lcore_id && v == RTE_PCPU_LCORE(l, a.obj);
	TEST_ASSERT_EQUAL(seen, 1u, "readers see its lcore");
	rte_mempool_put(a.mp, a.obj);
	rte_mempool_free(a.mp);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* n of 1, 1,000 and 100,000; elements of 8 B .. 4 KiB. */
static int
sized(unsigned int n, unsigned int elt, unsigned int cache)
{
	void **objs = calloc(n, sizeof(*objs));
	struct rte_mempool *mp;
	unsigned int l, i;
	uint8_t *c;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	mp = rte_pcpu_mempool_ops_create("ops_sized", n, elt, cache, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "n %u elt %u: %s", n, elt,
		rte_strerror(rte_errno));
	TEST_ASSERT_EQUAL(mp->populated_size, n, "populated");
	for (i = 0; i < n; i++)
		TEST_ASSERT_SUCCESS(rte_mempool_get(mp, &objs[i]), "get %u", i);
	TEST_ASSERT_EQUAL(rte_mempool_get(mp, (void **)&c), -ENOBUFS,
		"exhausted");
	/* the first and the last object: every byte of every copy is
	 * theirs, zero since the pool was populated */
	for (i = 0; i < n; i += RTE_MAX(n - 1, 1u)) {
		RTE_PCPU_FOREACH(l, c, (uint8_t *)objs[i]) {
			TEST_ASSERT(pcpu_test_all_bytes(c, elt, 0),
				"object %u: lcore %u's copy not zero", i, l);
			memset(c, 0xa5, elt);
		}
	}
	rte_mempool_put_bulk(mp, objs, n);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), n, "all back");
	rte_mempool_free(mp);
	free(objs);
	return TEST_SUCCESS;
}

static int
test_sizes(void)
{
	static const unsigned int elts[] = { 8, 16, 24, 40, 64, 100, 256,
		1000, 4096 };
	static const unsigned int ns[] = { 1, 1000, 100000 };
	struct ops_baseline b0;
	unsigned int k;

	baseline_take(&b0);
	for (k = 0; k < RTE_DIM(ns); k++)
		TEST_ASSERT_EQUAL(sized(ns[k], 16, 0), TEST_SUCCESS, "n %u",
			ns[k]);
	for (k = 0; k < RTE_DIM(elts); k++)
		TEST_ASSERT_EQUAL(sized(1000, elts[k], 32), TEST_SUCCESS,
			"elt %u", elts[k]);
	return baseline_check(&b0, "after the sizes");
}

/* rte_mempool_get() does not zero; rte_pcpu_zero() does. */
static int
test_zero_after_get(void)
{
	struct rte_mempool *mp;
	struct ctr *o, *o2, *v;
	unsigned int l;

	mp = ops_pool("ops_zero", 16, sizeof(struct ctr), 4, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get(mp, (void **)&o), "get");
	RTE_PCPU_FOREACH(l, v, o)
		v->packets = v->bytes = l + 1;
	rte_mempool_put(mp, o);
	/* the cache is LIFO: the same object comes back as it was left */
	TEST_ASSERT_SUCCESS(rte_mempool_get(mp, (void **)&o2), "get again");
	TEST_ASSERT_EQUAL(o2, o, "same object");
	RTE_PCPU_FOREACH(l, v, o2)
		TEST_ASSERT_EQUAL(v->packets, (uint64_t)l + 1,
			"get does not zero");
	TEST_ASSERT_SUCCESS(rte_pcpu_zero(o2, mp->elt_size), "zero");
	RTE_PCPU_FOREACH(l, v, o2)
		TEST_ASSERT(v->packets == 0 && v->bytes == 0, "zeroed");
	TEST_ASSERT_EQUAL(rte_mempool_from_obj(o2), mp, "header intact");
	rte_mempool_put(mp, o2);
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

static void
zero_collect_cb(struct rte_mempool *mp __rte_unused, void *arg, void *obj,
		unsigned int idx)
{
	((uint8_t **)arg)[idx] = obj;
}

/*
 * rte_pcpu_zero() on an object of a pool of 16-byte elements stays inside
 * the element: a range reaching past it (into the trailer, the padding or
 * the next object's rte_mempool header) or starting before it (in its
 * header) is refused and writes nothing; ranges inside it are zeroed.
 * With cache-aligned objects (64 B apart) and packed ones (40 B apart).
 */
static int
zero_bounds(unsigned int flags)
{
	struct rte_mempool *mp;
	uint8_t *objs[8], *o, *c;
	unsigned int i, l;

	mp = rte_pcpu_mempool_ops_create("ops_zero_bounds", RTE_DIM(objs), 16,
		0, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, flags);
	TEST_ASSERT_NOT_NULL(mp, "create (flags %#x)", flags);
	TEST_ASSERT_EQUAL(rte_mempool_obj_iter(mp, zero_collect_cb, objs),
		RTE_DIM(objs), "objects");
	for (i = 0; i < RTE_DIM(objs); i++) {
		o = objs[i];
		RTE_PCPU_FOREACH(l, c, o)
			memset(c, 0xab, 16);
		rte_errno = 0;
		TEST_ASSERT_EQUAL(rte_pcpu_zero(o, 128), -1, "object %u, 128 B",
			i);
		TEST_ASSERT_EQUAL(rte_errno, EINVAL, "rte_errno");
		TEST_ASSERT_EQUAL(rte_pcpu_zero(o, 17), -1, "17 B");
		TEST_ASSERT_EQUAL(rte_pcpu_zero(o + 8, 9), -1, "[8, 17)");
		TEST_ASSERT_EQUAL(rte_pcpu_zero(o - 8, 8), -1, "its header");
		TEST_ASSERT_EQUAL(rte_pcpu_zero(o + 16, 8), -1, "after it");
		RTE_PCPU_FOREACH(l, c, o)
			TEST_ASSERT(c[0] == 0xab && c[15] == 0xab,
				"lcore %u: refused ranges wrote nothing", l);
		TEST_ASSERT_SUCCESS(rte_pcpu_zero(o + 8, 8), "[8, 16)");
		RTE_PCPU_FOREACH(l, c, o)
			TEST_ASSERT(c[7] == 0xab && c[8] == 0 && c[15] == 0,
				"lcore %u: [8, 16) zeroed, no more", l);
		TEST_ASSERT_SUCCESS(rte_pcpu_zero(o, mp->elt_size), "element");
		RTE_PCPU_FOREACH(l, c, o)
			TEST_ASSERT(c[0] == 0, "lcore %u: zeroed", l);
	}
	for (i = 0; i < RTE_DIM(objs); i++)
		TEST_ASSERT_EQUAL(rte_mempool_from_obj(objs[i]), mp,
			"header of object %u intact", i);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), RTE_DIM(objs),
		"all in the pool");
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

static int
test_zero_bounds(void)
{
	TEST_ASSERT_SUCCESS(zero_bounds(0), "cache-aligned objects");
	return zero_bounds(RTE_MEMPOOL_F_NO_CACHE_ALIGN);
}

/* The populated-bytes limit reached while populating. */
static int
test_limit_during_populate(void)
{
	struct rte_pcpu_conf conf = {
		.max_populated = UINT64_C(8) << 20,
		.page_policy = RTE_PCPU_PAGE_NORMAL,
	};
	struct ops_baseline b0;
	struct rte_mempool *mp;
	int ret;

	ops_reset();
	TEST_ASSERT_SUCCESS(rte_pcpu_init(&conf), "init with a limit");
	baseline_take(&b0);
	/* 100,000 x 64 B per lcore: far above 8 MiB in all */
	rte_errno = 0;
	mp = rte_pcpu_mempool_ops_create("ops_limit", 100000, 64, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NULL(mp, "create above the limit");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "errno");
	TEST_ASSERT_NULL(rte_mempool_lookup("ops_limit"), "no pool left");
	TEST_ASSERT_EQUAL(baseline_check(&b0, "helper"), TEST_SUCCESS, "leak");
	/* the stock calls: populate fails, the pool stays empty */
	mp = rte_mempool_create_empty("ops_limit", 100000, 64, 0, 0,
		SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "create empty");
	TEST_ASSERT_SUCCESS(rte_mempool_set_ops_byname(mp,
		RTE_PCPU_MEMPOOL_OPS_NAME, NULL), "set ops");
	ret = rte_mempool_populate_default(mp);
	TEST_ASSERT_EQUAL(ret, -ENOBUFS, "populate above the limit");
	TEST_ASSERT_EQUAL(mp->populated_size, 0u, "nothing placed");
	rte_mempool_free(mp);
	TEST_ASSERT_EQUAL(baseline_check(&b0, "stock calls"), TEST_SUCCESS,
		"leak");
	/* a pool within the limit works */
	mp = rte_pcpu_mempool_ops_create("ops_limit", 1000, 64, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "a pool within the limit");
	rte_mempool_free(mp);
	return baseline_check(&b0, "after the pool within the limit");
}

/* An mbuf pool with "pcpu" ops is refused. */
static int
test_mbuf_refused(void)
{
	struct rte_mempool *mp;

	rte_errno = 0;
	mp = rte_pktmbuf_pool_create_by_ops("ops_mbuf", 63, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY,
		RTE_PCPU_MEMPOOL_OPS_NAME);
	TEST_ASSERT_NULL(mp, "mbuf pool accepted");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	rte_errno = 0;
	mp = rte_pktmbuf_pool_create_by_ops("ops_mbuf", 63, 0, 64, 0,
		SOCKET_ID_ANY, RTE_PCPU_MEMPOOL_OPS_NAME);
	TEST_ASSERT_NULL(mp, "mbuf pool with only a private area accepted");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_NULL(rte_mempool_lookup("ops_mbuf"), "no pool left");
	/* the documented gap: no data room, no private area */
	mp = rte_pktmbuf_pool_create_by_ops("ops_mbuf", 63, 0, 0, 0,
		SOCKET_ID_ANY, RTE_PCPU_MEMPOOL_OPS_NAME);
	TEST_ASSERT_NOT_NULL(mp, "128-byte pool with a zero private area");
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

/* Objects out at the free: the log line; the debug quarantine. */
static int
free_with_out(int debug, char **log)
{
	struct rte_pcpu_mempool_ops_conf conf = {
		.flags = debug ? RTE_PCPU_MEMPOOL_OPS_F_DEBUG : 0,
	};
	struct rte_mempool *mp;
	size_t len = 0;
	FILE *old, *f;
	void *o[3];

	mp = ops_pool("ops_out", 64, 32, 8, 0, &conf);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(mp, o, 3), "get 3");
	f = open_memstream(log, &len);
	TEST_ASSERT_NOT_NULL(f, "memstream");
	old = rte_log_get_stream();
	rte_openlog_stream(f);
	rte_mempool_free(mp);
	rte_openlog_stream(old);
	fclose(f);
	fputs(*log, stdout);
	return TEST_SUCCESS;
}

static int
test_free_with_objects_out(void)
{
	struct rte_pcpu_stats s0, s;
	struct ops_baseline b0;
	char *log = NULL;

	baseline_take(&b0);
	TEST_ASSERT_EQUAL(free_with_out(0, &log), TEST_SUCCESS, "default");
	TEST_ASSERT_NOT_NULL(strstr(log, "rte_mempool_free(ops_out): 3 "
		"objects still out"), "the log line");
	free(log);
	log = NULL;
	TEST_ASSERT_EQUAL(baseline_check(&b0, "default: memory back"),
		TEST_SUCCESS, "default");
	/* no objects out: no line */
	rte_pcpu_stats_get(&s0);
	TEST_ASSERT_EQUAL(free_with_out(1, &log), TEST_SUCCESS, "debug");
	TEST_ASSERT_NOT_NULL(strstr(log, "3 objects still out: its percpu "
		"memory is kept"), "the debug log line");
	free(log);
	rte_pcpu_stats_get(&s);
	TEST_ASSERT_EQUAL(s.nr_cur_alloc, s0.nr_cur_alloc + 1,
		"the block is kept");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_audit(), -1, "the audit reports it");
	TEST_ASSERT_EQUAL(rte_errno, EFAULT, "audit errno");
	/* rte_pcpu_cleanup() (the teardown) ends the quarantine */
	return TEST_SUCCESS;
}

/* rte_pcpu_free() of one of the pool's objects: refused with a line that
 * names the pool and the call to use; the object stays the pool's. */
static int
test_pcpu_free_refused(void)
{
	struct rte_mempool *mp;
	char *log = NULL;
	size_t len = 0;
	FILE *old, *f;
	void *o;
	int ret;

	mp = ops_pool("ops_fr", 64, 32, 8, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get(mp, &o), "get");
	f = open_memstream(&log, &len);
	TEST_ASSERT_NOT_NULL(f, "memstream");
	old = rte_log_get_stream();
	rte_openlog_stream(f);
	rte_errno = 0;
	ret = rte_pcpu_free(o);
	rte_openlog_stream(old);
	fclose(f);
	fputs(log, stdout);
	TEST_ASSERT_EQUAL(ret, -1, "refused");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_NOT_NULL(strstr(log, "lies in a block of mempool:ops_fr, "
		"an rte_mempool with the \"pcpu\" ops: give it back with "
		"rte_mempool_put()"), "the line names the pool");
	free(log);
	TEST_ASSERT_EQUAL(rte_mempool_from_obj(o), mp, "still the pool's");
	rte_mempool_put(mp, o);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(mp), 64u, "all back");
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

static int
test_free_no_objects_out(void)
{
	struct rte_pcpu_mempool_ops_conf conf = {
		.flags = RTE_PCPU_MEMPOOL_OPS_F_DEBUG,
	};
	struct rte_mempool *mp;
	struct ops_baseline b0;
	void *o[40];

	baseline_take(&b0);
	/* objects in the lcore cache and in the ring, none out */
	mp = ops_pool("ops_in", 64, 32, 8, 0, &conf);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(mp, o, 40), "get 40");
	rte_mempool_put_bulk(mp, o, 40);
	TEST_ASSERT(mp->local_cache[rte_lcore_id()].len > 0, "cached");
	rte_mempool_free(mp);
	return baseline_check(&b0, "nothing out: memory back, audit clean");
}

/* rte_mempool_populate_anon(): the driver places the objects as ever. */
static int
test_populate_anon(void)
{
	struct rte_mempool *mp;

	mp = rte_mempool_create_empty("ops_anon", 100, 32, 0, 0,
		SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "create empty");
	TEST_ASSERT_SUCCESS(rte_mempool_set_ops_byname(mp,
		RTE_PCPU_MEMPOOL_OPS_NAME, NULL), "set ops");
	TEST_ASSERT_EQUAL(rte_mempool_populate_anon(mp), 100, "populate");
	TEST_ASSERT_EQUAL(basic(mp, 100), TEST_SUCCESS, "basic");
	rte_mempool_free(mp);
	return TEST_SUCCESS;
}

/* Bad pool_config; a pool still alive at rte_pcpu_cleanup(). */
static int
test_bad_conf_and_cleanup(void)
{
	struct rte_pcpu_mempool_ops_conf conf = { .flags = 0x100 };
	struct rte_mempool *mp;
	void *o;

	mp = rte_mempool_create_empty("ops_badconf", 16, 16, 0, 0,
		SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "create empty");
	TEST_ASSERT_SUCCESS(rte_mempool_set_ops_byname(mp,
		RTE_PCPU_MEMPOOL_OPS_NAME, &conf), "set ops");
	TEST_ASSERT_EQUAL(rte_mempool_populate_default(mp), (int)-EINVAL,
		"unknown flag");
	rte_mempool_free(mp);
	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_mempool_ops_create(NULL, 16, 16, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0), "NULL name");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "NULL name errno");
	TEST_ASSERT_NULL(rte_pcpu_mempool_ops_create("ops_bad", 0, 16, 0, 0,
		NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0), "n 0");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "n 0 errno");
	/* alive at the cleanup: emptied, and freeing it later is safe */
	mp = ops_pool("ops_alive", 16, 16, 4, 0, NULL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup with a pool alive");
	TEST_ASSERT_EQUAL(rte_mempool_get(mp, &o), -ENOBUFS, "emptied");
	rte_mempool_free(mp);
	return rte_pcpu_init(NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Helper for pcpu_mempool_ops_telemetry.sh (not a test): a pool "tel_ops"
 * with "pcpu" ops (n 1000, elt_size 64, cache 32) with 5 objects out,
 * held until the file named by PCPU_TEL_DONE exists (at most 60 s).
 */
static int
telemetry_hold(void)
{
	const char *done = getenv("PCPU_TEL_DONE");
	struct rte_mempool *mp;
	void *objs[5];
	unsigned int i;

	TEST_ASSERT_SUCCESS(ops_setup(), "init");
	mp = rte_pcpu_mempool_ops_create("tel_ops", 1000, 64, 32, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(mp, objs, 5), "get");
	printf("PCPU_TEL_READY ops_index=%d stride=%u lcores=%u\n",
		mp->ops_index, mp->header_size + mp->elt_size +
		mp->trailer_size, rte_lcore_count());
	fflush(stdout);
	for (i = 0; i < 600 && done != NULL && access(done, F_OK) != 0; i++)
		rte_delay_ms(100);
	rte_mempool_put_bulk(mp, objs, 5);
	rte_mempool_free(mp);
	ops_reset();
	return TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(pcpu_mempool_ops_telemetry_hold, telemetry_hold);

static struct unit_test_suite pcpu_mempool_ops_testsuite = {
	.suite_name = "rte_mempool with \"pcpu\" ops",
	.unit_test_cases = {
		TEST_CASE_NAMED_ST("registered", ops_setup, ops_reset,
			test_registered),
		TEST_CASE_NAMED_ST("basic_cache", ops_setup, ops_reset,
			test_basic_cache),
		TEST_CASE_NAMED_ST("basic_nocache", ops_setup, ops_reset,
			test_basic_nocache),
		TEST_CASE_NAMED_ST("basic_helper", ops_setup, ops_reset,
			test_basic_helper),
		TEST_CASE_NAMED_ST("flush", ops_setup, ops_reset, test_flush),
		TEST_CASE_NAMED_ST("walk_lookup_dump", ops_setup, ops_reset,
			test_walk_lookup_dump),
		TEST_CASE_NAMED_ST("free_recreate", ops_setup, ops_reset,
			test_free_recreate),
		TEST_CASE_NAMED_ST("unit0_kept", ops_setup, ops_reset,
			test_unit0_kept),
		TEST_CASE_NAMED_ST("layout", ops_setup, ops_reset, test_layout),
		TEST_CASE_NAMED_ST("flags", ops_setup, ops_reset, test_flags),
		TEST_CASE_NAMED_ST("isolation", ops_setup, ops_reset,
			test_isolation),
		TEST_CASE_NAMED_ST("concurrent", ops_setup, ops_reset,
			test_concurrent),
		TEST_CASE_NAMED_ST("late_thread", ops_setup, ops_reset,
			test_late_thread),
		TEST_CASE_NAMED_ST("sizes", ops_setup, ops_reset, test_sizes),
		TEST_CASE_NAMED_ST("zero_after_get", ops_setup, ops_reset,
			test_zero_after_get),
		TEST_CASE_NAMED_ST("zero_bounds", ops_setup, ops_reset,
			test_zero_bounds),
		TEST_CASE_NAMED_ST("limit_during_populate", ops_setup, ops_reset,
			test_limit_during_populate),
		TEST_CASE_NAMED_ST("mbuf_refused", ops_setup, ops_reset,
			test_mbuf_refused),
		TEST_CASE_NAMED_ST("free_with_objects_out", ops_setup, ops_reset,
			test_free_with_objects_out),
		TEST_CASE_NAMED_ST("pcpu_free_refused", ops_setup, ops_reset,
			test_pcpu_free_refused),
		TEST_CASE_NAMED_ST("free_no_objects_out", ops_setup, ops_reset,
			test_free_no_objects_out),
		TEST_CASE_NAMED_ST("populate_anon", ops_setup, ops_reset,
			test_populate_anon),
		TEST_CASE_NAMED_ST("bad_conf_and_cleanup", ops_setup, ops_reset,
			test_bad_conf_and_cleanup),
		TEST_CASES_END()
	}
};

static int
test_pcpu_mempool_ops(void)
{
	return unit_test_suite_runner(&pcpu_mempool_ops_testsuite);
}

REGISTER_TEST_COMMAND(pcpu_mempool_ops_autotest, test_pcpu_mempool_ops);
