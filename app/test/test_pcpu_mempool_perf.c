/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Pool figures of pcpu_perf_autotest (printed, not asserted):
 *
 * - cached get+put of a 16 B object, pairs/s per lcore, against
 *   rte_mempool_get()+rte_mempool_put() as applications create it
 *   (ring_mp_mc ops, a cache of 256), in the same run, on one lcore and on
 *   every lcore at once, the configurations taking turns in rounds; every
 *   figure is the median of the rounds with their range;
 * - zeroing on get versus obj_init versus no initialisation, 16 B to
 *   4 KiB, with 2 and 8 lcores that have memory (the seed's
 *   bzero-versus-constructor question). Lcores beyond the EAL's are
 *   threads registered with rte_thread_register() for the measurement:
 *   what zeroing costs depends on how many lcores have copies, not on how
 *   many run.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "test.h"
#include "test_pcpu_perf.h"

#define PAIR_BATCH 1024u
/* measure each configuration for about this long per round */
#define MEASURE_MS 60
/* interleaved rounds (odd: the median is a round's figure) */
#define PAIR_ROUNDS 9
/* stack positions per measurement, PAIR_SHIFT_STEP bytes apart (not a
 * multiple of the cache line, so bits 4..11 of addresses vary) */
#define PAIR_SHIFTS 9
#define PAIR_SHIFT_STEP 400

static unsigned int
perf_lcores_with_memory(void)
{
	unsigned int l, n = 0;

	for (l = 0; l < RTE_MAX_LCORE; l++)
		n += rte_pcpu_lcore_has_memory(l);
	return n;
}

/*
 * PAIR_RTE_MEMPOOL_ZERO: what a user of rte_mempool who keeps one copy of
 * an object per lcore does to hand out a zeroed object: its element holds
 * one cache line per lcore with memory (padded, so that lcores do not
 * share lines), and a get zeroes the 16 B of each copy. The pool's zero
 * on get writes the same bytes, in each lcore's unit.
 */
enum pair_kind { PAIR_RTE_MEMPOOL, PAIR_RTE_MEMPOOL_ZERO, PAIR_PCPU_POOL };

struct pair_arg {
	enum pair_kind kind;
	struct rte_mempool *ref;
	unsigned int nb_copies;  /* PAIR_RTE_MEMPOOL_ZERO: lines per element */
	struct rte_pcpu_mempool *pool;
	volatile int *start;
	/* cycles per pair of the thread's CPU time (see pair_measure()):
	 * median over stack positions */
	double cyc;
	int err;
};

/*
 * get+put pairs for @p limit TSC cycles; cycles per pair out, counted in
 * the thread's CPU time (converted at the TSC rate), so that the time
 * other work on a shared machine holds the CPU does not count.
 */
static __rte_noinline double
pair_measure(struct pair_arg *a, uint64_t limit)
{
	uint64_t t0, t1, c0, pairs = 0;
	unsigned int i;
	void *o;

	/* warm the cache */
	for (i = 0; i < PAIR_BATCH; i++) {
		if (a->kind != PAIR_PCPU_POOL) {
			if (rte_mempool_get(a->ref, &o) != 0)
				a->err = 1;
			else
				rte_mempool_put(a->ref, o);
		} else {
			if (rte_pcpu_mempool_get(a->pool, &o) != 0)
				a->err = 1;
			else
				rte_pcpu_mempool_put(a->pool, o);
		}
	}
	c0 = pcpu_perf_thread_ns();
	t0 = rte_rdtsc_precise();
	do {
		if (a->kind == PAIR_RTE_MEMPOOL) {
			for (i = 0; i < PAIR_BATCH; i++) {
				if (unlikely(rte_mempool_get(a->ref, &o) != 0)) {
					a->err = 1;
					continue;
				}
				rte_mempool_put(a->ref, o);
			}
		} else if (a->kind == PAIR_RTE_MEMPOOL_ZERO) {
			for (i = 0; i < PAIR_BATCH; i++) {
				unsigned int l;

				if (unlikely(rte_mempool_get(a->ref, &o) != 0)) {
					a->err = 1;
					continue;
				}
				for (l = 0; l < a->nb_copies; l++)
					memset((char *)o + l * RTE_CACHE_LINE_SIZE,
						0, 16);
				rte_mempool_put(a->ref, o);
			}
		} else {
			for (i = 0; i < PAIR_BATCH; i++) {
				if (unlikely(rte_pcpu_mempool_get(a->pool, &o)
						!= 0)) {
					a->err = 1;
					continue;
				}
				rte_pcpu_mempool_put(a->pool, o);
			}
		}
		pairs += PAIR_BATCH;
		t1 = rte_rdtsc_precise();
	} while (t1 - t0 < limit);
	return (double)(pcpu_perf_thread_ns() - c0) *
		(double)rte_get_tsc_hz() / 1e9 / (double)pairs;
}

