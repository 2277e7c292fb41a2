/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The timing side of devtools/ab-seed.sh: 2^20 rte_pcpu_alloc() of one
 * size, then their rte_pcpu_free() in one of three orders, each order in
 * turn, three times; one line per run with the thread CPU time of each
 * phase in ms. It calls only functions every version of the library has
 * (rte_pcpu_init/alloc/free/cleanup), so one binary times two builds of
 * the library, chosen by LD_LIBRARY_PATH: the same measuring code on
 * both sides.
 *
 *   ab-seed EAL-ARGS -- SIZE cache|nocache huge|normal
 *
 * Prints "seed SIZE CACHE PAGES ORDER ALLOC_MS FREE_MS" per run; exit 1
 * if the library cannot be set up or an allocation fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>

#include <rte_pcpu.h>

#define AB_OBJS (1u << 20)
#define AB_RUNS 3

static const char * const ab_order_name[] = { "in", "alt", "rev" };

static double
ab_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Free objs[0 .. AB_OBJS) in address order, evens then odds, or in
 * reverse. */
static void
ab_free(void **objs, unsigned int order)
{
	unsigned int i;

	if (order == 0) {
		for (i = 0; i < AB_OBJS; i++)
			rte_pcpu_free(objs[i]);
	} else if (order == 1) {
		for (i = 0; i < AB_OBJS; i += 2)
			rte_pcpu_free(objs[i]);
		for (i = 1; i < AB_OBJS; i += 2)
			rte_pcpu_free(objs[i]);
	} else {
		for (i = AB_OBJS; i-- > 0;)
			rte_pcpu_free(objs[i]);
	}
}

int
main(int argc, char **argv)
{
	struct rte_pcpu_conf conf;
	unsigned int run, order, i;
	double t0, t1, t2;
	size_t size;
	void **objs;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc != 4) {
		fprintf(stderr, "usage: ab-seed EAL-ARGS -- SIZE cache|nocache "
			"huge|normal\n");
		return 2;
	}
	size = strtoul(argv[1], NULL, 0);
	memset(&conf, 0, sizeof(conf));
	conf.flags = strcmp(argv[2], "nocache") == 0 ? RTE_PCPU_F_NO_CACHE : 0;
	conf.page_policy = strcmp(argv[3], "normal") == 0 ?
		RTE_PCPU_PAGE_NORMAL : RTE_PCPU_PAGE_HUGE;
	objs = malloc(sizeof(*objs) * AB_OBJS);
	if (objs == NULL || rte_pcpu_init(&conf) != 0)
		return 1;
	for (run = 0; run < AB_RUNS; run++) {
		for (order = 0; order < 3; order++) {
			t0 = ab_cpu_ms();
			for (i = 0; i < AB_OBJS; i++) {
				objs[i] = rte_pcpu_alloc(size, 0);
				if (objs[i] == NULL)
					return 1;
			}
			t1 = ab_cpu_ms();
			ab_free(objs, order);
			t2 = ab_cpu_ms();
			printf("seed %zu %s %s %s %.3f %.3f\n", size, argv[2],
				argv[3], ab_order_name[order], t1 - t0,
				t2 - t1);
		}
	}
	rte_pcpu_cleanup();
	free(objs);
	rte_eal_cleanup();
	return 0;
}
