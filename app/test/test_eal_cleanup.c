/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_eal_cleanup_test: the API called after rte_eal_cleanup() fails
 * with the documented errors instead of crashing in EAL memory that is
 * gone. Its own program: nothing of EAL works after the cleanup.
 *
 *   pcpu_eal_cleanup_test [--fresh | --wrong-order] EAL-ARGS...
 *
 * Without an option, the library is used (allocations, a pool) and
 * cleaned up before rte_eal_cleanup(); with --fresh, the first call into
 * the library comes after rte_eal_cleanup(); with --wrong-order, the
 * library is used and left set up when rte_eal_cleanup() runs, and the
 * calls that are not fast paths (statistics, dump, audit, reclaim, cache
 * flush, zero, cleanup, the owner calls, the pool calls) must then fail
 * with EINVAL instead of reading the caches, counters and pools in EAL
 * memory that is gone. EAL must keep its
 * configuration in the runtime directory (the default: neither
 * --in-memory nor --no-shconf, where rte_eal_cleanup() leaves EAL's
 * memory mapped or cannot be told).
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <rte_rcu_qsbr.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_mempool_ops.h>
#include <rte_pcpu_owner.h>

static unsigned int passed, failed;

#define CHECK(cond, what) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: %s (rte_errno %d: %s)\n", __FILE__, \
			__LINE__, what, rte_errno, rte_strerror(rte_errno)); \
		failed++; \
	} else { \
		printf("ok   %s\n", what); \
		passed++; \
	} \
} while (0)

/* CHECK() that a call failed (@p fails: its result says so) with
 * rte_errno @p err, which is cleared before the call. */
#define CHECK_ERR(fails, err, what) do { \
	rte_errno = 0; \
	CHECK((fails) && rte_errno == (err), what); \
} while (0)

