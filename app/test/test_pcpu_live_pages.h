/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_LIVE_PAGES_H_
#define _TEST_PCPU_LIVE_PAGES_H_

/*
 * Pages of unit 0 that hold a live object: the reclaim scenario's measure
 * of what must stay populated, shared by pcpu_autotest and
 * dpdk-test-pcpu-perf (header only: the two programs share no library).
 */

#include <stdint.h>
#include <stdlib.h>

#include <rte_pcpu.h>

/*
 * Count the pages (of st->page_size bytes, per lcore) of unit 0 that
 * objs[k] .. objs[k] + sizes[k] - 1 touch, for the @p n entries of @p objs
 * that are not NULL. Unit 0 starts at the area's base, which is 2 MiB
 * aligned, not aligned to the stride. Returns UINT64_MAX if there is no
 * memory for the page map.
 */
static inline uint64_t
pcpu_test_live_pages(void * const *objs, const size_t *sizes, unsigned int n,
		const struct rte_pcpu_stats *st)
{
	uint64_t npages = st->unit_stride / st->page_size, live = 0;
	uintptr_t base = rte_pcpu_shared.base;
	uint8_t *page_live = calloc(npages, 1);
	unsigned int k;

	if (page_live == NULL)
		return UINT64_MAX;
	for (k = 0; k < n; k++) {
		uint64_t first, last, p;

		if (objs[k] == NULL)
			continue;
		first = ((uintptr_t)objs[k] - base) / st->page_size;
		last = ((uintptr_t)objs[k] + sizes[k] - 1 - base) /
			st->page_size;
		for (p = first; p <= last && p < npages; p++)
			if (!page_live[p]) {
				page_live[p] = 1;
				live++;
			}
	}
	free(page_live);
	return live;
}

#endif /* _TEST_PCPU_LIVE_PAGES_H_ */
