/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The allocator's cases: the seed table (2^20 allocations and frees,
 * without and with caches, beside Linux's published figures and a naive
 * allocator), rte_pcpu_alloc() against the library's own pool, churn
 * (bench bpf_ma) and reclaim (Linux 5.14's partial depopulation scenario).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "perf_bodies.h"
#include "../test/test_pcpu_live_pages.h"

/* The seed table */

#define SEED_N (1u << 20)

static const struct {
	size_t size;
	double alloc_ms;
	double free_ms;
} seed_linux[] = {
	{ 4, 490, 70 },
	{ 16, 515, 75 },
	{ 64, 610, 80 },
	{ 256, 950, 100 },
	{ 1024, 3520, 200 },
};

#define SEED_ORDERS 3
static const char * const order_name[SEED_ORDERS] = { "in_order",
	"alternating", "reverse" };

static unsigned int
seed_n(void)
{
	return perf_is_smoke() ? SEED_N / 16 : SEED_N;
}

/* Runs per order: with 2 MiB pages, and with 4 KiB pages (where each run
 * populates its pages, seconds for the large sizes). */
static unsigned int
seed_runs(int huge)
{
	return perf_is_smoke() ? 1 : huge ? 5 : 3;
}

static int
seed_linux_idx(size_t size)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(seed_linux); i++)
		if (seed_linux[i].size == size)
			return (int)i;
	return -1;
}

/* Free objs[0..n) in one of the three orders with free_fn. */
#define FREE_IN_ORDER(order, n, FREE_ONE)				\
	do {								\
		unsigned int i_;					\
									\
		switch (order) {					\
		case 0:							\
			for (i_ = 0; i_ < (n); i_++)			\
				FREE_ONE(i_);				\
			break;						\
		case 1:							\
			for (i_ = 0; i_ < (n); i_ += 2)			\
				FREE_ONE(i_);				\
			for (i_ = 1; i_ < (n); i_ += 2)			\
				FREE_ONE(i_);				\
			break;						\
		default:						\
			for (i_ = (n); i_-- > 0;)			\
				FREE_ONE(i_);				\
			break;						\
		}							\
	} while (0)

/* Times of one seed case, ms, per order and run (scaled to 2^20). */
struct seed_times {
	unsigned int nb_orders;
	unsigned int runs;
	double alloc[SEED_ORDERS][PERF_MAX_ROUNDS];
	double free[SEED_ORDERS][PERF_MAX_ROUNDS];
};

/*
 * alloc_ms and free_ms: the worst order's median (the target is about the
 * worst order), with that order's range; each order's median beside.
 */
static void
seed_report(struct perf_result *r, size_t size, unsigned int n,
		const struct seed_times *t, double linux_alloc,
		double linux_free)
{
	struct perf_stat sa, sf, wa = { 0 }, wf = { 0 };
	char name[PERF_NAME_LEN];
	unsigned int o;

	for (o = 0; o < t->nb_orders; o++) {
		perf_stat_of(t->alloc[o], t->runs, &sa);
		perf_stat_of(t->free[o], t->runs, &sf);
		if (sa.med > wa.med)
			wa = sa;
		if (sf.med > wf.med)
			wf = sf;
		snprintf(name, sizeof(name), "alloc_ms_%s", order_name[o]);
		perf_result_set(r, name, sa.med);
		snprintf(name, sizeof(name), "free_ms_%s", order_name[o]);
		perf_result_set(r, name, sf.med);
	}
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "objects", n);
	perf_result_set(r, "runs_per_order", t->runs);
	perf_result_stat(r, "alloc_ms", &wa);
	perf_result_stat(r, "free_ms", &wf);
	perf_result_set(r, "linux_alloc_ms", linux_alloc);
	perf_result_set(r, "alloc_vs_linux", wa.med / linux_alloc);
	if (linux_free > 0) {
		perf_result_set(r, "linux_free_ms", linux_free);
		perf_result_set(r, "free_vs_linux", wf.med / linux_free);
	}
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	r->seconds = (wa.med + wf.med) / 1e3;
	if (n != SEED_N)
		perf_result_label(r, "%s%u objects, times scaled to 2^20",
			r->label[0] ? "; " : "", n);
}

