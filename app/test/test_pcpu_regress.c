/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_regression_autotest: one case per defect a user found by trying
 * hard to break the library; each failed before its fix.
 *
 *   rcu_cleanup_pending    rte_pcpu_cleanup() with RCU puts still waiting
 *                          on an online reader releases the defer queue
 *                          (its ring memzone and heap blocks) all the same
 *   rcu_free_reclaims_all  rte_pcpu_mempool_free() and a get reclaim every
 *                          put whose grace period is over, whatever the
 *                          pool's max_reclaim_size
 *   lcore_visible_initialised
 *                          a reader never sees an lcore that is arriving
 *                          (rte_thread_register()) before obj_init ran
 *                          on its copies
 *   put_null_refused       rte_pcpu_mempool_put(mp, NULL) logs one line and
 *                          counts one refusal, as put_bulk of {NULL}
 *   bulk_args_refused      get_bulk and put_bulk refused for their
 *                          arguments (pool or array NULL, n 0 or above
 *                          the capacity) log one line each, as every
 *                          bad input does
 *
 * The fifth, calls after rte_eal_cleanup(), cannot share a process with
 * other tests: test_eal_cleanup.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "test.h"
#include "test_pcpu_eal_usage.h"
#include "test_pcpu_util.h"

static void
regress_reset(void)
{
	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_cleanup() != 0)
		printf("rte_pcpu_cleanup: %s\n", rte_strerror(rte_errno));
}

static int
regress_setup(void)
{
	regress_reset();
	return TEST_SUCCESS;
}

/* A worker lcore other than the main one, or RTE_MAX_LCORE. */
static unsigned int
regress_worker(void)
{
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l)
		return l;
	return RTE_MAX_LCORE;
}

/*
 * Defect 1. A reader on another lcore goes online and never reports, so
 * the puts stay on the defer queue; rte_pcpu_cleanup() must still release
 * the queue: EAL's heap and memzones are back where they were before the
 * library was set up.
 */

static struct {
	struct rte_rcu_qsbr *v;
	volatile int online;
	volatile int stop;
} holder;

static int
holder_loop(void *arg __rte_unused)
{
	unsigned int id = rte_lcore_id();

	rte_rcu_qsbr_thread_register(holder.v, id);
	rte_rcu_qsbr_thread_online(holder.v, id);
	__atomic_store_n(&holder.online, 1, __ATOMIC_RELEASE);
	/* a reader that never reaches a quiescent state meanwhile */
	while (!__atomic_load_n(&holder.stop, __ATOMIC_ACQUIRE))
		rte_pause();
	rte_rcu_qsbr_thread_offline(holder.v, id);
	rte_rcu_qsbr_thread_unregister(holder.v, id);
	return 0;
}

