/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_autotest: the percpu allocator under EAL.
 *
 * Every case starts and ends with the library not set up (pcpu_reset), so
 * cases are independent and can be added in any order. Cases are grouped
 * by what they cover; add new ones to the matching group of
 * pcpu_testsuite at the end of the file.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include <rte_pcpu.h>

#include "test.h"
#include "test_pcpu_util.h"
#include "test_pcpu_alloc.h"

#define PCPU_LOGTYPE_NAME "lib.pcpu_mempool"

/* Bring the library to "not set up" (a cleanup of nothing would be
 * refused, EALREADY, with a log line: not called then). */
static int
pcpu_reset(void)
{
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		return TEST_SUCCESS;
	if (rte_pcpu_cleanup() != 0) {
		printf("rte_pcpu_cleanup failed: %s\n",
			rte_strerror(rte_errno));
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

static void
pcpu_reset_teardown(void)
{
	pcpu_reset();
}

static int
stats_all_zero(const struct rte_pcpu_stats *st)
{
	static const struct rte_pcpu_stats zero;

	TEST_ASSERT_BUFFERS_ARE_EQUAL(st, &zero, sizeof(zero),
		"stats of a library that is not set up must all be 0");
	return TEST_SUCCESS;
}

/*
 * Find the id of the logtype called @p name in rte_log_dump()'s listing
 * ("id N: name, level is L"); -1 if it is not there. Looking it up this
 * way does not register it, as rte_log_register() would.
 */
static int
find_logtype(const char *name)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	int id = -1;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return -1;
	rte_log_dump(f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char tname[128];
		unsigned int tid;

		if (sscanf(line, "id %u: %127[^,],", &tid, tname) == 2 &&
		    strcmp(tname, name) == 0) {
			id = (int)tid;
			break;
		}
	}
	free(buf);
	return id;
}

/* Init and cleanup */

static int
test_logtype_registered(void)
{
	int id, level;

	id = find_logtype(PCPU_LOGTYPE_NAME);
	TEST_ASSERT(id >= 0, "logtype %s is not registered",
		PCPU_LOGTYPE_NAME);
	/* registering an existing name gives back its id */
	TEST_ASSERT_EQUAL(rte_log_register(PCPU_LOGTYPE_NAME), id,
		"rte_log_register disagrees with rte_log_dump on the id");
	level = rte_log_get_level((uint32_t)id);
	TEST_ASSERT(level >= (int)RTE_LOG_EMERG && level <= (int)RTE_LOG_DEBUG,
		"logtype %s has level %d, not a valid level",
		PCPU_LOGTYPE_NAME, level);
	return TEST_SUCCESS;
}

static int
test_stats_before_init(void)
{
	struct rte_pcpu_stats st;

	memset(&st, 0xa5, sizeof(st));
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st),
		"stats_get must work before set-up");
	if (stats_all_zero(&st) != TEST_SUCCESS)
		return TEST_FAILED;

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_stats_get(NULL), -1,
		"stats_get(NULL) must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "stats_get(NULL): rte_errno");

	TEST_ASSERT_SUCCESS(rte_pcpu_audit(),
		"audit must pass before set-up");
	TEST_ASSERT_EQUAL(pcpu_test_mem_lcores(), 0u,
		"no lcore has memory before set-up");
	return TEST_SUCCESS;
}

static int
test_init_cleanup(void)
{
	struct rte_pcpu_stats st;
	unsigned int lcore_id;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init with defaults");

	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats after init");
	TEST_ASSERT_EQUAL(st.unit_stride, RTE_PCPU_DEFAULT_UNIT_STRIDE,
		"default unit stride");
	TEST_ASSERT_EQUAL(st.chunk_size, RTE_PCPU_DEFAULT_CHUNK_SIZE,
		"default chunk size");
	TEST_ASSERT(st.page_size == 4096 || st.page_size == 2u << 20,
		"page size %" PRIu64 " is neither 4 KiB nor 2 MiB",
		st.page_size);
	TEST_ASSERT_EQUAL(st.nr_lcores, rte_lcore_count(),
		"every EAL lcore gets memory at init");
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, UINT64_C(0), "nothing allocated");
	RTE_LCORE_FOREACH(lcore_id)
		TEST_ASSERT_EQUAL(rte_pcpu_lcore_has_memory(lcore_id), 1,
			"EAL lcore %u has no memory", lcore_id);
	TEST_ASSERT_EQUAL(pcpu_test_mem_lcores(), rte_lcore_count(),
		"only EAL lcores have memory");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after init");

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_init(NULL), -1, "second init must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY, "second init: rte_errno");

	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	TEST_ASSERT_EQUAL(pcpu_test_mem_lcores(), 0u,
		"no lcore keeps memory after cleanup");

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_cleanup(), -1, "second cleanup must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY, "second cleanup: rte_errno");
	return TEST_SUCCESS;
}

