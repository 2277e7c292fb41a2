/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * How dpdk-test-pcpu-perf measures: the runner that puts a body on
 * several lcores at once (rte_eal_remote_launch, the main lcore taking
 * part as index 0), interleaved rounds of a case's variants, medians with
 * their range, and the result counters.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* rte_cpuset_t, CPU_* */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_string_fns.h>

#include "perf_shim.h"

static int perf_smoke;

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

unsigned int
perf_rounds(void)
{
	return perf_smoke ? 1 : 9;
}

double
perf_window_ms(void)
{
	return perf_smoke ? 2.0 : 20.0;
}

double
perf_warmup_ms(void)
{
	return perf_smoke ? 0.5 : 5.0;
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
	if (r->nb_counters == PERF_MAX_COUNTERS) {
		/* a case with more counters than this is a bug of the suite */
		r->error = 1;
		perf_result_label(r, "%scounter table full at %s",
			r->label[0] ? "; " : "", name);
		return;
	}
	strlcpy(r->counters[i].name, name, PERF_NAME_LEN);
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

int
perf_fail(struct perf_result *r, const char *what)
{
	r->error = 1;
	perf_result_label(r, "%s%s: %s", r->label[0] ? "; " : "", what,
		rte_strerror(rte_errno));
	return -1;
}

int
perf_skip(struct perf_result *r, const char *why)
{
	r->skipped = 1;
	r->label[0] = '\0';
	perf_result_label(r, "skipped: %s", why);
	perf_result_set(r, "skipped", 1);
	return 0;
}

static int
perf_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
perf_stat_of(const double *v, unsigned int n, struct perf_stat *s)
{
	double sorted[PERF_MAX_ROUNDS * PERF_MAX_RUN_LCORES];

	memset(s, 0, sizeof(*s));
	n = RTE_MIN(n, (unsigned int)RTE_DIM(sorted));
	if (n == 0)
		return;
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), perf_cmp_double);
	/* even counts: the mean of the two middle samples */
	s->med = n % 2 ? sorted[n / 2] :
		(sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	s->lo = sorted[0];
	s->hi = sorted[n - 1];
	s->n = n;
}