/* The totals; the exit status: 0 if every check passed. */
static int
report(void)
{
	printf("%u passed, %u failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}

/* Use everything once, then take the library down before EAL. */
static void
use_library(void)
{
	struct rte_pcpu_mempool *mp;
	uint64_t *h;
	void *obj;

	h = rte_pcpu_alloc(16, 0);
	CHECK(h != NULL, "alloc while EAL is up");
	*RTE_PCPU(h) = 1;
	CHECK(rte_pcpu_free(h) == 0, "free while EAL is up");
	mp = rte_pcpu_mempool_create("eal_cleanup", 8, 16, 4, 0, NULL, NULL, 0);
	CHECK(mp != NULL, "pool create while EAL is up");
	if (mp != NULL) {
		CHECK(rte_pcpu_mempool_get(mp, &obj) == 0 &&
			rte_pcpu_mempool_put(mp, obj) == 0, "pool get and put");
		CHECK(rte_pcpu_mempool_free(mp) == 0, "pool free");
	}
	CHECK(rte_pcpu_cleanup() == 0, "rte_pcpu_cleanup before rte_eal_cleanup");
}

/* rte_pcpu_owner_walk() callback: counts the owners. */
static void
count_owner(struct rte_pcpu_owner *o, void *arg)
{
	(void)o;
	(*(unsigned int *)arg)++;
}

/* rte_pcpu_mempool_walk() callback: counts the pools. */
static void
count_pool(struct rte_pcpu_mempool *mp, void *arg)
{
	(void)mp;
	(*(unsigned int *)arg)++;
}

/* The owner and pool calls after rte_eal_cleanup(): owner @p o and pool
 * @p mp were made before it. */
static void
wrong_order_owner_pool_checks(struct rte_pcpu_owner *o,
		struct rte_pcpu_mempool *mp, struct rte_rcu_qsbr *v)
{
	struct rte_pcpu_mempool_rcu_config rc = {
		.v = v, .mode = RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC,
	};
	struct rte_pcpu_owner_stats ost;
	struct rte_pcpu_mempool_stats pst;
	struct rte_pcpu_mempool_info info;
	unsigned int n = 0;

	CHECK_ERR(rte_pcpu_owner_create("late", 0) == NULL, EINVAL,
		"owner create after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_owner_lookup("eal_cleanup_owner") == NULL, EINVAL,
		"owner lookup after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_owner_stats_get(o, &ost) == -1, EINVAL,
		"owner stats after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_owner_free(o) == -1, EINVAL,
		"owner free after rte_eal_cleanup: EINVAL");
	rte_pcpu_owner_walk(count_owner, &n);
	CHECK(n == 0, "owner walk after rte_eal_cleanup: walks nothing");
	CHECK(rte_pcpu_owner_name(o) != NULL &&
		strcmp(rte_pcpu_owner_name(o), "eal_cleanup_owner") == 0,
		"owner name after rte_eal_cleanup: the library's own memory");
	CHECK_ERR(rte_pcpu_mempool_stats_get(mp, &pst) == -1, EINVAL,
		"pool stats after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_info_get(mp, &info) == -1, EINVAL,
		"pool info after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_dump(stdout, mp) == -1, EINVAL,
		"pool dump after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_audit(mp) == -1, EINVAL,
		"pool audit after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_rcu_qsbr_add(mp, &rc) == -1, EINVAL,
		"pool RCU add after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_free(mp) == -1, EINVAL,
		"pool free after rte_eal_cleanup: EINVAL");
	n = 0;
	rte_pcpu_mempool_walk(count_pool, &n);
	CHECK(n == 0, "pool walk after rte_eal_cleanup: walks nothing");
	CHECK_ERR(rte_pcpu_mempool_create("late", 8, 16, 4, 0, NULL, NULL,
		0) == NULL, EINVAL, "pool create after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_ops_create("late_ops", 16, 64, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0) == NULL, EINVAL,
		"\"pcpu\" mempool create after rte_eal_cleanup: EINVAL");
}

/* rte_eal_cleanup() with the library still set up and holding objects */
static int
wrong_order_checks(void)
{
	struct rte_pcpu_stats st;
	void *h = rte_pcpu_alloc(64, 0);
	struct rte_pcpu_owner *o = rte_pcpu_owner_create("eal_cleanup_owner",
		0);
	struct rte_pcpu_mempool *mp = rte_pcpu_mempool_create("eal_cleanup",
		8, 16, 4, 0, NULL, NULL, 0);
	/* the QSBR variable outside EAL's memory: it is not the point */
	static uint64_t qsbr_mem[1024] __rte_cache_aligned;
	struct rte_rcu_qsbr *v = (struct rte_rcu_qsbr *)qsbr_mem;

	CHECK(h != NULL, "alloc while EAL is up");
	CHECK(o != NULL && mp != NULL, "owner and pool while EAL is up");
	CHECK(rte_rcu_qsbr_get_memsize(1) <= sizeof(qsbr_mem) &&
		rte_rcu_qsbr_init(v, 1) == 0, "QSBR variable");
	CHECK(rte_pcpu_stats_get(&st) == 0 && st.nr_cur_alloc == 1,
		"stats while EAL is up");
	CHECK(rte_eal_cleanup() == 0, "rte_eal_cleanup, library still set up");
	wrong_order_owner_pool_checks(o, mp, v);
	CHECK_ERR(rte_pcpu_zero(h, 8) == -1, EINVAL,
		"zero after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_stats_get(&st) == -1, EINVAL,
		"stats after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_dump(stdout) == -1, EINVAL,
		"dump after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_audit() == -1, EINVAL,
		"audit after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_reclaim() == -1, EINVAL,
		"reclaim after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_cache_flush() == -1, EINVAL,
		"cache flush after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_lookup("any") == NULL, EINVAL,
		"pool lookup after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_cleanup() == -1, EINVAL,
		"cleanup after rte_eal_cleanup: EINVAL");
	return report();
}

int
main(int argc, char **argv)
{
	struct rte_pcpu_stats st;
	int fresh = 0, wrong_order = 0, ret;
	uint64_t x = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && (strcmp(argv[1], "--fresh") == 0 ||
			strcmp(argv[1], "--wrong-order") == 0)) {
		fresh = strcmp(argv[1], "--fresh") == 0;
		wrong_order = !fresh;
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (wrong_order)
		return wrong_order_checks();
	if (!fresh)
		use_library();
	CHECK(rte_eal_cleanup() == 0, "rte_eal_cleanup");

	CHECK_ERR(rte_pcpu_init(NULL) == -1, EINVAL,
		"init after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_alloc(16, 0) == NULL, EINVAL,
		"alloc after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_mempool_create("after", 8, 16, 4, 0, NULL, NULL,
		0) == NULL, EINVAL, "pool create after rte_eal_cleanup: EINVAL");
	CHECK_ERR(rte_pcpu_free(&x) == -1, EINVAL,
		"free of a non-handle after rte_eal_cleanup: EINVAL");
	CHECK(rte_pcpu_free(NULL) == 0, "free(NULL): no-op");
	CHECK_ERR(rte_pcpu_reclaim() == -1, EALREADY,
		"reclaim: EALREADY (not set up)");
	CHECK_ERR(rte_pcpu_cleanup() == -1, EALREADY,
		"cleanup: EALREADY (not set up)");
	memset(&st, 0xff, sizeof(st));
	CHECK(rte_pcpu_stats_get(&st) == 0 && st.nr_alloc == 0 &&
		st.populated_bytes == 0, "stats: zero");
	CHECK(rte_pcpu_audit() == 0, "audit: clean");
	CHECK(rte_pcpu_mempool_lookup("eal_cleanup") == NULL,
		"no pool left");
	return report();
}