/*
 * The seed table on one page mode: the orders take turns in seed_runs()
 * rounds, every run from empty caches and reclaimed pages (the first run
 * of a size is one sample among the others). With 2 MiB pages (@p huge)
 * and too few free hugepages the case reports itself skipped. @p cache:
 * with the cache buckets (the default) instead of without.
 */
static int
seed_pcpu(size_t size, size_t align, int huge, int cache,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = {
		.flags = cache ? 0 : RTE_PCPU_F_NO_CACHE,
		.page_policy = huge ? RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL };
	unsigned int n = seed_n(), o, i, k;
	double scale = (double)SEED_N / n;
	struct seed_times t = { .nb_orders = align ? 1 : SEED_ORDERS,
		.runs = RTE_MIN(seed_runs(huge), (unsigned int)PERF_MAX_ROUNDS) };
	struct rte_pcpu_stats st;
	int li = seed_linux_idx(size);
	void **objs;
	uint64_t t0, t1;

	if (perf_pcpu_reinit(&conf) != 0) {
		perf_pcpu_reinit(NULL);
		return huge ? perf_skip(r, "no 2 MiB pages") :
			perf_fail(r, "rte_pcpu_init");
	}
	objs = malloc(sizeof(void *) * n);
	if (objs == NULL)
		return perf_fail(r, "malloc");
	for (k = 0; k < t.runs; k++) {
		for (o = 0; o < t.nb_orders; o++) {
			t0 = perf_thread_cpu_ns();
			for (i = 0; i < n; i++) {
				objs[i] = rte_pcpu_alloc(size, align);
				if (unlikely(objs[i] == NULL))
					break;
			}
			t1 = perf_thread_cpu_ns();
			if (i < n) {
				while (i-- > 0)
					rte_pcpu_free(objs[i]);
				free(objs);
				perf_pcpu_reinit(NULL);
				if (huge)
					return perf_skip(r, "2 MiB pages ran out");
				return perf_fail(r, "rte_pcpu_alloc");
			}
			t.alloc[o][k] = perf_cpu_ms(t0, t1) * scale;
#define PCPU_FREE_ONE(k) rte_pcpu_free(objs[k])
			t0 = perf_thread_cpu_ns();
			FREE_IN_ORDER(o, n, PCPU_FREE_ONE);
			t1 = perf_thread_cpu_ns();
#undef PCPU_FREE_ONE
			t.free[o][k] = perf_cpu_ms(t0, t1) * scale;
			if (o == 0 && k == 0) {
				rte_pcpu_stats_get(&st);
				perf_result_set(r, "page_size",
					(double)st.page_size);
				perf_result_set(r, "peak_populated_bytes",
					(double)st.max_populated_bytes);
			}
			/* each run from empty caches, as pcpu_perf_autotest:
			 * a class grown by the previous run hands objects out
			 * in longer runs of falling addresses */
			rte_pcpu_cache_flush();
			rte_pcpu_reclaim();
		}
	}
	perf_result_set(r, "cache", cache);
	free(objs);
	if (align != 0) {
		seed_report(r, size, n, &t, 16000, 0);
		perf_result_set(r, "align", (double)align);
		perf_result_set(r, "target_alloc_ms", 500);
		perf_result_label(r, "%sbaseline: Linux bitmap allocator "
			"(about 16 s); target < 500 ms", r->label[0] ? "; " : "");
	} else {
		seed_report(r, size, n, &t, seed_linux[li].alloc_ms,
			seed_linux[li].free_ms);
		perf_result_set(r, "target_ratio", 0.2);
		perf_result_label(r, "%sbaselines: Linux bitmap allocator "
			"(published, target <= 0.2x), naive_zmalloc (its own "
			"case)", r->label[0] ? "; " : "");
	}
	if (rte_pcpu_audit() != 0)
		return perf_fail(r, "rte_pcpu_audit");
	return perf_pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}

