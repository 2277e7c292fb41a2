/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_PERF_H_
#define _TEST_PCPU_PERF_H_

#include <stdint.h>

/** TSC cycles to milliseconds. */
double pcpu_perf_ms(uint64_t cycles);

/** CPU time of the calling thread, ns (CLOCK_THREAD_CPUTIME_ID). */
uint64_t pcpu_perf_thread_ns(void);

/**
 * Median of @p n samples (@p v is sorted in place; even n: the mean of
 * the two middle ones), the lowest into @p lo and the highest into @p hi.
 * Every figure of the perf tests is such a median of interleaved rounds,
 * printed with its range; none keeps the best sample.
 */
double pcpu_perf_median(double *v, unsigned int n, double *lo, double *hi);

/** Cache buckets (test_pcpu_cache_perf.c): bench bpf_ma churn. */
int test_perf_cache_churn(void);
/** Cache buckets: 16 B alloc+free pairs beside rte_mempool. */
int test_perf_cache_pairs(void);

/** Pool figures (test_pcpu_mempool_perf.c). */
int test_perf_pool_vs_mempool(void);
int test_perf_pool_init(void);

#endif /* _TEST_PCPU_PERF_H_ */