/* pair_measure() with @p pad bytes more of stack below the caller */
static __rte_noinline double
pair_measure_at(struct pair_arg *a, uint64_t limit, unsigned int pad)
{
	char buf[pad + 1];

	buf[pad] = 0;
	__asm__ volatile("" : : "r"(buf) : "memory");
	return pair_measure(a, limit);
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * get+put pairs for MEASURE_MS in PAIR_SHIFTS slices, each with the loop's
 * stack (the object pointer) at another address: the cost of a pair
 * depends on where that slot lies against the cache's fields (a load
 * after a store whose address matches in bits 0..11 waits, "4K
 * aliasing"), by up to 10 cycles of 14 in one process and not in the
 * next. The median over the positions is the typical cost; cycles per
 * pair out.
 */
static int
pair_loop(void *p)
{
	struct pair_arg *a = p;
	uint64_t limit = rte_get_tsc_hz() / 1000 * MEASURE_MS / PAIR_SHIFTS;
	double c[PAIR_SHIFTS];
	unsigned int k;

	a->err = 0;
	while (a->start != NULL && !*a->start)
		rte_pause();
	for (k = 0; k < PAIR_SHIFTS; k++)
		c[k] = pair_measure_at(a, limit, k * PAIR_SHIFT_STEP);
	qsort(c, PAIR_SHIFTS, sizeof(c[0]), cmp_double);
	a->cyc = c[PAIR_SHIFTS / 2];
	return 0;
}

static struct pair_arg pair_args[RTE_MAX_LCORE];

/* An obj_init that writes the first word, as a counter's would. */
static void
perf_noop_init(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	RTE_SET_USED(mp);
	RTE_SET_USED(arg);
	RTE_SET_USED(lcore_id);
	*(volatile uint8_t *)obj = 0;
}

static int
pair_run_once(enum pair_kind kind, struct rte_mempool *ref,
		struct rte_pcpu_mempool *pool, int all, double *mpps,
		double *cyc)
{
	unsigned int nb_copies = perf_lcores_with_memory();
	static volatile int start;
	unsigned int l, n = 0;
	double sum_rate = 0, sum_cyc = 0;

	start = 0;
	RTE_LCORE_FOREACH(l) {
		if (!all && l != rte_get_main_lcore())
			continue;
		pair_args[l] = (struct pair_arg){ .kind = kind, .ref = ref,
			.pool = pool, .start = &start,
			.nb_copies = nb_copies };
		if (l != rte_get_main_lcore() &&
		    rte_eal_remote_launch(pair_loop, &pair_args[l], l) != 0)
			return -1;
	}
	start = 1;
	pair_loop(&pair_args[rte_get_main_lcore()]);
	rte_eal_mp_wait_lcore();
	RTE_LCORE_FOREACH(l) {
		struct pair_arg *a = &pair_args[l];

		if (!all && l != rte_get_main_lcore())
			continue;
		if (a->err)
			return -1;
		sum_rate += (double)rte_get_tsc_hz() / a->cyc;
		sum_cyc += a->cyc;
		n++;
	}
	*mpps = sum_rate / n / 1e6;
	*cyc = sum_cyc / n;
	return 0;
}

int
test_perf_pool_vs_mempool(void)
{
	static const struct {
		const char *name;
		const char *pool_name;
		unsigned int flags;
		int init;
	} modes[] = {
		{ "no init (F_NO_ZERO)", "perf_pool_none",
			RTE_PCPU_MEMPOOL_F_NO_ZERO, 0 },
		{ "obj_init", "perf_pool_init", 0, 1 },
		{ "zero on get (default)", "perf_pool_zero", 0, 0 },
	};
	enum { NB_REF = 2, NB_CONF = NB_REF + RTE_DIM(modes) };
	/* [0]: rte_mempool, [1]: rte_mempool and zeroing, [NB_REF + m]:
	 * modes[m]; [all]; [round] */
	static double cyc[NB_CONF][2][PAIR_ROUNDS], mpps[NB_CONF][2][PAIR_ROUNDS];
	double x[PAIR_ROUNDS], hz = (double)rte_get_tsc_hz();
	double zm, zl, zh;
	struct rte_pcpu_mempool *pools[RTE_DIM(modes)] = { NULL };
	struct rte_mempool *ref, *ref_zero, *refs[NB_REF];
	unsigned int n = 8192, m, k, r, nl;
	int all, ret = TEST_SUCCESS;

	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_init(NULL) != 0)
		TEST_SKIP("rte_pcpu_init: %s", rte_strerror(rte_errno));

	/* as applications create it: no flags, so ring_mp_mc ops */
	ref = rte_mempool_create("perf_ref", n - 1, 16, 256, 0, NULL, NULL,
		NULL, NULL, SOCKET_ID_ANY, 0);
	if (ref == NULL)
		TEST_SKIP("rte_mempool_create: %s", rte_strerror(rte_errno));
	/* one padded line per lcore copy (see PAIR_RTE_MEMPOOL_ZERO) */
	nl = perf_lcores_with_memory();
	ref_zero = rte_mempool_create("perf_ref_zero", n - 1,
		nl * RTE_CACHE_LINE_SIZE, 256, 0, NULL, NULL, NULL, NULL,
		SOCKET_ID_ANY, 0);
	if (ref_zero == NULL) {
		rte_mempool_free(ref);
		TEST_SKIP("rte_mempool_create: %s", rte_strerror(rte_errno));
	}
	refs[0] = ref;
	refs[1] = ref_zero;
	for (m = 0; m < RTE_DIM(modes); m++) {
		pools[m] = rte_pcpu_mempool_create(modes[m].pool_name, n, 16,
			256, 0, modes[m].init ? perf_noop_init : NULL, NULL,
			modes[m].flags);
		if (pools[m] == NULL) {
			printf("create %s: %s\n", modes[m].pool_name,
				rte_strerror(rte_errno));
			ret = TEST_FAILED;
			goto out;
		}
	}
	/* rounds interleave the configurations, so that a busy moment of a
	 * shared machine hits them all alike */
	for (r = 0; r < PAIR_ROUNDS; r++)
		for (all = 0; all < 2; all++)
			for (k = 0; k < NB_CONF; k++) {
				if (pair_run_once(k == 0 ? PAIR_RTE_MEMPOOL :
						k == 1 ? PAIR_RTE_MEMPOOL_ZERO :
						PAIR_PCPU_POOL,
						k < NB_REF ? refs[k] : NULL,
						k < NB_REF ? NULL :
						pools[k - NB_REF],
						all, &mpps[k][all][r],
						&cyc[k][all][r]) != 0) {
					printf("pairs failed\n");
					ret = TEST_FAILED;
					goto out;
				}
			}
	printf("\npool get+put pairs, 16 B objects, cache 256, %u lcores with"
		" memory (%u EAL lcores), per lcore, thread CPU time; median of"
		" %u interleaved rounds of %u ms [range], each round the median"
		" over %u stack positions; rte_mempool: %s ops\n", perf_lcores_with_memory(),
		rte_lcore_count(), PAIR_ROUNDS, MEASURE_MS, PAIR_SHIFTS,
		rte_mempool_get_ops(ref->ops_index)->name);
	printf("  %-24s %-7s %22s %20s %20s\n", "", "lcores",
		"M pairs/s", "cycles", "x rte_mempool");
	for (k = 0; k < NB_CONF; k++) {
		for (all = 0; all < 2; all++) {
			double mm, ml, mh, cm, cl, ch, xm = 1, xl = 1, xh = 1;

			for (r = 0; r < PAIR_ROUNDS; r++)
				x[r] = cyc[k][all][r] / cyc[0][all][r];
			if (k > 0)
				xm = pcpu_perf_median(x, PAIR_ROUNDS, &xl, &xh);
			for (r = 0; r < PAIR_ROUNDS; r++)
				x[r] = cyc[k][all][r] / cyc[1][all][r];
			zm = pcpu_perf_median(x, PAIR_ROUNDS, &zl, &zh);
			mm = pcpu_perf_median(mpps[k][all], PAIR_ROUNDS, &ml,
				&mh);
			cm = pcpu_perf_median(cyc[k][all], PAIR_ROUNDS, &cl,
				&ch);
			printf("  %-24s %-7s %6.1f [%5.1f-%5.1f] %5.1f [%4.1f-%5.1f]"
				" %5.2f [%4.2f-%5.2f]\n",
				k == 0 ? "rte_mempool" : k == 1 ?
				"rte_mempool + zeroing" : modes[k - NB_REF].name,
				all ? "all" : "1", mm, ml, mh, cm, cl, ch, xm, xl,
				xh);
			/* the figure the pool target is about */
			if (k == NB_CONF - 1 && all)
				printf("  => default pool (zero on get), every "
					"lcore at once: %.2fx rte_mempool "
					"[%.2f-%.2f] (target <= 1.2x), %.2fx "
					"rte_mempool + zeroing the same %u "
					"copies [%.2f-%.2f], %.1f ns per pair\n",
					xm, xl, xh, zm, nl, zl, zh,
					cm / hz * 1e9);
		}
	}
	printf("  targets: <= 1.2 x rte_mempool with the lcores at once, >= 30 M"
		" pairs/s per lcore\n");
out:
	for (m = 0; m < RTE_DIM(modes); m++) {
		if (pools[m] == NULL)
			continue;
		if (rte_pcpu_mempool_audit(pools[m]) != 0 ||
		    rte_pcpu_mempool_free(pools[m]) != 0)
			ret = TEST_FAILED;
	}
	rte_mempool_free(ref);
	rte_mempool_free(ref_zero);
	return ret;
}

