/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_mempool_autotest: pools of percpu objects (rte_pcpu_mempool.h).
 *
 * Every case ends with rte_pcpu_cleanup(), which also frees the pools
 * (the pool layer hooks into it), so cases are independent. Cases that need
 * several lcores skip when the EAL has too few; run with
 * --lcores='(0-7)@(0,1)' to get 8 lcores on 2 CPUs.
 *
 * pcpu_mempool_telemetry_hold is not a test but a helper for
 * pcpu_mempool_telemetry.sh: it sets up a pool, prints a ready line and
 * waits until the script is done querying it.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
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
#include <rte_pause.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "test.h"
#include "test_pcpu_util.h"

static void
pool_reset(void)
{
	/* frees every pool, then the allocator */
	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_cleanup() != 0)
		printf("rte_pcpu_cleanup: %s\n", rte_strerror(rte_errno));
}

static int
pool_setup(void)
{
	pool_reset();
	return TEST_SUCCESS;
}

/* Run @p fn on lcore @p lcore_id (the main lcore runs it inline). */
static int
run_on(unsigned int lcore_id, lcore_function_t *fn, void *arg)
{
	if (lcore_id == rte_lcore_id())
		return fn(arg);
	if (rte_eal_remote_launch(fn, arg, lcore_id) != 0)
		return -1;
	return rte_eal_wait_lcore(lcore_id);
}

/* The first @p n lcore ids (main first). */
static unsigned int
pick_lcores(unsigned int *ids, unsigned int n)
{
	unsigned int l, k = 0;

	ids[k++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(l) {
		if (k == n)
			break;
		ids[k++] = l;
	}
	return k;
}

/*
 * Creation, lookup, names, free.
 */

static int
test_create_lookup_free(void)
{
	struct rte_pcpu_mempool *mp, *mp2;
	struct rte_pcpu_mempool_stats st;

	mp = rte_pcpu_mempool_create("pool_a", 16, 24, 4, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_lookup("pool_a"), mp, "lookup");
	TEST_ASSERT(strcmp(rte_pcpu_mempool_name(mp), "pool_a") == 0, "name");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(mp), 16u, "avail");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.charged_bytes, (uint64_t)0, "nothing allocated");
	/* a name can be used again once free */
	mp2 = rte_pcpu_mempool_create("pool_a", 16, 24, 4, 0, NULL, NULL, 0);
	TEST_ASSERT_NULL(mp2, "duplicate name");
	TEST_ASSERT_EQUAL(rte_errno, EEXIST, "duplicate errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup("pool_a"), "lookup after free");
	TEST_ASSERT_EQUAL(rte_errno, ENOENT, "lookup errno");
	mp = rte_pcpu_mempool_create("pool_a", 1, RTE_PCPU_CHUNK_OBJ_MAX_SIZE,
		1, 0, NULL, NULL, RTE_PCPU_MEMPOOL_F_NO_ZERO |
		RTE_PCPU_MEMPOOL_F_PREFILL | RTE_PCPU_MEMPOOL_F_DEBUG);
	TEST_ASSERT_NOT_NULL(mp, "largest objects, every flag");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

static void
count_pool(struct rte_pcpu_mempool *mp, void *arg)
{
	unsigned int *n = arg;

	if (strncmp(rte_pcpu_mempool_name(mp), "walk_", 5) == 0)
		(*n)++;
}

static int
test_walk_dump(void)
{
	struct rte_pcpu_mempool *mp[3];
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
	unsigned int i, n = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	void *obj;

	for (i = 0; i < RTE_DIM(mp); i++) {
		snprintf(name, sizeof(name), "walk_%u", i);
		mp[i] = rte_pcpu_mempool_create(name, 8, 8, 2, 0, NULL, NULL, 0);
		TEST_ASSERT_NOT_NULL(mp[i], "create %s", name);
	}
	rte_pcpu_mempool_walk(count_pool, &n);
	TEST_ASSERT_EQUAL(n, 3u, "walk sees every pool");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp[1], &obj), "get");
	f = open_memstream(&buf, &len);
	TEST_ASSERT_NOT_NULL(f, "memstream");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_dump(f, mp[1]), "dump");
	fclose(f);
	TEST_ASSERT(strstr(buf, "walk_1") != NULL, "dump names the pool");
	TEST_ASSERT(strstr(buf, "in_use 1") != NULL, "dump: in use:\n%s", buf);
	TEST_ASSERT(strstr(buf, "cache: len") != NULL,
		"dump shows the lcore cache:\n%s", buf);
	free(buf);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp[1], obj), "put");
	for (i = 0; i < RTE_DIM(mp); i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp[i]), "free");
	n = 0;
	rte_pcpu_mempool_walk(count_pool, &n);
	TEST_ASSERT_EQUAL(n, 0u, "walk after free");
	return TEST_SUCCESS;
}

