/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_PERF_H_
#define _TEST_PCPU_PERF_H_

#include <stdint.h>

/** TSC cycles to milliseconds. */
double pcpu_perf_ms(uint64_t cycles);

/** Pool figures (test_pcpu_mempool_perf.c). */
int test_perf_pool_vs_mempool(void);
int test_perf_pool_init(void);

#endif /* _TEST_PCPU_PERF_H_ */
