/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_MEMPOOL_OPS_H_
#define _PCPU_MEMPOOL_OPS_H_

/**
 * @file
 * @internal What rte_pcpu_audit() and rte_pcpu_dump() (pcpu_stats.c) ask
 * of the "pcpu" mempool ops (pcpu_mempool_ops.c).
 */

#include <stddef.h>
#include <stdio.h>

/**
 * The driver's part of rte_pcpu_audit(): every block of every pool with
 * "pcpu" ops is a live allocation of its size, each pool's ring holds at
 * most its populated objects and its blocks at least that many, and no
 * pool was freed with objects out under RTE_PCPU_MEMPOOL_OPS_F_DEBUG.
 * @return 0, or -1 with the first problem in @p msg.
 */
int pcpu_mempool_ops_audit(char *msg, size_t len);

/** The driver's part of rte_pcpu_dump(): one line per pool. */
void pcpu_mempool_ops_dump(FILE *f);

#endif /* _PCPU_MEMPOOL_OPS_H_ */
