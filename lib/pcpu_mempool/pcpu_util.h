/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_UTIL_H_
#define _PCPU_UTIL_H_

/**
 * @file
 * @internal Arithmetic that DPDK 22.11 lacks for 64-bit values.
 */

#include <stdint.h>

/** Whether @p v is a power of two (64-bit: DPDK 22.11's
 * rte_is_power_of_2() takes 32 bits and would truncate strides). */
static inline int
pcpu_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

#endif /* _PCPU_UTIL_H_ */