/* Every public function with bad input, and the documented rte_errno. */
static int
test_bad_args(void)
{
	char long_name[RTE_PCPU_MEMPOOL_NAMESIZE + 1];
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool_stats st;
	struct rte_pcpu_mempool *mp;
	void *objs[4], *obj;
	uint64_t local = 0;
	int fake_pool[64] = { 0 };

#define CREATE_FAILS(err, ...) do {					\
	rte_errno = 0;							\
	TEST_ASSERT_NULL(rte_pcpu_mempool_create(__VA_ARGS__),		\
		"create(" #__VA_ARGS__ ") must fail");			\
	TEST_ASSERT_EQUAL(rte_errno, err, "create(" #__VA_ARGS__ ") errno"); \
} while (0)

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CREATE_FAILS(EINVAL, NULL, 8, 8, 0, 0, NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "", 8, 8, 0, 0, NULL, NULL, 0);
	CREATE_FAILS(ENAMETOOLONG, long_name, 8, 8, 0, 0, NULL, NULL, 0);
	/* exactly NAMESIZE - 1 characters is fine */
	long_name[RTE_PCPU_MEMPOOL_NAMESIZE - 1] = '\0';
	mp = rte_pcpu_mempool_create(long_name, 8, 8, 0, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "longest name");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	CREATE_FAILS(EINVAL, "bad", 0, 8, 0, 0, NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "bad", 8, 0, 0, 0, NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "bad", 8, RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, 0, 0,
		NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "bad", 1024, 8,
		RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE + 1, 0, NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "bad", 8, 8, 9, 0, NULL, NULL, 0);
	CREATE_FAILS(EINVAL, "bad", 8, 8, 0, 0, NULL, NULL, 0x100);
	/* prefill beyond the budget */
	CREATE_FAILS(ENOMEM, "bad", 8, 64, 0, 64, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup("bad"), "failed create left a pool");
#undef CREATE_FAILS

	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup(NULL), "lookup NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "lookup NULL errno");
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup("none"), "lookup none");
	TEST_ASSERT_EQUAL(rte_errno, ENOENT, "lookup none errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(NULL), "free NULL");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_free(
		(struct rte_pcpu_mempool *)fake_pool), "free of a non-pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "free non-pool errno");

	mp = rte_pcpu_mempool_create("args", 4, 16, 2, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");

	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(NULL, &obj), -EINVAL, "get NULL pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(mp, NULL), -EINVAL, "get NULL obj");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(NULL, objs, 1), -EINVAL,
		"get_bulk NULL pool");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(mp, NULL, 1), -EINVAL,
		"get_bulk NULL objs");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(mp, objs, 0), -EINVAL,
		"get_bulk zero");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(mp, objs, 5), -EINVAL,
		"get_bulk above capacity");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");

	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &obj), "get");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(NULL, obj), -EINVAL, "put NULL pool");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, NULL), -EINVAL, "put NULL obj");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	/* not a percpu handle: always refused, even without F_DEBUG */
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, &local), -EINVAL,
		"put of a non-handle");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, (char *)obj + 4), -EINVAL,
		"put of a misaligned handle");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put_bulk(NULL, &obj, 1), -EINVAL,
		"put_bulk NULL pool");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put_bulk(mp, NULL, 1), -EINVAL,
		"put_bulk NULL objs");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put_bulk(mp, &obj, 0), -EINVAL,
		"put_bulk zero");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put_bulk(mp, objs, 5), -EINVAL,
		"put_bulk above capacity");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 1u,
		"refused puts changed nothing");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	/* every refused put of an object logs and counts, a NULL object
	 * included (as put_bulk of {NULL}): NULL, non-handle, misaligned */
	TEST_ASSERT_EQUAL(st.put_refused, (uint64_t)3, "refusals counted");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, obj), "put");

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(NULL), 0u, "avail NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(NULL), 0u, "in_use NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	rte_pcpu_mempool_walk(NULL, NULL);
	TEST_ASSERT_FAIL(rte_pcpu_mempool_dump(NULL, mp), "dump NULL file");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_dump(stdout, NULL), "dump NULL pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_audit(NULL), "audit NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_stats_get(NULL, &st), "stats NULL pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_stats_get(mp, NULL), "stats NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_NULL(rte_pcpu_mempool_name(NULL), "name NULL");

	TEST_ASSERT_FAIL(rte_pcpu_mempool_rcu_qsbr_add(NULL, &cfg), "rcu NULL pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_rcu_qsbr_add(mp, NULL), "rcu NULL cfg");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "rcu NULL v");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	cfg.v = (struct rte_rcu_qsbr *)fake_pool;
	cfg.mode = (enum rte_pcpu_mempool_qsbr_mode)7;
	TEST_ASSERT_FAIL(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "rcu bad mode");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");

	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * Get and put on one lcore.
 */

static int
test_get_put(void)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_mempool_stats st;
	uint64_t *objs[10];
	unsigned int i, l, nl;
	uint64_t *v;

	mp = rte_pcpu_mempool_create("getput", 10, 32, 4, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	/* the first pool set the allocator up */
	nl = pcpu_test_mem_lcores();
	TEST_ASSERT_EQUAL(nl, rte_lcore_count(), "EAL lcores have memory");
	for (i = 0; i < 10; i++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, (void **)&objs[i]),
			"get %u", i);
		TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), i + 1,
			"in use");
		/* a handle: every lcore's copy is reachable and writable */
		RTE_PCPU_FOREACH(l, v, objs[i]) {
			TEST_ASSERT_EQUAL(v[0], (uint64_t)0, "zeroed");
			v[0] = i * 1000 + l;
		}
		*RTE_PCPU(objs[i]) += 1;
	}
	for (i = 0; i < 10; i++)
		RTE_PCPU_FOREACH(l, v, objs[i])
			TEST_ASSERT_EQUAL(v[0], (uint64_t)(i * 1000 + l) +
				(l == rte_lcore_id()), "copies are distinct");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(mp, (void **)&v), -ENOENT,
		"capacity is a hard cap");
	TEST_ASSERT_EQUAL(rte_errno, ENOENT, "errno");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(mp), 0u, "avail");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.get_success, (uint64_t)10, "get_success");
	TEST_ASSERT_EQUAL(st.get_fail, (uint64_t)1, "get_fail");
	TEST_ASSERT_EQUAL(st.get_fail_budget, (uint64_t)0, "get_fail_budget");
	TEST_ASSERT_EQUAL(st.charged_bytes, (uint64_t)10 * 32 * nl,
		"charged: elt_size x lcores per object");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_free(mp), "free with objects out");
	TEST_ASSERT_EQUAL(rte_errno, EBUSY, "EBUSY");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_lookup("getput"), mp, "still there");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, objs[i]), "put");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(mp), 10u, "avail");
	/* LIFO: the last put comes back first, zeroed on every lcore */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, (void **)&v), "get");
	TEST_ASSERT_EQUAL(v, objs[9], "hot object first");
	RTE_PCPU_FOREACH(l, objs[0], v)
		TEST_ASSERT_EQUAL(objs[0][0], (uint64_t)0, "zeroed on reuse");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, v), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.get_success, (uint64_t)11, "get_success");
	TEST_ASSERT_EQUAL(st.put, (uint64_t)11, "put");
	TEST_ASSERT_EQUAL(st.cache_hits + st.cache_misses, (uint64_t)11,
		"hits + misses");
	TEST_ASSERT(st.cache_hits >= 1, "the reuse hit the cache");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "allocator audit");
	return TEST_SUCCESS;
}

static int
test_bulk(void)
{
	struct rte_pcpu_mempool *mp;
	void *objs[64], *more[8];
	unsigned int i, j;

	mp = rte_pcpu_mempool_create("bulk", 40, 16, 8, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 30), "get 30");
	for (i = 0; i < 30; i++)
		for (j = 0; j < i; j++)
			TEST_ASSERT(objs[i] != objs[j], "distinct objects");
	/* all or nothing */
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(mp, more, 11), -ENOENT,
		"get 11 of 10 left");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 30u,
		"a failed bulk get takes nothing");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, &objs[30], 10),
		"get the last 10");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 40), "put 40");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	/* bulk get served from cache, shared stack and fresh objects */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 40), "get 40");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 20), "put 20");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, &objs[20], 20),
		"put 20");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * Objects stranded in other lcores' caches (pool of 128, cache 64, 4
 * lcores): every lcore can still take all objects left.
 */

struct strand_arg {
	struct rte_pcpu_mempool *mp;
	unsigned int want;    /* objects to take; 0: until the pool is empty */
	unsigned int keep;    /* keep them (else put them back) */
	unsigned int got;
	int last_err;
	void *objs[128];
};

static int
strand_worker(void *p)
{
	struct strand_arg *a = p;
	unsigned int i;
	int ret;

	a->got = 0;
	a->last_err = 0;
	for (;;) {
		if (a->want != 0 && a->got == a->want)
			break;
		ret = rte_pcpu_mempool_get(a->mp, &a->objs[a->got]);
		if (ret != 0) {
			a->last_err = ret;
			break;
		}
		a->got++;
	}
	if (!a->keep) {
		for (i = 0; i < a->got; i++)
			if (rte_pcpu_mempool_put(a->mp, a->objs[i]) != 0)
				return -1;
	}
	return 0;
}

/* get and put back @p k objects, leaving objects in this lcore's cache */
static int
strand_fill(void *p)
{
	struct strand_arg *a = p;

	if (rte_pcpu_mempool_get_bulk(a->mp, a->objs, a->want) != 0)
		return -1;
	return rte_pcpu_mempool_put_bulk(a->mp, a->objs, a->want);
}

static int
test_stranded_caches(void)
{
	static struct strand_arg a[4];
	struct rte_pcpu_mempool *mp;
	unsigned int ids[4], i, j, round;

	if (pick_lcores(ids, 4) < 4)
		TEST_SKIP("needs 4 lcores");
	mp = rte_pcpu_mempool_create("strand", 128, 16, 64, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 4; i++) {
			/* every lcore parks objects in its cache */
			for (j = 0; j < 4; j++) {
				a[j].mp = mp;
				a[j].want = 64;
				TEST_ASSERT_SUCCESS(run_on(ids[j], strand_fill,
					&a[j]), "fill lcore %u", ids[j]);
			}
			/* then lcore i takes everything */
			a[i].want = 0;
			a[i].keep = 0;
			TEST_ASSERT_SUCCESS(run_on(ids[i], strand_worker, &a[i]),
				"drain on lcore %u", ids[i]);
			TEST_ASSERT_EQUAL(a[i].got, 128u,
				"lcore %u took all objects", ids[i]);
			TEST_ASSERT_EQUAL(a[i].last_err, -ENOENT,
				"then ENOENT");
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
		}
	}
	/* lcore 1 keeps 40; lcore 2 takes the 88 left; lcore 3 gets none */
	a[1].want = 40;
	a[1].keep = 1;
	TEST_ASSERT_SUCCESS(run_on(ids[1], strand_worker, &a[1]), "keep 40");
	TEST_ASSERT_EQUAL(a[1].got, 40u, "got 40");
	a[2].want = 0;
	a[2].keep = 1;
	TEST_ASSERT_SUCCESS(run_on(ids[2], strand_worker, &a[2]), "take rest");
	TEST_ASSERT_EQUAL(a[2].got, 88u, "took the 88 left");
	a[3].want = 0;
	a[3].keep = 1;
	TEST_ASSERT_SUCCESS(run_on(ids[3], strand_worker, &a[3]), "none left");
	TEST_ASSERT_EQUAL(a[3].got, 0u, "nothing left");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 128u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, a[1].objs, 40), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, a[2].objs, 88), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * Threads that are not lcores: the locked shared path, and they too take
 * objects back from lcores' caches.
 */