/* 4 KiB pages: every run populates its pages, which is what allocating
 * 1 GiB per lcore of fresh memory costs. */
int
perf_seed_pcpu(size_t size, size_t align, struct perf_result *r)
{
	return seed_pcpu(size, align, 0, 0, r);
}

/* 2 MiB pages, the page mode the library picks when hugepages are free:
 * 2^20 objects of 1 KiB need 1 GiB per lcore of them. */
int
perf_seed_pcpu_huge(size_t size, struct perf_result *r)
{
	return seed_pcpu(size, 0, 1, 0, r);
}

/* The same with the cache buckets on, as rte_pcpu_alloc() runs by
 * default: a mass free goes through the caches' flushes. */
int
perf_seed_pcpu_huge_cached(size_t size, struct perf_result *r)
{
	return seed_pcpu(size, 0, 1, 1, r);
}

int
perf_seed_naive(size_t size, struct perf_result *r)
{
	/* rte_malloc: 64 B header, data rounded to cache lines */
	uint64_t per = 64 + RTE_ALIGN_CEIL(size, 64), budget;
	struct seed_times t = { .nb_orders = SEED_ORDERS,
		.runs = RTE_MIN(seed_runs(0), (unsigned int)PERF_MAX_ROUNDS) };
	unsigned int n = seed_n(), o, i, k;
	struct perf_naive *na;
	uint64_t t0, t1;
	double scale;
	int li = seed_linux_idx(size);

	budget = (uint64_t)perf_naive_budget_mb() << 20;
	if ((uint64_t)n * per * rte_lcore_count() > budget)
		n = (unsigned int)(budget / per / rte_lcore_count());
	n &= ~1u;
	if (n < 1024)
		return perf_skip(r, "EAL memory budget too small");
	scale = (double)SEED_N / n;
	na = perf_naive_create(n, size);
	if (na == NULL)
		return perf_fail(r, "naive create");
	/* untimed pass: with --no-huge the EAL heap is faulted in on first
	 * use, which hugepage memory (the usual case) is not */
	for (i = 0; i < n && perf_naive_alloc(na, i) == 0; i++)
		;
	while (i-- > 0)
		perf_naive_free(na, i);
	for (k = 0; k < t.runs; k++) {
		for (o = 0; o < SEED_ORDERS; o++) {
			t0 = perf_thread_cpu_ns();
			for (i = 0; i < n; i++)
				if (unlikely(perf_naive_alloc(na, i) != 0))
					break;
			t1 = perf_thread_cpu_ns();
			if (i < n) {
				perf_naive_destroy(na);
				return perf_fail(r, "rte_zmalloc_socket");
			}
			t.alloc[o][k] = perf_cpu_ms(t0, t1) * scale;
#define NAIVE_FREE_ONE(k) perf_naive_free(na, k)
			t0 = perf_thread_cpu_ns();
			FREE_IN_ORDER(o, n, NAIVE_FREE_ONE);
			t1 = perf_thread_cpu_ns();
#undef NAIVE_FREE_ONE
			t.free[o][k] = perf_cpu_ms(t0, t1) * scale;
		}
	}
	perf_naive_destroy(na);
	seed_report(r, size, n, &t, seed_linux[li].alloc_ms,
		seed_linux[li].free_ms);
	perf_result_set(r, "extrapolated", n != SEED_N);
	perf_result_label(r, "%sbaseline for: pcpu (rte_zmalloc_socket per "
		"lcore per object)", r->label[0] ? "; " : "");
	return 0;
}

/*
 * rte_pcpu_alloc() of 2^20 objects against the library's own pool handing
 * out 2^20 objects of the same size (zero on get, cache 256, prefilled):
 * both warm (pages populated by an untimed first round and kept: the
 * reserve of empty pages covers the whole unit), caches on, the two
 * taking turns. The free and put phases are timed too.
 */