static int
test_rcu_cleanup_pending(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool_stats st;
	struct pcpu_test_eal_usage before, after;
	struct rte_pcpu_mempool *mp;
	unsigned int worker = regress_worker();
	void *objs[8];
	int ret = TEST_FAILED;

	if (worker == RTE_MAX_LCORE)
		TEST_SKIP("needs a worker lcore");
	memset(&holder, 0, sizeof(holder));
	holder.v = rte_zmalloc("regress_qsbr",
		rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE), RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(holder.v, "qsbr variable");
	rte_rcu_qsbr_init(holder.v, RTE_MAX_LCORE);
	/* the baseline: EAL memory before the library is set up, but after
	 * a first set-up and clean-up: the memzone that tells secondary
	 * processes where the area is (multi-process) is reserved by the
	 * first rte_pcpu_init() and kept for the life of the process */
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "first init");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "first cleanup");
	pcpu_test_eal_usage_get(&before);
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	mp = rte_pcpu_mempool_create("regress_dq", 8, 16, 4, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cfg.v = holder.v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "rcu add");
	TEST_ASSERT_SUCCESS(rte_eal_remote_launch(holder_loop, NULL, worker),
		"reader");
	while (!__atomic_load_n(&holder.online, __ATOMIC_ACQUIRE))
		rte_pause();
	if (rte_pcpu_mempool_get_bulk(mp, objs, RTE_DIM(objs)) != 0 ||
	    rte_pcpu_mempool_put_bulk(mp, objs, RTE_DIM(objs)) != 0 ||
	    rte_pcpu_mempool_stats_get(mp, &st) != 0) {
		printf("get/put: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	if (st.rcu_pending != RTE_DIM(objs)) {
		printf("%" PRIu64 " puts wait, want %zu\n", st.rcu_pending,
			RTE_DIM(objs));
		goto out;
	}
	/* the reader is still online: the puts cannot be reclaimed */
	if (rte_pcpu_cleanup() != 0) {
		printf("cleanup: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	pcpu_test_eal_usage_get(&after);
	printf("EAL heap before init: %" PRIu64 " blocks, %" PRIu64
		" bytes, %u memzones; after cleanup: %" PRIu64 ", %" PRIu64
		", %u\n", before.blocks, before.bytes, before.memzones,
		after.blocks, after.bytes, after.memzones);
	if (!pcpu_test_eal_usage_equal(&after, &before)) {
		printf("rte_pcpu_cleanup() left EAL memory behind (the defer "
			"queue?)\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	__atomic_store_n(&holder.stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	regress_reset();
	rte_free(holder.v);
	return ret;
}

/*
 * Defect 2. No reader is online, so every put's grace period is over at
 * once; with max_reclaim_size 1 and no automatic reclamation, the puts
 * all wait on the queue until someone reclaims them.
 */
static int
test_rcu_free_reclaims_all(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool_stats st;
	struct rte_pcpu_mempool *mp;
	struct rte_rcu_qsbr *v;
	void *objs[10];
	int ret;

	v = rte_zmalloc("regress_qsbr", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
		RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(v, "qsbr variable");
	rte_rcu_qsbr_init(v, RTE_MAX_LCORE);
	mp = rte_pcpu_mempool_create("regress_reclaim", RTE_DIM(objs), 16, 0,
		0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cfg.v = v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	cfg.max_reclaim_size = 1;
	/* above the queue's size: no reclamation inside the puts */
	cfg.trigger_reclaim_limit = 1024;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "rcu add");

	/* a get that needs every object reclaims every expired put */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, objs, RTE_DIM(objs)),
		"get all");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, RTE_DIM(objs)),
		"put all");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.rcu_pending, (uint64_t)RTE_DIM(objs),
		"puts waiting on the queue");
	ret = rte_pcpu_mempool_get_bulk(mp, objs, RTE_DIM(objs));
	TEST_ASSERT_SUCCESS(ret, "get all with every grace period over: %d",
		ret);

	/* the first free succeeds */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, objs, RTE_DIM(objs)),
		"put all");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &st), "stats");
	TEST_ASSERT_EQUAL(st.rcu_pending, (uint64_t)RTE_DIM(objs),
		"puts waiting on the queue");
	ret = rte_pcpu_mempool_free(mp);
	if (ret != 0) {
		printf("free: %s with every grace period over\n",
			rte_strerror(rte_errno));
		regress_reset();
		rte_free(v);
		return TEST_FAILED;
	}
	rte_free(v);
	return TEST_SUCCESS;
}

/*
 * Defect 3. obj_init writes a mark in every copy, and takes its time for
 * an lcore that arrives; a reader on a worker lcore meanwhile checks the
 * copy of every lcore it can see. An lcore must not become visible before
 * its copies hold the mark.
 */

#define VIS_OBJS 8
#define VIS_MARK(l) (UINT64_C(0x5eed000000000000) | (l))

static struct {
	struct rte_pcpu_mempool *mp;
	uint64_t *objs[VIS_OBJS];
	volatile int slow;          /* obj_init waits for lcores it did not
				     * see at creation */
	uint64_t known[RTE_PCPU_MASK_WORDS];
	volatile int stop;
	uint64_t passes;            /* full passes of the reader */
	uint64_t saw_new;           /* passes that saw the new lcore */
	volatile unsigned int new_lcore;
	uint64_t bad;               /* copies without the mark */
	unsigned int bad_lcore;
	uint64_t bad_value;
} vis;

static void
vis_obj_init(struct rte_pcpu_mempool *mp __rte_unused, void *arg __rte_unused,
		void *obj, unsigned int lcore_id)
{
	int known = (vis.known[lcore_id / 64] >> (lcore_id % 64)) & 1;

	if (vis.slow && !known)
		rte_delay_ms(25);
	*(uint64_t *)obj = VIS_MARK(lcore_id);
}

