/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * An out-of-tree application of the installed library, built by
 * devtools/test-consumer.sh with nothing but
 *   cc consumer.c $(pkg-config --cflags --libs libpcpu_mempool)
 *
 * Every lcore adds (lcore id + 1) * ITERS to its own copy of one percpu
 * counter; the main lcore then sums the copies. Prints one line
 * "consumer: lcores=N sum=S expected=E OK|MISMATCH", exits 0 on a match.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>
/* not used: proves the installed pool header compiles on its own */
#include <rte_pcpu_mempool.h>

#define ITERS 100000u

static int
count(void *arg)
{
	uint64_t *counter = arg;
	unsigned int i, n = (rte_lcore_id() + 1) * ITERS;

	for (i = 0; i < n; i++)
		(*RTE_PCPU(counter))++;
	return 0;
}

int
main(int argc, char **argv)
{
	RTE_PCPU_HANDLE(uint64_t, counter);
	uint64_t sum, expected = 0;
	unsigned int lcore_id;
	int ok;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "consumer: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	if (RTE_PCPU_ALLOC(counter) == NULL) {
		fprintf(stderr, "consumer: rte_pcpu_alloc: %s\n",
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}

	rte_eal_mp_remote_launch(count, counter, CALL_MAIN);
	rte_eal_mp_wait_lcore();

	RTE_LCORE_FOREACH(lcore_id)
		expected += (uint64_t)(lcore_id + 1) * ITERS;
	rte_pcpu_sum_u64(counter, 1, &sum);
	ok = sum == expected;
	printf("consumer: lcores=%u sum=%" PRIu64 " expected=%" PRIu64 " %s\n",
		rte_lcore_count(), sum, expected, ok ? "OK" : "MISMATCH");

	rte_pcpu_free(counter);
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return ok ? 0 : 1;
}
