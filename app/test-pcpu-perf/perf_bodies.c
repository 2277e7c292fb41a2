/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The library's side of every case of dpdk-test-pcpu-perf, and the runner
 * that puts a body on several lcores at once (rte_eal_remote_launch, the
 * main lcore taking part as index 0).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* rte_cpuset_t, CPU_* */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "perf_shim.h"
#include "../test/test_pcpu_live_pages.h"

static int perf_smoke;
static unsigned int perf_naive_mb = 256;

void
perf_set_smoke(int smoke)
{
	perf_smoke = smoke;
}

int
perf_is_smoke(void)
{
	return perf_smoke;
}

void
perf_set_naive_budget_mb(unsigned int mb)
{
	perf_naive_mb = mb;
}

double
perf_measure_ms(void)
{
	return perf_smoke ? 5.0 : 30.0;
}

/* Many short windows, best kept: on a shared machine some of them run
 * without interference. */
unsigned int
perf_repeats(void)
{
	return perf_smoke ? 1 : 12;
}

void
perf_result_set(struct perf_result *r, const char *name, double v)
{
	unsigned int i;

	for (i = 0; i < r->nb_counters; i++) {
		if (strcmp(r->counters[i].name, name) == 0) {
			r->counters[i].value = v;
			return;
		}
	}
	if (r->nb_counters == PERF_MAX_COUNTERS)
		return;
	snprintf(r->counters[i].name, PERF_NAME_LEN, "%s", name);
	r->counters[i].value = v;
	r->nb_counters++;
}

void
perf_result_label(struct perf_result *r, const char *fmt, ...)
{
	size_t len = strlen(r->label);
	va_list ap;

	if (len + 1 >= sizeof(r->label))
		return;
	va_start(ap, fmt);
	vsnprintf(r->label + len, sizeof(r->label) - len, fmt, ap);
	va_end(ap);
}

static int
perf_fail(struct perf_result *r, const char *what)
{
	r->error = 1;
	perf_result_label(r, "%s%s: %s", r->label[0] ? "; " : "", what,
		rte_strerror(rte_errno));
	return -1;
}

static int
perf_skip(struct perf_result *r, const char *why)
{
	r->skipped = 1;
	r->label[0] = '\0';
	perf_result_label(r, "skipped: %s", why);
	perf_result_set(r, "skipped", 1);
	return 0;
}

unsigned int
perf_nb_lcores(void)
{
	return rte_lcore_count();
}

/* The lcores of a run: the main lcore, then workers in id order. */
static unsigned int
run_lcores(unsigned int want, unsigned int *ids)
{
	unsigned int l, n = 0;

	ids[n++] = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(l) {
		if (n == want)
			break;
		ids[n++] = l;
	}
	return n;
}

unsigned int
perf_nb_cpus(unsigned int nb_lcores)
{
	unsigned int ids[RTE_MAX_LCORE], n, i;
	rte_cpuset_t all, one;

	n = run_lcores(RTE_MIN(nb_lcores, (unsigned int)RTE_MAX_LCORE), ids);
	CPU_ZERO(&all);
	for (i = 0; i < n; i++) {
		one = rte_lcore_cpuset(ids[i]);
		CPU_OR(&all, &all, &one);
	}
	return (unsigned int)CPU_COUNT(&all);
}

/* Runner */

struct lrun {
	perf_loop_fn *fn;
	void *arg;
	unsigned int idx;
	uint64_t dur;
	uint64_t ops;
	uint64_t cycles;
	volatile int *go;
};

static int
lrun_main(void *p)
{
	struct lrun *l = p;
	uint64_t t0;

	while (!__atomic_load_n(l->go, __ATOMIC_ACQUIRE))
		rte_pause();
	t0 = rte_rdtsc_precise();
	l->ops = l->fn(l->arg, l->idx, t0 + l->dur);
	l->cycles = rte_rdtsc_precise() - t0;
	return 0;
}

