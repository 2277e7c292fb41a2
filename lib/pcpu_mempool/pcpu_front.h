/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_FRONT_H_
#define _PCPU_FRONT_H_

/**
 * @file
 * @internal What the public entry points (pcpu_front.c) share with the
 * statistics and the pools.
 */

#include <stddef.h>
#include <stdint.h>

/** rte_pcpu_alloc() calls refused for their arguments. */
uint64_t pcpu_front_arg_failures(void);

/** Natural alignment of an object of @p size bytes: the largest power of
 * two dividing the size rounded up to RTE_PCPU_MIN_ALIGN, at most a cache
 * line. */
size_t pcpu_front_natural_align(size_t size);

#endif /* _PCPU_FRONT_H_ */
