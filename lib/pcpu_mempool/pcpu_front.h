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

/**
 * A check that rte_pcpu_zero() asks of the layer whose blocks are charged
 * to an owner of kind PCPU_OWNER_KIND_MEMPOOL (the "pcpu" mempool ops):
 * such a block holds many objects, each with a header and a trailer
 * around the user's element, and the range must stay inside one element.
 *
 * @param handle
 *   The block: the live allocation holding the range.
 * @param owner
 *   Its owner's id.
 * @param p
 *   First byte of the range, inside the block.
 * @param size
 *   Bytes of the range, inside the block.
 * @return NULL if the range lies inside one element, or why not (logged
 *   by rte_pcpu_zero()).
 */
typedef const char *(pcpu_front_zero_check_t)(uintptr_t handle, uint32_t owner,
		uintptr_t p, size_t size);

/** Register the check above (one, from a constructor; NULL: none). */
void pcpu_front_zero_check_register(pcpu_front_zero_check_t *check);

#endif /* _PCPU_FRONT_H_ */