void
perf_result_stat(struct perf_result *r, const char *name,
		const struct perf_stat *s)
{
	char key[PERF_NAME_LEN + 4];
	size_t len = strlen(name);

	if (len + 3 >= PERF_NAME_LEN) {
		r->error = 1;
		perf_result_label(r, "%scounter name too long: %s",
			r->label[0] ? "; " : "", name);
		return;
	}
	perf_result_set(r, name, s->med);
	memcpy(key, name, len);
	memcpy(key + len, "_lo", 4);
	perf_result_set(r, key, s->lo);
	memcpy(key + len, "_hi", 4);
	perf_result_set(r, key, s->hi);
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

uint64_t
perf_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct lrun {
	perf_loop_fn *fn;
	void *arg;
	unsigned int idx;
	uint64_t warm;
	uint64_t dur;
	uint64_t warm_ops;
	uint64_t ops;
	uint64_t cycles;
	uint64_t cpu_ns;
	volatile int *go;
};

static int
lrun_main(void *p)
{
	struct lrun *l = p;
	uint64_t t0, c0;

	while (!__atomic_load_n(l->go, __ATOMIC_ACQUIRE))
		rte_pause();
	if (l->warm > 0)
		l->warm_ops = l->fn(l->arg, l->idx, rte_rdtsc() + l->warm);
	c0 = perf_thread_cpu_ns();
	t0 = rte_rdtsc_precise();
	l->ops = l->fn(l->arg, l->idx, t0 + l->dur);
	l->cycles = rte_rdtsc_precise() - t0;
	l->cpu_ns = perf_thread_cpu_ns() - c0;
	return 0;
}

int
perf_run_lcores(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		double warm_ms, double ms, struct perf_lcores_res *res)
{
	struct lrun runs[PERF_MAX_RUN_LCORES];
	unsigned int ids[PERF_MAX_RUN_LCORES], n, i;
	volatile int go = 0;
	double hz = (double)rte_get_tsc_hz(), wall, ns = 0, on_cpu = 0;
	uint64_t t0, ops = 0;

	if (nb_lcores == 0 || nb_lcores > PERF_MAX_RUN_LCORES)
		return -EINVAL;
	n = run_lcores(nb_lcores, ids);
	if (n < nb_lcores)
		return -ENODEV;
	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++) {
		runs[i] = (struct lrun){ .fn = fn, .arg = arg, .idx = i,
			.warm = (uint64_t)(warm_ms * hz / 1e3),
			.dur = (uint64_t)(ms * hz / 1e3), .go = &go };
		res->lcore_id[i] = ids[i];
	}
	for (i = 1; i < n; i++) {
		int ret = rte_eal_remote_launch(lrun_main, &runs[i], ids[i]);

		if (ret != 0) {
			go = 1;
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
		res->warm_ops[i] = runs[i].warm_ops;
		res->cycles[i] = runs[i].cycles;
		res->cpu_ns[i] = runs[i].cpu_ns;
		ops += runs[i].ops;
		/* CPU time: what other work on the CPU took does not count */
		if (runs[i].ops > 0)
			ns += (double)runs[i].cpu_ns / (double)runs[i].ops;
		if (runs[i].cycles > 0)
			on_cpu += RTE_MIN((double)runs[i].cpu_ns /
				((double)runs[i].cycles / hz * 1e9), 1.0);
	}
	/* all operations over the time from the start of the warm-up to the
	 * last lcore's end, less the warm-up: lcores that share a CPU do
	 * not add up to more than it can do */
	res->seconds = RTE_MAX(wall - warm_ms / 1e3, ms / 1e3);
	res->total_rate = (double)ops / res->seconds;
	res->ns_per_op = ns / n;
	res->on_cpu = on_cpu / n;
	return 0;
}

int
perf_rounds_run(unsigned int nb_lcores, const struct perf_variant *v,
		unsigned int nb_variants, struct perf_rounds_res *rr)
{
	struct perf_lcores_res lr;
	unsigned int k, i, j, l;
	int ret;

	if (nb_variants > PERF_MAX_VARIANTS)
		return -EINVAL;
	memset(rr, 0, sizeof(*rr));
	rr->nb_variants = nb_variants;
	rr->nb_rounds = RTE_MIN(perf_rounds(), (unsigned int)PERF_MAX_ROUNDS);
	rr->nb_lcores = nb_lcores;
	rr->nb_cpus = perf_nb_cpus(nb_lcores);
	for (k = 0; k < rr->nb_rounds; k++) {
		for (j = 0; j < nb_variants; j++) {
			/* rotated: see perf_shim.h */
			i = (j + k) % nb_variants;
			if (v[i].fn == NULL)
				continue;
			ret = perf_run_lcores(nb_lcores, v[i].fn, v[i].arg,
				perf_warmup_ms(), perf_window_ms(), &lr);
			if (ret != 0)
				return ret;
			rr->ns[i][k] = lr.ns_per_op;
			rr->mops[i][k] = lr.total_rate / 1e6;
			rr->on_cpu[i][k] = lr.on_cpu;
			for (l = 0; l < lr.nb_lcores; l++)
				rr->ops[i][l] += lr.ops[l] + lr.warm_ops[l];
			rr->seconds += lr.seconds;
		}
	}
	return 0;
}

void
perf_rounds_report(struct perf_result *r, const struct perf_rounds_res *rr,
		const struct perf_variant *v)
{
	char key[PERF_NAME_LEN];
	struct perf_stat s;
	unsigned int i;

	for (i = 0; i < rr->nb_variants; i++) {
		if (v[i].fn == NULL)
			continue;
		perf_stat_of(rr->ns[i], rr->nb_rounds, &s);
		snprintf(key, sizeof(key), "%s_ns", v[i].name);
		perf_result_stat(r, key, &s);
		perf_stat_of(rr->mops[i], rr->nb_rounds, &s);
		snprintf(key, sizeof(key), "%s_Mops", v[i].name);
		perf_result_stat(r, key, &s);
		perf_stat_of(rr->on_cpu[i], rr->nb_rounds, &s);
		snprintf(key, sizeof(key), "%s_on_cpu", v[i].name);
		perf_result_set(r, key, s.med);
	}
	perf_result_set(r, "rounds", rr->nb_rounds);
	perf_result_set(r, "window_ms", perf_window_ms());
	perf_result_set(r, "lcores", rr->nb_lcores);
	perf_result_set(r, "cpus", rr->nb_cpus);
	perf_result_set(r, "oversubscribed", rr->nb_lcores > rr->nb_cpus);
	r->seconds = rr->seconds;
	if (rr->nb_lcores > rr->nb_cpus)
		perf_result_label(r, "%soversubscribed: %u lcores on %u CPUs",
			r->label[0] ? "; " : "", rr->nb_lcores, rr->nb_cpus);
}

void
perf_rounds_ratio(struct perf_result *r, const struct perf_rounds_res *rr,
		const struct perf_variant *v, unsigned int num, unsigned int den)
{
	double x[PERF_MAX_ROUNDS];
	char key[PERF_NAME_LEN];
	struct perf_stat s;
	unsigned int k, n = 0;

	if (v[num].fn == NULL || v[den].fn == NULL)
		return;
	for (k = 0; k < rr->nb_rounds; k++)
		if (rr->ns[den][k] > 0)
			x[n++] = rr->ns[num][k] / rr->ns[den][k];
	perf_stat_of(x, n, &s);
	snprintf(key, sizeof(key), "%s_over_%s", v[num].name, v[den].name);
	perf_result_stat(r, key, &s);
}
