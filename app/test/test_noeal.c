/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_noeal_test: the percpu API called before rte_eal_init() fails with
 * EINVAL instead of crashing, and its one log line names the call. Runs
 * without EAL, so it is its own program.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_owner.h>

static int failures, checks;

#define CHECK(cond, what) do { \
	checks++; \
	if (!(cond)) { \
		printf("FAIL %s:%d: %s (rte_errno %d)\n", __FILE__, __LINE__, \
			what, rte_errno); \
		failures++; \
	} else { \
		printf("ok   %s\n", what); \
	} \
} while (0)

/* The log since the last call, in a memory stream (rte_log works before
 * rte_eal_init(), to its default stream or the one given here). */
static char *log_buf;
static size_t log_len;
static FILE *log_f;

static void
log_restart(void)
{
	if (log_f != NULL)
		fclose(log_f);
	free(log_buf);
	log_buf = NULL;
	log_f = open_memstream(&log_buf, &log_len);
	rte_openlog_stream(log_f);
}

static int
log_has(const char *s)
{
	fflush(log_f);
	return log_buf != NULL && strstr(log_buf, s) != NULL;
}

int
main(void)
{
	struct rte_pcpu_stats st;
	uint64_t x = 0;
	void *h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	log_restart();
	rte_errno = 0;
	h = rte_pcpu_alloc(16, 0);
	CHECK(h == NULL && rte_errno == EINVAL, "alloc before EAL init: EINVAL");
	CHECK(log_has("rte_pcpu_alloc: EAL is not initialised"),
		"alloc before EAL init: the log line names rte_pcpu_alloc");
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
	log_restart();
	CHECK(rte_pcpu_mempool_create("noeal", 8, 16, 0, 0, NULL, NULL, 0) ==
		NULL && rte_errno == EINVAL, "pool create before EAL init: EINVAL");
	CHECK(log_has("rte_pcpu_mempool_create: EAL is not initialised"),
		"pool create before EAL init: the log line names the call");
	log_restart();
	rte_errno = 0;
	CHECK(rte_pcpu_owner_create("noeal", 0) == NULL && rte_errno == EINVAL,
		"owner create before EAL init: EINVAL");
	CHECK(log_has("rte_pcpu_owner_create: EAL is not initialised"),
		"owner create before EAL init: the log line names the call");
	rte_openlog_stream(NULL);
	fclose(log_f);
	free(log_buf);
	printf("%d passed, %d failed\n", checks - failures, failures);
	return failures == 0 ? 0 : 1;
}