int
perf_run_lcores(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		double ms, struct perf_lcores_res *res)
{
	struct lrun runs[PERF_MAX_RUN_LCORES];
	unsigned int ids[PERF_MAX_RUN_LCORES], n, i;
	volatile int go = 0;
	double hz = (double)rte_get_tsc_hz(), wall;
	uint64_t t0, ops = 0;

	if (nb_lcores == 0 || nb_lcores > PERF_MAX_RUN_LCORES)
		return -EINVAL;
	n = run_lcores(nb_lcores, ids);
	if (n < nb_lcores)
		return -ENODEV;
	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++) {
		runs[i] = (struct lrun){ .fn = fn, .arg = arg, .idx = i,
			.dur = (uint64_t)(ms * hz / 1e3), .go = &go };
		res->lcore_id[i] = ids[i];
	}
	for (i = 1; i < n; i++) {
		int ret = rte_eal_remote_launch(lrun_main, &runs[i], ids[i]);

		if (ret != 0) {
			while (--i > 0)
				rte_eal_wait_lcore(ids[i]);
			return ret;
		}
	}
	t0 = rte_rdtsc_precise();
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	lrun_main(&runs[0]);
	for (i = 1; i < n; i++)
		rte_eal_wait_lcore(ids[i]);
	wall = (double)(rte_rdtsc_precise() - t0) / hz;
	res->nb_lcores = n;
	for (i = 0; i < n; i++) {
		res->ops[i] = runs[i].ops;
		res->cycles[i] = runs[i].cycles;
		ops += runs[i].ops;
	}
	/* all operations over the time from start to the last lcore's end:
	 * lcores that share a CPU do not add up to more than it can do */
	res->seconds = wall;
	res->total_rate = wall > 0 ? (double)ops / wall : 0;
	return 0;
}

void
perf_report_lcores(const struct perf_lcores_res *lr, struct perf_result *r)
{
	double hz = (double)rte_get_tsc_hz(), ns = 0;
	unsigned int i, cpus = perf_nb_cpus(lr->nb_lcores);
	char name[PERF_NAME_LEN];

	for (i = 0; i < lr->nb_lcores; i++) {
		double s = (double)lr->cycles[i] / hz;

		snprintf(name, sizeof(name), "lcore%u_Mops", lr->lcore_id[i]);
		perf_result_set(r, name, s > 0 ? lr->ops[i] / s / 1e6 : 0);
		if (lr->ops[i] > 0)
			ns += s * 1e9 / (double)lr->ops[i];
	}
	perf_result_set(r, "lcores", lr->nb_lcores);
	perf_result_set(r, "cpus", cpus);
	perf_result_set(r, "oversubscribed", lr->nb_lcores > cpus);
	perf_result_set(r, "total_Mops", lr->total_rate / 1e6);
	perf_result_set(r, "per_lcore_Mops",
		lr->total_rate / 1e6 / lr->nb_lcores);
	perf_result_set(r, "items_per_second", lr->total_rate);
	perf_result_set(r, "ns_per_op", ns / lr->nb_lcores);
	r->seconds = lr->seconds;
	if (lr->nb_lcores > cpus)
		perf_result_label(r, "%soversubscribed: %u lcores on %u CPUs",
			r->label[0] ? "; " : "", lr->nb_lcores, cpus);
}

/*
 * Best of perf_repeats() runs by total rate; with fn2, its windows
 * alternate with fn's (best kept apart), so that a paired baseline sees
 * the same machine state.
 */
static int
run_best2(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		perf_loop_fn *fn2, void *arg2, struct perf_lcores_res *best,
		struct perf_lcores_res *best2)
{
	struct perf_lcores_res cur;
	unsigned int k;
	int ret;

	memset(best, 0, sizeof(*best));
	if (best2 != NULL)
		memset(best2, 0, sizeof(*best2));
	for (k = 0; k < perf_repeats(); k++) {
		ret = perf_run_lcores(nb_lcores, fn, arg, perf_measure_ms(),
			&cur);
		if (ret != 0)
			return ret;
		if (cur.total_rate > best->total_rate)
			*best = cur;
		if (fn2 == NULL)
			continue;
		ret = perf_run_lcores(nb_lcores, fn2, arg2, perf_measure_ms(),
			&cur);
		if (ret != 0)
			return ret;
		if (cur.total_rate > best2->total_rate)
			*best2 = cur;
	}
	return 0;
}

static int
run_best(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		struct perf_lcores_res *best)
{
	return run_best2(nb_lcores, fn, arg, NULL, NULL, best, NULL);
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

static void
report_pcpu_memory(struct perf_result *r)
{
	struct rte_pcpu_stats st;

	if (rte_pcpu_stats_get(&st) != 0)
		return;
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	perf_result_set(r, "populated_bytes", (double)st.populated_bytes);
	perf_result_set(r, "peak_populated_bytes",
		(double)st.max_populated_bytes);
}

/* 1. Access */

static uint64_t
access_pcpu_seq(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, 0, ({
		struct perf_pair *p = RTE_PCPU((struct perf_pair *)
			c->handles[o]);

		p->packets++;
		p->bytes += 64;
	}));
}

