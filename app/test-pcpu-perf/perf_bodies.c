/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The library's side of every case of dpdk-test-pcpu-perf: its bodies, the
 * setup of the objects they use and the checks that every counted
 * operation happened. How a case measures is perf_runner.c's concern.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "perf_shim.h"
#include "../test/test_pcpu_live_pages.h"

static unsigned int perf_naive_mb = 256;

void
perf_set_naive_budget_mb(unsigned int mb)
{
	perf_naive_mb = mb;
}

static int
flush_cb(void *arg)
{
	RTE_SET_USED(arg);
	rte_pcpu_cache_flush();
	return 0;
}

/* Empty every lcore's caches, then set the allocator up afresh (which
 * also resets max_populated_bytes). */
static int
pcpu_reinit(const struct rte_pcpu_conf *conf)
{
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l) {
		if (rte_eal_remote_launch(flush_cb, NULL, l) == 0)
			rte_eal_wait_lcore(l);
	}
	rte_pcpu_cache_flush();
	rte_pcpu_cleanup();
	return rte_pcpu_init(conf);
}

/* Thread CPU time between two perf_thread_cpu_ns() readings, ms. */
static double
cpu_ms(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) / 1e6;
}

/* Counter NAME (+ _lo, _hi) of @p n samples. */
static void
report_samples(struct perf_result *r, const char *name, const double *v,
		unsigned int n)
{
	struct perf_stat s;

	perf_stat_of(v, n, &s);
	perf_result_stat(r, name, &s);
}

/* Counter NAME (+ _lo, _hi) of the per-round ratios a[k] / b[k]. */
static void
report_ratio(struct perf_result *r, const char *name, const double *a,
		const double *b, unsigned int n)
{
	double x[PERF_MAX_ROUNDS];
	unsigned int k, m = 0;

	for (k = 0; k < n && k < PERF_MAX_ROUNDS; k++)
		if (b[k] > 0)
			x[m++] = a[k] / b[k];
	report_samples(r, name, x, m);
}

/* 1. Access */

/* The handle carried in the stream, as a flow table entry carries it. */
static uint64_t
access_pcpu(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, c->stream_h, ({
		struct perf_pair *p = RTE_PCPU((struct perf_pair *)e);

		p->packets++;
		p->bytes += 64;
	}));
}

/* The object number in the stream, its handle in a side table. */
static uint64_t
access_pcpu_side(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, c->stream_i, ({
		struct perf_pair *p = RTE_PCPU((struct perf_pair *)
			c->handles[e]);

		p->packets++;
		p->bytes += 64;
	}));
}

static void
access_pcpu_free(struct perf_access_ctx *c)
{
	uint32_t i;

	for (i = 0; c->handles != NULL && i < c->nb_objs; i++)
		if (c->handles[i] != NULL)
			rte_pcpu_free(c->handles[i]);
	free(c->handles);
	free(c->stream_h);
	c->handles = NULL;
	c->stream_h = NULL;
}

/* Objects allocated one by one through the caches, as a flow table
 * allocates them when flows arrive; handles in allocation order. */
static int
access_pcpu_setup(struct perf_access_ctx *c)
{
	struct rte_pcpu_stats st0, st1;
	uint32_t i;

	rte_pcpu_stats_get(&st0);
	c->handles = calloc(c->nb_objs, sizeof(void *));
	c->stream_h = calloc(c->nb_objs, sizeof(void *));
	if (c->handles == NULL || c->stream_h == NULL)
		return -1;
	for (i = 0; i < c->nb_objs; i++) {
		c->handles[i] = rte_pcpu_alloc(sizeof(struct perf_pair), 0);
		if (c->handles[i] == NULL)
			return -1;
	}
	for (i = 0; i < c->nb_objs; i++)
		c->stream_h[i] = c->handles[c->order[i]];
	c->stream_i = (uint32_t *)(uintptr_t)c->order;
	rte_pcpu_stats_get(&st1);
	c->populated = st1.populated_bytes - st0.populated_bytes;
	return 0;
}

static uint64_t
access_pcpu_sum(struct perf_access_ctx *c)
{
	uint64_t s = 0, v[2];
	uint32_t i;

	for (i = 0; i < c->nb_objs; i++) {
		rte_pcpu_sum_u64(c->handles[i], 2, v);
		s += v[0];
	}
	return s;
}