int
perf_alloc_vs_pool(size_t size, struct perf_result *r)
{
	struct rte_pcpu_conf conf = { 0 };
	unsigned int n = seed_n(), i, k, runs = perf_is_smoke() ? 1 : 5;
	double a[PERF_MAX_ROUNDS], f[PERF_MAX_ROUNDS], g[PERF_MAX_ROUNDS];
	double p[PERF_MAX_ROUNDS], scale = (double)SEED_N / n;
	struct rte_pcpu_mempool *pool = NULL;
	struct rte_pcpu_stats st;
	uint64_t t0, t1, t2;
	void **objs;
	int ret = -1;

	if (perf_pcpu_reinit(NULL) != 0 || rte_pcpu_stats_get(&st) != 0)
		return perf_fail(r, "rte_pcpu_init");
	conf.empty_pages_reserve = (uint32_t)(st.unit_stride >> 12);
	if (perf_pcpu_reinit(&conf) != 0)
		return perf_fail(r, "rte_pcpu_init (page reserve)");
	objs = malloc(sizeof(void *) * n);
	if (objs == NULL)
		return perf_fail(r, "malloc");
	pool = rte_pcpu_mempool_create("perf_avp", n, size, 256, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_PREFILL);
	if (pool == NULL) {
		perf_fail(r, "rte_pcpu_mempool_create");
		goto out;
	}
	/* round -1 warms both; rounds 0.. are timed */
	for (k = 0; k <= runs; k++) {
		t0 = perf_thread_cpu_ns();
		for (i = 0; i < n; i++)
			if (unlikely((objs[i] = rte_pcpu_alloc(size, 0)) ==
					NULL))
				break;
		t1 = perf_thread_cpu_ns();
		if (i < n) {
			while (i-- > 0)
				rte_pcpu_free(objs[i]);
			perf_fail(r, "rte_pcpu_alloc");
			goto out;
		}
		for (i = 0; i < n; i++)
			rte_pcpu_free(objs[i]);
		t2 = perf_thread_cpu_ns();
		if (k > 0) {
			a[k - 1] = perf_cpu_ms(t0, t1) * scale;
			f[k - 1] = perf_cpu_ms(t1, t2) * scale;
		}
		t0 = perf_thread_cpu_ns();
		for (i = 0; i < n; i++)
			if (unlikely(rte_pcpu_mempool_get(pool, &objs[i]) != 0))
				break;
		t1 = perf_thread_cpu_ns();
		if (i < n) {
			while (i-- > 0)
				rte_pcpu_mempool_put(pool, objs[i]);
			perf_fail(r, "rte_pcpu_mempool_get");
			goto out;
		}
		for (i = 0; i < n; i++)
			rte_pcpu_mempool_put(pool, objs[i]);
		t2 = perf_thread_cpu_ns();
		if (k > 0) {
			g[k - 1] = perf_cpu_ms(t0, t1) * scale;
			p[k - 1] = perf_cpu_ms(t1, t2) * scale;
		}
	}
	rte_pcpu_stats_get(&st);
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "objects", n);
	perf_result_set(r, "rounds", runs);
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	perf_report_samples(r, "alloc_ms", a, runs);
	perf_report_samples(r, "free_ms", f, runs);
	perf_report_samples(r, "pool_get_ms", g, runs);
	perf_report_samples(r, "pool_put_ms", p, runs);
	perf_report_ratio(r, "alloc_over_pool_get", a, g, runs);
	perf_report_ratio(r, "free_over_pool_put", f, p, runs);
	r->seconds = (a[0] + g[0]) / 1e3;
	perf_result_label(r, "baseline: rte_pcpu_mempool_get of the same count"
		" and size (zero on get, cache 256, prefilled), rounds "
		"alternating; warm, caches on%s", n != SEED_N ?
		"; times scaled to 2^20" : "");
	ret = 0;
