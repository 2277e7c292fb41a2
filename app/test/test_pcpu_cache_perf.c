/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Cache-bucket figures of pcpu_perf_autotest (printed, never asserted):
 * the seed's "bench bpf_ma" churn at 1 and 2 producers with peak memory,
 * and alloc+free pairs of 16 B through the cache beside rte_mempool.
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_pcpu.h>

#include "test.h"
#include "test_pcpu_alloc.h"
#include "test_pcpu_perf.h"

static const size_t churn_sizes[] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

#define CHURN_BATCH 64
#define CHURN_WINDOWS 20u
#define CHURN_WINDOW_ROUNDS 6000u
#define CHURN_ROUNDS (CHURN_WINDOWS * CHURN_WINDOW_ROUNDS)
#define CHURN_WARMUP 240u

/*
 * The machine may be shared (other processes, 8 lcores on 2 CPUs), so
 * rates are kept per window of CHURN_WINDOW_ROUNDS rounds: the table
 * gives the median window with the range of all windows. Each window's
 * cycles are scaled by the share of its wall time the thread was on a CPU
 * (CLOCK_THREAD_CPUTIME_ID), so time spent descheduled does not count as
 * allocator time. That scaling assumes the time off the CPU fell evenly
 * on the alloc and free phases, so a single window can be far off: the
 * verdict uses the median window.
 */
struct churn_res {
	uint64_t alloc_cyc[CHURN_WINDOWS];
	uint64_t free_cyc[CHURN_WINDOWS];
	uint64_t alloc_wall;  /* all rounds, not adjusted */
	uint64_t free_wall;
	int failed;
	volatile int *go;
};