/* xorshift64*, for the random order */
static uint64_t
rnd64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* The object number at each stream position: a random permutation, or
 * 0..n-1 (sequential: the entries are read from memory all the same). */
static uint32_t *
stream_order(uint32_t n, int random)
{
	uint32_t *ord = malloc(sizeof(*ord) * n), i;
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15) ^ n;

	if (ord == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		ord[i] = i;
	for (i = n - 1; random && i > 0; i--) {
		uint32_t j = (uint32_t)(rnd64(&seed) % (i + 1)), t = ord[i];

		ord[i] = ord[j];
		ord[j] = t;
	}
	return ord;
}

/* How linear a walk of the handles in allocation order is: consecutive
 * handles one object apart, in either direction and ascending only. */
static void
report_handle_order(struct perf_result *r, void * const *h, uint32_t n,
		size_t size)
{
	uint32_t adj = 0, asc = 0, i;

	if (n < 2)
		return;
	for (i = 1; i < n; i++) {
		uintptr_t a = (uintptr_t)h[i - 1], b = (uintptr_t)h[i];

		adj += (a > b ? a - b : b - a) == size;
		asc += b > a && b - a == size;
	}
	perf_result_set(r, "adjacent_handles_pct", 100.0 * adj / (n - 1));
	perf_result_set(r, "ascending_handles_pct", 100.0 * asc / (n - 1));
}

/* Everything one access case holds: the schemes' objects and streams. */
struct access_case {
	uint32_t *order;
	struct perf_access_ctx ctx[PERF_SCHEME_MAX];
	struct perf_variant v[PERF_SCHEME_MAX];
	int ready[PERF_SCHEME_MAX];
};

/*
 * Set up the schemes of @p want (a bit per enum perf_scheme) on @p nb_objs
 * objects; a scheme that cannot hold them here is left out and named in
 * the label. -1 on failure.
 */
static int
access_case_setup(struct access_case *ac, uint32_t want, uint32_t nb_objs,
		int random, unsigned int nb_lcores, struct perf_result *r)
{
	char why[160];
	int s, ret;

	memset(ac, 0, sizeof(*ac));
	ac->order = stream_order(nb_objs, random && nb_objs > 1);
	if (ac->order == NULL)
		return perf_fail(r, "stream");
	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];

		c->scheme = (enum perf_scheme)s;
		c->nb_objs = nb_objs;
		c->nb_lcores = nb_lcores;
		c->order = ac->order;
		ac->v[s].name = perf_scheme_name(c->scheme);
		ac->v[s].arg = c;
		if (!(want & (1u << s)))
			continue;
		switch (s) {
		case PERF_SCHEME_PCPU:
			if (access_pcpu_setup(c) != 0)
				return perf_fail(r, "rte_pcpu_alloc");
			ac->v[s].fn = access_pcpu;
			break;
		case PERF_SCHEME_PCPU_SIDE:
			/* the same objects as PERF_SCHEME_PCPU, which the
			 * enum sets up first */
			if (!ac->ready[PERF_SCHEME_PCPU])
				continue;
			c->handles = ac->ctx[PERF_SCHEME_PCPU].handles;
			c->stream_i = ac->ctx[PERF_SCHEME_PCPU].stream_i;
			c->populated = ac->ctx[PERF_SCHEME_PCPU].populated;
			ac->v[s].fn = access_pcpu_side;
			break;
		default:
			ret = perf_baseline_access_setup(c, why, sizeof(why));
			if (ret != 0)
				perf_baseline_access_free(c);
			if (ret < 0)
				return perf_fail(r, perf_scheme_name(c->scheme));
			if (ret > 0) {
				perf_result_label(r, "%sn/a: %s (%s)",
					r->label[0] ? "; " : "",
					perf_scheme_name(c->scheme), why);
				continue;
			}
			ac->v[s].fn = perf_baseline_access_loop(c->scheme);
			break;
		}
		ac->ready[s] = 1;
	}
	return 0;
}

