/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * What the library's bodies share: the allocator's reset between cases,
 * the reporting of samples, the random numbers of the cases.
 */

#include <rte_common.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "perf_bodies.h"

static unsigned int perf_naive_mb = 256;

void
perf_set_naive_budget_mb(unsigned int mb)
{
	perf_naive_mb = mb;
}

unsigned int
perf_naive_budget_mb(void)
{
	return perf_naive_mb;
}

static int
perf_flush_cb(void *arg)
{
	RTE_SET_USED(arg);
	rte_pcpu_cache_flush();
	return 0;
}

int
perf_pcpu_reinit(const struct rte_pcpu_conf *conf)
{
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l) {
		if (rte_eal_remote_launch(perf_flush_cb, NULL, l) == 0)
			rte_eal_wait_lcore(l);
	}
	rte_pcpu_cache_flush();
	rte_pcpu_cleanup();
	return rte_pcpu_init(conf);
}

void
perf_report_samples(struct perf_result *r, const char *name, const double *v,
		unsigned int n)
{
	struct perf_stat s;

	perf_stat_of(v, n, &s);
	perf_result_stat(r, name, &s);
}

void
perf_report_ratio(struct perf_result *r, const char *name, const double *a,
		const double *b, unsigned int n)
{
	double x[PERF_MAX_ROUNDS];
	unsigned int k, m = 0;

	for (k = 0; k < n && k < PERF_MAX_ROUNDS; k++)
		if (b[k] > 0)
			x[m++] = a[k] / b[k];
	perf_report_samples(r, name, x, m);
}

uint64_t
perf_rnd64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}
