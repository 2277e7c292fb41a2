/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * A stock rte_mempool with the library's "pcpu" ops, in an out-of-tree
 * program linked with pkg-config's flags for libdpdk and the library.
 * Debian's DPDK 22.11 loads its driver plugins in rte_eal_init(), and they
 * register 14 of the 16 (RTE_MEMPOOL_MAX_OPS_IDX) mempool ops; the
 * library's ops must be registered beside them. Built and run by
 * devtools/test-consumer.sh and devtools/test-subproject.sh.
 *
 * The pool is made with the three stock calls; every lcore then takes an
 * object, adds (lcore id + 1) to its own copy and puts it back, ITERS
 * times; the main lcore sums every object's copies (rte_mempool_obj_iter():
 * objects may sit in the lcores' mempool caches). Prints the ops table
 * and "mempool_ops_consumer: lcores=N sum=S expected=E OK" (or MISMATCH),
 * and exits 0 on a match.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool_ops.h>

#define NB_OBJS 1023u
#define ITERS 100000u

static struct rte_mempool *mp;

static int
count(void *arg)
{
	unsigned int i, add = rte_lcore_id() + 1;
	int *err = arg;
	uint64_t *o;

	for (i = 0; i < ITERS; i++) {
		if (rte_mempool_get(mp, (void **)&o) != 0) {
			*err = 1;
			return -1;
		}
		*RTE_PCPU(o) += add;
		rte_mempool_put(mp, o);
	}
	return 0;
}

static void
sum_obj(struct rte_mempool *pool __rte_unused, void *arg, void *obj,
		unsigned int idx __rte_unused)
{
	uint64_t s;

	rte_pcpu_sum_u64(obj, 1, &s);
	*(uint64_t *)arg += s;
}

int
main(int argc, char **argv)
{
	uint64_t sum = 0, expected = 0;
	unsigned int lcore_id, i, ours = 0;
	int err = 0, ok;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "mempool_ops_consumer: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name,
				RTE_PCPU_MEMPOOL_OPS_NAME) == 0)
			ours = i;
	printf("mempool_ops_consumer: %u mempool ops registered, \"%s\" at "
		"index %u\n", rte_mempool_ops_table.num_ops,
		RTE_PCPU_MEMPOOL_OPS_NAME, ours);
	if (rte_pcpu_mempool_ops_check() != 0) {
		fprintf(stderr, "mempool_ops_consumer: ops missing: %s\n",
			rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	mp = rte_mempool_create_empty("consumer_ops", NB_OBJS, sizeof(uint64_t),
		32, 0, SOCKET_ID_ANY, 0);
	if (mp == NULL ||
	    rte_mempool_set_ops_byname(mp, RTE_PCPU_MEMPOOL_OPS_NAME, NULL) != 0 ||
	    rte_mempool_populate_default(mp) != (int)NB_OBJS) {
		fprintf(stderr, "mempool_ops_consumer: pool: %s\n",
			rte_strerror(rte_errno));
		rte_mempool_free(mp);
		rte_eal_cleanup();
		return 1;
	}

	rte_eal_mp_remote_launch(count, &err, CALL_MAIN);
	rte_eal_mp_wait_lcore();

	RTE_LCORE_FOREACH(lcore_id)
		expected += (uint64_t)(lcore_id + 1) * ITERS;
	if (rte_mempool_obj_iter(mp, sum_obj, &sum) != NB_OBJS)
		err = 1;
	ok = !err && sum == expected;
	printf("mempool_ops_consumer: lcores=%u sum=%" PRIu64 " expected=%"
		PRIu64 " %s\n", rte_lcore_count(), sum, expected,
		ok ? "OK" : "MISMATCH");

	rte_mempool_free(mp);
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return ok ? 0 : 1;
}