/* Every counted increment landed: -1 (and the label says where) if not. */
static int
access_case_check(struct access_case *ac, const struct perf_rounds_res *rr,
		struct perf_result *r)
{
	int s, ret = 0;

	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];
		uint64_t want = 0, got;
		unsigned int l;

		if (!ac->ready[s] || s == PERF_SCHEME_PCPU_SIDE)
			continue;
		for (l = 0; l < rr->nb_lcores; l++) {
			/* TLS of other lcores is out of reach */
			if (s == PERF_SCHEME_TLS && l > 0)
				break;
			want += rr->ops[s][l];
			if (s == PERF_SCHEME_PCPU)
				want += rr->ops[PERF_SCHEME_PCPU_SIDE][l];
		}
		got = s == PERF_SCHEME_PCPU ? access_pcpu_sum(c) :
			perf_baseline_access_sum(c);
		if (got != want) {
			r->error = 1;
			perf_result_label(r, "%scount check of %s failed: "
				"%llu != %llu", r->label[0] ? "; " : "",
				perf_scheme_name(c->scheme),
				(unsigned long long)got,
				(unsigned long long)want);
			ret = -1;
		}
	}
	return ret;
}

static void
access_case_free(struct access_case *ac)
{
	int s;

	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];

		if (s == PERF_SCHEME_PCPU) {
			access_pcpu_free(c);
		} else if (s == PERF_SCHEME_PCPU_SIDE) {
			/* borrowed from PERF_SCHEME_PCPU */
			c->handles = NULL;
		} else if (ac->ready[s]) {
			perf_baseline_access_free(c);
		}
	}
	free(ac->order);
}

int
perf_access(uint32_t nb_objs, int random, unsigned int nb_lcores,
		struct perf_result *r)
{
	struct access_case *ac = calloc(1, sizeof(*ac));
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	char key[PERF_NAME_LEN];
	int s, ret = -1;

	if (ac == NULL || rr == NULL) {
		free(ac);
		free(rr);
		return perf_fail(r, "calloc");
	}
	if (access_case_setup(ac, (1u << PERF_SCHEME_MAX) - 1, nb_objs, random,
			nb_lcores, r) != 0)
		goto out;
	if (perf_rounds_run(nb_lcores, ac->v, PERF_SCHEME_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, ac->v);
	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		if (s != PERF_SCHEME_PCPU)
			perf_rounds_ratio(r, rr, ac->v, PERF_SCHEME_PCPU, s);
		if (!ac->ready[s])
			continue;
		snprintf(key, sizeof(key), "%s_bytes",
			perf_scheme_name((enum perf_scheme)s));
		perf_result_set(r, key, (double)ac->ctx[s].populated);
	}
	perf_rounds_ratio(r, rr, ac->v, PERF_SCHEME_PCPU_SIDE,
		PERF_SCHEME_VPP);
	perf_result_set(r, "objects", nb_objs);
	report_handle_order(r, ac->ctx[PERF_SCHEME_PCPU].handles, nb_objs,
		sizeof(struct perf_pair));
	perf_result_label(r, "%sinterleaved: RTE_PCPU with the handle in the "
		"stream, beside the side-table variant and every baseline",
		r->label[0] ? "; " : "");
	ret = access_case_check(ac, rr, r);
out:
	access_case_free(ac);
	free(ac);
	free(rr);
	return ret;
}

/* 2. The seed table */

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

	if (pcpu_reinit(&conf) != 0) {
		pcpu_reinit(NULL);
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
				pcpu_reinit(NULL);
				if (huge)
					return perf_skip(r, "2 MiB pages ran out");
				return perf_fail(r, "rte_pcpu_alloc");
			}
			t.alloc[o][k] = cpu_ms(t0, t1) * scale;
#define PCPU_FREE_ONE(k) rte_pcpu_free(objs[k])
			t0 = perf_thread_cpu_ns();
			FREE_IN_ORDER(o, n, PCPU_FREE_ONE);
			t1 = perf_thread_cpu_ns();
#undef PCPU_FREE_ONE
			t.free[o][k] = cpu_ms(t0, t1) * scale;
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
	return pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
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

	budget = (uint64_t)perf_naive_mb << 20;
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
			t.alloc[o][k] = cpu_ms(t0, t1) * scale;
#define NAIVE_FREE_ONE(k) perf_naive_free(na, k)
			t0 = perf_thread_cpu_ns();
			FREE_IN_ORDER(o, n, NAIVE_FREE_ONE);
			t1 = perf_thread_cpu_ns();
