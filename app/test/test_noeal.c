/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_noeal_test: the percpu API called before rte_eal_init() fails with
 * EINVAL instead of crashing. Runs without EAL, so it is its own program.
 */

#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

static int failures;

#define CHECK(cond, what) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: %s (rte_errno %d)\n", __FILE__, __LINE__, \
			what, rte_errno); \
		failures++; \
	} else { \
		printf("ok   %s\n", what); \
	} \
} while (0)

int
main(void)
{
	struct rte_pcpu_stats st;
	uint64_t x = 0;
	void *h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rte_errno = 0;
	h = rte_pcpu_alloc(16, 0);
	CHECK(h == NULL && rte_errno == EINVAL, "alloc before EAL init: EINVAL");
	rte_errno = 0;
	CHECK(rte_pcpu_init(NULL) == -1 && rte_errno == EINVAL,
		"init before EAL init: EINVAL");
	rte_errno = 0;
	CHECK(rte_pcpu_free(&x) == -1 && rte_errno == EINVAL,
		"free before EAL init: EINVAL");
	CHECK(rte_pcpu_free(NULL) == 0, "free(NULL) before EAL init: no-op");
	rte_errno = 0;
	CHECK(rte_pcpu_cleanup() == -1 && rte_errno == EALREADY,
		"cleanup without init: EALREADY");
	memset(&st, 0xff, sizeof(st));
	CHECK(rte_pcpu_stats_get(&st) == 0 && st.nr_alloc == 0 &&
		st.populated_bytes == 0, "stats before init: zero");
	CHECK(rte_pcpu_audit() == 0, "audit before init: clean");
	rte_errno = 0;
	CHECK(rte_pcpu_mempool_create("noeal", 8, 16, 0, 0, NULL, NULL, 0) ==
		NULL && rte_errno == EINVAL, "pool create before EAL init: EINVAL");
	printf("%d passed, %d failed\n", 8 - failures, failures);
	return failures == 0 ? 0 : 1;
}