struct unreg_arg {
	struct rte_pcpu_mempool *mp;
	unsigned int lcore_id;
	unsigned int got;
	int err;
	void *objs[64];
};

static void *
unreg_thread(void *p)
{
	struct unreg_arg *a = p;
	unsigned int i;

	a->lcore_id = rte_lcore_id();
	a->got = 0;
	while (a->got < RTE_DIM(a->objs) &&
	       (a->err = rte_pcpu_mempool_get(a->mp, &a->objs[a->got])) == 0)
		a->got++;
	for (i = 0; i < a->got; i++)
		if (rte_pcpu_mempool_put(a->mp, a->objs[i]) != 0)
			a->err = 1;
	return NULL;
}

static int
test_unregistered_thread(void)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_mempool_stats st;
	struct unreg_arg a = { 0 };
	void *objs[32];
	pthread_t t;

	mp = rte_pcpu_mempool_create("unreg", 32, 16, 16, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	/* park objects in the main lcore's cache */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 32), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 32), "put");
	a.mp = mp;
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, unreg_thread, &a),
		"thread");
	pthread_join(t, NULL);
	TEST_ASSERT_EQUAL(a.lcore_id, (unsigned int)LCORE_ID_ANY,
		"not an lcore");
	TEST_ASSERT_EQUAL(a.got, 32u, "took every object, cached ones too");
	TEST_ASSERT_EQUAL(a.err, -ENOENT, "then ENOENT");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.get_success, (uint64_t)64, "gets");
	TEST_ASSERT_EQUAL(st.put, (uint64_t)64, "puts");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * Budget.
 */

static int
test_budget(void)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_mempool_stats st;
	unsigned int nl, i, ids[2];
	uint64_t per;
	void *objs[16], *o;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	nl = pcpu_test_mem_lcores();
	per = 64 * (uint64_t)nl;

	/* room for 10 objects and a bit */
	mp = rte_pcpu_mempool_create("budget", 16, 64, 4, per * 10 + per / 2,
		NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &objs[i]), "get %u",
			i);
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(mp, &o), -ENOMEM,
		"beyond the budget");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "errno");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get_bulk(mp, &objs[10], 2), -ENOMEM,
		"bulk beyond the budget");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.get_fail, (uint64_t)2, "get_fail");
	TEST_ASSERT_EQUAL(st.get_fail_budget, (uint64_t)2, "get_fail_budget");
	TEST_ASSERT_EQUAL(st.charged_bytes, per * 10, "charged");
	TEST_ASSERT(st.charged_bytes <= per * 10 + per / 2, "within budget");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 10u, "in use");
	/* reuse is free of charge */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, objs[3]), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &objs[3]), "get again");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 10), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	/* objects cached on another lcore are taken back before the budget
	 * says no */
	if (pick_lcores(ids, 2) == 2) {
		static struct strand_arg sa;

		sa.mp = mp;
		sa.want = 10;
		TEST_ASSERT_SUCCESS(run_on(ids[1], strand_fill, &sa),
			"worker fills its cache");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 10),
			"all 10 within the budget, from the worker's cache");
		TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(mp, &o), -ENOMEM,
			"then the budget");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 10),
			"put");
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");

	/* a budget above the capacity: the capacity says ENOENT */
	mp = rte_pcpu_mempool_create("budget2", 4, 64, 0, per * 100, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.charged_bytes, per * 4, "prefill charged");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 4), "get 4");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(mp, &o), -ENOENT, "capacity");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.get_fail_budget, (uint64_t)0, "not the budget");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 4), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

static int
test_prefill(void)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_stats before, after;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&before), "stats");
	mp = rte_pcpu_mempool_create("prefill", 50, 40, 8, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&after), "stats");
	TEST_ASSERT_EQUAL(after.nr_cur_alloc - before.nr_cur_alloc,
		(uint64_t)50, "all objects allocated at creation");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(mp), 50u, "avail");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&after), "stats");
	TEST_ASSERT_EQUAL(after.nr_cur_alloc, before.nr_cur_alloc,
		"free gives the objects back");
	return TEST_SUCCESS;
}

/*
 * Ascending order out of every refill of a pool's lcore cache: objects got
 * one by one come out in ascending address order from the miss that
 * refills the cache to the next one (told by cache_misses), whether the
 * refill takes new objects (growth), a prefilled shared stack, or objects
 * put back in random order.
 */
#define ORDER_POOL_N 1024u

static int
order_get_all(struct rte_pcpu_mempool *mp, void **objs, unsigned int *runs)
{
	struct rte_pcpu_mempool_stats st;
	uint64_t misses;
	/* objects put into the cache before the first miss come out in
	 * the order they were put: no run yet */
	unsigned int i, run_start = UINT_MAX;

	*runs = 0;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	misses = st.cache_misses;
	for (i = 0; i < ORDER_POOL_N; i++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &objs[i]),
			"get %u", i);
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st),
			"stats");
		if (st.cache_misses != misses) {
			/* this get refilled the cache: a run starts */
			misses = st.cache_misses;
			run_start = i;
			(*runs)++;
		} else if (run_start != UINT_MAX && i > run_start) {
			TEST_ASSERT((uintptr_t)objs[i] > (uintptr_t)objs[i - 1],
				"object %u at %p after %p, in one refill", i,
				objs[i], objs[i - 1]);
		}
	}
	return TEST_SUCCESS;
}

static int
test_refill_order(void)
{
	void **objs = calloc(ORDER_POOL_N, sizeof(*objs));
	struct rte_pcpu_mempool *mp;
	unsigned int pass, runs, i, j;
	uint64_t rnd = 777;
	void *t;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	for (pass = 0; pass < 2; pass++) {
		mp = rte_pcpu_mempool_create(pass ? "order_prefill" :
			"order_grow", ORDER_POOL_N, 24, 64, 0, NULL, NULL,
			pass ? RTE_PCPU_MEMPOOL_F_PREFILL : 0);
		TEST_ASSERT_NOT_NULL(mp, "create");
		TEST_ASSERT_SUCCESS(order_get_all(mp, objs, &runs), "%s",
			pass ? "prefilled" : "growing");
		printf("pool refill order, %s: %u runs, each ascending\n",
			pass ? "prefilled" : "growing", runs);
		TEST_ASSERT(runs > 1, "too few refills");
		/* back in random order, then again */
		for (i = ORDER_POOL_N - 1; i > 0; i--) {
			rnd = rnd * 6364136223846793005ULL +
				1442695040888963407ULL;
			j = (unsigned int)((rnd >> 33) % (i + 1));
			t = objs[i];
			objs[i] = objs[j];
			objs[j] = t;
		}
		for (i = 0; i < ORDER_POOL_N; i++)
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, objs[i]),
				"put");
		TEST_ASSERT_SUCCESS(order_get_all(mp, objs, &runs),
			"after random puts");
		printf("pool refill order, after puts in random order: %u "
			"runs, each ascending\n", runs);
		for (i = 0; i < ORDER_POOL_N; i++)
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, objs[i]),
				"put");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	}
	free(objs);
	return TEST_SUCCESS;
}

/*
 * Initialisation: zeroing, obj_init, none.
 */

struct zero_arg {
	struct rte_pcpu_mempool *mp;
	uint64_t *obj;
	int check_zero;
	int bad;
};

/* on a worker: get, check every copy is zero, write own copy, put */
static int
zero_worker(void *p)
{
	struct zero_arg *a = p;
	unsigned int l;
	uint64_t *v;

	if (rte_pcpu_mempool_get(a->mp, (void **)&a->obj) != 0)
		return -1;
	if (a->check_zero)
		RTE_PCPU_FOREACH(l, v, a->obj)
			if (v[0] != 0 || v[1] != 0)
				a->bad++;
	v = RTE_PCPU(a->obj);
	v[0] = 0xfeed0000 + rte_lcore_id();
	v[1] = ~v[0];
	return rte_pcpu_mempool_put(a->mp, a->obj);
}