#undef NAIVE_FREE_ONE
			t.free[o][k] = cpu_ms(t0, t1) * scale;
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

	if (pcpu_reinit(NULL) != 0 || rte_pcpu_stats_get(&st) != 0)
		return perf_fail(r, "rte_pcpu_init");
	conf.empty_pages_reserve = (uint32_t)(st.unit_stride >> 12);
	if (pcpu_reinit(&conf) != 0)
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
			a[k - 1] = cpu_ms(t0, t1) * scale;
			f[k - 1] = cpu_ms(t1, t2) * scale;
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
			g[k - 1] = cpu_ms(t0, t1) * scale;
			p[k - 1] = cpu_ms(t1, t2) * scale;
		}
	}
	rte_pcpu_stats_get(&st);
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "objects", n);
	perf_result_set(r, "rounds", runs);
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	report_samples(r, "alloc_ms", a, runs);
	report_samples(r, "free_ms", f, runs);
	report_samples(r, "pool_get_ms", g, runs);
	report_samples(r, "pool_put_ms", p, runs);
	report_ratio(r, "alloc_over_pool_get", a, g, runs);
	report_ratio(r, "free_over_pool_put", f, p, runs);
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
	if (pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* 3. Cached pairs */

const char *
perf_pair_name(enum perf_pair_kind k)
{
	static const char * const names[PERF_PAIR_MAX] = {
		[PERF_PAIR_RTE_MEMPOOL] = "rte_mempool",
		[PERF_PAIR_POOL_ZERO] = "pool_get_put",
		[PERF_PAIR_POOL_NO_ZERO] = "pool_get_put_no_zero",
		[PERF_PAIR_PCPU_ALLOC] = "pcpu_alloc_free",
		[PERF_PAIR_PCPU_NOCACHE] = "pcpu_alloc_free_nocache",
	};

	return (unsigned int)k < PERF_PAIR_MAX ? names[k] : "?";
}

struct pairs_arg {
	struct rte_pcpu_mempool *pool;
	size_t size;
	volatile int err;
};

static uint64_t
pairs_pool_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct pairs_arg *a = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			if (unlikely(rte_pcpu_mempool_get(a->pool, &o) != 0)) {
				a->err = 1;
				return ops + i;
			}
			rte_pcpu_mempool_put(a->pool, o);
		}
		ops += 256;
	} while (rte_rdtsc() < deadline);
	return ops;
}

static uint64_t
pairs_alloc_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct pairs_arg *a = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			o = rte_pcpu_alloc(a->size, 0);
			if (unlikely(o == NULL)) {
				a->err = 1;
				return ops + i;
			}
			rte_pcpu_free(o);
		}
		ops += 256;
	} while (rte_rdtsc() < deadline);
	return ops;
}

/* The pair kinds of @p want (a bit per enum perf_pair_kind) set up in
 * @p v / @p a; the pools they create in @p a[k].pool. */
static int
pairs_setup(uint32_t want, size_t size, void **mp, struct pairs_arg *a,
		struct perf_variant *v, struct perf_result *r)
{
	int k;

	for (k = 0; k < PERF_PAIR_MAX; k++) {
		v[k].name = perf_pair_name((enum perf_pair_kind)k);
		v[k].fn = NULL;
		v[k].arg = &a[k];
		a[k] = (struct pairs_arg){ .size = size };
		if (!(want & (1u << k)))
			continue;
		switch (k) {
		case PERF_PAIR_RTE_MEMPOOL:
			*mp = perf_mempool_create(size, 16383);
			if (*mp == NULL)
				return perf_fail(r, "rte_mempool_create");
			v[k].fn = perf_mempool_pair_loop;
			v[k].arg = *mp;
			break;
		case PERF_PAIR_POOL_ZERO:
		case PERF_PAIR_POOL_NO_ZERO:
			a[k].pool = rte_pcpu_mempool_create(
				k == PERF_PAIR_POOL_ZERO ? "perf_pairs_z" :
				"perf_pairs_nz", 16384, size, 256, 0, NULL,
				NULL, k == PERF_PAIR_POOL_NO_ZERO ?
				RTE_PCPU_MEMPOOL_F_NO_ZERO : 0);
			if (a[k].pool == NULL)
				return perf_fail(r, "rte_pcpu_mempool_create");
			v[k].fn = pairs_pool_loop;
			break;
		default:
			v[k].fn = pairs_alloc_loop;
			break;
		}
	}
	return 0;
}

