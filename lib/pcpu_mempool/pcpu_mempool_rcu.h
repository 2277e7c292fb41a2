/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_MEMPOOL_RCU_H_
#define _PCPU_MEMPOOL_RCU_H_

/**
 * @file
 * @internal Deferred puts of pools with an RCU QSBR variable
 * (pcpu_mempool_rcu.c).
 */

#include <stdint.h>

#include "pcpu_mempool_cache.h"

/** Put with RCU attached. */
int pcpu_pool_put_rcu(struct pcpu_pool *p, void * const *objs,
		unsigned int n);

/** Delete the defer queue, with whatever still waits in it (its objects
 * are the pool's: they go with the pool). */
void pcpu_pool_rcu_delete(struct pcpu_pool *p);

#endif /* _PCPU_MEMPOOL_RCU_H_ */