static int
test_zero_on_get(void)
{
	struct rte_pcpu_mempool *mp;
	struct zero_arg a = { 0 };
	unsigned int ids[8], n, i, l;
	uint64_t *obj, *v;

	n = pick_lcores(ids, 8);
	/* no cache: every get and put goes through the shared stack, so
	 * the one object travels between lcores */
	mp = rte_pcpu_mempool_create("zero", 1, 16, 0, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	a.mp = mp;
	a.check_zero = 1;
	for (i = 0; i < 2 * n; i++)
		TEST_ASSERT_SUCCESS(run_on(ids[i % n], zero_worker, &a),
			"lcore %u", ids[i % n]);
	TEST_ASSERT_EQUAL(a.bad, 0, "copies not zero on get");
	rte_pcpu_mempool_free(mp);

	/* NO_ZERO: the last values stay */
	mp = rte_pcpu_mempool_create("nozero", 1, 16, 0, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_NO_ZERO);
	TEST_ASSERT_NOT_NULL(mp, "create");
	a.mp = mp;
	a.check_zero = 0;
	for (i = 0; i < n; i++)
		TEST_ASSERT_SUCCESS(run_on(ids[i], zero_worker, &a), "lcore");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, (void **)&obj), "get");
	for (i = 0; i < n; i++) {
		v = RTE_PCPU_LCORE(ids[i], obj);
		TEST_ASSERT_EQUAL(v[0], (uint64_t)0xfeed0000 + ids[i],
			"NO_ZERO keeps lcore %u's copy", ids[i]);
	}
	/* a fresh object is zero anyway (the allocator zeroes) */
	RTE_SET_USED(l);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, obj), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * The same through an lcore cache, for the sizes the inline get zeroes
 * itself (8, 16, 32, 64) and for sizes around them that the library
 * zeroes: the main lcore dirties every byte of every lcore's copy, puts
 * the object back into its cache and gets it again (the cache is a LIFO:
 * the same object), and every byte of every copy must be zero.
 */
static int
test_zero_on_get_cached(void)
{
	static const size_t sizes[] = { 8, 16, 24, 32, 48, 64, 72 };
	struct rte_pcpu_mempool *mp;
	unsigned int s, l, round;
	size_t k;
	uint8_t *obj, *again, *c;

	for (s = 0; s < RTE_DIM(sizes); s++) {
		mp = rte_pcpu_mempool_create("zero_cached", 64, sizes[s], 16,
			0, NULL, NULL, 0);
		TEST_ASSERT_NOT_NULL(mp, "create %zu B", sizes[s]);
		/* the first round fills the cache, the next ones take the
		 * inline path where the size allows it */
		for (round = 0; round < 3; round++) {
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp,
				(void **)&obj), "get %zu B", sizes[s]);
			RTE_PCPU_FOREACH(l, c, obj)
				memset(c, 0xa5, sizes[s]);
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, obj),
				"put");
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp,
				(void **)&again), "get again");
			TEST_ASSERT_EQUAL(again, obj, "the cache's last object");
			RTE_PCPU_FOREACH(l, c, again) {
				for (k = 0; k < sizes[s]; k++)
					TEST_ASSERT_EQUAL(c[k], 0,
						"%zu B: lcore %u's byte %zu not "
						"zero on get", sizes[s], l, k);
			}
			TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, again),
				"put");
		}
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	}
	return TEST_SUCCESS;
}

/* obj_init call log: one entry per call */
#define INIT_LOG_MAX 8192
static struct {
	void *copy;
	unsigned int lcore_id;
} init_log[INIT_LOG_MAX];
static unsigned int init_calls;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_arg_marker;

static void
count_init(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	uint64_t *v = obj;

	RTE_SET_USED(mp);
	pthread_mutex_lock(&init_lock);
	if (init_calls < INIT_LOG_MAX) {
		init_log[init_calls].copy = obj;
		init_log[init_calls].lcore_id = lcore_id;
	}
	init_calls++;
	pthread_mutex_unlock(&init_lock);
	v[0] = 0xc0de0000 + lcore_id;
	v[1] = arg == &init_arg_marker;
}

/* Every copy initialised exactly once: @p expect calls, no copy twice,
 * each copy's address is lcore lcore_id's copy of some object. */
static int
check_init_log(unsigned int expect)
{
	unsigned int i, j;

	TEST_ASSERT_EQUAL(init_calls, expect, "obj_init calls");
	for (i = 0; i < init_calls; i++)
		for (j = 0; j < i; j++)
			TEST_ASSERT(init_log[i].copy != init_log[j].copy,
				"copy %p initialised twice", init_log[i].copy);
	return TEST_SUCCESS;
}

struct late_arg {
	struct rte_pcpu_mempool *mp;
	unsigned int lcore_id;
	int ok;
	void *obj;
};

/* A non-EAL thread registers (gets an lcore id), checks its copies were
 * initialised, uses the pool, and unregisters. */
static void *
late_thread(void *p)
{
	struct late_arg *a = p;
	uint64_t *v;

	a->ok = 0;
	if (rte_thread_register() != 0)
		return NULL;
	a->lcore_id = rte_lcore_id();
	if (rte_pcpu_mempool_get(a->mp, &a->obj) == 0) {
		v = RTE_PCPU((uint64_t *)a->obj);
		a->ok = v[0] == 0xc0de0000 + a->lcore_id && v[1] == 1;
		v[2] = 77;
		if (rte_pcpu_mempool_put(a->mp, a->obj) != 0)
			a->ok = 0;
	}
	rte_thread_unregister();
	return NULL;
}

static int
test_obj_init(void)
{
	struct rte_pcpu_mempool *mp;
	struct late_arg la = { 0 };
	unsigned int nl, i, l, k;
	uint64_t *objs[32], *v;
	pthread_t t;

	init_calls = 0;
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	nl = pcpu_test_mem_lcores();
	mp = rte_pcpu_mempool_create("init", 32, 24, 4, 0, count_init,
		&init_arg_marker, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_EQUAL(init_calls, 0u, "no object yet, no call");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, (void **)objs, 20),
		"get 20");
	for (i = 0; i < 20; i++) {
		RTE_PCPU_FOREACH(l, v, objs[i]) {
			TEST_ASSERT_EQUAL(v[0], (uint64_t)0xc0de0000 + l,
				"initialised for its lcore");
			TEST_ASSERT_EQUAL(v[1], (uint64_t)1, "arg passed");
			v[2] = 5;
		}
	}
	/* objects enter in batches (a miss may allocate a cache refill) */
	k = init_calls / nl;
	TEST_ASSERT(k >= 20 && k <= 32, "%u objects entered", k);
	TEST_ASSERT_SUCCESS(check_init_log(k * nl), "init log");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, (void **)objs, 20),
		"put");
	/* cycles of get/put never call obj_init again and never zero */
	for (i = 0; i < 5; i++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp,
			(void **)objs, 20), "get");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp,
			(void **)objs, 20), "put");
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, (void **)objs, 32),
		"get all");
	TEST_ASSERT_SUCCESS(check_init_log(32 * nl), "every object once");
	k = 0;
	for (i = 0; i < 32; i++)
		RTE_PCPU_FOREACH(l, v, objs[i])
			k += v[2] == 5;
	TEST_ASSERT_EQUAL(k, 20 * nl, "values of reused objects kept");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, (void **)objs, 32),
		"put");

	/* an lcore appearing later: its copies of all 32 objects, once */
	la.mp = mp;
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, late_thread, &la), "thread");
	pthread_join(t, NULL);
	TEST_ASSERT(la.ok, "late lcore %u found its copy initialised",
		la.lcore_id);
	TEST_ASSERT_SUCCESS(check_init_log(32 * (nl + 1)),
		"late lcore: one call per object");
	for (i = 0; i < init_calls; i++)
		if (init_log[i].lcore_id == la.lcore_id)
			TEST_ASSERT_EQUAL(init_log[i].copy,
				RTE_PCPU_LCORE(la.lcore_id, (void *)(
				(uintptr_t)init_log[i].copy -
				(uintptr_t)la.lcore_id *
				rte_pcpu_shared.unit_step)), "copy address");
	/* the same lcore id again: no second call */
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, late_thread, &la), "thread");
	pthread_join(t, NULL);
	TEST_ASSERT_SUCCESS(check_init_log(32 * (nl + 1)), "no second init");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	/* the departed thread's cache went back: all objects can be got */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, (void **)objs, 32),
		"get all");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, (void **)objs, 32),
		"put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");

	/* prefill calls obj_init at creation */
	init_calls = 0;
	mp = rte_pcpu_mempool_create("init2", 8, 16, 0, 0, count_init, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(check_init_log(8 * pcpu_test_mem_lcores()),
		"prefill");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

/*
 * Double and foreign puts.
 */

static int
test_debug_puts(void)
{
	struct rte_pcpu_mempool *mp, *other;
	struct rte_pcpu_mempool_stats st;
	void *a, *b, *objs[3], *h;

	mp = rte_pcpu_mempool_create("dbg", 8, 16, 2, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_DEBUG);
	other = rte_pcpu_mempool_create("dbg_other", 8, 16, 2, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_DEBUG);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_NOT_NULL(other, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &a), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(other, &b), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, a), "put");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, a), -EINVAL, "double put");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, b), -EINVAL,
		"object of another pool");
	h = rte_pcpu_alloc(16, 0);
	TEST_ASSERT_NOT_NULL(h, "alloc");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put(mp, h), -EINVAL,
		"object of the allocator");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	/* the allocator refuses to free a pool's object, in or out */
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_free(b), -1, "rte_pcpu_free of a pool "
		"object (out)");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_free(a), -1, "rte_pcpu_free of a pool "
		"object (in the pool)");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "allocator audit");
	/* bulk: objects before the refused one are put */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 2), "get 2");
	objs[2] = objs[1];
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_put_bulk(mp, objs, 3), -EINVAL,
		"bulk with a double");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u,
		"the first two were put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.put_refused, (uint64_t)4, "refusals");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(other, b), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(other), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(other), "free");
	/* freed with its pool, the space is the allocator's again */
	h = rte_pcpu_alloc(16, 0);
	TEST_ASSERT_NOT_NULL(h, "alloc");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free after pool free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "allocator audit");
	return TEST_SUCCESS;
}

