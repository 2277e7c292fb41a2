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

/**
 * The registry of pools (pcpu_mempool.c). The list is an EAL tailq
 * (PCPU_MEMPOOL), in shared memory like the pools themselves, so that a
 * secondary process finds the primary's pools as rte_mempool_lookup()
 * finds mempools. The primary changes it holding @c lock and EAL's tailq
 * write lock; it reads it holding @c lock; a secondary reads it holding
 * EAL's tailq read lock (pcpu_pool_list_lock()).
 */
struct pcpu_pool_registry {
	pthread_mutex_t lock;       /**< The list (primary). */
	unsigned int next_id;
};

extern struct pcpu_pool_registry pcpu_pools;

/** Take what guards reading the list: @c lock in the primary, EAL's
 * tailq read lock in a secondary. */
void pcpu_pool_list_lock(void);

/** Release what pcpu_pool_list_lock() took. */
void pcpu_pool_list_unlock(void);

/** First pool of the list, or NULL. List locked. */
struct pcpu_pool *pcpu_pool_first(void);

/** Pool after @p p, or NULL. List locked. */
struct pcpu_pool *pcpu_pool_next(const struct pcpu_pool *p);

/** Iterate over the pools (list locked). */
#define PCPU_POOL_FOREACH(p) \
	for ((p) = pcpu_pool_first(); (p) != NULL; (p) = pcpu_pool_next(p))

/** The pool named @p name, or NULL. List locked. */
struct pcpu_pool *pcpu_pool_find(const char *name);

/** The pool behind @p mp for the query @p op (named in the log line), or
 * NULL with rte_errno = EINVAL and one line when @p mp is NULL. */
const struct pcpu_pool *pcpu_pool_of_query(const struct rte_pcpu_mempool *mp,
		const char *op);

#endif /* _PCPU_MEMPOOL_H_ */
