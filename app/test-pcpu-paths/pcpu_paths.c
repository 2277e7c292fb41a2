/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-test-pcpu-paths: the allocator's paths, one phase at a time, for
 * counting their instructions with callgrind (devtools/callgrind-paths.sh):
 * instruction counts do not depend on what else the machine runs, so two
 * builds can be compared on a shared, noisy machine. Each phase is one
 * function, named for --toggle-collect:
 *
 *   paths_alloc   N rte_pcpu_alloc() of SIZE bytes
 *   paths_free    their rte_pcpu_free(), in ORDER: in (address order,
 *                 as allocated), rev (reverse) or alt (alternately from
 *                 the first and the second half)
 *   paths_pool    N rte_pcpu_mempool_get() + increment + _put() pairs of
 *                 a pool of SIZE-byte objects (zero on get), cache 256
 *   paths_pair    N rte_pcpu_alloc() + rte_pcpu_free() pairs of SIZE
 *                 bytes, after a warm-up: the steady state of the caches
 *
 *   dpdk-test-pcpu-paths EAL-ARGS -- alloc|pool|pair SIZE N [ORDER]
 *           [nocache] [owner|limited]
 *
 * owner: allocations are charged to an owner without a limit
 * (rte_pcpu_alloc_owner()), limited: to an owner with a limit (never
 * reached), instead of the root (rte_pcpu_alloc()); for pool, the pool has
 * a budget (its owner's limit) with limited.
 *
 * It audits the allocator at the end and exits non-zero if the audit or
 * an operation fails.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_owner.h>

static void **paths_objs;
/* NULL: the root (rte_pcpu_alloc()) */
static struct rte_pcpu_owner *paths_owner;

static inline void *
paths_alloc_one(size_t size)
{
	return paths_owner == NULL ? rte_pcpu_alloc(size, 0) :
		rte_pcpu_alloc_owner(size, 0, paths_owner);
}

__attribute__((noinline)) static int
paths_alloc(size_t size, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if ((paths_objs[i] = paths_alloc_one(size)) == NULL)
			return -1;
	return 0;
}

__attribute__((noinline)) static int
paths_pair(size_t size, unsigned int n)
{
	unsigned int i;
	void *h;

	for (i = 0; i < n; i++) {
		h = paths_alloc_one(size);
		if (h == NULL || rte_pcpu_free(h) != 0)
			return -1;
	}
	return 0;
}

enum paths_order { PATHS_IN, PATHS_REV, PATHS_ALT };

/* Index of the i-th free of @p n in @p order. */
static inline unsigned int
paths_index(enum paths_order order, unsigned int i, unsigned int n)
{
	if (order == PATHS_REV)
		return n - 1 - i;
	if (order == PATHS_ALT)
		return i % 2 == 0 ? i / 2 : n / 2 + i / 2;
	return i;
}

__attribute__((noinline)) static int
paths_free(unsigned int n, enum paths_order order)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rte_pcpu_free(paths_objs[paths_index(order, i, n)]) != 0)
			return -1;
	return 0;
}

__attribute__((noinline)) static int
paths_pool(struct rte_pcpu_mempool *mp, unsigned int n)
{
	unsigned int i;
	void *o;

	for (i = 0; i < n; i++) {
		if (rte_pcpu_mempool_get(mp, &o) != 0)
			return -1;
		RTE_PCPU((uint64_t *)o)[0]++;
		rte_pcpu_mempool_put(mp, o);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	/* valgrind maps less address space than the default reservation */
	struct rte_pcpu_conf conf = { .unit_stride = UINT64_C(256) << 20 };
	struct rte_pcpu_mempool *mp;
	enum paths_order order = PATHS_IN;
	int owner = 0, limited = 0, a;
	unsigned int n;
	size_t size;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	if (argc < 4 || (strcmp(argv[1], "alloc") && strcmp(argv[1], "pool") &&
			strcmp(argv[1], "pair"))) {
		fprintf(stderr, "usage: %s EAL-ARGS -- alloc|pool|pair SIZE N "
			"[ORDER] [nocache] [owner|limited]\n", argv[0]);
		return 2;
	}
	size = strtoul(argv[2], NULL, 0);
	n = (unsigned int)strtoul(argv[3], NULL, 0);
	for (a = 4; a < argc; a++) {
		if (strcmp(argv[a], "rev") == 0)
			order = PATHS_REV;
		else if (strcmp(argv[a], "alt") == 0)
			order = PATHS_ALT;
		else if (strcmp(argv[a], "nocache") == 0)
			conf.flags = RTE_PCPU_F_NO_CACHE;
		else if (strcmp(argv[a], "owner") == 0)
			owner = 1;
		else if (strcmp(argv[a], "limited") == 0)
			owner = limited = 1;
	}
	paths_objs = calloc(n, sizeof(*paths_objs));
	if (paths_objs == NULL || rte_pcpu_init(&conf) != 0)
		return 1;
	if (owner && strcmp(argv[1], "pool") != 0) {
		paths_owner = rte_pcpu_owner_create("paths",
			limited ? UINT64_MAX / 2 : 0);
		if (paths_owner == NULL)
			return 1;
	}
	if (strcmp(argv[1], "pool") == 0) {
		mp = rte_pcpu_mempool_create("paths", 1024, size, 256,
			limited ? UINT64_MAX / 2 : 0, NULL, NULL, 0);
		/* the second phase is the steady state */
		ret = mp == NULL || paths_pool(mp, 1000) != 0 ||
			paths_pool(mp, n) != 0;
	} else if (strcmp(argv[1], "pair") == 0) {
		/* the first phase warms the caches up */
		ret = paths_pair(size, 1000) != 0 || paths_pair(size, n) != 0;
	} else {
		ret = paths_alloc(size, n) != 0 || paths_free(n, order) != 0;
	}
	if (ret != 0 || rte_pcpu_audit() != 0) {
		fprintf(stderr, "dpdk-test-pcpu-paths: an operation or the "
			"audit failed\n");
		return 1;
	}
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return 0;
}