/*
 * RCU: a reader lcore holds an object across reports.
 */

enum rd_cmd { RD_IDLE, RD_READ, RD_REPORT, RD_REPORT_LATE, RD_EXIT };

static struct {
	struct rte_rcu_qsbr *v;
	unsigned int lcore_id;
	uint64_t *volatile published;
	int cmd;
	int acked;
	int reported;
	uint64_t sum;
} rd;

static void
rd_send(enum rd_cmd cmd, int wait)
{
	__atomic_store_n(&rd.acked, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&rd.cmd, cmd, __ATOMIC_RELEASE);
	while (wait && !__atomic_load_n(&rd.acked, __ATOMIC_ACQUIRE))
		sched_yield();
}

static int
rd_loop(void *arg __rte_unused)
{
	unsigned int id = rte_lcore_id();
	uint64_t s[2];
	int cmd;

	rte_rcu_qsbr_thread_register(rd.v, id);
	rte_rcu_qsbr_thread_online(rd.v, id);
	for (;;) {
		cmd = __atomic_load_n(&rd.cmd, __ATOMIC_ACQUIRE);
		if (cmd == RD_IDLE) {
			sched_yield();
			continue;
		}
		__atomic_store_n(&rd.cmd, RD_IDLE, __ATOMIC_RELAXED);
		switch (cmd) {
		case RD_READ: {
			/* take a reference and keep it until the next report */
			uint64_t *o = rd.published;

			if (o != NULL) {
				rte_pcpu_sum_u64(o, 2, s);
				rd.sum = s[0];
			}
			break;
		}
		case RD_REPORT_LATE:
			rte_delay_ms(100);
			__atomic_store_n(&rd.reported, 1, __ATOMIC_RELEASE);
			/* fall through */
		case RD_REPORT:
			rte_rcu_qsbr_quiescent(rd.v, id);
			break;
		default:
			break;
		}
		__atomic_store_n(&rd.acked, 1, __ATOMIC_RELEASE);
		if (cmd == RD_EXIT)
			break;
	}
	rte_rcu_qsbr_thread_offline(rd.v, id);
	rte_rcu_qsbr_thread_unregister(rd.v, id);
	return 0;
}