out:
	if (pool != NULL && (rte_pcpu_mempool_audit(pool) != 0 ||
			rte_pcpu_mempool_free(pool) != 0) && ret == 0)
		ret = perf_fail(r, "rte_pcpu_mempool_free");
	free(objs);
	if (ret == 0 && rte_pcpu_audit() != 0)
		ret = perf_fail(r, "rte_pcpu_audit");
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* Churn (bench bpf_ma) */

static const size_t churn_sizes[] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

#define CHURN_BATCH 64
#define CHURN_WARMUP 64u
#define CHURN_MAX_WINDOWS 16u

struct churn_lcore {
	uint64_t alloc_cyc[CHURN_MAX_WINDOWS];
	uint64_t free_cyc[CHURN_MAX_WINDOWS];
	uint64_t objs[CHURN_MAX_WINDOWS];
	/** share of the window's wall time the thread was on a CPU */
	double on_cpu[CHURN_MAX_WINDOWS];
	uint64_t total;
	int err;
} __rte_cache_aligned;

struct churn_arg {
	unsigned int nb_windows;
	uint64_t window_cyc;
	struct churn_lcore st[PERF_MAX_RUN_LCORES];
};

/*
 * Windows of window_cyc, back to back after CHURN_WARMUP rounds; rates
 * per window count only the time inside the alloc and free phases, as
 * bench bpf_ma does (TSC: a phase the thread spent descheduled counts, so
 * the share of each window it was on a CPU is kept beside the rates;
 * scaling the rates by it would charge the lost time to both phases
 * alike, which the phases, a few microseconds each, do not share).
 */
static uint64_t
churn_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct churn_arg *ca = arg;
	struct churn_lcore *st = &ca->st[idx];
	void *objs[CHURN_BATCH];
	uint64_t t0, t1, t2, end = 0, w0 = 0, c0 = 0;
	double hz = (double)rte_get_tsc_hz();
	unsigned int r = 0, i, w = 0;

	RTE_SET_USED(deadline);
	memset(st, 0, sizeof(*st));
	for (;; r++) {
		size_t size = churn_sizes[r % RTE_DIM(churn_sizes)];

		t0 = rte_rdtsc();
		for (i = 0; i < CHURN_BATCH; i++) {
			objs[i] = rte_pcpu_alloc(size, 0);
			if (unlikely(objs[i] == NULL)) {
				st->err = 1;
				while (i-- > 0)
					rte_pcpu_free(objs[i]);
				return st->total;
			}
		}
		t1 = rte_rdtsc();
		for (i = 0; i < CHURN_BATCH; i++)
			rte_pcpu_free(objs[i]);
		t2 = rte_rdtsc();
		if (r < CHURN_WARMUP)
			continue;
		if (r == CHURN_WARMUP) {
			c0 = perf_thread_cpu_ns();
			w0 = rte_rdtsc();
			end = w0 + ca->window_cyc;
		}
		st->alloc_cyc[w] += t1 - t0;
		st->free_cyc[w] += t2 - t1;
		st->objs[w] += CHURN_BATCH;
		st->total += CHURN_BATCH;
		if (t2 >= end) {
			uint64_t c1 = perf_thread_cpu_ns(), w1 = rte_rdtsc();

			st->on_cpu[w] = RTE_MIN((double)(c1 - c0) /
				((double)(w1 - w0) / hz * 1e9), 1.0);
			c0 = c1;
			w0 = w1;
			if (++w == ca->nb_windows)
				break;
			end = w1 + ca->window_cyc;
		}
	}
	return st->total;
}