static int
vis_reader(void *arg __rte_unused)
{
	unsigned int i, l;
	uint64_t *v;

	while (!__atomic_load_n(&vis.stop, __ATOMIC_ACQUIRE)) {
		int saw = 0;

		for (i = 0; i < VIS_OBJS; i++) {
			RTE_PCPU_FOREACH(l, v, vis.objs[i]) {
				uint64_t x = __atomic_load_n(v,
					__ATOMIC_RELAXED);

				if (!rte_pcpu_lcore_has_memory(l) ||
				    x != VIS_MARK(l)) {
					if (vis.bad++ == 0) {
						vis.bad_lcore = l;
						vis.bad_value = x;
					}
				}
				saw |= l == vis.new_lcore;
			}
		}
		__atomic_store_n(&vis.passes, vis.passes + 1,
			__ATOMIC_RELEASE);
		if (saw)
			__atomic_store_n(&vis.saw_new, vis.saw_new + 1,
				__ATOMIC_RELEASE);
	}
	return 0;
}

static void *
vis_arrive(void *arg __rte_unused)
{
	uint64_t seen;

	if (rte_thread_register() != 0)
		return NULL;
	vis.new_lcore = rte_lcore_id();
	/* stay until the reader made full passes that saw this lcore */
	seen = __atomic_load_n(&vis.saw_new, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&vis.saw_new, __ATOMIC_ACQUIRE) < seen + 3)
		rte_pause();
	rte_thread_unregister();
	return (void *)1;
}

static int
test_lcore_visible_initialised(void)
{
	unsigned int worker = regress_worker(), l, i;
	void *ok = NULL;
	pthread_t t;
	uint64_t *v;

	if (worker == RTE_MAX_LCORE)
		TEST_SKIP("needs a worker lcore");
	memset(&vis, 0, sizeof(vis));
	vis.new_lcore = RTE_MAX_LCORE;
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1))
		vis.known[l / 64] |= UINT64_C(1) << (l % 64);
	vis.mp = rte_pcpu_mempool_create("regress_vis", VIS_OBJS, 8, 0, 0,
		vis_obj_init, NULL, RTE_PCPU_MEMPOOL_F_PREFILL);
	TEST_ASSERT_NOT_NULL(vis.mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(vis.mp,
		(void **)vis.objs, VIS_OBJS), "get all");
	for (i = 0; i < VIS_OBJS; i++)
		RTE_PCPU_FOREACH(l, v, vis.objs[i])
			TEST_ASSERT_EQUAL(*v, VIS_MARK(l), "initialised");
	vis.slow = 1;
	TEST_ASSERT_SUCCESS(rte_eal_remote_launch(vis_reader, NULL, worker),
		"reader");
	while (__atomic_load_n(&vis.passes, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	if (pthread_create(&t, NULL, vis_arrive, NULL) == 0)
		pthread_join(t, &ok);
	__atomic_store_n(&vis.stop, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(worker);
	vis.slow = 0;
	printf("reader: %" PRIu64 " passes, %" PRIu64 " saw lcore %u, %"
		PRIu64 " copies without their mark\n", vis.passes, vis.saw_new,
		vis.new_lcore, vis.bad);
	TEST_ASSERT(ok != NULL, "rte_thread_register");
	TEST_ASSERT_EQUAL(vis.bad, (uint64_t)0,
		"lcore %u visible with a copy reading %#" PRIx64
		" (obj_init not run yet)", vis.bad_lcore, vis.bad_value);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(vis.mp,
		(void **)vis.objs, VIS_OBJS), "put all");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(vis.mp), "free");
	return TEST_SUCCESS;
}

/*
 * Defect 5. Every refused put logs one line and counts once, a NULL
 * object included, whether the inline put or put_bulk receives it, with
 * or without RCU.
 */
static int
put_null_check(struct rte_pcpu_mempool *mp, const char *what)
{
	struct rte_pcpu_mempool_stats s0, s1;
	struct pcpu_test_log log;
	void *null_obj = NULL;
	unsigned int lines;
	int r1, r2;

	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &s0), "stats");
	TEST_ASSERT_SUCCESS(pcpu_test_log_start(&log), "log capture");
	rte_errno = 0;
	r1 = rte_pcpu_mempool_put(mp, NULL);
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "%s: rte_errno of put(NULL)", what);
	r2 = rte_pcpu_mempool_put_bulk(mp, &null_obj, 1);
	lines = pcpu_test_count_lines(pcpu_test_log_stop(&log), "refused");
	pcpu_test_log_free(&log);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &s1), "stats");
	TEST_ASSERT_EQUAL(r1, -EINVAL, "%s: put(mp, NULL)", what);
	TEST_ASSERT_EQUAL(r2, -EINVAL, "%s: put_bulk(mp, {NULL}, 1)", what);
	TEST_ASSERT_EQUAL(lines, 2u, "%s: one log line per refused put", what);
	TEST_ASSERT_EQUAL(s1.put_refused - s0.put_refused, (uint64_t)2,
		"%s: one put_refused count per refused put", what);
	TEST_ASSERT_EQUAL(s1.put, s0.put, "%s: nothing put", what);
	return TEST_SUCCESS;
}

