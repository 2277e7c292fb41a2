/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_EAL_USAGE_H_
#define _TEST_PCPU_EAL_USAGE_H_

/*
 * EAL memory a process holds: heap blocks (memzones are heap blocks too)
 * and their bytes, summed over the sockets, and the memzones. Tests
 * compare it before and after to see that the library gave back what it
 * took. Header-only: dpdk-test and the fault sweep (its
 * own program) both use it.
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

struct pcpu_test_eal_usage {
	uint64_t blocks;        /* heap blocks allocated, all sockets */
	uint64_t bytes;         /* heap bytes allocated, all sockets */
	unsigned int memzones;
};

static inline void
pcpu_test_count_memzone(const struct rte_memzone *mz __rte_unused, void *arg)
{
	(*(unsigned int *)arg)++;
}

static inline void
pcpu_test_eal_usage_get(struct pcpu_test_eal_usage *u)
{
	struct rte_malloc_socket_stats s;
	unsigned int i;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < rte_socket_count(); i++) {
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i),
				&s) != 0)
			continue;
		u->blocks += s.alloc_count;
		u->bytes += s.heap_allocsz_bytes;
	}
	rte_memzone_walk(pcpu_test_count_memzone, &u->memzones);
}

/* Whether @p a and @p b hold the same EAL memory. */
static inline int
pcpu_test_eal_usage_equal(const struct pcpu_test_eal_usage *a,
		const struct pcpu_test_eal_usage *b)
{
	return a->blocks == b->blocks && a->bytes == b->bytes &&
		a->memzones == b->memzones;
}

#endif /* _TEST_PCPU_EAL_USAGE_H_ */