static uint64_t
access_pcpu_rnd(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, 1, ({
		struct perf_pair *p = RTE_PCPU((struct perf_pair *)
			c->handles[o]);

		p->packets++;
		p->bytes += 64;
	}));
}

static void
access_pcpu_free(struct perf_access_ctx *c)
{
	uint32_t i;

	for (i = 0; c->handles != NULL && i < c->nb_objs; i++)
		rte_pcpu_free(c->handles[i]);
	free(c->handles);
	c->handles = NULL;
}

static int
access_pcpu_setup(struct perf_access_ctx *c)
{
	struct rte_pcpu_stats st0, st1;
	uint32_t i;

	rte_pcpu_stats_get(&st0);
	c->handles = calloc(c->nb_objs, sizeof(void *));
	if (c->handles == NULL)
		return -1;
	for (i = 0; i < c->nb_objs; i++) {
		c->handles[i] = rte_pcpu_alloc(sizeof(struct perf_pair), 0);
		if (c->handles[i] == NULL)
			return -1;
	}
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

static uint32_t *
random_order(uint32_t n)
{
	uint32_t *ord = malloc(sizeof(*ord) * n), i;
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15) ^ n;

	if (ord == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		ord[i] = i;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rnd64(&seed) % (i + 1)), t = ord[i];

		ord[i] = ord[j];
		ord[j] = t;
	}
	return ord;
}

int
perf_access(enum perf_scheme s, uint32_t nb_objs, int random,
		unsigned int nb_lcores, struct perf_result *r)
{
	struct perf_access_ctx c = { .scheme = s, .nb_objs = nb_objs,
		.nb_lcores = nb_lcores };
	struct perf_access_ctx pair_tls = { .scheme = PERF_SCHEME_TLS };
	struct perf_lcores_res lr, lr_tls;
	perf_loop_fn *fn, *tls_fn = NULL;
	uint32_t *ord = NULL;
	uint64_t total = 0, sum;
	unsigned int k, i;
	int ret = -1;

	if (nb_objs > perf_scheme_max_objs(s))
		return perf_skip(r, "more objects than the scheme holds");
	if (random && nb_objs > 1) {
		ord = random_order(nb_objs);
		if (ord == NULL)
			return perf_fail(r, "order");
		c.order = ord;
	}
	if (s == PERF_SCHEME_PCPU) {
		if (access_pcpu_setup(&c) != 0) {
			perf_fail(r, "rte_pcpu_alloc");
			goto out;
		}
		fn = c.order != NULL ? access_pcpu_rnd : access_pcpu_seq;
	} else {
		if (perf_baseline_access_setup(&c) != 0) {
			perf_fail(r, "baseline setup");
			goto out;
		}
		fn = perf_baseline_access_loop(s, c.order != NULL);
	}
	/*
	 * One object through RTE_PCPU(): TLS windows alternate with ours in
	 * the same case, so that the ratio the target is about sees the
	 * same machine state.
	 */
	if (s == PERF_SCHEME_PCPU && nb_objs == 1) {
		pair_tls.scheme = PERF_SCHEME_TLS;
		pair_tls.nb_objs = 1;
		pair_tls.nb_lcores = nb_lcores;
		if (perf_baseline_access_setup(&pair_tls) != 0) {
			perf_fail(r, "TLS setup");
			goto out;
		}
		tls_fn = perf_baseline_access_loop(PERF_SCHEME_TLS, 0);
	}
	/* best of perf_repeats(), counting every increment for the check */
	memset(&lr, 0, sizeof(lr));
	memset(&lr_tls, 0, sizeof(lr_tls));
	for (k = 0; k < perf_repeats(); k++) {
		struct perf_lcores_res cur;

		if (perf_run_lcores(nb_lcores, fn, &c, perf_measure_ms(),
				&cur) != 0) {
			perf_fail(r, "launch");
			goto out;
		}
		for (i = 0; i < cur.nb_lcores; i++)
			total += cur.ops[i];
		if (cur.total_rate > lr.total_rate)
			lr = cur;
		if (tls_fn == NULL)
			continue;
		if (perf_run_lcores(nb_lcores, tls_fn, &pair_tls,
				perf_measure_ms(), &cur) != 0) {
			perf_fail(r, "launch");
			goto out;
		}
		if (cur.total_rate > lr_tls.total_rate)
			lr_tls = cur;
	}
	perf_report_lcores(&lr, r);
	if (tls_fn != NULL && lr_tls.total_rate > 0) {
		perf_result_set(r, "paired_tls_Mops", lr_tls.total_rate / 1e6);
		perf_result_set(r, "pcpu_cost_over_tls",
			lr_tls.total_rate / lr.total_rate);
	}
	perf_result_set(r, "objects", nb_objs);
	perf_result_set(r, "bytes_memory", (double)c.populated);
	if (s == PERF_SCHEME_PCPU) {
		uint32_t adj = 0;

		/* how linear a walk in index order is in memory (either
		 * direction) */
		for (i = 1; i < nb_objs; i++) {
			uintptr_t a = (uintptr_t)c.handles[i - 1];
			uintptr_t b = (uintptr_t)c.handles[i];

			adj += (a > b ? a - b : b - a) ==
				sizeof(struct perf_pair);
		}
		if (nb_objs > 1)
			perf_result_set(r, "adjacent_handles_pct",
				100.0 * adj / (nb_objs - 1));
		report_pcpu_memory(r);
		sum = access_pcpu_sum(&c);
	} else {
		sum = perf_baseline_access_sum(&c);
	}
	/* TLS of other lcores is out of reach: check the main lcore alone */
	if (s == PERF_SCHEME_TLS && nb_lcores > 1)
		sum = total;
	if (s == PERF_SCHEME_PCPU)
		perf_result_label(r, "%s", nb_objs == 1 ?
			"baseline: tls (target <= 1.1x); also static_array, "
			"lcore_var_layout, zmalloc_table, vpp_vectors, "
			"atomic_shared" :
			"baselines: static_array, lcore_var_layout, "
			"zmalloc_table, vpp_vectors, atomic_shared");
	else
		perf_result_label(r, "baseline for: pcpu");
	if (sum != total) {
		r->error = 1;
		perf_result_label(r, "; count check failed: %llu != %llu",
			(unsigned long long)sum, (unsigned long long)total);
		goto out;
	}
	ret = 0;
out:
	if (tls_fn != NULL)
		perf_baseline_access_free(&pair_tls);
	if (s == PERF_SCHEME_PCPU)
		access_pcpu_free(&c);
	else
		perf_baseline_access_free(&c);
	free(ord);
	return ret;
}

