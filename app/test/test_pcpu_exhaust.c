/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_exhaustion_autotest: resources running out while the allocator
 * and the pools are in use. Each case checks the documented error, that
 * nothing leaks (live objects, cached objects, EAL heap bytes back to
 * their baseline, audits clean) and that everything works again once
 * memory is given back. The case names are the rows of the exhaustion
 * table in the programmer's guide ("Errors").
 *
 *   exhaust-limit-pools           tiny populated-bytes limit, with pools
 *   exhaust-address-space-pools   the reserved address space used up
 *   exhaust-address-space-span    one object of RTE_PCPU_MAX_SIZE fills
 *                                 a unit of that size
 *   exhaust-hugepages-auto        hugepages run out while running: policy
 *                                 auto falls back to 4 KiB pages, says so
 *   exhaust-hugepages-huge        policy huge fails with ENOMEM
 *   exhaust-eal-memory            the EAL heap used up (EAL started with
 *                                 --no-huge -m 64: the _m64 variant)
 *
 * The allocator alone at the limit and at the end of the address space is
 * covered by pcpu_autotest (test_pcpu_limit, test_pcpu_address_space);
 * these cases add the pools and the other resources. The hugepage cases
 * need an EAL with hugepages (the -huge variant) and skip otherwise; the
 * EAL-heap case needs an EAL of at most 128 MiB and skips otherwise.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "test.h"
#include "test_pcpu_util.h"

#define HUGE_SZ (UINT64_C(2) << 20)
#define MAX_OBJS 65536

static void *objs[MAX_OBJS];

/* Back to the baseline: no live object, nothing cached, audit clean. */
static int
check_baseline(const char *when)
{
	struct rte_pcpu_stats s;

	rte_pcpu_cache_flush();
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "%s: reclaim", when);
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s), "%s: stats", when);
	TEST_ASSERT_EQUAL(s.nr_cur_alloc, (uint64_t)0, "%s: live objects",
		when);
	TEST_ASSERT_EQUAL(s.cached_objs, (uint64_t)0, "%s: cached objects",
		when);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "%s: audit", when);
	printf("%s: back to baseline: 0 live objects, %" PRIu64
		" bytes populated, %u chunks\n", when, s.populated_bytes,
		s.nr_chunks);
	return TEST_SUCCESS;
}

/* Get from @p mp until it fails; returns the count, *err the error. */
static unsigned int
pool_fill(struct rte_pcpu_mempool *mp, int *err)
{
	unsigned int n = 0;
	int ret = 0;

	while (n < MAX_OBJS && (ret = rte_pcpu_mempool_get(mp, &objs[n])) == 0)
		n++;
	*err = ret;
	return n;
}

static int
pool_drain(struct rte_pcpu_mempool *mp, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, objs[i]), "put %u",
			i);
	return TEST_SUCCESS;
}

/*
 * exhaust-limit-pools: a limit of 16 pages per lcore. Gets fail with
 * -ENOMEM (counted), a prefilled pool that cannot be filled fails with
 * ENOMEM and keeps no object, rte_pcpu_alloc() fails with ENOMEM; after
 * the puts and the pool free, everything is back and works again.
 */
