/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PERF_BODIES_H_
#define _PERF_BODIES_H_

/*
 * What the library's bodies of dpdk-test-pcpu-perf share (perf_access.c,
 * perf_alloc.c, perf_pools.c): the allocator's reset, reporting of
 * samples, the objects of an access case and of a pairs case. Private to
 * the bodies; perf_shim.h is the interface to the main.
 */

#include <stdint.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "perf_shim.h"

/** Naive allocator's EAL memory budget, MiB. */
unsigned int perf_naive_budget_mb(void);

/** Empty every lcore's caches, then set the allocator up afresh with
 * @p conf (NULL: defaults), which also resets max_populated_bytes. */
int perf_pcpu_reinit(const struct rte_pcpu_conf *conf);

/** Thread CPU time between two perf_thread_cpu_ns() readings, ms. */
static inline double
perf_cpu_ms(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) / 1e6;
}

/** Counter NAME (+ _lo, _hi) of @p n samples. */
void perf_report_samples(struct perf_result *r, const char *name,
		const double *v, unsigned int n);
/** Counter NAME (+ _lo, _hi) of the per-round ratios a[k] / b[k]. */
void perf_report_ratio(struct perf_result *r, const char *name,
		const double *a, const double *b, unsigned int n);

/** xorshift64*: the random orders and sizes of the cases. */
uint64_t perf_rnd64(uint64_t *s);

/** Everything one access case holds: the schemes' objects and streams. */
struct perf_access_case {
	uint64_t *order;
	struct perf_access_ctx ctx[PERF_SCHEME_MAX];
	struct perf_variant v[PERF_SCHEME_MAX];
	int ready[PERF_SCHEME_MAX];
};

/**
 * Set up the schemes of @p want (a bit per enum perf_scheme) on @p nb_objs
 * objects; a scheme that cannot hold them here is left out and named in
 * the label. -1 on failure (the label says why).
 */
int perf_access_case_setup(struct perf_access_case *ac, uint32_t want,
		uint32_t nb_objs, int random, unsigned int nb_lcores,
		struct perf_result *r);
/** Every counted increment landed (@p rr: ops per scheme); -1 if not. */
int perf_access_case_check(struct perf_access_case *ac,
		const struct perf_rounds_res *rr, struct perf_result *r);
void perf_access_case_free(struct perf_access_case *ac);

/** A pairs body's argument: its pool (or size for rte_pcpu_alloc). */
struct perf_pairs_arg {
	struct rte_pcpu_mempool *pool;
	size_t size;
	volatile int err;
};

/** rte_pcpu_mempool get+put loop (a perf_loop_fn). */
uint64_t perf_pairs_pool_loop(void *arg, unsigned int idx, uint64_t deadline);

/**
 * The pair kinds of @p want (a bit per enum perf_pair_kind) in @p v and
 * @p a; the rte_mempool in @p mp. -1 on failure.
 */
int perf_pairs_setup(uint32_t want, size_t size, void **mp,
		struct perf_pairs_arg *a, struct perf_variant *v,
		struct perf_result *r);
/** Free what perf_pairs_setup() made; -1 if a body or an audit failed. */
int perf_pairs_free(void *mp, struct perf_pairs_arg *a, struct perf_result *r);

#endif /* _PERF_BODIES_H_ */