static int
test_cleanup_without_init(void)
{
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_cleanup(), -1,
		"cleanup without init must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY,
		"cleanup without init: rte_errno");

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_reclaim(), INT64_C(-1),
		"reclaim without init must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY,
		"reclaim without init: rte_errno");

	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_dump(NULL), -1,
		"dump without init must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY, "dump without init: rte_errno");

	/* and the library can still be set up afterwards */
	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init after failed cleanup");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

static int
test_init_bad_conf(void)
{
	static const struct {
		const char *what;
		struct rte_pcpu_conf conf;
	} bad[] = {
		{ "unit_stride not a power of two",
		  { .unit_stride = UINT64_C(3) << 20 } },
		{ "unit_stride not a power of two (default chunk)",
		  { .unit_stride = (UINT64_C(1) << 30) + 4096 } },
		/* a 32-bit power-of-two test would see 2 MiB here */
		{ "unit_stride 4 GiB + 2 MiB",
		  { .unit_stride = (UINT64_C(4) << 30) + (UINT64_C(2) << 20) } },
		{ "unit_stride above 64 GiB",
		  { .unit_stride = UINT64_C(128) << 30 } },
		{ "empty_pages_reserve above the pages of a unit",
		  { .empty_pages_reserve = UINT32_MAX } },
		{ "chunk_size > unit_stride",
		  { .unit_stride = UINT64_C(2) << 20,
		    .chunk_size = UINT64_C(4) << 20 } },
		{ "chunk_size not a power of two",
		  { .chunk_size = UINT64_C(3) << 20 } },
		{ "chunk_size below 64 KiB",
		  { .chunk_size = UINT64_C(32) << 10 } },
		{ "unknown flags", { .flags = ~(uint32_t)RTE_PCPU_F_NO_CACHE } },
		{ "unknown flag high bit", { .flags = UINT32_C(1) << 31 } },
		{ "page_policy out of range",
		  { .page_policy = (enum rte_pcpu_page_policy)42 } },
	};
	struct rte_pcpu_conf good = {
		.unit_stride = UINT64_C(256) << 20,
		.chunk_size = UINT64_C(2) << 20,
	};
	struct rte_pcpu_stats st;
	uint64_t *h8, *v;
	unsigned int i, l;

	for (i = 0; i < RTE_DIM(bad); i++) {
		rte_errno = 0;
		TEST_ASSERT_EQUAL(rte_pcpu_init(&bad[i].conf), -1,
			"init with %s must fail", bad[i].what);
		TEST_ASSERT_EQUAL(rte_errno, EINVAL, "init with %s: rte_errno",
			bad[i].what);
		/* a refused init leaves nothing set up */
		TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
		if (stats_all_zero(&st) != TEST_SUCCESS)
			return TEST_FAILED;
		TEST_ASSERT_EQUAL(pcpu_test_mem_lcores(), 0u,
			"init with %s gave lcores memory", bad[i].what);
	}

	/* then a good configuration is taken as given */
	TEST_ASSERT_SUCCESS(rte_pcpu_init(&good), "init with a good conf");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT_EQUAL(st.unit_stride, good.unit_stride, "unit stride");
	TEST_ASSERT_EQUAL(st.chunk_size, good.chunk_size, "chunk size");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");

	/* strides above 32 bits are taken too (8 GiB x RTE_MAX_LCORE) */
	good.unit_stride = UINT64_C(8) << 30;
	TEST_ASSERT_SUCCESS(rte_pcpu_init(&good), "init with an 8 GiB stride");
	h8 = rte_pcpu_alloc(sizeof(*h8), 0);
	TEST_ASSERT_NOT_NULL(h8, "alloc with an 8 GiB stride");
	RTE_PCPU_FOREACH(l, v, h8)
		*v = l + 1;
	RTE_PCPU_FOREACH(l, v, h8)
		TEST_ASSERT_EQUAL((uintptr_t)v - (uintptr_t)h8,
			(uintptr_t)l * ((UINT64_C(1) << 33) +
			RTE_PCPU_UNIT_COLOUR), "lcore %u copy offset", l);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h8), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

