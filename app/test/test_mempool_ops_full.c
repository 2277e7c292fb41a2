/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_mempool_ops_full_test: the "pcpu" mempool ops when DPDK's table of
 * RTE_MEMPOOL_MAX_OPS_IDX ops is full before the library registers them.
 *
 * Linked with the static library, so that every constructor is in this one
 * image, sorted by priority: this file fills the table at the log priority,
 * before the library's registration (class priority) runs and fails. After
 * rte_eal_init(), rte_pcpu_mempool_ops_check() and the one-call create must
 * fail with ENOSPC and one log line that names the cause and lists the
 * registered ops; rte_pcpu_init() logs the same and still works. Prints
 * "mempool_ops_full: OK" and exits 0, or says what went wrong and exits 1.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool_ops.h>

static int
filler_alloc(struct rte_mempool *mp __rte_unused)
{
	return -ENOTSUP;
}

static int
filler_enqueue(struct rte_mempool *mp __rte_unused,
		void * const *objs __rte_unused, unsigned int n __rte_unused)
{
	return -ENOBUFS;
}

static int
filler_dequeue(struct rte_mempool *mp __rte_unused, void **objs __rte_unused,
		unsigned int n __rte_unused)
{
	return -ENOBUFS;
}

static unsigned int
filler_count(const struct rte_mempool *mp __rte_unused)
{
	return 0;
}

static unsigned int filled;

RTE_INIT_PRIO(mempool_ops_fill, LOG)
{
	struct rte_mempool_ops ops = {
		.alloc = filler_alloc,
		.enqueue = filler_enqueue,
		.dequeue = filler_dequeue,
		.get_count = filler_count,
	};

	while (rte_mempool_ops_table.num_ops < RTE_MEMPOOL_MAX_OPS_IDX) {
		snprintf(ops.name, sizeof(ops.name), "filler%u", filled);
		if (rte_mempool_register_ops(&ops) < 0)
			break;
		filled++;
	}
}

#define FAIL(...) do {							\
	printf("mempool_ops_full: FAIL: " __VA_ARGS__);			\
	printf("\n");							\
	rte_eal_cleanup();						\
	return 1;							\
} while (0)

int
main(int argc, char **argv)
{
	char *log = NULL;
	size_t len = 0;
	FILE *f, *old;
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		printf("mempool_ops_full: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	printf("mempool_ops_full: %u filler ops registered first, %u in all\n",
		filled, rte_mempool_ops_table.num_ops);
	if (filled != RTE_MEMPOOL_MAX_OPS_IDX)
		FAIL("the table was not empty before the filler");
	f = open_memstream(&log, &len);
	if (f == NULL)
		FAIL("memstream");
	old = rte_log_get_stream();
	rte_openlog_stream(f);
	rte_errno = 0;
	ret = rte_pcpu_mempool_ops_check();
	rte_openlog_stream(old);
	fclose(f);
	fputs(log, stdout);
	if (ret != -1 || rte_errno != ENOSPC)
		FAIL("check returned %d, rte_errno %d", ret, rte_errno);
	if (strstr(log, "mempool ops \"pcpu\" not registered") == NULL ||
	    strstr(log, "was full when the library was loaded") == NULL ||
	    strstr(log, "filler15") == NULL)
		FAIL("the log line does not name the cause and the ops");
	if (strchr(log, '\n') != strrchr(log, '\n'))
		FAIL("more than one log line");
	free(log);
	rte_errno = 0;
	if (rte_pcpu_mempool_ops_create("full", 16, 16, 0, 0, NULL, NULL, NULL,
			NULL, SOCKET_ID_ANY, 0) != NULL || rte_errno != ENOSPC)
		FAIL("create: rte_errno %d", rte_errno);
	if (rte_pcpu_init(NULL) != 0)
		FAIL("rte_pcpu_init: %s", rte_strerror(rte_errno));
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	printf("mempool_ops_full: OK\n");
	return 0;
}