static int
pairs_free(void *mp, struct pairs_arg *a, struct perf_result *r)
{
	int k, ret = 0;

	if (mp != NULL)
		perf_mempool_free(mp);
	for (k = 0; k < PERF_PAIR_MAX; k++) {
		if (a[k].err)
			ret = perf_fail(r, "get or alloc failed");
		if (a[k].pool == NULL)
			continue;
		if (rte_pcpu_mempool_audit(a[k].pool) != 0 ||
		    rte_pcpu_mempool_free(a[k].pool) != 0)
			ret = perf_fail(r, "rte_pcpu_mempool_free");
		a[k].pool = NULL;
	}
	return ret;
}

int
perf_pairs(int no_cache, size_t size, unsigned int nb_lcores,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_NO_CACHE };
	struct pairs_arg a[PERF_PAIR_MAX];
	struct perf_variant v[PERF_PAIR_MAX];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	uint32_t want = no_cache ?
		(1u << PERF_PAIR_RTE_MEMPOOL) | (1u << PERF_PAIR_PCPU_NOCACHE) :
		(1u << PERF_PAIR_PCPU_NOCACHE) - 1;
	void *mp = NULL;
	int k, ret = -1;

	if (rr == NULL)
		return perf_fail(r, "calloc");
	if (no_cache && pcpu_reinit(&conf) != 0) {
		free(rr);
		pcpu_reinit(NULL);
		return perf_fail(r, "rte_pcpu_init");
	}
	if (pairs_setup(want, size, &mp, a, v, r) != 0)
		goto out;
	if (perf_rounds_run(nb_lcores, v, PERF_PAIR_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	for (k = 1; k < PERF_PAIR_MAX; k++)
		perf_rounds_ratio(r, rr, v, k, PERF_PAIR_RTE_MEMPOOL);
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaseline: rte_mempool (%s, cache 256), "
		"interleaved", r->label[0] ? "; " : "",
		perf_mempool_ops_name(mp));
	ret = 0;
out:
	if (pairs_free(mp, a, r) != 0)
		ret = -1;
	free(rr);
	if (no_cache && pcpu_reinit(NULL) != 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* 4. Churn (bench bpf_ma) */

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
	if (pcpu_reinit(&conf) != 0) {
		free(ca);
		pcpu_reinit(NULL);
		return perf_skip(r, huge ? "no 2 MiB pages" : "init failed");
	}
	ret = perf_run_lcores(producers, churn_loop, ca, 0,
		win_ms * ca->nb_windows, &lr);
	if (ret != 0) {
		free(ca);
		pcpu_reinit(NULL);
		return perf_fail(r, "launch");
	}
	for (i = 0; i < lr.nb_lcores; i++) {
		if (ca->st[i].err) {
			free(ca);
			pcpu_reinit(NULL);
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
	return pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}

/* 5. Zeroing vs obj_init vs no init */

const char *
perf_init_name(enum perf_init_mode m)
{
	static const char * const names[PERF_INIT_MAX] = {
		[PERF_INIT_ZERO] = "zero_on_get",
		[PERF_INIT_OBJ_INIT] = "obj_init",
		[PERF_INIT_NONE] = "no_init",
	};

	return (unsigned int)m < PERF_INIT_MAX ? names[m] : "?";
}

/* Writes every word of the copy, as a real constructor would. */
static void
perf_obj_init(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	size_t size = (size_t)(uintptr_t)arg;

	RTE_SET_USED(mp);
	RTE_SET_USED(lcore_id);
	memset(obj, 0, size);
}

static struct rte_pcpu_mempool *
init_pool(const char *name, enum perf_init_mode m, size_t size,
		unsigned int n, unsigned int cache, unsigned int flags)
{
	return rte_pcpu_mempool_create(name, n, size, cache, 0,
		m == PERF_INIT_OBJ_INIT ? perf_obj_init : NULL,
		(void *)(uintptr_t)size,
		flags | (m == PERF_INIT_NONE ? RTE_PCPU_MEMPOOL_F_NO_ZERO : 0));
}

/* ns per object of a first use: create prefilled, get and put every
 * object once; -1 on failure. */
static double
init_first_use(enum perf_init_mode m, size_t size, unsigned int n,
		void **objs)
{
	struct rte_pcpu_mempool *p;
	uint64_t t0 = perf_thread_cpu_ns(), t1;

	p = init_pool("perf_first", m, size, n, 0, RTE_PCPU_MEMPOOL_F_PREFILL);
	if (p == NULL)
		return -1;
	if (rte_pcpu_mempool_get_bulk(p, objs, n) != 0 ||
	    rte_pcpu_mempool_put_bulk(p, objs, n) != 0) {
		rte_pcpu_mempool_free(p);
		return -1;
	}
	t1 = perf_thread_cpu_ns();
	rte_pcpu_mempool_free(p);
	return (double)(t1 - t0) / n;
}

int
perf_init(size_t size, struct perf_result *r)
{
	struct pairs_arg a[PERF_INIT_MAX];
	struct perf_variant v[PERF_INIT_MAX];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	double first[PERF_INIT_MAX][PERF_MAX_ROUNDS];
	unsigned int n = size >= 1024 ? 256 : 2048, k, runs;
	char name[PERF_NAME_LEN];
	void **objs = malloc(sizeof(void *) * n);
	int m, ret = -1;

	memset(a, 0, sizeof(a));
	if (rr == NULL || objs == NULL) {
		perf_fail(r, "calloc");
		goto out;
	}
	/* steady state: cached get+put on the main lcore, modes in turn */
	for (m = 0; m < PERF_INIT_MAX; m++) {
		snprintf(name, sizeof(name), "perf_init%d", m);
		a[m].pool = init_pool(name, (enum perf_init_mode)m, size, 1024,
			64, 0);
		if (a[m].pool == NULL) {
			perf_fail(r, "rte_pcpu_mempool_create");
			goto out;
		}
		v[m] = (struct perf_variant){
			.name = perf_init_name((enum perf_init_mode)m),
			.fn = pairs_pool_loop, .arg = &a[m] };
	}
	if (perf_rounds_run(1, v, PERF_INIT_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	/* first use: an untimed round populates the pages, then the modes
	 * take turns */
	runs = RTE_MIN(perf_rounds(), (unsigned int)PERF_MAX_ROUNDS);
	for (k = 0; k <= runs; k++) {
		for (m = 0; m < PERF_INIT_MAX; m++) {
			double t = init_first_use((enum perf_init_mode)m, size,
				n, objs);

			if (t < 0) {
				perf_fail(r, "prefilled pool");
				goto out;
			}
			if (k > 0)
				first[m][k - 1] = t;
		}
	}
	for (m = 0; m < PERF_INIT_MAX; m++) {
		snprintf(name, sizeof(name), "%s_first_ns",
			perf_init_name((enum perf_init_mode)m));
		report_samples(r, name, first[m], runs);
	}
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaselines: the other two init modes, "
		"interleaved; pairs run on the main lcore, zeroing writes every "
		"lcore's copy", r->label[0] ? "; " : "");
	ret = 0;
out:
	for (m = 0; m < PERF_INIT_MAX; m++) {
		if (a[m].err && ret == 0)
			ret = perf_fail(r, "get failed");
		if (a[m].pool != NULL)
			rte_pcpu_mempool_free(a[m].pool);
	}
	free(objs);
	free(rr);
	return ret;
}

/* 7. Scaling: the same bodies on 1, 2, 4, 8 lcores */

enum scaling_variant {
	SCALING_PCPU_ACCESS = 0,
	SCALING_ATOMIC_ACCESS,
	SCALING_POOL,
	SCALING_PCPU_ALLOC,
	SCALING_PCPU_NOCACHE,
	SCALING_RTE_MEMPOOL,
	SCALING_MAX,
};

#define SCALING_OBJS 10000u

int
perf_scaling(int no_cache, unsigned int nb_lcores, struct perf_result *r)
{
	static const char * const names[SCALING_MAX] = {
		[SCALING_PCPU_ACCESS] = "pcpu_access",
		[SCALING_ATOMIC_ACCESS] = "atomic_shared_access",
		[SCALING_POOL] = "pool_get_put",
		[SCALING_PCPU_ALLOC] = "pcpu_alloc_free",
		[SCALING_PCPU_NOCACHE] = "pcpu_alloc_free_nocache",
		[SCALING_RTE_MEMPOOL] = "rte_mempool_get_put",
	};
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_NO_CACHE };
	struct access_case *ac = calloc(1, sizeof(*ac));
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	struct pairs_arg a[PERF_PAIR_MAX];
	struct perf_variant pv[PERF_PAIR_MAX], v[SCALING_MAX];
	void *mp = NULL;
	int k, ret = -1, have_ac = 0;

	memset(a, 0, sizeof(a));
	if (ac == NULL || rr == NULL) {
		free(ac);
		free(rr);
		return perf_fail(r, "calloc");
	}
	if (no_cache && pcpu_reinit(&conf) != 0) {
		perf_fail(r, "rte_pcpu_init");
		goto out;
	}
	if (pairs_setup(no_cache ? (1u << PERF_PAIR_RTE_MEMPOOL) |
			(1u << PERF_PAIR_PCPU_NOCACHE) :
			(1u << PERF_PAIR_RTE_MEMPOOL) |
			(1u << PERF_PAIR_POOL_ZERO) |
			(1u << PERF_PAIR_PCPU_ALLOC), 16, &mp, a, pv, r) != 0)
		goto out;
	if (!no_cache) {
		have_ac = 1;
		if (access_case_setup(ac, (1u << PERF_SCHEME_PCPU) |
				(1u << PERF_SCHEME_ATOMIC), SCALING_OBJS, 1,
				nb_lcores, r) != 0)
			goto out;
	}
	for (k = 0; k < SCALING_MAX; k++)
		v[k] = (struct perf_variant){ .name = names[k] };
	if (!no_cache) {
		v[SCALING_PCPU_ACCESS].fn = ac->v[PERF_SCHEME_PCPU].fn;
		v[SCALING_PCPU_ACCESS].arg = ac->v[PERF_SCHEME_PCPU].arg;
		v[SCALING_ATOMIC_ACCESS].fn = ac->v[PERF_SCHEME_ATOMIC].fn;
		v[SCALING_ATOMIC_ACCESS].arg = ac->v[PERF_SCHEME_ATOMIC].arg;
		v[SCALING_POOL].fn = pv[PERF_PAIR_POOL_ZERO].fn;
		v[SCALING_POOL].arg = pv[PERF_PAIR_POOL_ZERO].arg;
		v[SCALING_PCPU_ALLOC].fn = pv[PERF_PAIR_PCPU_ALLOC].fn;
		v[SCALING_PCPU_ALLOC].arg = pv[PERF_PAIR_PCPU_ALLOC].arg;
	} else {
		v[SCALING_PCPU_NOCACHE].fn = pv[PERF_PAIR_PCPU_NOCACHE].fn;
		v[SCALING_PCPU_NOCACHE].arg = pv[PERF_PAIR_PCPU_NOCACHE].arg;
	}
	v[SCALING_RTE_MEMPOOL].fn = pv[PERF_PAIR_RTE_MEMPOOL].fn;
	v[SCALING_RTE_MEMPOOL].arg = pv[PERF_PAIR_RTE_MEMPOOL].arg;
	if (perf_rounds_run(nb_lcores, v, SCALING_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	for (k = SCALING_POOL; k < SCALING_RTE_MEMPOOL; k++)
		perf_rounds_ratio(r, rr, v, k, SCALING_RTE_MEMPOOL);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%saccess: %u objects in random order, handle in "
		"the stream; pairs: 16 B; interleaved", r->label[0] ? "; " : "",
		SCALING_OBJS);
	ret = 0;
	if (have_ac) {
		/* the check reads ops per scheme: map the rounds back */
		struct perf_rounds_res *cr = calloc(1, sizeof(*cr));

		if (cr == NULL) {
			ret = perf_fail(r, "calloc");
		} else {
			cr->nb_lcores = rr->nb_lcores;
			memcpy(cr->ops[PERF_SCHEME_PCPU],
				rr->ops[SCALING_PCPU_ACCESS],
				sizeof(cr->ops[0]));
			memcpy(cr->ops[PERF_SCHEME_ATOMIC],
				rr->ops[SCALING_ATOMIC_ACCESS],
				sizeof(cr->ops[0]));
			if (access_case_check(ac, cr, r) != 0)
				ret = -1;
			free(cr);
		}
	}
out:
	if (have_ac)
		access_case_free(ac);
	if (pairs_free(mp, a, r) != 0)
		ret = -1;
	free(ac);
	free(rr);
	if (no_cache && pcpu_reinit(NULL) != 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* 6. Reclaim: 11,000 groups of 10 objects of 64 B .. 2 KiB */

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

	if (pcpu_reinit(&conf) != 0) {
		pcpu_reinit(NULL);
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
		sizes[k] = (size_t)64 << (rnd64(&seed) % 6);
		objs[k] = rte_pcpu_alloc(sizes[k], 0);
		if (objs[k] == NULL)
			break;
	}
	if (k < n) {
		while (k-- > 0)
			rte_pcpu_free(objs[k]);
		free(objs);
		free(sizes);
		pcpu_reinit(NULL);
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
	return pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}