/* bench bpf_ma: allocate 64 objects, free them, sizes cycling. */
static int
churn_producer(void *p)
{
	struct churn_res *res = p;
	void *objs[CHURN_BATCH];
	uint64_t t0, t1, t2, ac = 0, fc = 0, w0 = 0;
	struct timespec c0 = { 0 }, c1;
	double hz = (double)rte_get_tsc_hz();
	unsigned int r, i;

	while (!*res->go)
		;
	for (r = 0; r < CHURN_WARMUP + CHURN_ROUNDS; r++) {
		size_t size = churn_sizes[r % RTE_DIM(churn_sizes)];

		t0 = rte_rdtsc();
		for (i = 0; i < CHURN_BATCH; i++) {
			objs[i] = rte_pcpu_alloc(size, 0);
			if (unlikely(objs[i] == NULL)) {
				res->failed = 1;
				return -1;
			}
		}
		t1 = rte_rdtsc();
		for (i = 0; i < CHURN_BATCH; i++)
			rte_pcpu_free(objs[i]);
		t2 = rte_rdtsc();
		if (r == CHURN_WARMUP - 1) {
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
			w0 = rte_rdtsc();
		}
		if (r >= CHURN_WARMUP) {
			ac += t1 - t0;
			fc += t2 - t1;
			res->alloc_wall += t1 - t0;
			res->free_wall += t2 - t1;
			if ((r - CHURN_WARMUP + 1) % CHURN_WINDOW_ROUNDS == 0) {
				unsigned int w = (r - CHURN_WARMUP) /
					CHURN_WINDOW_ROUNDS;
				uint64_t w1 = rte_rdtsc();
				double on_cpu;

				clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
				on_cpu = ((double)(c1.tv_sec - c0.tv_sec) * 1e9 +
					(double)(c1.tv_nsec - c0.tv_nsec)) /
					((double)(w1 - w0) / hz * 1e9);
				on_cpu = RTE_MIN(on_cpu, 1.0);
				res->alloc_cyc[w] = (uint64_t)((double)ac * on_cpu);
				res->free_cyc[w] = (uint64_t)((double)fc * on_cpu);
				ac = 0;
				fc = 0;
				c0 = c1;
				w0 = rte_rdtsc();
			}
		}
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* M ops/s of the median window, and of the slowest and fastest. */
static void
window_rates(uint64_t *cyc, double *median, double *lo, double *hi)
{
	double ops = (double)CHURN_WINDOW_ROUNDS * CHURN_BATCH;
	double hz = (double)rte_get_tsc_hz();

	qsort(cyc, CHURN_WINDOWS, sizeof(*cyc), cmp_u64);
	*hi = ops / ((double)cyc[0] / hz) / 1e6;
	*lo = ops / ((double)cyc[CHURN_WINDOWS - 1] / hz) / 1e6;
	*median = ops / ((double)(cyc[CHURN_WINDOWS / 2 - 1] +
		cyc[CHURN_WINDOWS / 2]) / 2 / hz) / 1e6;
}

static int
flush_lcore(void *arg __rte_unused)
{
	return rte_pcpu_cache_flush() < 0 ? -1 : 0;
}

static int
churn_run(enum rte_pcpu_page_policy policy, unsigned int producers)
{
	struct rte_pcpu_conf conf = { .page_policy = policy };
	struct churn_res res[RTE_MAX_LCORE];
	unsigned int lcores[RTE_MAX_LCORE], n = 0, l, i;
	volatile int go = 0;
	struct rte_pcpu_stats st;
	double am = 0, fm = 0, al = 0, ah = 0, fl = 0, fh = 0, aw = 0, fw = 0;
	double m, lo, hi;
	double hz = (double)rte_get_tsc_hz(), ops = (double)CHURN_ROUNDS *
		CHURN_BATCH;
	double huge_lim = 4.0, small_lim = 1.0, mib;

	if (pcpu_test_reinit(&conf) != 0) {
		printf("  %-6s %u producer(s): cannot set up (%s)\n",
			policy == RTE_PCPU_PAGE_HUGE ? "2 MiB" : "4 KiB",
			producers, rte_strerror(rte_errno));
		return TEST_SUCCESS;
	}
	/* the main lcore is producer 0 (nobody spins waiting) */
	lcores[n++] = rte_lcore_id();
	RTE_LCORE_FOREACH_WORKER(l) {
		if (n == producers)
			break;
		lcores[n++] = l;
	}
	if (n < producers) {
		printf("  %u producers need %u lcores\n", producers, producers);
		return TEST_SUCCESS;
	}
	memset(res, 0, sizeof(res));
	for (i = 0; i < n; i++)
		res[i].go = &go;
	for (i = 1; i < n; i++)
		TEST_ASSERT_SUCCESS(rte_eal_remote_launch(churn_producer,
			&res[i], lcores[i]), "launch");
	go = 1;
	churn_producer(&res[0]);
	for (i = 1; i < n; i++)
		rte_eal_wait_lcore(lcores[i]);
	for (i = 0; i < n; i++) {
		TEST_ASSERT(!res[i].failed, "producer %u failed", i);
		window_rates(res[i].alloc_cyc, &m, &lo, &hi);
		am += m;
		al += lo;
		ah += hi;
		window_rates(res[i].free_cyc, &m, &lo, &hi);
		fm += m;
		fl += lo;
		fh += hi;
		aw += ops / ((double)res[i].alloc_wall / hz) / 1e6;
		fw += ops / ((double)res[i].free_wall / hz) / 1e6;
	}
	am /= n;
	fm /= n;
	al /= n;
	ah /= n;
	fl /= n;
	fh /= n;
	aw /= n;
	fw /= n;
	rte_pcpu_stats_get(&st);
	mib = (double)st.max_populated_bytes / st.nr_lcores / (1 << 20);
	printf("  %-6s %9u %6.2f [%5.2f-%5.2f] %6.2f [%5.2f-%6.2f] %6.2f %7.2f"
		" %14.3f %10.1f  %s\n", st.page_size == 4096 ? "4 KiB" : "2 MiB",
		n, am, al, ah, fm, fl, fh, aw, fw,
		mib, st.page_size == 4096 ? small_lim : huge_lim,
		am >= 14.2 && fm >= 36.2 &&
		mib <= (st.page_size == 4096 ? small_lim : huge_lim) ?
		"met" : "NOT met");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	for (i = 1; i < n; i++) {
		rte_eal_remote_launch(flush_lcore, NULL, lcores[i]);
		rte_eal_wait_lcore(lcores[i]);
	}
	rte_pcpu_cache_flush();
	return TEST_SUCCESS;
}

int
test_perf_cache_churn(void)
{
	struct rte_pcpu_stats st;
	unsigned int p;

	rte_pcpu_stats_get(&st);
	printf("\nchurn (bench bpf_ma): each producer allocates %u objects, "
		"frees them, sizes cycling 8..512 B; %u rounds after %u warm-up;"
		" %u lcores with memory (each alloc zeroes every lcore's copy)\n",
		CHURN_BATCH, CHURN_ROUNDS, CHURN_WARMUP, rte_lcore_count());
	printf("  targets per producer: >= 14.2 M allocs/s, >= 36.2 M frees/s;"
		" peak <= 4 MiB per lcore (2 MiB pages), <= 1 MiB (4 KiB)\n");
	printf("  seed (Linux 6.8, 8 CPUs, 1 producer): 14.16 / 36.18 M/s with"
		" 183.7 MiB; 0.86 / 37.29 M/s with ~0 MiB\n");
	printf("  M/s per producer and CPU-second: median window of %u rounds "
		"[slowest-fastest window]\n", CHURN_WINDOW_ROUNDS);
	printf("  wall: all rounds by the TSC, not adjusted (the machine's load "
		"shows there); targets: judged on the median windows\n");
	printf("  %-6s %9s %20s %21s %14s %14s %10s  %s\n", "pages",
		"producers", "alloc M/s", "free M/s", "wall alloc/free",
		"peak MiB/lcore", "limit MiB", "targets");
	for (p = 1; p <= 2; p++) {
		TEST_ASSERT_SUCCESS(churn_run(RTE_PCPU_PAGE_NORMAL, p), "run");
		TEST_ASSERT_SUCCESS(churn_run(RTE_PCPU_PAGE_HUGE, p), "run");
	}
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	return TEST_SUCCESS;
}

/* pairs per round and side; rounds alternate the cache and rte_mempool */
#define PAIR_ITERS (UINT64_C(4) * 1000 * 1000)
#define PAIR_ROUNDS 9

/* CPU time of the thread, ns, for @p iters pairs (UINT64_MAX: failed) */
static __rte_noinline uint64_t
pairs_pcpu(uint64_t iters)
{
	uint64_t i, t0 = pcpu_perf_thread_ns();

	for (i = 0; i < iters; i++) {
		void *h = rte_pcpu_alloc(16, 0);

		if (unlikely(h == NULL))
			return UINT64_MAX;
		rte_pcpu_free(h);
	}
	return pcpu_perf_thread_ns() - t0;
}

static __rte_noinline uint64_t
pairs_mempool(struct rte_mempool *mp, uint64_t iters)
{
	uint64_t i, t0 = pcpu_perf_thread_ns();
	void *o;

	for (i = 0; i < iters; i++) {
		if (unlikely(rte_mempool_get(mp, &o) != 0))
			return UINT64_MAX;
		rte_mempool_put(mp, o);
	}
	return pcpu_perf_thread_ns() - t0;
}

/* The same pairs from a thread without an lcore id (no cache). */
static void *
pairs_unregistered(void *arg)
{
	uint64_t *cyc = arg;

	*cyc = rte_lcore_id() == LCORE_ID_ANY ? pairs_pcpu(PAIR_ITERS / 10) :
		UINT64_MAX;
	return NULL;
}

int
test_perf_cache_pairs(void)
{
	double p[PAIR_ROUNDS], m[PAIR_ROUNDS], x[PAIR_ROUNDS];
	double mp_ns, p_ns, mx, lo, hi, xl, xh;
	struct rte_mempool *mp;
	uint64_t c;
	unsigned int r;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	/* as applications create it: ring_mp_mc behind a cache of 256 */
	mp = rte_mempool_create("pcpu_perf_mp16", 4095, 16, 256, 0, NULL, NULL,
		NULL, NULL, SOCKET_ID_ANY, 0);
	for (r = 0; r < PAIR_ROUNDS; r++) {
		c = pairs_pcpu(PAIR_ITERS);
		TEST_ASSERT(c != UINT64_MAX, "alloc failed");
		p[r] = (double)c / PAIR_ITERS;
		m[r] = 0;
		if (mp != NULL) {
			c = pairs_mempool(mp, PAIR_ITERS);
			TEST_ASSERT(c != UINT64_MAX, "rte_mempool_get failed");
			m[r] = (double)c / PAIR_ITERS;
			x[r] = p[r] / m[r];
		}
	}
	p_ns = pcpu_perf_median(p, PAIR_ROUNDS, &lo, &hi);
	printf("\nrte_pcpu_alloc(16)+rte_pcpu_free through the cache, thread "
		"CPU time, median of %u interleaved rounds of %" PRIu64
		" [range]: %.1f ns "
		"[%.1f-%.1f] per pair (%.1f M pairs/s), %u lcores with memory\n",
		PAIR_ROUNDS, PAIR_ITERS, p_ns, lo, hi, 1e3 / p_ns,
		rte_lcore_count());
	{
		uint64_t cyc = UINT64_MAX;
		pthread_t t;

		if (pthread_create(&t, NULL, pairs_unregistered, &cyc) == 0)
			pthread_join(t, NULL);
		if (cyc != UINT64_MAX)
			printf("the same from an unregistered thread (locked "
				"path, no cache), one run of %" PRIu64 " pairs: "
				"%.1f ns per pair\n", PAIR_ITERS / 10,
				(double)cyc / (PAIR_ITERS / 10));
	}
	if (mp != NULL) {
		mp_ns = pcpu_perf_median(m, PAIR_ROUNDS, &lo, &hi);
		mx = pcpu_perf_median(x, PAIR_ROUNDS, &xl, &xh);
		printf("rte_mempool_get+put (16 B, ring_mp_mc, cache 256), the "
			"rounds between: %.1f ns [%.1f-%.1f] per pair; ratio "
			"pcpu/mempool %.2f [%.2f-%.2f]\n", mp_ns, lo, hi, mx, xl,
			xh);
		rte_mempool_free(mp);
	}
	rte_pcpu_cache_flush();
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}