/* 2. The seed table, without caches */

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

static const char * const order_name[] = { "in_order", "alternating",
	"reverse" };

static unsigned int
seed_n(void)
{
	return perf_smoke ? SEED_N / 16 : SEED_N;
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

static void
seed_report(struct perf_result *r, size_t size, unsigned int n,
		unsigned int nb_orders, const double *alloc_ms,
		const double *free_ms, double linux_alloc, double linux_free)
{
	double scale = (double)SEED_N / n, wa = 0, wf = 0;
	unsigned int o;
	char name[PERF_NAME_LEN];

	for (o = 0; o < nb_orders; o++) {
		wa = RTE_MAX(wa, alloc_ms[o] * scale);
		wf = RTE_MAX(wf, free_ms[o] * scale);
		snprintf(name, sizeof(name), "alloc_ms_%s", order_name[o]);
		perf_result_set(r, name, alloc_ms[o] * scale);
		snprintf(name, sizeof(name), "free_ms_%s", order_name[o]);
		perf_result_set(r, name, free_ms[o] * scale);
	}
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "objects", n);
	perf_result_set(r, "alloc_ms", wa);
	perf_result_set(r, "free_ms", wf);
	perf_result_set(r, "linux_alloc_ms", linux_alloc);
	perf_result_set(r, "alloc_vs_linux", wa / linux_alloc);
	if (linux_free > 0) {
		perf_result_set(r, "linux_free_ms", linux_free);
		perf_result_set(r, "free_vs_linux", wf / linux_free);
	}
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_set(r, "items_per_second",
		(double)SEED_N / ((wa + wf) / 1e3));
	perf_result_set(r, "ns_per_op", (wa + wf) * 1e6 / SEED_N / 2);
	r->seconds = (wa + wf) / 1e3;
	if (n != SEED_N)
		perf_result_label(r, "%s%u objects, times scaled to 2^20",
			r->label[0] ? "; " : "", n);
}