static int
test_exhaust_limit_pools(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_NORMAL };
	struct rte_pcpu_mempool_stats ps;
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_stats s0, s;
	unsigned int n1, n2;
	int err;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	conf.max_populated = UINT64_C(16) * 4096 * pcpu_test_mem_lcores();
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init with a %" PRIu64
		" byte limit", conf.max_populated);
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s0), "stats");

	mp = rte_pcpu_mempool_create("ex_limit", MAX_OBJS, 1024, 0, 0, NULL,
		NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool");
	n1 = pool_fill(mp, &err);
	TEST_ASSERT_EQUAL(err, -ENOMEM, "get at the limit (%u objects)", n1);
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "rte_errno at the limit");
	TEST_ASSERT(n1 > 0, "no object before the limit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(mp, &ps), "pool stats");
	TEST_ASSERT(ps.get_fail >= 1, "failed get not counted");
	TEST_ASSERT_NULL(rte_pcpu_alloc(1024, 0), "alloc at the limit");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "alloc at the limit");
	TEST_ASSERT_NULL(rte_pcpu_mempool_create("ex_prefill", 64, 1024, 0, 0,
		NULL, NULL, RTE_PCPU_MEMPOOL_F_PREFILL), "prefill at the limit");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "prefill at the limit");
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup("ex_prefill"),
		"failed prefill pool left registered");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s), "stats");
	TEST_ASSERT(s.populated_bytes <= conf.max_populated,
		"populated %" PRIu64 " above the limit", s.populated_bytes);
	TEST_ASSERT_EQUAL(s.nr_cur_alloc - s.cached_objs, (uint64_t)n1,
		"the failed prefill kept objects");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "pool audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit at the limit");

	TEST_ASSERT_EQUAL(pool_drain(mp, n1), TEST_SUCCESS, "puts");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(mp), 0u, "in use");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "pool free");
	TEST_ASSERT_EQUAL(check_baseline("exhaust-limit-pools"), TEST_SUCCESS,
		"baseline");

	/* recovered: the same again */
	mp = rte_pcpu_mempool_create("ex_limit", MAX_OBJS, 1024, 0, 0, NULL,
		NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool again");
	n2 = pool_fill(mp, &err);
	TEST_ASSERT_EQUAL(err, -ENOMEM, "get at the limit again");
	printf("exhaust-limit-pools: limit %" PRIu64 " bytes on %u lcores: %u "
		"then %u objects of 1 KiB\n", conf.max_populated, pcpu_test_mem_lcores(),
		n1, n2);
	TEST_ASSERT(n2 >= n1 * 9 / 10, "recovered %u of %u", n2, n1);
	TEST_ASSERT_EQUAL(pool_drain(mp, n2), TEST_SUCCESS, "puts");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "pool free");
	TEST_ASSERT_EQUAL(check_baseline("exhaust-limit-pools (again)"),
		TEST_SUCCESS, "baseline");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * exhaust-address-space-pools: two chunks of 256 KiB per lcore. Pool gets
 * of 256 KiB objects fail with -ENOMEM once both chunks are used, a
 * prefilled pool fails with ENOMEM and keeps nothing, small allocations
 * fail too; after the puts and the free everything works again.
 */
static int
test_exhaust_address_space_pools(void)
{
	struct rte_pcpu_conf conf = {
		.unit_stride = 512 * 1024,
		.chunk_size = 256 * 1024,
		.page_policy = RTE_PCPU_PAGE_NORMAL,
	};
	struct rte_pcpu_mempool *mp;
	unsigned int n;
	void *h;
	int err;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init 2 chunks");
	mp = rte_pcpu_mempool_create("ex_space", 8, RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0, 0,
		NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool");
	n = pool_fill(mp, &err);
	TEST_ASSERT_EQUAL(n, 2u, "objects in two chunks");
	TEST_ASSERT_EQUAL(err, -ENOMEM, "get with the space used up");
	TEST_ASSERT_NULL(rte_pcpu_alloc(8, 0), "8 B with the space used up");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "8 B with the space used up");
	TEST_ASSERT_NULL(rte_pcpu_mempool_create("ex_space_pf", 2,
		RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0, 0, NULL, NULL, RTE_PCPU_MEMPOOL_F_PREFILL),
		"prefill with the space used up");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "prefill with the space used up");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with the space used up");
	TEST_ASSERT_EQUAL(pool_drain(mp, n), TEST_SUCCESS, "puts");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "pool free");
	TEST_ASSERT_EQUAL(check_baseline("exhaust-address-space-pools"),
		TEST_SUCCESS, "baseline");
	h = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	TEST_ASSERT_NOT_NULL(h, "alloc after the pool free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * exhaust-address-space-span: a unit of RTE_PCPU_MAX_SIZE bytes, filled by
 * one object of the largest size, a span of every chunk. It works as an
 * array on every lcore (RTE_PCPU_LCORE(l, arr)[i]); a chunk object and a
 * second span fail with ENOMEM meanwhile; its free gives every page back,
 * and after a small object has come and gone (leaving a spare chunk in
 * the way) the largest size fits again.
 */
static int
test_exhaust_address_space_span(void)
{
	const size_t n = RTE_PCPU_MAX_SIZE / sizeof(uint64_t);
	const size_t step = 4096 / sizeof(uint64_t);
	struct rte_pcpu_conf conf = { .unit_stride = RTE_PCPU_MAX_SIZE };
	struct rte_pcpu_stats s;
	uint64_t *arr, *v;
	unsigned int l;
	size_t i;
	void *h;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init a 256 MiB unit");
	arr = rte_pcpu_alloc(RTE_PCPU_MAX_SIZE, 0);
	TEST_ASSERT_NOT_NULL(arr, "the largest object: %s",
		rte_strerror(rte_errno));
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s), "stats");
	TEST_ASSERT_EQUAL(s.populated_bytes, (uint64_t)RTE_PCPU_MAX_SIZE *
		s.nr_lcores, "populated bytes of the largest object");
	RTE_PCPU_FOREACH(l, v, arr)
		for (i = 0; i < n; i += step)
			v[i] = (uint64_t)l << 32 | i;
	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1)) {
		for (i = 0; i < n; i += step)
			TEST_ASSERT_EQUAL(RTE_PCPU_LCORE(l, arr)[i],
				(uint64_t)l << 32 | i, "lcore %u element %zu",
				l, i);
		TEST_ASSERT_EQUAL(RTE_PCPU_LCORE(l, arr)[n - 1], (uint64_t)0,
			"lcore %u last element", l);
	}
	TEST_ASSERT_NULL(rte_pcpu_alloc(8, 0), "8 B beside it");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "8 B beside it");
	TEST_ASSERT_NULL(rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, 0),
		"a second span");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "a second span");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with the unit full");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(arr), "free the largest object");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s), "stats");
	TEST_ASSERT_EQUAL(s.populated_bytes, (uint64_t)0,
		"populated bytes after its free");
	TEST_ASSERT_EQUAL(rte_pcpu_free(arr), -1, "double free");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "double free");
	h = rte_pcpu_alloc(8, 0);
	TEST_ASSERT_NOT_NULL(h, "8 B after the free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free 8 B");
	TEST_ASSERT_EQUAL(check_baseline("exhaust-address-space-span"),
		TEST_SUCCESS, "baseline");
	arr = rte_pcpu_alloc(RTE_PCPU_MAX_SIZE, 0);
	TEST_ASSERT_NOT_NULL(arr, "the largest object again");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(arr), "free");
	printf("exhaust-address-space-span: %u MiB per lcore on %u lcores\n",
		RTE_PCPU_MAX_SIZE >> 20, s.nr_lcores);
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * Hugepages: take the free 2 MiB hugepages of the system but @p keep, in
 * this process, so that the allocator runs out of them.
 */
