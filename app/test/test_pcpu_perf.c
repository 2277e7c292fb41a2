/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_perf_autotest: figures, printed, never asserted (speed targets are
 * checked by reading these numbers, not by timed tests).
 *
 * Cases of other layers (caches, pools) live in their own files and are
 * listed in pcpu_perf_suite below.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_per_lcore.h>

#include <rte_pcpu.h>

#include "test.h"
#include "test_pcpu_alloc.h"
#include "test_pcpu_perf.h"

double
pcpu_perf_ms(uint64_t cycles)
{
	return (double)cycles * 1000.0 / (double)rte_get_tsc_hz();
}

uint64_t
pcpu_perf_thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
perf_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
pcpu_perf_median(double *v, unsigned int n, double *lo, double *hi)
{
	if (n == 0) {
		*lo = *hi = 0;
		return 0;
	}
	qsort(v, n, sizeof(*v), perf_cmp_double);
	*lo = v[0];
	*hi = v[n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The seed table (Linux's 2017 bitmap allocator cover letter): 1M
 * allocations of one size, freed in order, alternating and in reverse;
 * worst case of the three. Linux figures in ms.
 */
#define SEED_N (1u << 20)
/* runs per size and order, the orders taking turns; each figure is the
 * median of them */
#define SEED_RUNS 3

static const struct {
	size_t size;
	double linux_alloc_ms;
	double linux_free_ms;
} seed_table[] = {
	{ 4, 490, 70 },
	{ 16, 515, 75 },
	{ 64, 610, 80 },
	{ 256, 950, 100 },
	{ 1024, 3520, 200 },
};

enum free_order { ORDER_IN, ORDER_ALT, ORDER_REV, ORDER_MAX };
static const char * const order_name[] = { "in order", "alternating",
	"reverse" };

/* alloc_ns and free_ns: the thread's CPU time of each phase */
static int
seed_run(void **objs, size_t size, size_t align, unsigned int n,
		enum free_order order, uint64_t *alloc_ns, uint64_t *free_ns)
{
	unsigned int i;
	uint64_t t0;

	t0 = pcpu_perf_thread_ns();
	for (i = 0; i < n; i++) {
		objs[i] = rte_pcpu_alloc(size, align);
		if (objs[i] == NULL)
			break;
	}
	*alloc_ns = pcpu_perf_thread_ns() - t0;
	TEST_ASSERT_EQUAL(i, n, "alloc %zu B failed: %s", size,
		rte_strerror(rte_errno));
	t0 = pcpu_perf_thread_ns();
	switch (order) {
	case ORDER_IN:
		for (i = 0; i < n; i++)
			rte_pcpu_free(objs[i]);
		break;
	case ORDER_ALT:
		for (i = 0; i < n; i += 2)
			rte_pcpu_free(objs[i]);
		for (i = 1; i < n; i += 2)
			rte_pcpu_free(objs[i]);
		break;
	default:
		for (i = n; i-- > 0;)
			rte_pcpu_free(objs[i]);
		break;
	}
	*free_ns = pcpu_perf_thread_ns() - t0;
	return TEST_SUCCESS;
}

static int
perf_seed_table(int no_cache)
{
	struct rte_pcpu_conf conf = { .flags = no_cache ? RTE_PCPU_F_NO_CACHE :
		0 };
	struct rte_pcpu_stats st;
	void **objs = malloc(sizeof(void *) * SEED_N);
	unsigned int s, o, r;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init");
	/* one object to learn the page mode */
	rte_pcpu_free(rte_pcpu_alloc(4, 0));
	rte_pcpu_stats_get(&st);
	printf("\nseed table: %u objects, %s, %" PRIu64 " KiB pages, %u lcores"
		" with memory; thread CPU time; worst of in order / alternating"
		" / reverse, each the median of %u runs [range], the orders in"
		" turn\n", SEED_N,
		no_cache ? "cache buckets off" : "cache buckets on",
		st.page_size >> 10, st.nr_lcores, SEED_RUNS);
	printf("%8s %22s %9s %8s %22s %9s %8s  %s\n", "size", "alloc ms",
		"Linux ms", "ratio", "free ms", "Linux ms", "ratio",
		"worst free order");
	for (s = 0; s < RTE_DIM(seed_table); s++) {
		double am[ORDER_MAX][SEED_RUNS], fm[ORDER_MAX][SEED_RUNS];
		double wa = 0, wf = 0, wal = 0, wah = 0, wfl = 0, wfh = 0;
		unsigned int worst = 0;
		uint64_t a, f;

		for (r = 0; r < SEED_RUNS; r++) {
			for (o = 0; o < ORDER_MAX; o++) {
				TEST_ASSERT_SUCCESS(seed_run(objs,
					seed_table[s].size, 0, SEED_N, o, &a,
					&f), "run");
				rte_pcpu_cache_flush();
				rte_pcpu_reclaim();
				am[o][r] = (double)a / 1e6;
				fm[o][r] = (double)f / 1e6;
			}
		}
		for (o = 0; o < ORDER_MAX; o++) {
			double lo, hi, m;

			m = pcpu_perf_median(am[o], SEED_RUNS, &lo, &hi);
			if (m > wa) {
				wa = m;
				wal = lo;
				wah = hi;
			}
			m = pcpu_perf_median(fm[o], SEED_RUNS, &lo, &hi);
			if (m > wf) {
				wf = m;
				wfl = lo;
				wfh = hi;
				worst = o;
			}
		}
		printf("%8zu %7.1f [%5.1f-%6.1f] %9.0f %7.2fx %7.1f [%5.1f-%6.1f]"
			" %9.0f %7.2fx  %s\n", seed_table[s].size, wa, wal, wah,
			seed_table[s].linux_alloc_ms,
			wa / seed_table[s].linux_alloc_ms, wf, wfl, wfh,
			seed_table[s].linux_free_ms,
			wf / seed_table[s].linux_free_ms, order_name[worst]);
	}
	{
		double am[SEED_RUNS], fm[SEED_RUNS], al, ah, fl, fh, ma, mf;
		uint64_t a, f;

		for (r = 0; r < SEED_RUNS; r++) {
			TEST_ASSERT_SUCCESS(seed_run(objs, 4, 8, SEED_N,
				ORDER_IN, &a, &f), "aligned run");
			rte_pcpu_cache_flush();
			rte_pcpu_reclaim();
			am[r] = (double)a / 1e6;
			fm[r] = (double)f / 1e6;
		}
		ma = pcpu_perf_median(am, SEED_RUNS, &al, &ah);
		mf = pcpu_perf_median(fm, SEED_RUNS, &fl, &fh);
		printf("%u x 4 B aligned to 8 B: alloc %.1f ms [%.1f-%.1f], "
			"free %.1f ms [%.1f-%.1f] (target < 500 ms; Linux about "
			"16 s)\n", SEED_N, ma, al, ah, mf, fl, fh);
	}
	free(objs);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	return TEST_SUCCESS;
}

static int
test_perf_seed_nocache(void)
{
	return perf_seed_table(1);
}

static int
test_perf_seed_cache(void)
{
	return perf_seed_table(0);
}

/*
 * Access: increment a {packets, bytes} pair through RTE_PCPU() versus an
 * RTE_DEFINE_PER_LCORE (TLS) variable, in the same run. A compiler barrier
 * after each increment keeps both loops doing one memory update per
 * iteration.
 */
struct pair {
	uint64_t packets;
	uint64_t bytes;
};

static RTE_DEFINE_PER_LCORE(struct pair, tls_pair);

/* increments per round and side; rounds alternate RTE_PCPU and TLS */
#define ACCESS_ITERS (UINT64_C(10) * 1000 * 1000)
#define ACCESS_ROUNDS 9

/* CPU time of the thread, ns, for @p iters increments */
static __rte_noinline uint64_t
access_pcpu(struct pair *h, uint64_t iters)
{
	uint64_t i, t0 = pcpu_perf_thread_ns();

	for (i = 0; i < iters; i++) {
		struct pair *p = RTE_PCPU(h);

		p->packets++;
		p->bytes += 64;
		rte_compiler_barrier();
	}
	return pcpu_perf_thread_ns() - t0;
}

static __rte_noinline uint64_t
access_tls(uint64_t iters)
{
	uint64_t i, t0 = pcpu_perf_thread_ns();

	for (i = 0; i < iters; i++) {
		RTE_PER_LCORE(tls_pair).packets++;
		RTE_PER_LCORE(tls_pair).bytes += 64;
		rte_compiler_barrier();
	}
	return pcpu_perf_thread_ns() - t0;
}

static int
test_perf_access(void)
{
	struct pair *h = RTE_PCPU_ALLOC(h);
	double p[ACCESS_ROUNDS], t[ACCESS_ROUNDS], x[ACCESS_ROUNDS];
	double mp, mt, mx, lp, hp, lt, ht, lx, hx;
	unsigned int r;

	TEST_ASSERT_NOT_NULL(h, "alloc");
	for (r = 0; r < ACCESS_ROUNDS; r++) {
		p[r] = (double)access_pcpu(h, ACCESS_ITERS) / ACCESS_ITERS;
		t[r] = (double)access_tls(ACCESS_ITERS) / ACCESS_ITERS;
		x[r] = p[r] / t[r];
	}
	TEST_ASSERT_EQUAL(RTE_PCPU(h)->packets, ACCESS_ROUNDS * ACCESS_ITERS,
		"count");
	mp = pcpu_perf_median(p, ACCESS_ROUNDS, &lp, &hp);
	mt = pcpu_perf_median(t, ACCESS_ROUNDS, &lt, &ht);
	mx = pcpu_perf_median(x, ACCESS_ROUNDS, &lx, &hx);
	printf("\naccess, {packets, bytes} increment, ns of thread CPU time, "
		"median of %u interleaved rounds of %" PRIu64 " [range]: "
		"RTE_PCPU %.3f "
		"[%.3f-%.3f], TLS %.3f [%.3f-%.3f], ratio %.3f [%.3f-%.3f] "
		"(target <= 1.0)\n", ACCESS_ROUNDS, ACCESS_ITERS, mp, lp, hp,
		mt, lt, ht, mx, lx, hx);
	rte_pcpu_free(h);
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_perf_suite = {
	.suite_name = "percpu figures",
	.unit_test_cases = {
		TEST_CASE(test_perf_access),
		TEST_CASE(test_perf_seed_nocache),
		TEST_CASE(test_perf_seed_cache),
		/* cache and pool figures: add their cases here */
		TEST_CASE(test_perf_cache_churn),
		TEST_CASE(test_perf_cache_pairs),
		TEST_CASE(test_perf_pool_vs_mempool),
		TEST_CASE(test_perf_pool_init),
		TEST_CASES_END()
	}
};

static int
test_pcpu_perf(void)
{
	return unit_test_suite_runner(&pcpu_perf_suite);
}

REGISTER_TEST_COMMAND(pcpu_perf_autotest, test_pcpu_perf);