int
perf_churn(unsigned int producers, int huge, int no_cache,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = {
		.page_policy = huge ? RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL,
		.flags = no_cache ? RTE_PCPU_F_NO_CACHE : 0,
	};
	double hz = (double)rte_get_tsc_hz(), mib, lim;
	double av[CHURN_MAX_WINDOWS], fv[CHURN_MAX_WINDOWS];
	double on_cpu[CHURN_MAX_WINDOWS * PERF_MAX_RUN_LCORES];
	double win_ms = perf_is_smoke() ? 5 : 100;
	struct churn_arg *ca = calloc(1, sizeof(*ca));
	struct perf_stat sa, sf, so;
	struct perf_lcores_res lr;
	struct rte_pcpu_stats st;
	unsigned int i, w;
	int ret;

	if (ca == NULL)
		return perf_fail(r, "calloc");
	ca->nb_windows = perf_is_smoke() ? 3 : 10;
	ca->window_cyc = (uint64_t)(win_ms * hz / 1e3);
	if (perf_pcpu_reinit(&conf) != 0) {
		free(ca);
		perf_pcpu_reinit(NULL);
		return perf_skip(r, huge ? "no 2 MiB pages" : "init failed");
	}
	ret = perf_run_lcores(producers, churn_loop, ca, 0,
		win_ms * ca->nb_windows, &lr);
	if (ret != 0) {
		free(ca);
		perf_pcpu_reinit(NULL);
		return perf_fail(r, "launch");
	}
	for (i = 0; i < lr.nb_lcores; i++) {
		if (ca->st[i].err) {
			free(ca);
			perf_pcpu_reinit(NULL);
			if (huge)
				return perf_skip(r, "2 MiB pages ran out");
			return perf_fail(r, "rte_pcpu_alloc");
		}
	}
	/* per window: the mean over producers of each one's rate */
	for (w = 0; w < ca->nb_windows; w++) {
		for (i = 0; i < lr.nb_lcores; i++)
			on_cpu[w * lr.nb_lcores + i] = ca->st[i].on_cpu[w];
		av[w] = fv[w] = 0;
		for (i = 0; i < lr.nb_lcores; i++) {
			const struct churn_lcore *c = &ca->st[i];

			av[w] += c->alloc_cyc[w] ? c->objs[w] /
				(c->alloc_cyc[w] / hz) / 1e6 : 0;
			fv[w] += c->free_cyc[w] ? c->objs[w] /
				(c->free_cyc[w] / hz) / 1e6 : 0;
		}
		av[w] /= lr.nb_lcores;
		fv[w] /= lr.nb_lcores;
	}
	perf_stat_of(av, ca->nb_windows, &sa);
	perf_stat_of(fv, ca->nb_windows, &sf);
	perf_stat_of(on_cpu, ca->nb_windows * lr.nb_lcores, &so);
	free(ca);
	rte_pcpu_stats_get(&st);
	mib = (double)st.max_populated_bytes / st.nr_lcores / (1 << 20);
	lim = st.page_size == 4096 ? 1.0 : 4.0;
	perf_result_set(r, "producers", producers);
	perf_result_set(r, "lcores", lr.nb_lcores);
	perf_result_set(r, "cpus", perf_nb_cpus(lr.nb_lcores));
	perf_result_set(r, "windows", w);
	perf_result_set(r, "window_ms", win_ms);
	perf_result_stat(r, "alloc_Mps", &sa);
	perf_result_stat(r, "free_Mps", &sf);
	perf_result_set(r, "on_cpu", so.med);
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	perf_result_set(r, "peak_populated_bytes",
		(double)st.max_populated_bytes);
	perf_result_set(r, "peak_MiB_per_lcore", mib);
	perf_result_set(r, "target_MiB_per_lcore", lim);
	perf_result_set(r, "targets_met", sa.med >= 14.2 && sf.med >= 36.2 &&
		mib <= lim);
	r->seconds = lr.seconds;
	perf_result_label(r, "baseline: seed bench bpf_ma (Linux 6.8): "
		"14.16/36.18 M/s with 183.7 MiB, 0.86/37.29 M/s with ~0 MiB; "
		"median of %u windows of %g ms", w, win_ms);
	if (rte_pcpu_audit() != 0)
		return perf_fail(r, "rte_pcpu_audit");
	return perf_pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}