/*
 * Zeroing versus obj_init versus no init.
 */

/* Threads registered as lcores, so that more lcores have memory. */
static struct {
	pthread_t t[RTE_MAX_LCORE];
	unsigned int n;
	volatile int ready;
	volatile int stop;
} extra;

static void *
extra_lcore(void *arg __rte_unused)
{
	if (rte_thread_register() != 0) {
		__atomic_fetch_add(&extra.ready, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_fetch_add(&extra.ready, 1, __ATOMIC_RELEASE);
	while (!extra.stop)
		sched_yield();
	rte_thread_unregister();
	return NULL;
}

/* Register threads until @p want lcores have memory. */
static int
extra_lcores_up_to(unsigned int want)
{
	unsigned int have = perf_lcores_with_memory();

	extra.stop = 0;
	while (have < want && extra.n < RTE_DIM(extra.t)) {
		int before = extra.ready;

		if (pthread_create(&extra.t[extra.n], NULL, extra_lcore,
				NULL) != 0)
			return -1;
		extra.n++;
		while (extra.ready == before)
			sched_yield();
		have = perf_lcores_with_memory();
	}
	return have >= want ? 0 : -1;
}

static void
extra_lcores_stop(void)
{
	unsigned int i;

	extra.stop = 1;
	for (i = 0; i < extra.n; i++)
		pthread_join(extra.t[i], NULL);
	extra.n = 0;
	extra.ready = 0;
}

/* rounds of the init figures, the three modes taking turns */
#define INIT_ROUNDS 5

/*
 * ns per get+put pair on the main lcore, cached, for zero on get,
 * obj_init and no init (out[0..2]): medians of INIT_ROUNDS rounds in
 * which the three modes take turns; -1 on failure.
 */
static void
init_pair_ns(size_t size, double out[3])
{
	static const unsigned int flags[3] = { 0, 0,
		RTE_PCPU_MEMPOOL_F_NO_ZERO };
	struct rte_pcpu_mempool *pools[3] = { NULL };
	double ns[3][INIT_ROUNDS], lo, hi, mpps, cyc;
	static const char * const names[3] = { "perf_init_z", "perf_init_i",
		"perf_init_n" };
	unsigned int m, r;

	for (m = 0; m < 3; m++) {
		out[m] = -1;
		pools[m] = rte_pcpu_mempool_create(names[m], 1024, size, 64, 0,
			m == 1 ? perf_noop_init : NULL, NULL, flags[m]);
		if (pools[m] == NULL)
			goto out;
	}
	for (r = 0; r < INIT_ROUNDS; r++)
		for (m = 0; m < 3; m++) {
			if (pair_run_once(PAIR_PCPU_POOL, NULL, pools[m], 0,
					&mpps, &cyc) != 0)
				goto out;
			ns[m][r] = 1e3 / mpps;
		}
	for (m = 0; m < 3; m++)
		out[m] = pcpu_perf_median(ns[m], INIT_ROUNDS, &lo, &hi);
out:
	for (m = 0; m < 3; m++)
		rte_pcpu_mempool_free(pools[m]);
}

/*
 * ns of thread CPU time per object for its first use: create with PREFILL
 * (allocation, obj_init), then get and put every object once (zeroing), so
 * that both modes have touched every copy once.
 */
static double
init_first_use_once(size_t size, int init, unsigned int n, void **objs)
{
	struct rte_pcpu_mempool *pool;
	uint64_t t0, t1;

	t0 = pcpu_perf_thread_ns();
	pool = rte_pcpu_mempool_create("perf_entry", n, size, 0, 0,
		init ? perf_noop_init : NULL, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	if (pool == NULL)
		return -1;
	if (rte_pcpu_mempool_get_bulk(pool, objs, n) != 0 ||
	    rte_pcpu_mempool_put_bulk(pool, objs, n) != 0)
		t1 = t0;
	else
		t1 = pcpu_perf_thread_ns();
	rte_pcpu_mempool_free(pool);
	return (double)(t1 - t0) / n;
}

/*
 * First use with zeroing (out[0]) and obj_init (out[1]): an untimed round
 * populates the pages (the allocator's cost, not the mode's), then the
 * two take turns for INIT_ROUNDS rounds; medians.
 */
static void
init_first_use_ns(size_t size, unsigned int n, void **objs, double out[2])
{
	double t[2][INIT_ROUNDS], lo, hi;
	unsigned int r, m;

	init_first_use_once(size, 0, n, objs);
	for (r = 0; r < INIT_ROUNDS; r++)
		for (m = 0; m < 2; m++)
			t[m][r] = init_first_use_once(size, m, n, objs);
	for (m = 0; m < 2; m++)
		out[m] = pcpu_perf_median(t[m], INIT_ROUNDS, &lo, &hi);
}

int
test_perf_pool_init(void)
{
	static const size_t sizes[] = { 16, 64, 256, 1024, 4096 };
	static const unsigned int counts[] = { 2, 8 };
	unsigned int c, s, have;

	static void *objs[2048];

	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE) &&
	    rte_pcpu_init(NULL) != 0)
		TEST_SKIP("rte_pcpu_init: %s", rte_strerror(rte_errno));
	printf("\npool initialisation: ns per cached get+put pair on one lcore"
		" (zeroing touches every lcore's copy),\n"
		"and ns per object for its first use (create with PREFILL,"
		" get and put once); thread CPU time,\nmedians of %u rounds,"
		" modes in turn:\n", INIT_ROUNDS);
	printf("  %-7s %6s | %10s %10s %10s | %12s %12s\n", "lcores", "size",
		"zero/get", "obj_init", "none", "first zero", "first init");
	for (c = 0; c < RTE_DIM(counts); c++) {
		have = perf_lcores_with_memory();
		if (have > counts[c]) {
			printf("  %-7u (skipped: %u lcores have memory)\n",
				counts[c], have);
			continue;
		}
		if (extra_lcores_up_to(counts[c]) != 0) {
			extra_lcores_stop();
			TEST_SKIP("cannot register lcores up to %u", counts[c]);
		}
		for (s = 0; s < RTE_DIM(sizes); s++) {
			unsigned int n = sizes[s] >= 1024 ? 256 : 2048;
			double pair[3], first[2];

			init_pair_ns(sizes[s], pair);
			init_first_use_ns(sizes[s], n, objs, first);
			printf("  %-7u %6zu | %10.1f %10.1f %10.1f | %12.1f %12.1f\n",
				perf_lcores_with_memory(), sizes[s], pair[0],
				pair[1], pair[2], first[0], first[1]);
		}
	}
	extra_lcores_stop();
	return TEST_SUCCESS;
}

/* The pool figures alone (pcpu_perf_autotest runs them with the others). */
static struct unit_test_suite pcpu_mempool_perf_suite = {
	.suite_name = "percpu pool figures",
	.unit_test_cases = {
		TEST_CASE(test_perf_pool_vs_mempool),
		TEST_CASE(test_perf_pool_init),
		TEST_CASES_END()
	}
};

static int
test_pcpu_mempool_perf(void)
{
	return unit_test_suite_runner(&pcpu_mempool_perf_suite);
}

REGISTER_TEST_COMMAND(pcpu_mempool_perf_autotest, test_pcpu_mempool_perf);