static int
test_init_again(void)
{
	struct rte_pcpu_stats st;
	uint64_t *h;
	int round;

	for (round = 0; round < 3; round++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init, round %d",
			round);
		h = rte_pcpu_alloc(sizeof(*h), 0);
		TEST_ASSERT_NOT_NULL(h, "alloc, round %d", round);
		*RTE_PCPU(h) = 1;
		TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
		/* counters start again from zero after each cleanup */
		TEST_ASSERT_EQUAL(st.nr_alloc, UINT64_C(1),
			"round %d: nr_alloc", round);
		TEST_ASSERT_EQUAL(st.nr_cur_alloc, UINT64_C(1),
			"round %d: nr_cur_alloc", round);
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free, round %d", round);
		TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup, round %d",
			round);
	}
	return TEST_SUCCESS;
}

static int
test_alloc_implicit_init(void)
{
	uint64_t *h;

	/* the first alloc sets up the defaults */
	h = rte_pcpu_alloc(sizeof(*h), 0);
	TEST_ASSERT_NOT_NULL(h, "alloc without init");
	TEST_ASSERT_EQUAL(pcpu_test_mem_lcores(), rte_lcore_count(),
		"implicit init gives every EAL lcore memory");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_init(NULL), -1,
		"explicit init after implicit init must fail");
	TEST_ASSERT_EQUAL(rte_errno, EALREADY, "rte_errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

/* Alloc, free and access */

struct flow_counters {
	uint64_t packets;
	uint64_t bytes;
};

#define SMOKE_PKT_LEN 64
#define SMOKE_ITERS_PER_LCORE 1000u

/* lcore i counts (i + 1) * SMOKE_ITERS_PER_LCORE packets */
static int
smoke_worker(void *arg)
{
	struct flow_counters *h = arg;
	struct flow_counters *c = RTE_PCPU(h);
	unsigned int n = (rte_lcore_id() + 1) * SMOKE_ITERS_PER_LCORE, i;

	for (i = 0; i < n; i++) {
		c->packets++;
		c->bytes += SMOKE_PKT_LEN;
	}
	return 0;
}

/*
 * No two lcore ids' copies of @p h differ only in address bits 28 and up
 * (the bits a Zen L1D way predictor does not hash): the unit colours
 * (RTE_PCPU_UNIT_COLOUR) must tell them apart in bits 12 to 27. Address
 * arithmetic only, for every pair of lcore ids.
 */
static int
check_colours(const void *h)
{
	const uintptr_t hashed = ((uintptr_t)1 << 28) - ((uintptr_t)1 << 12);
	unsigned int i, j;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		for (j = i + 1; j < RTE_MAX_LCORE; j++)
			TEST_ASSERT(((uintptr_t)RTE_PCPU_LCORE(i, h) ^
				(uintptr_t)RTE_PCPU_LCORE(j, h)) & hashed,
				"copies of lcores %u and %u differ only in "
				"bits 28 and up", i, j);
	return 0;
}

static int
test_alloc_smoke(void)
{
	struct flow_counters *h, *c;
	struct rte_pcpu_stats st;
	uint64_t want_pkts = 0, sum[2];
	unsigned int lcore_id, seen = 0;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");

	TEST_ASSERT_NOT_NULL(RTE_PCPU_ALLOC(h), "alloc");
	TEST_ASSERT_EQUAL((uintptr_t)h % alignof(struct flow_counters),
		(uintptr_t)0, "handle alignment");

	/* every lcore's copy exists, is zeroed, and sits one stride and
	 * one colour step apart */
	RTE_PCPU_FOREACH(lcore_id, c, h) {
		TEST_ASSERT(rte_lcore_is_enabled(lcore_id),
			"FOREACH visits lcore %u, not an EAL lcore", lcore_id);
		TEST_ASSERT_EQUAL(c, RTE_PCPU_LCORE(lcore_id, h),
			"FOREACH and RTE_PCPU_LCORE disagree on lcore %u",
			lcore_id);
		TEST_ASSERT_EQUAL((uintptr_t)c - (uintptr_t)h,
			(uintptr_t)lcore_id * (uintptr_t)(
			RTE_PCPU_DEFAULT_UNIT_STRIDE + RTE_PCPU_UNIT_COLOUR),
			"lcore %u's copy is not at handle + id * (stride + "
			"colour)", lcore_id);
		TEST_ASSERT_EQUAL(c->packets, UINT64_C(0),
			"lcore %u's copy not zeroed", lcore_id);
		TEST_ASSERT_EQUAL(c->bytes, UINT64_C(0),
			"lcore %u's copy not zeroed", lcore_id);
		seen++;
	}
	TEST_ASSERT_EQUAL(seen, rte_lcore_count(),
		"FOREACH must visit every EAL lcore");
	TEST_ASSERT_SUCCESS(check_colours(h), "colours");
	TEST_ASSERT_EQUAL(RTE_PCPU(h), RTE_PCPU_LCORE(rte_lcore_id(), h),
		"RTE_PCPU on the main lcore");

	/* each lcore writes its own copy */
	TEST_ASSERT_SUCCESS(rte_eal_mp_remote_launch(smoke_worker, h,
		SKIP_MAIN), "launch");
	smoke_worker(h);
	RTE_LCORE_FOREACH_WORKER(lcore_id)
		TEST_ASSERT_SUCCESS(rte_eal_wait_lcore(lcore_id),
			"worker %u failed", lcore_id);

	RTE_LCORE_FOREACH(lcore_id) {
		uint64_t n = (uint64_t)(lcore_id + 1) * SMOKE_ITERS_PER_LCORE;

		c = RTE_PCPU_LCORE(lcore_id, h);
		TEST_ASSERT_EQUAL(c->packets, n, "lcore %u packets", lcore_id);
		TEST_ASSERT_EQUAL(c->bytes, n * SMOKE_PKT_LEN,
			"lcore %u bytes", lcore_id);
		want_pkts += n;
	}
	rte_pcpu_sum_u64(h, 2, sum);
	TEST_ASSERT_EQUAL(sum[0], want_pkts, "sum of packets");
	TEST_ASSERT_EQUAL(sum[1], want_pkts * SMOKE_PKT_LEN, "sum of bytes");

	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT_EQUAL(st.nr_alloc, UINT64_C(1), "nr_alloc");
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, UINT64_C(1), "nr_cur_alloc");
	TEST_ASSERT(st.populated_bytes > 0, "nothing populated");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with one object");

	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT_EQUAL(st.nr_dealloc, UINT64_C(1), "nr_dealloc");
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, UINT64_C(0), "nr_cur_alloc");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after free");

	/* a new object of the same size is zeroed on every lcore again */
	TEST_ASSERT_NOT_NULL(RTE_PCPU_ALLOC(h), "alloc again");
	rte_pcpu_sum_u64(h, 2, sum);
	TEST_ASSERT_EQUAL(sum[0], UINT64_C(0), "reused memory not zeroed");
	TEST_ASSERT_EQUAL(sum[1], UINT64_C(0), "reused memory not zeroed");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");

	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

