/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_MEMPOOL_H_
#define _PCPU_MEMPOOL_H_

/**
 * @file
 * @internal The registry of pools (pcpu_mempool.c).
 */

#include <pthread.h>

#include "pcpu_mempool_cache.h"

/** The registry of pools (pcpu_mempool.c). */
struct pcpu_pool_registry {
	pthread_mutex_t lock;       /**< The list. */
	struct pcpu_pool_list pools;
	unsigned int next_id;
	/** membarrier(2) is unavailable: owners of caches fence for real.
	 * Set by the layer's init, before the first pool exists. */
	int fence_needed;
};

extern struct pcpu_pool_registry pcpu_pools;

/** The pool named @p name, or NULL. Registry lock held. */
struct pcpu_pool *pcpu_pool_find(const char *name);

#endif /* _PCPU_MEMPOOL_H_ */