static int
test_put_null_refused(void)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	struct rte_pcpu_mempool *mp;
	struct rte_rcu_qsbr *v;
	void *obj;

	mp = rte_pcpu_mempool_create("regress_null", 4, 16, 2, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	/* the lcore cache exists: the inline put is in play */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &obj), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, obj), "put");
	TEST_ASSERT_SUCCESS(put_null_check(mp, "plain pool"), "plain pool");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");

	v = rte_zmalloc("regress_qsbr", rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE),
		RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(v, "qsbr variable");
	rte_rcu_qsbr_init(v, RTE_MAX_LCORE);
	mp = rte_pcpu_mempool_create("regress_null_rcu", 4, 16, 2, 0, NULL,
		NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	cfg.v = v;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &cfg), "rcu add");
	TEST_ASSERT_SUCCESS(put_null_check(mp, "RCU pool"), "RCU pool");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	rte_free(v);
	return TEST_SUCCESS;
}

/*
 * Defect 6. get_bulk and put_bulk refused for their arguments set EINVAL
 * and log one line each, as every bad input does; nothing is taken or put.
 */
static int
test_bulk_args_refused(void)
{
	struct rte_pcpu_mempool *mp;
	struct pcpu_test_log log;
	void *o[5] = { NULL };
	unsigned int lines, i;
	int r[8];

	mp = rte_pcpu_mempool_create("regress_bulk", 4, 16, 2, 0, NULL, NULL,
		0);
	TEST_ASSERT_NOT_NULL(mp, "create");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &o[0]), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, o[0]), "put");
	TEST_ASSERT_SUCCESS(pcpu_test_log_start(&log), "log capture");
	r[0] = rte_pcpu_mempool_get_bulk(NULL, o, 1);
	r[1] = rte_pcpu_mempool_get_bulk(mp, NULL, 1);
	r[2] = rte_pcpu_mempool_get_bulk(mp, o, 0);
	r[3] = rte_pcpu_mempool_get_bulk(mp, o, 5);
	r[4] = rte_pcpu_mempool_put_bulk(NULL, o, 1);
	r[5] = rte_pcpu_mempool_put_bulk(mp, NULL, 1);
	r[6] = rte_pcpu_mempool_put_bulk(mp, o, 0);
	r[7] = rte_pcpu_mempool_put_bulk(mp, o, 5);
	lines = pcpu_test_count_lines(pcpu_test_log_stop(&log), "bulk");
	pcpu_test_log_free(&log);
	for (i = 0; i < RTE_DIM(r); i++)
		TEST_ASSERT_EQUAL(r[i], -EINVAL, "call %u: %d", i, r[i]);
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "rte_errno");
	TEST_ASSERT_EQUAL(lines, (unsigned int)RTE_DIM(r),
		"one log line per refused call");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "pool audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_regression_testsuite = {
	.suite_name = "pcpu regression autotest",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE_NAMED_ST("rcu_cleanup_pending", regress_setup,
			regress_reset, test_rcu_cleanup_pending),
		TEST_CASE_NAMED_ST("rcu_free_reclaims_all", regress_setup,
			regress_reset, test_rcu_free_reclaims_all),
		TEST_CASE_NAMED_ST("lcore_visible_initialised", regress_setup,
			regress_reset, test_lcore_visible_initialised),
		TEST_CASE_NAMED_ST("put_null_refused", regress_setup,
			regress_reset, test_put_null_refused),
		TEST_CASE_NAMED_ST("bulk_args_refused", regress_setup,
			regress_reset, test_bulk_args_refused),
		TEST_CASES_END()
	}
};

static int
test_pcpu_regression(void)
{
	return unit_test_suite_runner(&pcpu_regression_testsuite);
}

REGISTER_TEST_COMMAND(pcpu_regression_autotest, test_pcpu_regression);
