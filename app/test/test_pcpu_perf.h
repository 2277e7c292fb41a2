/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_PERF_H_
#define _TEST_PCPU_PERF_H_

#include <stdint.h>

/** TSC cycles to milliseconds. */
double pcpu_perf_ms(uint64_t cycles);

#endif /* _TEST_PCPU_PERF_H_ */