static int
test_rcu_dq(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool_stats st;
	struct rte_pcpu_mempool *mp;
	uint64_t *objs[4], *o;
	unsigned int ids[2], i;
	size_t sz;
	int ret = TEST_FAILED;

	if (pick_lcores(ids, 2) < 2)
		TEST_SKIP("needs 2 lcores");
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	memset(&rd, 0, sizeof(rd));
	rd.v = rte_zmalloc("rcu_test", sz, RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(rd.v, "qsbr memory");
	rte_rcu_qsbr_init(rd.v, RTE_MAX_LCORE);
	mp = rte_pcpu_mempool_create("rcu", 4, 16, 2, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_DEBUG);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cfg.v = rd.v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "add");
	TEST_ASSERT_FAIL(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "twice");
	TEST_ASSERT_EQUAL(rte_errno, EEXIST, "errno");

	rd.lcore_id = ids[1];
	TEST_ASSERT_SUCCESS(rte_eal_remote_launch(rd_loop, NULL, ids[1]),
		"reader");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, (void **)objs, 4),
		"get all");
	*RTE_PCPU(objs[0]) = 42;
	/* the reader takes objs[0] and holds it */
	rd.published = objs[0];
	rd_send(RD_READ, 1);
	if (rd.sum != 42) {
		printf("reader summed %" PRIu64 "\n", rd.sum);
		goto out;
	}
	rd.published = NULL;
	if (rte_pcpu_mempool_put(mp, objs[0]) != 0)
		goto out;
	if (rte_pcpu_mempool_stats_get(mp, &st) != 0 || st.rcu_pending != 1 ||
	    rte_pcpu_mempool_in_use_count(mp) != 4) {
		printf("pending %" PRIu64 " in use %u\n", st.rcu_pending,
			rte_pcpu_mempool_in_use_count(mp));
		goto out;
	}
	/* not reused while the reader may still read it */
	for (i = 0; i < 3; i++) {
		if (rte_pcpu_mempool_get(mp, (void **)&o) != -ENOENT) {
			printf("object reused before the grace period\n");
			goto out;
		}
		rte_delay_ms(10);
	}
	if (rte_pcpu_mempool_free(mp) == 0 || rte_errno != EBUSY) {
		printf("free with an RCU put pending must be EBUSY\n");
		goto out;
	}
	rd_send(RD_REPORT, 1);
	if (rte_pcpu_mempool_get(mp, (void **)&o) != 0 || o != objs[0] ||
	    *RTE_PCPU(o) != 0) {
		printf("after the report: got %p (want %p)\n", (void *)o,
			(void *)objs[0]);
		goto out;
	}
	objs[0] = o;
	/* all deferred, all back after one report */
	if (rte_pcpu_mempool_put_bulk(mp, (void **)objs, 4) != 0)
		goto out;
	if (rte_pcpu_mempool_in_use_count(mp) != 4)
		goto out;
	rd_send(RD_REPORT, 1);
	if (rte_pcpu_mempool_audit(mp) != 0)
		goto out;
	if (rte_pcpu_mempool_free(mp) != 0) {
		printf("free after the grace period: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	mp = NULL;
	ret = TEST_SUCCESS;
out:
	rd_send(RD_EXIT, 1);
	rte_eal_wait_lcore(ids[1]);
	if (mp != NULL) {
		rte_pcpu_mempool_dump(stdout, mp);
		pool_reset();
	}
	rte_free(rd.v);
	return ret;
}

/*
 * RCU attached to a pool whose lcore cache the inline paths already use:
 * from then on a put must wait in the defer queue, the inline one too.
 */
static int
test_rcu_after_inline(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool_stats st;
	struct rte_pcpu_mempool *mp;
	struct rte_rcu_qsbr *v;
	unsigned int i;
	void *o;
	int ret = TEST_FAILED;

	v = rte_zmalloc("rcu_inline", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
		RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(v, "qsbr memory");
	rte_rcu_qsbr_init(v, RTE_MAX_LCORE);
	mp = rte_pcpu_mempool_create("rcu_inline", 8, 16, 4, 0, NULL, NULL, 0);
	if (mp == NULL)
		goto out;
	/* a few pairs: the cache exists and serves them */
	for (i = 0; i < 4; i++)
		if (rte_pcpu_mempool_get(mp, &o) != 0 ||
		    rte_pcpu_mempool_put(mp, o) != 0)
			goto out;
	cfg.v = v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	/* above the queue's size: no reclamation inside the put */
	cfg.trigger_reclaim_limit = 1024;
	if (rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg) != 0 ||
	    rte_pcpu_mempool_get(mp, &o) != 0 ||
	    rte_pcpu_mempool_put(mp, o) != 0 ||
	    rte_pcpu_mempool_stats_get(mp, &st) != 0)
		goto out;
	if (st.rcu_pending != 1 || rte_pcpu_mempool_in_use_count(mp) != 1) {
		printf("after RCU: %" PRIu64 " puts wait (want 1), %u in use "
			"(want 1)\n", st.rcu_pending,
			rte_pcpu_mempool_in_use_count(mp));
		goto out;
	}
	ret = rte_pcpu_mempool_audit(mp) == 0 ? TEST_SUCCESS : TEST_FAILED;
out:
	if (mp != NULL && rte_pcpu_mempool_free(mp) != 0) {
		/* the put is over its grace period (no reader): a free
		 * reclaims it */
		printf("free: %s\n", rte_strerror(rte_errno));
		ret = TEST_FAILED;
	}
	rte_free(v);
	return ret;
}

static int
test_rcu_sync(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool *mp;
	unsigned int ids[2];
	void *o;
	int ret = TEST_FAILED, reported;

	if (pick_lcores(ids, 2) < 2)
		TEST_SKIP("needs 2 lcores");
	memset(&rd, 0, sizeof(rd));
	rd.v = rte_zmalloc("rcu_test", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
		RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(rd.v, "qsbr memory");
	rte_rcu_qsbr_init(rd.v, RTE_MAX_LCORE);
	mp = rte_pcpu_mempool_create("rcu_sync", 2, 16, 0, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cfg.v = rd.v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "add");
	TEST_ASSERT_SUCCESS(rte_eal_remote_launch(rd_loop, NULL, ids[1]),
		"reader");
	if (rte_pcpu_mempool_get(mp, &o) != 0)
		goto out;
	rd_send(RD_READ, 1);
	/* the put waits for the reader's (late) report */
	rd_send(RD_REPORT_LATE, 0);
	if (rte_pcpu_mempool_put(mp, o) != 0)
		goto out;
	reported = __atomic_load_n(&rd.reported, __ATOMIC_ACQUIRE);
	if (!reported) {
		printf("sync put returned before the reader reported\n");
		goto out;
	}
	while (!__atomic_load_n(&rd.acked, __ATOMIC_ACQUIRE))
		sched_yield();
	if (rte_pcpu_mempool_in_use_count(mp) != 0)
		goto out;
	ret = TEST_SUCCESS;
out:
	rd_send(RD_EXIT, 1);
	rte_eal_wait_lcore(ids[1]);
	rte_pcpu_mempool_free(mp);
	rte_free(rd.v);
	return ret;
}

/*
 * Stress: every lcore gets, puts, allocates and frees at random, writing
 * its own copy; ownership is tracked per object.
 */

#define STRESS_POOLS 4
/* pool 3 defers puts through RCU; every lcore is a reader */
#define STRESS_RCU_POOL 3
#define STRESS_HELD 24
#define STRESS_ALLOCS 16

static struct {
	struct rte_pcpu_mempool *mp[STRESS_POOLS];
	unsigned int n[STRESS_POOLS];
	void **sorted[STRESS_POOLS];     /* every object, sorted */
	uint32_t *owner[STRESS_POOLS];   /* 0 or lcore id + 1 */
	struct rte_rcu_qsbr *v;
	uint64_t stop_tsc;
	uint64_t errors;
	uint64_t ops;
	uint64_t fails;
} st_g;

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

static long
stress_index(unsigned int p, const void *obj)
{
	void **v = st_g.sorted[p];
	unsigned int lo = 0, hi = st_g.n[p];

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((uintptr_t)v[mid] < (uintptr_t)obj)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st_g.n[p] && v[lo] == obj ? (long)lo : -1;
}

static void
stress_err(const char *what, const void *obj)
{
	if (__atomic_fetch_add(&st_g.errors, 1, __ATOMIC_RELAXED) < 10)
		printf("stress: lcore %u: %s (%p)\n", rte_lcore_id(), what, obj);
}

static void
stress_took(unsigned int p, void *obj)
{
	unsigned int me = rte_lcore_id(), l;
	long i = stress_index(p, obj);
	uint32_t expect = 0;
	uint64_t *v;

	if (i < 0) {
		stress_err("got an object that is not the pool's", obj);
		return;
	}
	if (!__atomic_compare_exchange_n(&st_g.owner[p][i], &expect, me + 1,
			0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		stress_err("object handed out twice", obj);
		return;
	}
	v = RTE_PCPU((uint64_t *)obj);
	switch (p) {
	case 0: /* zero on get: every copy is zero */
		RTE_PCPU_FOREACH(l, v, (uint64_t *)obj)
			if (v[0] != 0 || v[1] != 0)
				stress_err("copy not zeroed on get", obj);
		v = RTE_PCPU((uint64_t *)obj);
		break;
	case 1: /* obj_init: marker kept */
		if (v[0] != 0xc0de0000 + me)
			stress_err("obj_init marker lost", obj);
		break;
	default:
		break;
	}
	v[1] = ((uint64_t)me << 32) | (uint64_t)i;
}

static void
stress_giving(unsigned int p, void *obj)
{
	unsigned int me = rte_lcore_id();
	long i = stress_index(p, obj);
	uint32_t expect = me + 1;
	uint64_t *v = RTE_PCPU((uint64_t *)obj);

	if (i < 0)
		return;
	if (v[1] != (((uint64_t)me << 32) | (uint64_t)i))
		stress_err("own copy overwritten", obj);
	if (!__atomic_compare_exchange_n(&st_g.owner[p][i], &expect, 0, 0,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		stress_err("putting an object not owned", obj);
}

static void
stress_init(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	uint64_t *v = obj;

	RTE_SET_USED(mp);
	RTE_SET_USED(arg);
	v[0] = 0xc0de0000 + lcore_id;
}

static int
stress_worker(void *arg __rte_unused)
{
	void *held[STRESS_POOLS][STRESS_HELD];
	unsigned int nheld[STRESS_POOLS] = { 0 };
	uint64_t *allocs[STRESS_ALLOCS] = { NULL };
	size_t asize[STRESS_ALLOCS] = { 0 };
	unsigned int me = rte_lcore_id(), p, k, i, a;
	uint64_t ops = 0, fails = 0;
	void *tmp[8];
	int ret;

	rte_rcu_qsbr_thread_register(st_g.v, me);
	rte_rcu_qsbr_thread_online(st_g.v, me);
	while (rte_get_timer_cycles() < st_g.stop_tsc) {
		uint64_t r = rte_rand();

		/* a reader's quiescent state once per loop, as a dataplane */
		rte_rcu_qsbr_quiescent(st_g.v, me);

		p = (unsigned int)(r % STRESS_POOLS);
		r >>= 8;
		ops++;
		switch (r % 6) {
		case 0:
		case 1: /* get one */
			if (nheld[p] == STRESS_HELD)
				break;
			ret = rte_pcpu_mempool_get(st_g.mp[p],
				&held[p][nheld[p]]);
			if (ret != 0) {
				fails++;
				if (ret != -ENOENT)
					stress_err("get: unexpected error", NULL);
				break;
			}
			stress_took(p, held[p][nheld[p]++]);
			break;
		case 2: /* get a bulk */
			k = 1 + (unsigned int)((r >> 8) % 8);
			if (nheld[p] + k > STRESS_HELD)
				break;
			ret = rte_pcpu_mempool_get_bulk(st_g.mp[p], tmp, k);
			if (ret != 0) {
				fails++;
				break;
			}
			for (i = 0; i < k; i++) {
				held[p][nheld[p]++] = tmp[i];
				stress_took(p, tmp[i]);
			}
			break;
		case 3: /* put one, at random */
			if (nheld[p] == 0)
				break;
			i = (unsigned int)((r >> 8) % nheld[p]);
			stress_giving(p, held[p][i]);
			if (rte_pcpu_mempool_put(st_g.mp[p], held[p][i]) != 0)
				stress_err("put refused", held[p][i]);
			held[p][i] = held[p][--nheld[p]];
			break;
		case 4: /* put a bulk from the top */
			k = RTE_MIN(nheld[p], 1 + (unsigned int)((r >> 8) % 8));
			if (k == 0)
				break;
			nheld[p] -= k;
			for (i = 0; i < k; i++)
				stress_giving(p, held[p][nheld[p] + i]);
			if (rte_pcpu_mempool_put_bulk(st_g.mp[p],
					&held[p][nheld[p]], k) != 0)
				stress_err("put_bulk refused", NULL);
			break;
		default: /* allocator: alloc or free one */
			a = (unsigned int)((r >> 8) % STRESS_ALLOCS);
			if (allocs[a] == NULL) {
				asize[a] = 16 + 8 * ((r >> 16) % 63);
				allocs[a] = rte_pcpu_alloc(asize[a], 0);
				if (allocs[a] == NULL) {
					fails++;
					break;
				}
				RTE_PCPU(allocs[a])[0] = me;
				RTE_PCPU(allocs[a])[asize[a] / 8 - 1] = ~me;
			} else {
				if (RTE_PCPU(allocs[a])[0] != me ||
				    RTE_PCPU(allocs[a])[asize[a] / 8 - 1] !=
				    (uint64_t)~me)
					stress_err("allocation overwritten",
						allocs[a]);
				if (rte_pcpu_free(allocs[a]) != 0)
					stress_err("free failed", allocs[a]);
				allocs[a] = NULL;
			}
			break;
		}
	}
	for (p = 0; p < STRESS_POOLS; p++) {
		for (i = 0; i < nheld[p]; i++)
			stress_giving(p, held[p][i]);
		if (nheld[p] != 0 && rte_pcpu_mempool_put_bulk(st_g.mp[p],
				held[p], nheld[p]) != 0)
			stress_err("final put refused", NULL);
	}
	for (a = 0; a < STRESS_ALLOCS; a++)
		if (allocs[a] != NULL && rte_pcpu_free(allocs[a]) != 0)
			stress_err("final free failed", allocs[a]);
	rte_rcu_qsbr_thread_offline(st_g.v, me);
	rte_rcu_qsbr_thread_unregister(st_g.v, me);
	__atomic_fetch_add(&st_g.ops, ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st_g.fails, fails, __ATOMIC_RELAXED);
	return 0;
}

static int
test_stress(void)
{
	static const struct {
		unsigned int n, elt, cache, flags;
		int init;
	} cfg[STRESS_POOLS] = {
		{ 64, 24, 16, RTE_PCPU_MEMPOOL_F_PREFILL, 0 },
		{ 64, 64, 8, RTE_PCPU_MEMPOOL_F_PREFILL |
			RTE_PCPU_MEMPOOL_F_DEBUG, 1 },
		{ 32, 16, 0, RTE_PCPU_MEMPOOL_F_PREFILL |
			RTE_PCPU_MEMPOOL_F_NO_ZERO, 0 },
		{ 48, 32, 8, RTE_PCPU_MEMPOOL_F_PREFILL |
			RTE_PCPU_MEMPOOL_F_DEBUG, 0 },
	};
	struct rte_pcpu_mempool_rcu_config rcfg = { 0 };
	struct rte_pcpu_mempool_stats s;
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
	unsigned int p, i, seconds = 3;
	const char *env = getenv("PCPU_STRESS_SECONDS");
	int ret = TEST_SUCCESS;

	if (rte_lcore_count() < 4)
		TEST_SKIP("needs 4 lcores (8 on 2 CPUs recommended)");
	if (env != NULL)
		seconds = (unsigned int)atoi(env);
	memset(&st_g, 0, sizeof(st_g));
	st_g.v = rte_zmalloc("stress_qsbr",
		rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE), RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(st_g.v, "qsbr memory");
	rte_rcu_qsbr_init(st_g.v, RTE_MAX_LCORE);
	for (p = 0; p < STRESS_POOLS; p++) {
		snprintf(name, sizeof(name), "stress_%u", p);
		st_g.n[p] = cfg[p].n;
		st_g.mp[p] = rte_pcpu_mempool_create(name, cfg[p].n, cfg[p].elt,
			cfg[p].cache, 0, cfg[p].init ? stress_init : NULL,
			NULL, cfg[p].flags);
		TEST_ASSERT_NOT_NULL(st_g.mp[p], "create %s", name);
		st_g.sorted[p] = calloc(cfg[p].n, sizeof(void *));
		st_g.owner[p] = calloc(cfg[p].n, sizeof(uint32_t));
		TEST_ASSERT(st_g.sorted[p] != NULL && st_g.owner[p] != NULL,
			"memory");
		/* learn every object of the prefilled pool */
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(st_g.mp[p],
			st_g.sorted[p], cfg[p].n), "get all");
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(st_g.mp[p],
			st_g.sorted[p], cfg[p].n), "put all");
		qsort(st_g.sorted[p], cfg[p].n, sizeof(void *), ptr_cmp);
	}
	rcfg.v = st_g.v;
	rcfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	rcfg.trigger_reclaim_limit = 8;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(
		st_g.mp[STRESS_RCU_POOL], &rcfg), "rcu");
	st_g.stop_tsc = rte_get_timer_cycles() + seconds * rte_get_timer_hz();
	rte_eal_mp_remote_launch(stress_worker, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	printf("stress: %u lcores, %u s, %" PRIu64 " operations, %" PRIu64
		" failed gets/allocs (pool empty), %" PRIu64 " errors\n",
		rte_lcore_count(), seconds, st_g.ops, st_g.fails, st_g.errors);
	if (st_g.errors != 0)
		ret = TEST_FAILED;
	for (p = 0; p < STRESS_POOLS; p++) {
		rte_pcpu_mempool_stats_get(st_g.mp[p], &s);
		/* RCU puts wait until a reclaim (free reclaims first) */
		if (rte_pcpu_mempool_in_use_count(st_g.mp[p]) != s.rcu_pending ||
		    rte_pcpu_mempool_avail_count(st_g.mp[p]) + s.rcu_pending !=
		    st_g.n[p]) {
			printf("stress_%u: in use %u avail %u\n", p,
				rte_pcpu_mempool_in_use_count(st_g.mp[p]),
				rte_pcpu_mempool_avail_count(st_g.mp[p]));
			ret = TEST_FAILED;
		}
		rte_pcpu_mempool_stats_get(st_g.mp[p], &s);
		if (s.get_success != s.put || s.put_refused != 0) {
			printf("stress_%u: got %" PRIu64 " put %" PRIu64
				" refused %" PRIu64 "\n", p, s.get_success,
				s.put, s.put_refused);
			ret = TEST_FAILED;
		}
		for (i = 0; i < st_g.n[p]; i++)
			if (st_g.owner[p][i] != 0) {
				printf("stress_%u: object %u still owned\n", p,
					i);
				ret = TEST_FAILED;
			}
		if (rte_pcpu_mempool_audit(st_g.mp[p]) != 0)
			ret = TEST_FAILED;
		if (ret != TEST_SUCCESS)
			rte_pcpu_mempool_dump(stdout, st_g.mp[p]);
		if (rte_pcpu_mempool_free(st_g.mp[p]) != 0) {
			printf("stress_%u: free: %s\n", p,
				rte_strerror(rte_errno));
			ret = TEST_FAILED;
		}
		free(st_g.sorted[p]);
		free(st_g.owner[p]);
	}
	if (rte_pcpu_audit() != 0)
		ret = TEST_FAILED;
	rte_free(st_g.v);
	return ret;
}

/*
 * Steal race: a pool much smaller than its caches can hold, used by every
 * lcore and by unregistered threads (which always take the locked path and
 * steal from the caches), so freezes, drains and thaws overlap the lcores'
 * lock-free sections all the time. An object must never be out twice and
 * must come back zeroed on every lcore. This caught the owner reading its
 * cache length before the steal check (a whole freeze-drain-thaw could
 * pass in between, the drained length was not seen, and drained objects
 * stayed in the cache as well as in the shared stack).
 */
#define RACE_N 32

static struct {
	struct rte_pcpu_mempool *mp;
	uintptr_t base;            /* lowest handle */
	uint8_t out[RACE_N * 8];   /* one flag per 8-byte slot of the range */
	uint64_t stop_tsc;
	uint64_t ops, errors;
} race;

static int
race_take(void *o)
{
	uintptr_t k = ((uintptr_t)o - race.base) / 8;
	unsigned int l;
	uint64_t *p;
	int bad = 0;

	if ((uintptr_t)o < race.base || k >= RTE_DIM(race.out))
		return 1;
	if (__atomic_exchange_n(&race.out[k], 1, __ATOMIC_ACQ_REL) != 0)
		bad = 1;    /* handed out twice */
	RTE_PCPU_FOREACH(l, p, (uint64_t *)o) {
		if (*p != 0)
			bad = 1;    /* not zeroed */
		*p = UINT64_C(0xeeeeeeeeeeeeeeee);
	}
	return bad;
}

static void
race_give(void *o)
{
	__atomic_store_n(&race.out[((uintptr_t)o - race.base) / 8], 0,
		__ATOMIC_RELEASE);
}

static void
race_loop(uint64_t seed)
{
	void *o[8];
	uint64_t ops = 0, errors = 0;
	unsigned int i, n, got;

	while (rte_get_timer_cycles() < race.stop_tsc) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		n = 1 + (unsigned int)(seed >> 60) % 8;
		got = 0;
		if (seed & (1u << 20)) {
			if (rte_pcpu_mempool_get_bulk(race.mp, o, n) == 0)
				got = n;
		} else {
			for (i = 0; i < n; i++)
				if (rte_pcpu_mempool_get(race.mp, &o[got]) == 0)
					got++;
		}
		for (i = 0; i < got; i++)
			errors += race_take(o[i]);
		for (i = 0; i < got; i++)
			race_give(o[i]);
		if (got != 0 && (seed & (1u << 21))) {
			if (rte_pcpu_mempool_put_bulk(race.mp, o, got) != 0)
				errors++;
		} else {
			for (i = 0; i < got; i++)
				if (rte_pcpu_mempool_put(race.mp, o[i]) != 0)
					errors++;
		}
		ops += got;
	}
	__atomic_fetch_add(&race.ops, ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&race.errors, errors, __ATOMIC_RELAXED);
}

static int
race_lcore(void *arg __rte_unused)
{
	race_loop(rte_lcore_id() * 7919 + 1);
	return 0;
}

static void *
race_thread(void *arg)
{
	race_loop((uintptr_t)arg);
	return NULL;
}

static int
test_steal_race(void)
{
	void *all[RACE_N];
	pthread_t t[2];
	unsigned int i, seconds = 2;
	const char *env = getenv("PCPU_STRESS_SECONDS");

	if (rte_lcore_count() < 3)
		TEST_SKIP("needs 3 lcores");
	if (env != NULL && atoi(env) > 2)
		seconds = (unsigned int)atoi(env) / 2;
	memset(&race, 0, sizeof(race));
	race.mp = rte_pcpu_mempool_create("steal_race", RACE_N, 8, 8, 0, NULL,
		NULL, RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NOT_NULL(race.mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(race.mp, all, RACE_N),
		"get all");
	race.base = UINTPTR_MAX;
	for (i = 0; i < RACE_N; i++)
		race.base = RTE_MIN(race.base, (uintptr_t)all[i]);
	for (i = 0; i < RACE_N; i++)
		TEST_ASSERT((uintptr_t)all[i] - race.base < sizeof(race.out) * 8,
			"objects spread over more than %zu bytes",
			sizeof(race.out) * 8);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(race.mp, all, RACE_N),
		"put all");
	race.stop_tsc = rte_get_timer_cycles() + seconds * rte_get_timer_hz();
	for (i = 0; i < RTE_DIM(t); i++)
		TEST_ASSERT_SUCCESS(pthread_create(&t[i], NULL, race_thread,
			(void *)(uintptr_t)(i + 1000)), "thread");
	rte_eal_mp_remote_launch(race_lcore, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	for (i = 0; i < RTE_DIM(t); i++)
		pthread_join(t[i], NULL);
	printf("steal race: %u lcores + %zu threads, %u s, %" PRIu64
		" objects out and back, %" PRIu64 " errors\n",
		rte_lcore_count(), RTE_DIM(t), seconds, race.ops, race.errors);
	TEST_ASSERT_EQUAL(race.errors, (uint64_t)0,
		"objects out twice or not zeroed");
	TEST_ASSERT(race.ops > 0, "no object went out");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(race.mp), 0u, "in use");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_avail_count(race.mp),
		(unsigned int)RACE_N, "avail");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(race.mp), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(race.mp), "free");
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_mempool_testsuite = {
	.suite_name = "percpu pools",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE_NAMED_ST("create_lookup_free", pool_setup, pool_reset,
			test_create_lookup_free),
		TEST_CASE_NAMED_ST("walk_dump", pool_setup, pool_reset,
			test_walk_dump),
		TEST_CASE_NAMED_ST("bad_args", pool_setup, pool_reset,
			test_bad_args),
		TEST_CASE_NAMED_ST("get_put", pool_setup, pool_reset,
			test_get_put),
		TEST_CASE_NAMED_ST("bulk_all_or_nothing", pool_setup, pool_reset,
			test_bulk),
		TEST_CASE_NAMED_ST("stranded_caches_128_64_4", pool_setup,
			pool_reset, test_stranded_caches),
		TEST_CASE_NAMED_ST("unregistered_thread", pool_setup,
			pool_reset, test_unregistered_thread),
		TEST_CASE_NAMED_ST("budget", pool_setup, pool_reset,
			test_budget),
		TEST_CASE_NAMED_ST("prefill", pool_setup, pool_reset,
			test_prefill),
		TEST_CASE_NAMED_ST("refill_order", pool_setup, pool_reset,
			test_refill_order),
		TEST_CASE_NAMED_ST("zero_on_get_across_lcores", pool_setup,
			pool_reset, test_zero_on_get),
		TEST_CASE_NAMED_ST("zero_on_get_cached", pool_setup,
			pool_reset, test_zero_on_get_cached),
		TEST_CASE_NAMED_ST("obj_init_once_per_copy", pool_setup,
			pool_reset, test_obj_init),
		TEST_CASE_NAMED_ST("double_and_foreign_put", pool_setup,
			pool_reset, test_debug_puts),
		TEST_CASE_NAMED_ST("rcu_defer_queue", pool_setup, pool_reset,
			test_rcu_dq),
		TEST_CASE_NAMED_ST("rcu_after_inline", pool_setup, pool_reset,
			test_rcu_after_inline),
		TEST_CASE_NAMED_ST("rcu_sync", pool_setup, pool_reset,
			test_rcu_sync),
		TEST_CASE_NAMED_ST("steal_race", pool_setup, pool_reset,
			test_steal_race),
		TEST_CASE_NAMED_ST("stress", pool_setup, pool_reset,
			test_stress),
		TEST_CASES_END()
	}
};