/* rte_pcpu_zero() clears exactly its range, on every lcore, in an object
 * of the caches, one of the chunk allocator and a span. */
static int
zero_check(uint8_t *h, size_t size, size_t off, size_t len)
{
	unsigned int l;
	uint8_t *c;
	size_t i;

	RTE_PCPU_FOREACH(l, c, h)
		memset(c, 0x5a ^ (int)l, size);
	TEST_ASSERT_SUCCESS(rte_pcpu_zero(h + off, len), "zero [%zu, +%zu) of "
		"%zu B", off, len, size);
	RTE_PCPU_FOREACH(l, c, h)
		for (i = 0; i < size; i++)
			TEST_ASSERT_EQUAL(c[i], i >= off && i < off + len ? 0 :
				(uint8_t)(0x5a ^ l), "%zu B object, lcore %u "
				"byte %zu", size, l, i);
	return TEST_SUCCESS;
}

static int
test_zero(void)
{
	const size_t sizes[] = { 16, 1000, RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 4096 };
	unsigned int k;
	uint8_t *h;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");
	for (k = 0; k < RTE_DIM(sizes); k++) {
		h = rte_pcpu_alloc(sizes[k], 0);
		TEST_ASSERT_NOT_NULL(h, "alloc %zu", sizes[k]);
		TEST_ASSERT_EQUAL(zero_check(h, sizes[k], 0, sizes[k]),
			TEST_SUCCESS, "whole object");
		TEST_ASSERT_EQUAL(zero_check(h, sizes[k], 3, sizes[k] / 2),
			TEST_SUCCESS, "inside the object");
		TEST_ASSERT_EQUAL(zero_check(h, sizes[k], sizes[k] - 1, 1),
			TEST_SUCCESS, "last byte");
		rte_errno = 0;
		TEST_ASSERT_EQUAL(rte_pcpu_zero(h + 1, sizes[k]), -1,
			"one byte past the end");
		TEST_ASSERT_EQUAL(rte_errno, EINVAL, "past the end: rte_errno");
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

static int
test_alloc_bad_args(void)
{
	uint64_t *h;
	void *p;

	TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "init");

	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_alloc(0, 0), "size 0 must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "size 0: rte_errno");
	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_alloc(RTE_PCPU_MAX_SIZE + 1, 0),
		"size above RTE_PCPU_MAX_SIZE must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "too large: rte_errno");
	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_alloc(8, 24), "align 24 must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "align 24: rte_errno");
	rte_errno = 0;
	TEST_ASSERT_NULL(rte_pcpu_alloc(8, RTE_PCPU_MAX_ALIGN * 2),
		"align above RTE_PCPU_MAX_ALIGN must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "align too large: rte_errno");

	TEST_ASSERT_SUCCESS(rte_pcpu_free(NULL), "free(NULL) is a no-op");

	/* the limits themselves are accepted (RTE_PCPU_MAX_SIZE itself: the
	 * large-object model test) */
	p = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, RTE_PCPU_MAX_ALIGN);
	TEST_ASSERT_NOT_NULL(p, "largest chunk object with largest alignment");
	TEST_ASSERT_EQUAL((uintptr_t)p % RTE_PCPU_MAX_ALIGN, (uintptr_t)0,
		"alignment %u not honoured", RTE_PCPU_MAX_ALIGN);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(p), "free largest");
	p = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, RTE_PCPU_MAX_ALIGN);
	TEST_ASSERT_NOT_NULL(p, "smallest span with largest alignment");
	TEST_ASSERT_EQUAL((uintptr_t)p % RTE_PCPU_MAX_ALIGN, (uintptr_t)0,
		"span alignment %u not honoured", RTE_PCPU_MAX_ALIGN);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(p), "free the span");

	/* a pointer that is not a live handle is refused, nothing changes */
	h = rte_pcpu_alloc(sizeof(*h), 0);
	TEST_ASSERT_NOT_NULL(h, "alloc");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_free((char *)h + 4), -1,
		"free of an interior pointer must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "interior free: rte_errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_pcpu_free(h), -1, "double free must fail");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "double free: rte_errno");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after refused frees");

	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_testsuite = {
	.suite_name = "pcpu_autotest: percpu allocator",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		/* init and cleanup */
		TEST_CASE_NAMED_ST("logtype_registered", pcpu_reset,
			pcpu_reset_teardown, test_logtype_registered),
		TEST_CASE_NAMED_ST("stats_before_init", pcpu_reset,
			pcpu_reset_teardown, test_stats_before_init),
		TEST_CASE_NAMED_ST("init_cleanup", pcpu_reset,
			pcpu_reset_teardown, test_init_cleanup),
		TEST_CASE_NAMED_ST("cleanup_without_init", pcpu_reset,
			pcpu_reset_teardown, test_cleanup_without_init),
		TEST_CASE_NAMED_ST("init_bad_conf", pcpu_reset,
			pcpu_reset_teardown, test_init_bad_conf),
		TEST_CASE_NAMED_ST("init_again", pcpu_reset,
			pcpu_reset_teardown, test_init_again),
		TEST_CASE_NAMED_ST("alloc_implicit_init", pcpu_reset,
			pcpu_reset_teardown, test_alloc_implicit_init),

		/* alloc, free and access */
		TEST_CASE_NAMED_ST("alloc_smoke", pcpu_reset,
			pcpu_reset_teardown, test_alloc_smoke),
		TEST_CASE_NAMED_ST("zero", pcpu_reset,
			pcpu_reset_teardown, test_zero),
		TEST_CASE_NAMED_ST("alloc_bad_args", pcpu_reset,
			pcpu_reset_teardown, test_alloc_bad_args),

		TEST_CASES_END()
	},
	/* then the allocator cases, with the library set up */
	.unit_test_suites = (struct unit_test_suite *[]){
		&pcpu_alloc_suite,
		NULL,
	},
};

static int
test_pcpu(void)
{
	return unit_test_suite_runner(&pcpu_testsuite);
}

REGISTER_TEST_COMMAND(pcpu_autotest, test_pcpu);
