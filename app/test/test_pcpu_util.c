/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#include <rte_lcore.h>

#include "test_pcpu_util.h"

unsigned int
pcpu_test_lcore_next(unsigned int lcore_id)
{
	while (lcore_id < RTE_MAX_LCORE && !rte_pcpu_lcore_has_memory(lcore_id))
		lcore_id++;
	return lcore_id;
}

unsigned int
pcpu_test_mem_lcores(void)
{
	unsigned int l, n = 0;

	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1))
		n++;
	return n;
}

int
pcpu_test_reinit(const struct rte_pcpu_conf *conf)
{
	rte_pcpu_cleanup();
	return rte_pcpu_init(conf);
}

int
pcpu_test_all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}