static int
test_pcpu_mempool(void)
{
	return unit_test_suite_runner(&pcpu_mempool_testsuite);
}

REGISTER_TEST_COMMAND(pcpu_mempool_autotest, test_pcpu_mempool);

/*
 * Helper for pcpu_mempool_telemetry.sh and pcpu_info.sh: a pool
 * "tel_pool" (n 100, elt_size 32, cache 8, budget 1 MiB) with 7 objects
 * out, and 5 objects of 24 B from rte_pcpu_alloc() (a size class of the
 * main lcore's caches in use), held until the file named by PCPU_TEL_DONE
 * exists (at most 60 s).
 */
static int
telemetry_hold(void)
{
	const char *done = getenv("PCPU_TEL_DONE");
	struct rte_pcpu_mempool *mp;
	void *objs[7], *small[5];
	unsigned int i;

	mp = rte_pcpu_mempool_create("tel_pool", 100, 32, 8, 1 << 20, NULL,
		NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, 7), "get");
	for (i = 0; i < RTE_DIM(small); i++) {
		small[i] = rte_pcpu_alloc(24, 0);
		TEST_ASSERT_NOT_NULL(small[i], "alloc");
	}
	printf("PCPU_TEL_READY in_use=%u n=100 lcores=%u main=%u\n",
		rte_pcpu_mempool_in_use_count(mp), pcpu_test_mem_lcores(),
		rte_lcore_id());
	fflush(stdout);
	for (i = 0; i < 600 && done != NULL && access(done, F_OK) != 0; i++)
		rte_delay_ms(100);
	for (i = 0; i < RTE_DIM(small); i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(small[i]), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, 7), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	pool_reset();
	return TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(pcpu_mempool_telemetry_hold, telemetry_hold);