/* Reclaim: 11,000 groups of 10 objects of 64 B .. 2 KiB */

#define RECLAIM_GROUPS 11000u
#define RECLAIM_PER_GROUP 10u

int
perf_reclaim(int huge, struct perf_result *r)
{
	struct rte_pcpu_conf conf = { .page_policy = huge ?
		RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL };
	unsigned int n = RECLAIM_GROUPS * RECLAIM_PER_GROUP, g, k;
	uint64_t peak, final, live, seed = 11000, t0, t1;
	struct rte_pcpu_stats st;
	size_t *sizes;
	void **objs;
	int64_t given;

	if (perf_pcpu_reinit(&conf) != 0) {
		perf_pcpu_reinit(NULL);
		return perf_skip(r, "no 2 MiB pages");
	}
	objs = calloc(n, sizeof(*objs));
	sizes = calloc(n, sizeof(*sizes));
	if (objs == NULL || sizes == NULL) {
		free(objs);
		free(sizes);
		return perf_fail(r, "calloc");
	}
	t0 = perf_thread_cpu_ns();
	for (k = 0; k < n; k++) {
		sizes[k] = (size_t)64 << (perf_rnd64(&seed) % 6);
		objs[k] = rte_pcpu_alloc(sizes[k], 0);
		if (objs[k] == NULL)
			break;
	}
	if (k < n) {
		while (k-- > 0)
			rte_pcpu_free(objs[k]);
		free(objs);
		free(sizes);
		perf_pcpu_reinit(NULL);
		if (huge)
			return perf_skip(r, "2 MiB pages ran out");
		return perf_fail(r, "rte_pcpu_alloc");
	}
	rte_pcpu_stats_get(&st);
	peak = st.populated_bytes;
	for (g = 0; g < RECLAIM_GROUPS; g++) {
		if (g % 11 == 0)
			continue;
		for (k = g * RECLAIM_PER_GROUP;
		     k < (g + 1) * RECLAIM_PER_GROUP; k++) {
			rte_pcpu_free(objs[k]);
			objs[k] = NULL;
		}
	}
	rte_pcpu_cache_flush();
	given = rte_pcpu_reclaim();
	t1 = perf_thread_cpu_ns();
	rte_pcpu_stats_get(&st);
	final = st.populated_bytes;
	/* 0 if there is no memory for the page map */
	live = pcpu_test_live_pages(objs, sizes, n, &st);
	if (live == UINT64_MAX)
		live = 0;
	live *= st.page_size * st.nr_lcores;
	for (k = 0; k < n; k++)
		rte_pcpu_free(objs[k]);
	free(objs);
	free(sizes);
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	perf_result_set(r, "peak_kB", (double)(peak >> 10));
	perf_result_set(r, "final_kB", (double)(final >> 10));
	perf_result_set(r, "peak_over_final",
		final ? (double)peak / (double)final : 0);
	perf_result_set(r, "live_pages_kB", (double)(live >> 10));
	perf_result_set(r, "final_over_live",
		live ? (double)final / (double)live : 0);
	perf_result_set(r, "given_back_kB", (double)(given >> 10));
	perf_result_set(r, "linux_peak_kB", 481152);
	perf_result_set(r, "linux_final_kB", 135552);
	perf_result_set(r, "linux_peak_over_final", 481152.0 / 135552.0);
	perf_result_set(r, "bound_met", final <= live * 11 / 10 +
		st.chunk_size * st.nr_lcores);
	perf_result_set(r, "peak_populated_bytes", (double)peak);
	perf_result_set(r, "populated_bytes", (double)final);
	r->seconds = (double)(t1 - t0) / 1e9;
	perf_result_label(r, "baseline: Linux 5.14 partial depopulation, "
		"481,152 kB -> 135,552 kB (3.55x); bound: final <= 1.1 x live "
		"pages + 1 chunk (4 KiB pages)");
	if (rte_pcpu_audit() != 0)
		return perf_fail(r, "rte_pcpu_audit");
	return perf_pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}