/*
 * The seed table on one page mode: each order @p runs times, the best run
 * kept (the first run of a size also populates pages). With 2 MiB pages
 * (@p huge) and too few free hugepages the case reports itself skipped.
 * @p cache: with the cache buckets (the default) instead of without.
 */
static int
seed_pcpu(size_t size, size_t align, int huge, unsigned int runs, int cache,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = {
		.flags = cache ? 0 : RTE_PCPU_F_NO_CACHE,
		.page_policy = huge ? RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL };
	unsigned int n = seed_n(), o, i, k, nb_orders = align ? 1 : 3;
	double alloc_ms[3], free_ms[3], hz = (double)rte_get_tsc_hz();
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
	for (o = 0; o < nb_orders; o++) {
		alloc_ms[o] = free_ms[o] = 1e300;
		for (k = 0; k < runs; k++) {
			t0 = rte_rdtsc_precise();
			for (i = 0; i < n; i++) {
				objs[i] = rte_pcpu_alloc(size, align);
				if (unlikely(objs[i] == NULL))
					break;
			}
			t1 = rte_rdtsc_precise();
			if (i < n) {
				while (i-- > 0)
					rte_pcpu_free(objs[i]);
				free(objs);
				pcpu_reinit(NULL);
				if (huge)
					return perf_skip(r, "2 MiB pages ran out");
				return perf_fail(r, "rte_pcpu_alloc");
			}
			alloc_ms[o] = RTE_MIN(alloc_ms[o],
				(double)(t1 - t0) * 1e3 / hz);
#define PCPU_FREE_ONE(k) rte_pcpu_free(objs[k])
			t0 = rte_rdtsc_precise();
			FREE_IN_ORDER(o, n, PCPU_FREE_ONE);
			t1 = rte_rdtsc_precise();
#undef PCPU_FREE_ONE
			free_ms[o] = RTE_MIN(free_ms[o],
				(double)(t1 - t0) * 1e3 / hz);
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
	perf_result_set(r, "runs_per_order", runs);
	perf_result_set(r, "cache", cache);
	free(objs);
	if (align != 0) {
		seed_report(r, size, n, 1, alloc_ms, free_ms, 16000, 0);
		perf_result_set(r, "align", (double)align);
		perf_result_set(r, "target_alloc_ms", 500);
		perf_result_label(r, "%sbaseline: Linux bitmap allocator "
			"(about 16 s); target < 500 ms", r->label[0] ? "; " : "");
	} else {
		seed_report(r, size, n, 3, alloc_ms, free_ms,
			seed_linux[li].alloc_ms, seed_linux[li].free_ms);
		perf_result_set(r, "target_ratio", 0.2);
		perf_result_label(r, "%sbaselines: Linux bitmap allocator "
			"(published, target <= 0.2x), naive_zmalloc (same run)",
			r->label[0] ? "; " : "");
	}
	if (rte_pcpu_audit() != 0)
		return perf_fail(r, "rte_pcpu_audit");
	return pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}

/*
 * 4 KiB pages, one run per order: every run populates its pages, which is
 * what allocating 1 GiB per lcore of fresh memory costs.
 */
int
perf_seed_pcpu(size_t size, size_t align, struct perf_result *r)
{
	return seed_pcpu(size, align, 0, 1, 0, r);
}

/*
 * 2 MiB pages, the page mode the library picks when hugepages are free:
 * 2^20 objects of 1 KiB need 1 GiB per lcore of them. Best of 3 runs per
 * order.
 */
int
perf_seed_pcpu_huge(size_t size, struct perf_result *r)
{
	return seed_pcpu(size, 0, 1, 3, 0, r);
}

/* The same with the cache buckets on, as rte_pcpu_alloc() runs by
 * default: a mass free goes through the caches' flushes. */
int
perf_seed_pcpu_huge_cached(size_t size, struct perf_result *r)
{
	return seed_pcpu(size, 0, 1, 3, 1, r);
}

int
perf_seed_naive(size_t size, struct perf_result *r)
{
	double alloc_ms[3], free_ms[3], hz = (double)rte_get_tsc_hz();
	/* rte_malloc: 64 B header, data rounded to cache lines */
	uint64_t per = 64 + RTE_ALIGN_CEIL(size, 64), budget;
	unsigned int n = seed_n(), o, i;
	struct perf_naive *na;
	uint64_t t0, t1;
	int li = seed_linux_idx(size);

	budget = (uint64_t)perf_naive_mb << 20;
	if ((uint64_t)n * per * rte_lcore_count() > budget)
		n = (unsigned int)(budget / per / rte_lcore_count());
	n &= ~1u;
	if (n < 1024)
		return perf_skip(r, "EAL memory budget too small");
	na = perf_naive_create(n, size);
	if (na == NULL)
		return perf_fail(r, "naive create");
	/* untimed pass: with --no-huge the EAL heap is faulted in on first
	 * use, which hugepage memory (the usual case) is not */
	for (i = 0; i < n && perf_naive_alloc(na, i) == 0; i++)
		;
	while (i-- > 0)
		perf_naive_free(na, i);
	for (o = 0; o < 3; o++) {
		t0 = rte_rdtsc_precise();
		for (i = 0; i < n; i++)
			if (unlikely(perf_naive_alloc(na, i) != 0))
				break;
		t1 = rte_rdtsc_precise();
		if (i < n) {
			perf_naive_destroy(na);
			return perf_fail(r, "rte_zmalloc_socket");
		}
		alloc_ms[o] = (double)(t1 - t0) * 1e3 / hz;
#define NAIVE_FREE_ONE(k) perf_naive_free(na, k)
		t0 = rte_rdtsc_precise();
		FREE_IN_ORDER(o, n, NAIVE_FREE_ONE);
		t1 = rte_rdtsc_precise();
#undef NAIVE_FREE_ONE
		free_ms[o] = (double)(t1 - t0) * 1e3 / hz;
	}
	perf_naive_destroy(na);
	seed_report(r, size, n, 3, alloc_ms, free_ms,
		seed_linux[li].alloc_ms, seed_linux[li].free_ms);
	perf_result_set(r, "extrapolated", n != SEED_N);
	perf_result_label(r, "%sbaseline for: pcpu (rte_zmalloc_socket per "
		"lcore per object)", r->label[0] ? "; " : "");
	return 0;
}

/* 3. Cached pairs */

const char *
perf_pair_name(enum perf_pair_kind k)
{
	static const char * const names[PERF_PAIR_MAX] = {
		[PERF_PAIR_POOL_ZERO] = "pool_get_put",
		[PERF_PAIR_POOL_NO_ZERO] = "pool_get_put_no_zero",
		[PERF_PAIR_PCPU_ALLOC] = "pcpu_alloc_free",
		[PERF_PAIR_PCPU_NOCACHE] = "pcpu_alloc_free_nocache",
		[PERF_PAIR_RTE_MEMPOOL] = "rte_mempool_get_put",
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

int
perf_pairs(enum perf_pair_kind k, size_t size, unsigned int nb_lcores,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_NO_CACHE };
	struct pairs_arg a = { .size = size };
	struct perf_lcores_res lr, lr_ref;
	perf_loop_fn *fn;
	void *mp;
	int ret;

	/* rte_mempool alone, or as the paired baseline of every other kind */
	mp = perf_mempool_create(size, 16383);
	if (mp == NULL)
		return perf_fail(r, "rte_mempool_create");
	if (k == PERF_PAIR_RTE_MEMPOOL) {
		ret = run_best(nb_lcores, perf_mempool_pair_loop, mp, &lr);
		perf_mempool_free(mp);
		if (ret != 0)
			return perf_fail(r, "launch");
		perf_report_lcores(&lr, r);
		perf_result_set(r, "size", (double)size);
		perf_result_label(r, "baseline for: pool_get_put, "
			"pcpu_alloc_free (cache 256)");
		return 0;
	}
	switch (k) {
	case PERF_PAIR_POOL_ZERO:
	case PERF_PAIR_POOL_NO_ZERO:
		a.pool = rte_pcpu_mempool_create("perf_pairs", 16384,
			size, 256, 0, NULL, NULL,
			k == PERF_PAIR_POOL_NO_ZERO ?
				RTE_PCPU_MEMPOOL_F_NO_ZERO : 0);
		if (a.pool == NULL) {
			perf_mempool_free(mp);
			return perf_fail(r, "rte_pcpu_mempool_create");
		}
		fn = pairs_pool_loop;
		perf_result_label(r, "baseline: rte_mempool_get_put, windows "
			"alternating (target >= 30 M pairs/s per lcore, <= 1.5x"
			" its cost)");
		break;
	case PERF_PAIR_PCPU_NOCACHE:
		if (pcpu_reinit(&conf) != 0) {
			perf_mempool_free(mp);
			return perf_fail(r, "rte_pcpu_init");
		}
		fn = pairs_alloc_loop;
		perf_result_label(r, "baselines: rte_mempool_get_put (windows "
			"alternating), pcpu_alloc_free (caches on)");
		break;
	default:
		fn = pairs_alloc_loop;
		perf_result_label(r, "baseline: rte_mempool_get_put, windows "
			"alternating");
		break;
	}
	ret = run_best2(nb_lcores, fn, &a, perf_mempool_pair_loop, mp, &lr,
		&lr_ref);
	if (a.pool != NULL)
		rte_pcpu_mempool_free(a.pool);
	perf_mempool_free(mp);
	if (k == PERF_PAIR_PCPU_NOCACHE && pcpu_reinit(NULL) != 0)
		return perf_fail(r, "rte_pcpu_init");
	if (ret != 0)
		return perf_fail(r, "launch");
	if (a.err)
		return perf_fail(r, "get or alloc failed");
	perf_report_lcores(&lr, r);
	perf_result_set(r, "size", (double)size);
	if (lr.total_rate > 0 && lr_ref.total_rate > 0) {
		perf_result_set(r, "paired_mempool_per_lcore_Mops",
			lr_ref.total_rate / 1e6 / lr_ref.nb_lcores);
		perf_result_set(r, "cost_over_mempool",
			lr_ref.total_rate / lr.total_rate);
	}
	return 0;
}

/* 4. Churn (bench bpf_ma) */

static const size_t churn_sizes[] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

#define CHURN_BATCH 64
#define CHURN_WARMUP 64u

struct churn_lcore {
	uint64_t alloc_cyc;
	uint64_t free_cyc;
	uint64_t objs;
	int err;
} __rte_cache_aligned;

static struct churn_lcore churn_st[PERF_MAX_RUN_LCORES];

static uint64_t
churn_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct churn_lcore *st = &churn_st[idx];
	void *objs[CHURN_BATCH];
	uint64_t t0, t1, t2;
	unsigned int r = 0, i;

	RTE_SET_USED(arg);
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
				return st->objs;
			}
		}
		t1 = rte_rdtsc();
		for (i = 0; i < CHURN_BATCH; i++)
			rte_pcpu_free(objs[i]);
		t2 = rte_rdtsc();
		if (r >= CHURN_WARMUP) {
			st->alloc_cyc += t1 - t0;
			st->free_cyc += t2 - t1;
			st->objs += CHURN_BATCH;
		}
		if (r >= CHURN_WARMUP && t2 >= deadline)
			break;
	}
	return st->objs;
}