#define MAX_HOGS 64
static void *hog[MAX_HOGS];
static size_t hog_len[MAX_HOGS];
static unsigned int nb_hogs;

static uint64_t
free_hugepages(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/"
		"free_hugepages", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* Take free hugepages until at most @p keep are left (other processes
 * may free some meanwhile: call again before each step that counts). */
static int
hog_hugepages(uint64_t keep)
{
	uint64_t n = free_hugepages();
	void *p;

	if (n <= keep)
		return 0;
	if (nb_hogs == MAX_HOGS)
		return -1;
	hog_len[nb_hogs] = (size_t)((n - keep) * HUGE_SZ);
	p = mmap(NULL, hog_len[nb_hogs], PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return free_hugepages() <= keep ? 0 : -1;
	hog[nb_hogs++] = p;
	return 0;
}

static void
hog_release(void)
{
	while (nb_hogs > 0) {
		nb_hogs--;
		munmap(hog[nb_hogs], hog_len[nb_hogs]);
	}
}

static int
huge_usable(unsigned int need)
{
	if (!rte_eal_has_hugepages())
		return 0;
	return free_hugepages() >= need;
}

/*
 * exhaust-hugepages-auto: hugepages for one page per lcore only. The
 * first page of a chunk gets hugepages, the next ones fall back to 4 KiB
 * pages: allocations succeed, nr_huge_fallback counts it, and the log
 * says so.
 */
static int
test_exhaust_hugepages_auto(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_AUTO };
	struct rte_pcpu_stats s;
	unsigned int i, n = 0, nl, l;
	char *logbuf = NULL;
	size_t loglen = 0;
	FILE *old, *mem;
	int ret = TEST_SUCCESS;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init policy auto");
	nl = pcpu_test_mem_lcores();
	rte_pcpu_stats_get(&s);
	if (s.page_size != HUGE_SZ || !huge_usable(nl + 1)) {
		TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
		TEST_SKIP("needs an EAL with hugepages and %u free 2 MiB "
			"hugepages (the -huge variant)", nl + 1);
	}
	TEST_ASSERT_SUCCESS(hog_hugepages(nl), "taking the hugepages");
	mem = open_memstream(&logbuf, &loglen);
	TEST_ASSERT_NOT_NULL(mem, "memstream");
	old = rte_log_get_stream();
	rte_openlog_stream(mem);
	/* 4 MiB per lcore: two or three pages of the chunk; after the first
	 * page no hugepage is left */
	for (n = 0; n < 16; n++) {
		if (n > 0 && hog_hugepages(0) != 0)
			break;
		objs[n] = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
		if (objs[n] == NULL)
			break;
	}
	rte_openlog_stream(old);
	fclose(mem);
	hog_release();
	fputs(logbuf, stdout);
	if (n < 16) {
		printf("exhaust-hugepages-auto: allocation %u failed: %s\n", n,
			rte_strerror(rte_errno));
		ret = TEST_FAILED;
	}
	rte_pcpu_stats_get(&s);
	printf("exhaust-hugepages-auto: %u objects of 256 KiB, nr_huge_fallback"
		" %u, %" PRIu64 " bytes populated\n", n, s.nr_huge_fallback,
		s.populated_bytes);
	if (ret == TEST_SUCCESS && s.nr_huge_fallback == 0) {
		printf("exhaust-hugepages-auto: no fall-back counted\n");
		ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS && strstr(logbuf, "falling back to 4 KiB") ==
	    NULL) {
		printf("exhaust-hugepages-auto: the log does not say it\n");
		ret = TEST_FAILED;
	}
	free(logbuf);
	/* the fall-back pages work like the others */
	for (i = 0; i < n; i++) {
		RTE_LCORE_FOREACH(l) {
			char *p = RTE_PCPU_LCORE(l, (char *)objs[i]);

			p[0] = (char)l;
			p[RTE_PCPU_CHUNK_OBJ_MAX_SIZE - 1] = (char)l;
		}
	}
	for (i = 0; i < n; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_EQUAL(check_baseline("exhaust-hugepages-auto"),
		TEST_SUCCESS, "baseline");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * exhaust-hugepages-huge: policy huge with no free hugepage: ENOMEM,
 * counted, nothing changes; works again once hugepages are free.
 */
static int
test_exhaust_hugepages_huge(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_HUGE };
	struct rte_pcpu_stats s0, s;
	unsigned int nl;
	void *h;

	if (!huge_usable(1))
		TEST_SKIP("needs an EAL with hugepages and free 2 MiB "
			"hugepages (the -huge variant)");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init policy huge");
	nl = pcpu_test_mem_lcores();
	if (!huge_usable(nl)) {
		TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
		TEST_SKIP("needs %u free 2 MiB hugepages", nl);
	}
	rte_pcpu_stats_get(&s0);
	TEST_ASSERT_SUCCESS(hog_hugepages(0), "taking the hugepages");
	TEST_ASSERT_SUCCESS(hog_hugepages(0), "taking the hugepages");
	h = rte_pcpu_alloc(64, 0);
	rte_errno = h == NULL ? rte_errno : 0;
	if (h == NULL && rte_errno == ENOMEM) {
		rte_pcpu_stats_get(&s);
		hog_release();
		TEST_ASSERT_EQUAL(s.nr_alloc_fail, s0.nr_alloc_fail + 1,
			"failure counted");
		TEST_ASSERT_EQUAL(s.populated_bytes, s0.populated_bytes,
			"populated bytes changed");
		TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after ENOMEM");
	} else {
		hog_release();
		rte_pcpu_free(h);
		TEST_ASSERT(0, "alloc without free hugepages: %p, rte_errno %d",
			h, rte_errno);
	}
	/* recovery */
	h = rte_pcpu_alloc(64, 0);
	TEST_ASSERT_NOT_NULL(h, "alloc once hugepages are free again");
	rte_pcpu_stats_get(&s);
	TEST_ASSERT_EQUAL(s.nr_huge_fallback, 0u, "policy huge fell back");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_EQUAL(check_baseline("exhaust-hugepages-huge"),
		TEST_SUCCESS, "baseline");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * exhaust-eal-memory: the EAL heap used up (small EAL: --no-huge -m 64).
 * Pools need EAL memory for themselves (ENOMEM), for an RCU defer queue
 * (ENOMEM) and for their lcore caches (without one, the lcore uses the
 * shared stack); percpu objects do not (their memory is the reserved
 * area). Nothing leaks and everything works again after the frees.
 */
#define HOG_MAX 65536
static void *heap_hog[HOG_MAX];

static int
test_exhaust_eal_memory(void)
{
	struct rte_pcpu_mempool_rcu_config rcfg = { 0 };
	struct rte_malloc_socket_stats ms0, ms;
	struct rte_pcpu_mempool *mp, *mp2;
	struct rte_rcu_qsbr *qv;
	unsigned int nh = 0, i;
	size_t sz;
	void *h, *o;
	int socket = (int)rte_socket_id();

	TEST_ASSERT_SUCCESS(rte_malloc_get_socket_stats(socket, &ms0),
		"heap stats");
	if (ms0.heap_totalsz_bytes > (UINT64_C(128) << 20))
		TEST_SKIP("EAL heap of %zu MiB: run with -m 64 (the _m64 "
			"variant)", ms0.heap_totalsz_bytes >> 20);
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	qv = rte_zmalloc("ex_qsbr", rte_rcu_qsbr_get_memsize(4),
		RTE_CACHE_LINE_SIZE);
	TEST_ASSERT_NOT_NULL(qv, "qsbr");
	rte_rcu_qsbr_init(qv, 4);
	/* a pool made while there is memory, cache not yet created */
	mp = rte_pcpu_mempool_create("ex_eal", 64, 16, 16, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool before the heap runs out");
	TEST_ASSERT_SUCCESS(rte_malloc_get_socket_stats(socket, &ms0),
		"heap stats");

	for (sz = UINT64_C(1) << 20; sz >= 64; sz /= 4)
		while (nh < HOG_MAX &&
		       (heap_hog[nh] = rte_malloc("ex_hog", sz, 0)) != NULL)
			nh++;
	printf("exhaust-eal-memory: EAL heap of %zu MiB used up in %u blocks\n",
		ms0.heap_totalsz_bytes >> 20, nh);

	TEST_ASSERT_NULL(rte_pcpu_mempool_create("ex_eal2", 64, 16, 0, 0, NULL,
		NULL, 0), "pool create without EAL memory");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "pool create without EAL memory");
	TEST_ASSERT_NULL(rte_pcpu_mempool_lookup("ex_eal2"), "left registered");
	rcfg.v = qv;
	rcfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_rcu_qsbr_add(mp, &rcfg), -1,
		"defer queue without EAL memory");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "defer queue without EAL memory");
	/* no cache for this lcore: the shared stack serves */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &o), "get without a cache");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, o), "put without a cache");
	/* percpu memory is not EAL memory */
	h = rte_pcpu_alloc(4096, 0);
	TEST_ASSERT_NOT_NULL(h, "percpu alloc without EAL memory");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "pool audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit without EAL memory");

	for (i = 0; i < nh; i++)
		rte_free(heap_hog[i]);
	TEST_ASSERT_SUCCESS(rte_malloc_get_socket_stats(socket, &ms),
		"heap stats");
	TEST_ASSERT_EQUAL(ms.heap_allocsz_bytes, ms0.heap_allocsz_bytes,
		"EAL heap bytes after the failures (leak)");

	/* recovery */
	mp2 = rte_pcpu_mempool_create("ex_eal2", 64, 16, 0, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp2, "pool create after the frees");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_rcu_qsbr_add(mp, &rcfg),
		"defer queue after the frees");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &o), "get");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put(mp, o), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp2), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "free");
	rte_free(qv);
	TEST_ASSERT_EQUAL(check_baseline("exhaust-eal-memory"), TEST_SUCCESS,
		"baseline");
	return TEST_SUCCESS;
}

static struct unit_test_suite exhaust_suite = {
	.suite_name = "pcpu_exhaustion_autotest: resources running out",
	.unit_test_cases = {
		TEST_CASE_NAMED("exhaust-limit-pools", test_exhaust_limit_pools),
		TEST_CASE_NAMED("exhaust-address-space-pools",
			test_exhaust_address_space_pools),
		TEST_CASE_NAMED("exhaust-address-space-span",
			test_exhaust_address_space_span),
		TEST_CASE_NAMED("exhaust-hugepages-auto",
			test_exhaust_hugepages_auto),
		TEST_CASE_NAMED("exhaust-hugepages-huge",
			test_exhaust_hugepages_huge),
		TEST_CASE_NAMED("exhaust-eal-memory", test_exhaust_eal_memory),
		TEST_CASES_END()
	},
};

static int
test_pcpu_exhaustion(void)
{
	return unit_test_suite_runner(&exhaust_suite);
}

REGISTER_TEST_COMMAND(pcpu_exhaustion_autotest, test_pcpu_exhaustion);