int
perf_churn(unsigned int producers, int huge, int no_cache,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = {
		.page_policy = huge ? RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL,
		.flags = no_cache ? RTE_PCPU_F_NO_CACHE : 0,
	};
	double hz = (double)rte_get_tsc_hz(), a = 0, f = 0, mib, lim;
	struct perf_lcores_res lr;
	struct rte_pcpu_stats st;
	unsigned int i;
	char name[PERF_NAME_LEN];
	int ret;

	if (pcpu_reinit(&conf) != 0) {
		pcpu_reinit(NULL);
		return perf_skip(r, huge ? "no 2 MiB pages" : "init failed");
	}
	ret = perf_run_lcores(producers, churn_loop, NULL,
		perf_smoke ? 20 : 1000, &lr);
	if (ret != 0) {
		pcpu_reinit(NULL);
		return perf_fail(r, "launch");
	}
	for (i = 0; i < lr.nb_lcores; i++) {
		if (churn_st[i].err) {
			pcpu_reinit(NULL);
			if (huge)
				return perf_skip(r, "2 MiB pages ran out");
			return perf_fail(r, "rte_pcpu_alloc");
		}
	}
	perf_report_lcores(&lr, r);
	for (i = 0; i < lr.nb_lcores; i++) {
		double ar = churn_st[i].objs / (churn_st[i].alloc_cyc / hz);
		double fr = churn_st[i].objs / (churn_st[i].free_cyc / hz);

		snprintf(name, sizeof(name), "lcore%u_alloc_Mps",
			lr.lcore_id[i]);
		perf_result_set(r, name, ar / 1e6);
		snprintf(name, sizeof(name), "lcore%u_free_Mps",
			lr.lcore_id[i]);
		perf_result_set(r, name, fr / 1e6);
		a += ar;
		f += fr;
	}
	a /= lr.nb_lcores;
	f /= lr.nb_lcores;
	rte_pcpu_stats_get(&st);
	mib = (double)st.max_populated_bytes / st.nr_lcores / (1 << 20);
	lim = st.page_size == 4096 ? 1.0 : 4.0;
	perf_result_set(r, "producers", producers);
	perf_result_set(r, "alloc_Mps", a / 1e6);
	perf_result_set(r, "free_Mps", f / 1e6);
	perf_result_set(r, "items_per_second", (a + f) / 2 * lr.nb_lcores);
	perf_result_set(r, "ns_per_op", 1e9 / a / 2 + 1e9 / f / 2);
	perf_result_set(r, "page_size", (double)st.page_size);
	perf_result_set(r, "lcores_with_memory", st.nr_lcores);
	perf_result_set(r, "peak_populated_bytes",
		(double)st.max_populated_bytes);
	perf_result_set(r, "peak_MiB_per_lcore", mib);
	perf_result_set(r, "target_MiB_per_lcore", lim);
	perf_result_set(r, "seed_fast_alloc_Mps", 14.16);
	perf_result_set(r, "seed_fast_free_Mps", 36.18);
	perf_result_set(r, "seed_fast_MiB", 183.71);
	perf_result_set(r, "seed_small_alloc_Mps", 0.86);
	perf_result_set(r, "seed_small_free_Mps", 37.29);
	perf_result_set(r, "targets_met", a / 1e6 >= 14.2 && f / 1e6 >= 36.2 &&
		mib <= lim);
	perf_result_label(r, "baseline: seed bench bpf_ma (Linux 6.8): "
		"14.16/36.18 M/s with 183.7 MiB, 0.86/37.29 M/s with ~0 MiB");
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

int
perf_init(enum perf_init_mode m, size_t size, struct perf_result *r)
{
	struct pairs_arg a = { .size = size };
	struct perf_lcores_res lr;
	unsigned int n = size >= 1024 ? 256 : 2048, k;
	double hz = (double)rte_get_tsc_hz(), first = -1;
	void **objs;
	int ret;

	/* steady state: cached get+put on the main lcore */
	a.pool = init_pool("perf_init", m, size, 1024, 64, 0);
	if (a.pool == NULL)
		return perf_fail(r, "rte_pcpu_mempool_create");
	ret = run_best(1, pairs_pool_loop, &a, &lr);
	rte_pcpu_mempool_free(a.pool);
	if (ret != 0 || a.err)
		return perf_fail(r, "pairs");
	perf_report_lcores(&lr, r);
	/* first use: create prefilled, get and put every object once */
	objs = malloc(sizeof(void *) * n);
	if (objs == NULL)
		return perf_fail(r, "malloc");
	for (k = 0; k < perf_repeats(); k++) {
		struct rte_pcpu_mempool *p;
		uint64_t t0 = rte_rdtsc_precise(), t1;

		p = init_pool("perf_first", m, size, n, 0,
			RTE_PCPU_MEMPOOL_F_PREFILL);
		if (p == NULL) {
			free(objs);
			return perf_fail(r, "prefilled pool");
		}
		if (rte_pcpu_mempool_get_bulk(p, objs, n) != 0 ||
		    rte_pcpu_mempool_put_bulk(p, objs, n) != 0) {
			rte_pcpu_mempool_free(p);
			free(objs);
			return perf_fail(r, "bulk");
		}
		t1 = rte_rdtsc_precise();
		rte_pcpu_mempool_free(p);
		if (first < 0 || (t1 - t0) * 1e9 / hz / n < first)
			first = (t1 - t0) * 1e9 / hz / n;
	}
	free(objs);
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_set(r, "ns_per_pair", 1e9 / lr.total_rate);
	perf_result_set(r, "first_use_ns_per_obj", first);
	perf_result_label(r, "%sbaselines: the other two init modes; pairs "
		"run on the main lcore, zeroing writes every lcore's copy",
		r->label[0] ? "; " : "");
	return 0;
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
	t0 = rte_rdtsc_precise();
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
	t1 = rte_rdtsc_precise();
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
	r->seconds = (double)(t1 - t0) / (double)rte_get_tsc_hz();
	perf_result_label(r, "baseline: Linux 5.14 partial depopulation, "
		"481,152 kB -> 135,552 kB (3.55x); bound: final <= 1.1 x live "
		"pages + 1 chunk (4 KiB pages)");
	if (rte_pcpu_audit() != 0)
		return perf_fail(r, "rte_pcpu_audit");
	return pcpu_reinit(NULL) == 0 ? 0 : perf_fail(r, "rte_pcpu_init");
}
