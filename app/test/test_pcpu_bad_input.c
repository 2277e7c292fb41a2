/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_bad_input_autotest: every bad input of every public function, one
 * row each, named exactly as the rows of the table in the programmer's
 * guide (doc/guides/prog_guide/pcpu_mempool_lib.rst, "Errors"). A row
 * calls the function the wrong way and must see the documented failure
 * (NULL, -1 or a negative errno, as the function family does) with the
 * documented rte_errno; afterwards the allocator and the pools must be
 * unchanged (live objects, pool counts) and audit clean.
 *
 * Every refused row also logs exactly one line, at ERR; a documented no-op
 * logs none, and so does a failure that is no input error (QROW: running
 * out, a name not found). The test counts the lines each row's call logs
 * (DEBUG lines aside: they show only when asked for).
 *
 * Phase "before set-up" runs with the allocator not set up (it calls
 * rte_pcpu_cleanup() first if it is: run this command in its own process),
 * phase "set up" after rte_pcpu_init(NULL). Rows whose error needs an
 * exhausted resource or no EAL are in pcpu_exhaustion_autotest and
 * pcpu_noeal_test, under the same names (the guide says where).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "rte_pcpu_mempool_ops.h"
#include "rte_pcpu_owner.h"
#include "test.h"

/* What a row's call returns when the function did not fail as documented
 * (the errno values are all positive). */
#define NOT_FAILED (-1000)
#define WRONG_RET (-1001)

/* The function failed returning NULL: its rte_errno. */
#define ERR_NULL(call) ((call) == NULL ? rte_errno : NOT_FAILED)
/* ... returning -1. */
#define ERR_M1(call) ((call) == -1 ? rte_errno : NOT_FAILED)
/* ... returning a negative errno, equal to rte_errno. */
#define ERR_NEG(call) neg_errno(call)
/* A documented no-op: returns 0 (the row expects 0). */
#define NOOP_0(call) ((call) == 0 ? 0 : NOT_FAILED)

static int
neg_errno(int ret)
{
	if (ret >= 0)
		return NOT_FAILED;
	return -ret == rte_errno ? rte_errno : WRONG_RET;
}

/* Objects the rows use (phase "set up"). */
static struct {
	struct rte_pcpu_mempool *mp;      /* n 4, cache 2, F_DEBUG */
	struct rte_pcpu_mempool *other;   /* for a foreign object */
	struct rte_pcpu_mempool *budget;  /* max_bytes: one object */
	struct rte_rcu_qsbr *qv;
	uint64_t *live;                   /* a live 64 B object */
	uint64_t *live_big;               /* a live 1 KiB object */
	struct rte_mempool *ops_mp;       /* an rte_mempool, "pcpu" ops */
	struct rte_pcpu_owner *owner;     /* limit: one 64 B object */
	void *owner_live;                 /* that object */
} bi;

/*
 * Phase "before set-up".
 */
static int r_cleanup_not_set_up(void) { return ERR_M1(rte_pcpu_cleanup()); }
static int r_reclaim_not_set_up(void) { return ERR_M1((int)rte_pcpu_reclaim()); }
static int r_dump_not_set_up(void) { return ERR_M1(rte_pcpu_dump(stdout)); }
static int r_flush_not_set_up(void) { return ERR_M1(rte_pcpu_cache_flush()); }

static int
r_free_not_set_up(void)
{
	static uint64_t x;

	return ERR_M1(rte_pcpu_free(&x));
}

/* A refused allocation before set-up sets nothing up: the library is
 * left as it was (WRONG_RET if the calling lcore now has memory). */
static int
r_alloc_bad_not_set_up(void)
{
	int ret = ERR_NULL(rte_pcpu_alloc(0, 0));

	if (rte_pcpu_lcore_has_memory(rte_lcore_id()))
		return WRONG_RET;
	return ret;
}

static int r_owner_lookup_not_set_up(void)
{ return ERR_NULL(rte_pcpu_owner_lookup(RTE_PCPU_OWNER_ROOT_NAME)); }

static int
init_with(uint64_t stride, uint64_t chunk, int policy, uint32_t flags)
{
	struct rte_pcpu_conf c = {
		.unit_stride = stride,
		.chunk_size = chunk,
		.page_policy = (enum rte_pcpu_page_policy)policy,
		.flags = flags,
	};
	int ret = ERR_M1(rte_pcpu_init(&c));

	if (ret == NOT_FAILED)
		rte_pcpu_cleanup();
	return ret;
}

static int r_init_bad_flags(void) { return init_with(0, 0, 0, 0x100); }
static int r_init_bad_policy(void) { return init_with(0, 0, 7, 0); }
static int r_init_stride_not_pow2(void)
{ return init_with(3ull << 29, 0, 0, 0); }
static int r_init_stride_too_big(void)
{ return init_with(1ull << 37, 0, 0, 0); }
static int r_init_chunk_not_pow2(void)
{ return init_with(0, 3ull << 20, 0, 0); }
static int r_init_chunk_too_small(void)
{ return init_with(0, RTE_PCPU_CHUNK_OBJ_MAX_SIZE / 2, 0, 0); }
static int r_init_chunk_above_stride(void)
{ return init_with(1ull << 20, 2ull << 20, 0, 0); }
static int r_init_huge_small_chunk(void)
{ return init_with(0, 1ull << 20, RTE_PCPU_PAGE_HUGE, 0); }
static int r_init_private_and_shared(void)
{ return init_with(0, 0, 0, RTE_PCPU_F_PRIVATE | RTE_PCPU_F_SHARED); }

static int
init_at(uint64_t base)
{
	struct rte_pcpu_conf c = { .base_addr = base };
	int ret = ERR_M1(rte_pcpu_init(&c));

	if (ret == NOT_FAILED)
		rte_pcpu_cleanup();
	return ret;
}

static int r_init_base_misaligned(void)
{ return init_at(RTE_PCPU_DEFAULT_BASE_ADDR + 4096); }
static int r_init_base_too_high(void)
{ return init_at(UINT64_C(1) << 47); }

/* A page of ours in the middle of where the area would go. */
static int
r_init_base_taken(void)
{
	uint64_t base = UINT64_C(0x300000000000);
	void *page = (void *)(uintptr_t)(base + (UINT64_C(1) << 34));
	void *p;
	int ret;

	p = mmap(page, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		MAP_FIXED_NOREPLACE, -1, 0);
	if (p != page) {
		if (p != MAP_FAILED)
			munmap(p, 4096);
		return NOT_FAILED;
	}
	ret = init_at(base);
	munmap(p, 4096);
	return ret;
}

/* In a child with RLIMIT_AS 64 GiB above what it maps now, the
 * reservation of RTE_MAX_LCORE units of 2 GiB (256 GiB with 128) cannot be
 * made. */
static int
r_init_no_address_space(void)
{
	struct rte_pcpu_conf c = { .unit_stride = 1ull << 31 };
	unsigned long long vm_kb = 0;
	char line[256];
	int status = 0;
	FILE *f;
	pid_t pid;

	f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return NOT_FAILED;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmSize: %llu kB", &vm_kb) == 1)
			break;
	fclose(f);
	if (vm_kb == 0)
		return NOT_FAILED;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl;

		rl.rlim_cur = rl.rlim_max = vm_kb * 1024 + (1ull << 36);
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(200);
		if (rte_pcpu_init(&c) == 0)
			_exit(201);
		_exit(rte_errno & 0xff);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return NOT_FAILED;
	return WEXITSTATUS(status) >= 200 ? NOT_FAILED : WEXITSTATUS(status);
}

/*
 * Phase "set up".
 */
static int r_init_already(void) { return ERR_M1(rte_pcpu_init(NULL)); }
static int r_alloc_size_0(void) { return ERR_NULL(rte_pcpu_alloc(0, 0)); }
static int r_alloc_size_too_big(void)
{ return ERR_NULL(rte_pcpu_alloc(RTE_PCPU_MAX_SIZE + 1, 0)); }
static int r_alloc_align_not_pow2(void)
{ return ERR_NULL(rte_pcpu_alloc(64, 24)); }
static int r_alloc_align_too_big(void)
{ return ERR_NULL(rte_pcpu_alloc(64, RTE_PCPU_MAX_ALIGN * 2)); }

static int r_free_null(void) { return NOOP_0(rte_pcpu_free(NULL)); }

static int
r_free_outside(void)
{
	uint64_t x;

	return ERR_M1(rte_pcpu_free(&x));
}

static int r_free_interior(void)
{ return ERR_M1(rte_pcpu_free((char *)bi.live + 8)); }
static int r_free_misaligned(void)
{ return ERR_M1(rte_pcpu_free((char *)bi.live + 1)); }
static int r_free_interior_big(void)
{ return ERR_M1(rte_pcpu_free((char *)bi.live_big + 512)); }

/* A handle far into lcore 0's unit: no chunk there. */
static void *
never_allocated(void)
{
	struct rte_pcpu_stats s;

	rte_pcpu_stats_get(&s);
	return (void *)(rte_pcpu_shared.base + s.unit_stride - 4096);
}

static int r_free_never_allocated(void)
{ return ERR_M1(rte_pcpu_free(never_allocated())); }

/* A handle of @p size bytes, allocated and freed; NULL if either failed. */
static void *
freed_handle(size_t size)
{
	void *h = rte_pcpu_alloc(size, 0);

	return h != NULL && rte_pcpu_free(h) == 0 ? h : NULL;
}

static int
double_free(size_t size)
{
	void *h = freed_handle(size);

	return h == NULL ? WRONG_RET : ERR_M1(rte_pcpu_free(h));
}

static int r_free_double_cached(void) { return double_free(16); }
static int r_free_double(void) { return double_free(1024); }

static int r_zero_null(void) { return ERR_M1(rte_pcpu_zero(NULL, 8)); }
static int r_zero_size_0(void) { return ERR_M1(rte_pcpu_zero(bi.live, 0)); }

static int
r_zero_outside(void)
{
	uint64_t x = 1;
	int ret = ERR_M1(rte_pcpu_zero(&x, sizeof(x)));

	return x == 1 ? ret : WRONG_RET;
}

static int r_zero_never_allocated(void)
{ return ERR_M1(rte_pcpu_zero(never_allocated(), 8)); }

static int
zero_freed(size_t size)
{
	void *h = freed_handle(size);

	return h == NULL ? WRONG_RET : ERR_M1(rte_pcpu_zero(h, 8));
}

static int r_zero_freed(void) { return zero_freed(1024); }

/* 8 bytes past the end of a 64 B object: refused, nothing written */
static int
r_zero_past_end(void)
{
	unsigned int l;
	uint8_t *c;
	int ret;

	RTE_PCPU_FOREACH(l, c, (uint8_t *)bi.live)
		memset(c, 0xab, 64);
	ret = ERR_M1(rte_pcpu_zero((uint8_t *)bi.live + 8, 64));
	RTE_PCPU_FOREACH(l, c, (uint8_t *)bi.live)
		if (c[8] != 0xab || c[63] != 0xab)
			return WRONG_RET;
	return ret;
}

/* a freed 64 B object, held by the lcore's cache (still allocated for
 * the allocator: its tag tells, as it does to a second free) */
static int r_zero_freed_cached(void) { return zero_freed(64); }

/*
 * An object of an rte_mempool with "pcpu" ops, a range from its element
 * into the next object (its rte_mempool header): refused, neither the
 * element nor the header written. Two objects of one block, the range
 * from the lower to 8 bytes into the higher.
 */
static int
r_zero_mempool_past_element(void)
{
	uint8_t *o[2], *lo, *hi, *c;
	unsigned int l;
	int ret;

	if (rte_mempool_get_bulk(bi.ops_mp, (void **)o, 2) != 0)
		return WRONG_RET;
	lo = RTE_MIN(o[0], o[1]);
	hi = RTE_MAX(o[0], o[1]);
	RTE_PCPU_FOREACH(l, c, lo)
		memset(c, 0xab, bi.ops_mp->elt_size);
	ret = ERR_M1(rte_pcpu_zero(lo, (size_t)(hi - lo) + 8));
	RTE_PCPU_FOREACH(l, c, lo)
		if (c[0] != 0xab || c[bi.ops_mp->elt_size - 1] != 0xab)
			ret = WRONG_RET;
	if (rte_mempool_from_obj(hi) != bi.ops_mp)
		ret = WRONG_RET;
	rte_mempool_put_bulk(bi.ops_mp, (void **)o, 2);
	return ret;
}

/* ... a range starting in its own rte_mempool header */
static int
r_zero_mempool_header(void)
{
	void *o;
	int ret;

	if (rte_mempool_get(bi.ops_mp, &o) != 0)
		return WRONG_RET;
	ret = ERR_M1(rte_pcpu_zero((uint8_t *)o - 8, 16));
	if (rte_mempool_from_obj(o) != bi.ops_mp)
		ret = WRONG_RET;
	rte_mempool_put(bi.ops_mp, o);
	return ret;
}

static int
r_cache_stats_null(void)
{ return ERR_M1(rte_pcpu_cache_stats_get(0, 0, NULL)); }

static int
r_cache_stats_bad_lcore(void)
{
	struct rte_pcpu_cache_stats s;

	return ERR_M1(rte_pcpu_cache_stats_get(RTE_MAX_LCORE, 0, &s));
}

static int
r_cache_stats_bad_class(void)
{
	struct rte_pcpu_cache_stats s;

	return ERR_M1(rte_pcpu_cache_stats_get(0, RTE_PCPU_CACHE_NB_CLASSES,
		&s));
}

static int r_stats_null(void) { return ERR_M1(rte_pcpu_stats_get(NULL)); }
static int r_chunk_walk_null(void)
{ return ERR_M1(rte_pcpu_chunk_walk(NULL, NULL)); }

/* owners */
static int r_alloc_owner_null(void)
{ return ERR_NULL(rte_pcpu_alloc_owner(64, 0, NULL)); }

static int
r_alloc_owner_not_owner(void)
{
	uint64_t x[16] = { 0 };

	return ERR_NULL(rte_pcpu_alloc_owner(64, 0,
		(struct rte_pcpu_owner *)x));
}

/* an owner created and freed by the row itself */
static struct rte_pcpu_owner *
freed_owner(void)
{
	struct rte_pcpu_owner *o = rte_pcpu_owner_create("bi_freed", 0);

	if (o == NULL || rte_pcpu_owner_free(o) != 0)
		return NULL;
	return o;
}

static int
r_alloc_owner_freed(void)
{
	struct rte_pcpu_owner *o = freed_owner();

	return o == NULL ? WRONG_RET : ERR_NULL(rte_pcpu_alloc_owner(64, 0, o));
}

static int r_alloc_owner_pool_owner(void)
{ return ERR_NULL(rte_pcpu_alloc_owner(64, 0, rte_pcpu_mempool_owner(bi.mp))); }
static int r_alloc_owner_size_0(void)
{ return ERR_NULL(rte_pcpu_alloc_owner(0, 0, bi.owner)); }
static int r_alloc_owner_over_limit(void)
{ return ERR_NULL(rte_pcpu_alloc_owner(8, 0, bi.owner)); }
static int r_owner_create_name_null(void)
{ return ERR_NULL(rte_pcpu_owner_create(NULL, 0)); }
static int r_owner_create_name_empty(void)
{ return ERR_NULL(rte_pcpu_owner_create("", 0)); }

static int
r_owner_create_name_too_long(void)
{
	char name[RTE_PCPU_OWNER_NAMESIZE + 1];

	memset(name, 'x', RTE_PCPU_OWNER_NAMESIZE);
	name[RTE_PCPU_OWNER_NAMESIZE] = '\0';
	return ERR_NULL(rte_pcpu_owner_create(name, 0));
}

static int r_owner_create_name_exists(void)
{ return ERR_NULL(rte_pcpu_owner_create(RTE_PCPU_OWNER_ROOT_NAME, 0)); }

/* names telemetry's JSON cannot carry, and the two it would escape */
static int r_owner_create_name_control(void)
{ return ERR_NULL(rte_pcpu_owner_create("bi_ctl\x01\x1f", 0)); }
static int r_owner_create_name_del(void)
{ return ERR_NULL(rte_pcpu_owner_create("bi_del\x7f", 0)); }
static int r_owner_create_name_non_ascii(void)
{ return ERR_NULL(rte_pcpu_owner_create("bi_uni\xc3\xa9", 0)); }
static int r_owner_create_name_space_end(void)
{ return ERR_NULL(rte_pcpu_owner_create("root ", 0)); }
static int r_owner_create_name_quote(void)
{ return ERR_NULL(rte_pcpu_owner_create("bi_quo\"te", 0)); }
static int r_owner_create_name_backslash(void)
{ return ERR_NULL(rte_pcpu_owner_create("bi_back\\slash", 0)); }
/* the prefixes of the pools' own owners */
static int r_owner_create_prefix_pool(void)
{ return ERR_NULL(rte_pcpu_owner_create("pool:bi_fake", 0)); }
static int r_owner_create_prefix_mempool(void)
{ return ERR_NULL(rte_pcpu_owner_create("mempool:bi_clash", 0)); }

/* every id of the owners without a limit taken, then given back */
static int
r_owner_create_no_id(void)
{
	static struct rte_pcpu_owner *o[RTE_PCPU_OWNER_MAX_UNLIMITED + 1];
	unsigned int n = 0;
	char name[32];
	int ret;

	do {
		snprintf(name, sizeof(name), "bi_full_%u", n);
		o[n] = rte_pcpu_owner_create(name, 0);
	} while (o[n] != NULL && ++n < RTE_DIM(o));
	ret = n < RTE_DIM(o) ? rte_errno : NOT_FAILED;
	while (n > 0)
		rte_pcpu_owner_free(o[--n]);
	return ret;
}

static int r_owner_free_null(void) { return NOOP_0(rte_pcpu_owner_free(NULL)); }

static int
r_owner_free_not_owner(void)
{
	uint64_t x[16] = { 0 };

	return ERR_M1(rte_pcpu_owner_free((struct rte_pcpu_owner *)x));
}

static int
r_owner_free_twice(void)
{
	struct rte_pcpu_owner *o = freed_owner();

	return o == NULL ? WRONG_RET : ERR_M1(rte_pcpu_owner_free(o));
}

static int r_owner_free_root(void)
{ return ERR_M1(rte_pcpu_owner_free(rte_pcpu_owner_lookup(
	RTE_PCPU_OWNER_ROOT_NAME))); }
static int r_owner_free_pool_owner(void)
{ return ERR_M1(rte_pcpu_owner_free(rte_pcpu_mempool_owner(bi.mp))); }
static int r_owner_free_busy(void) { return ERR_M1(rte_pcpu_owner_free(bi.owner)); }
static int r_owner_lookup_null(void)
{ return ERR_NULL(rte_pcpu_owner_lookup(NULL)); }
static int r_owner_lookup_unknown(void)
{ return ERR_NULL(rte_pcpu_owner_lookup("bi_no_such_owner")); }
static int r_owner_name_null(void) { return ERR_NULL(rte_pcpu_owner_name(NULL)); }

static int
r_owner_stats_null_owner(void)
{
	struct rte_pcpu_owner_stats st;

	return ERR_M1(rte_pcpu_owner_stats_get(NULL, &st));
}

static int r_owner_stats_null_stats(void)
{ return ERR_M1(rte_pcpu_owner_stats_get(bi.owner, NULL)); }

static int
r_owner_walk_null(void)
{
	rte_pcpu_owner_walk(NULL, NULL);
	return 0;
}

/* pools */
static int r_create_name_null(void)
{ return ERR_NULL(rte_pcpu_mempool_create(NULL, 4, 16, 0, 0, NULL, NULL, 0)); }
static int r_create_name_empty(void)
{ return ERR_NULL(rte_pcpu_mempool_create("", 4, 16, 0, 0, NULL, NULL, 0)); }

static int
r_create_name_too_long(void)
{
	char name[RTE_PCPU_MEMPOOL_NAMESIZE + 1];

	memset(name, 'x', RTE_PCPU_MEMPOOL_NAMESIZE);
	name[RTE_PCPU_MEMPOOL_NAMESIZE] = '\0';
	return ERR_NULL(rte_pcpu_mempool_create(name, 4, 16, 0, 0, NULL, NULL,
		0));
}

static int r_create_name_exists(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bad_input", 4, 16, 0, 0, NULL,
	NULL, 0)); }
static int r_create_name_control(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_ctl\n", 4, 16, 0, 0, NULL,
	NULL, 0)); }
static int r_create_name_non_ascii(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_bad\xff", 4, 16, 0, 0, NULL,
	NULL, 0)); }
static int r_create_name_space_start(void)
{ return ERR_NULL(rte_pcpu_mempool_create(" bi_sp", 4, 16, 0, 0, NULL,
	NULL, 0)); }
static int r_create_name_quote(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_\"q", 4, 16, 0, 0, NULL,
	NULL, 0)); }
static int r_create_n_0(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_n0", 0, 16, 0, 0, NULL, NULL,
	0)); }
static int r_create_elt_0(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_e0", 4, 0, 0, 0, NULL, NULL,
	0)); }
static int r_create_elt_too_big(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_ebig", 4,
	RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, 0, 0, NULL, NULL, 0)); }
static int r_create_cache_too_big(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_cbig", 4096, 16,
	RTE_PCPU_MEMPOOL_CACHE_MAX_SIZE + 1, 0, NULL, NULL, 0)); }
static int r_create_cache_above_n(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_cn", 4, 16, 5, 0, NULL, NULL,
	0)); }
static int r_create_bad_flags(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_fl", 4, 16, 0, 0, NULL, NULL,
	0x100)); }
static int r_create_prefill_over_budget(void)
{ return ERR_NULL(rte_pcpu_mempool_create("bi_pf", 64, 64, 0, 64, NULL,
	NULL, RTE_PCPU_MEMPOOL_F_PREFILL)); }

static int r_lookup_null(void)
{ return ERR_NULL(rte_pcpu_mempool_lookup(NULL)); }
static int r_lookup_unknown(void)
{ return ERR_NULL(rte_pcpu_mempool_lookup("bi_no_such_pool")); }

static int r_pool_free_null(void) { return NOOP_0(rte_pcpu_mempool_free(NULL)); }

static int
r_pool_free_not_pool(void)
{
	uint64_t fake[64] = { 0 };

	return ERR_M1(rte_pcpu_mempool_free((struct rte_pcpu_mempool *)fake));
}

static int
r_pool_free_busy(void)
{
	void *o;
	int ret;

	if (rte_pcpu_mempool_get(bi.mp, &o) != 0)
		return WRONG_RET;
	ret = ERR_M1(rte_pcpu_mempool_free(bi.mp));
	if (rte_pcpu_mempool_put(bi.mp, o) != 0)
		return WRONG_RET;
	return ret;
}

/* rte_pcpu_free() of a pool's object, handed out: refused, and the pool
 * takes it back */
static int
r_free_pool_object(void)
{
	void *o;
	int ret;

	if (rte_pcpu_mempool_get(bi.mp, &o) != 0)
		return WRONG_RET;
	ret = ERR_M1(rte_pcpu_free(o));
	if (rte_pcpu_mempool_put(bi.mp, o) != 0)
		return WRONG_RET;
	return ret;
}

/* an object of an rte_mempool with the "pcpu" ops: refused, and still
 * the pool's */
static int
r_free_mempool_object(void)
{
	void *o;
	int ret;

	if (rte_mempool_get(bi.ops_mp, &o) != 0)
		return WRONG_RET;
	ret = ERR_M1(rte_pcpu_free(o));
	if (rte_mempool_from_obj(o) != bi.ops_mp)
		ret = WRONG_RET;
	rte_mempool_put(bi.ops_mp, o);
	return ret;
}

static int
r_get_null_pool(void)
{
	void *o;

	return ERR_NEG(rte_pcpu_mempool_get(NULL, &o));
}

static int r_get_null_obj(void)
{ return ERR_NEG(rte_pcpu_mempool_get(bi.mp, NULL)); }

static int
r_get_empty(void)
{
	void *o[4], *x = NULL;
	int ret;

	if (rte_pcpu_mempool_get_bulk(bi.mp, o, 4) != 0)
		return WRONG_RET;
	ret = ERR_NEG(rte_pcpu_mempool_get(bi.mp, &x));
	if (rte_pcpu_mempool_put_bulk(bi.mp, o, 4) != 0 || x != NULL)
		return WRONG_RET;
	return ret;
}

static int
r_get_over_budget(void)
{
	void *o, *x = NULL;
	int ret;

	if (rte_pcpu_mempool_get(bi.budget, &o) != 0)
		return WRONG_RET;
	ret = ERR_NEG(rte_pcpu_mempool_get(bi.budget, &x));
	if (rte_pcpu_mempool_put(bi.budget, o) != 0 || x != NULL)
		return WRONG_RET;
	return ret;
}

static int
r_get_bulk_n_0(void)
{
	void *o[1];

	return ERR_NEG(rte_pcpu_mempool_get_bulk(bi.mp, o, 0));
}

static int
r_get_bulk_above_n(void)
{
	void *o[5];

	return ERR_NEG(rte_pcpu_mempool_get_bulk(bi.mp, o, 5));
}

static int r_get_bulk_null(void)
{ return ERR_NEG(rte_pcpu_mempool_get_bulk(bi.mp, NULL, 1)); }

static int
r_get_bulk_not_enough(void)
{
	void *o[3], *x[2] = { NULL, NULL };
	int ret;

	if (rte_pcpu_mempool_get_bulk(bi.mp, o, 3) != 0)
		return WRONG_RET;
	ret = ERR_NEG(rte_pcpu_mempool_get_bulk(bi.mp, x, 2));
	/* all or nothing: one object is still there */
	if (rte_pcpu_mempool_in_use_count(bi.mp) != 3)
		ret = WRONG_RET;
	if (rte_pcpu_mempool_put_bulk(bi.mp, o, 3) != 0)
		return WRONG_RET;
	return ret;
}

static int
r_put_null_pool(void)
{
	return ERR_NEG(rte_pcpu_mempool_put(NULL, bi.live));
}

static int r_put_null_obj(void)
{ return ERR_NEG(rte_pcpu_mempool_put(bi.mp, NULL)); }

static int
r_put_not_handle(void)
{
	uint64_t x;

	return ERR_NEG(rte_pcpu_mempool_put(bi.mp, &x));
}

static int
r_put_misaligned(void)
{
	void *o;
	int ret;

	if (rte_pcpu_mempool_get(bi.mp, &o) != 0)
		return WRONG_RET;
	ret = ERR_NEG(rte_pcpu_mempool_put(bi.mp, (char *)o + 8));
	if (rte_pcpu_mempool_put(bi.mp, o) != 0)
		return WRONG_RET;
	return ret;
}

static int
r_put_double(void)
{
	void *o;

	if (rte_pcpu_mempool_get(bi.mp, &o) != 0 ||
	    rte_pcpu_mempool_put(bi.mp, o) != 0)
		return WRONG_RET;
	return ERR_NEG(rte_pcpu_mempool_put(bi.mp, o));
}

static int
r_put_foreign(void)
{
	void *o;
	int ret;

	if (rte_pcpu_mempool_get(bi.other, &o) != 0)
		return WRONG_RET;
	ret = ERR_NEG(rte_pcpu_mempool_put(bi.mp, o));
	if (rte_pcpu_mempool_put(bi.other, o) != 0)
		return WRONG_RET;
	return ret;
}

static int
r_put_bulk_n_0(void)
{
	void *o[1] = { bi.live };

	return ERR_NEG(rte_pcpu_mempool_put_bulk(bi.mp, o, 0));
}

static int
r_put_bulk_above_n(void)
{
	void *o[5] = { NULL };

	return ERR_NEG(rte_pcpu_mempool_put_bulk(bi.mp, o, 5));
}

static int r_put_bulk_null(void)
{ return ERR_NEG(rte_pcpu_mempool_put_bulk(bi.mp, NULL, 1)); }

static int
r_avail_null(void)
{
	return rte_pcpu_mempool_avail_count(NULL) == 0 ? rte_errno : NOT_FAILED;
}

static int
r_in_use_null(void)
{
	return rte_pcpu_mempool_in_use_count(NULL) == 0 ? rte_errno :
		NOT_FAILED;
}

static int r_pool_dump_null_pool(void)
{ return ERR_M1(rte_pcpu_mempool_dump(stdout, NULL)); }
static int r_pool_dump_null_file(void)
{ return ERR_M1(rte_pcpu_mempool_dump(NULL, bi.mp)); }
static int r_pool_audit_null(void)
{ return ERR_M1(rte_pcpu_mempool_audit(NULL)); }

static int
r_pool_stats_null_pool(void)
{
	struct rte_pcpu_mempool_stats s;

	return ERR_M1(rte_pcpu_mempool_stats_get(NULL, &s));
}

static int r_pool_stats_null_stats(void)
{ return ERR_M1(rte_pcpu_mempool_stats_get(bi.mp, NULL)); }
static int r_pool_owner_null(void)
{ return ERR_NULL(rte_pcpu_mempool_owner(NULL)); }

static int r_pool_name_null(void)
{ return ERR_NULL(rte_pcpu_mempool_name(NULL)); }
static int r_pool_info_null_pool(void)
{
	struct rte_pcpu_mempool_info in;

	return ERR_M1(rte_pcpu_mempool_info_get(NULL, &in));
}
static int r_pool_info_null_info(void)
{ return ERR_M1(rte_pcpu_mempool_info_get(bi.mp, NULL)); }

static int
r_walk_null(void)
{
	rte_pcpu_mempool_walk(NULL, NULL);
	return 0;
}

static int
rcu_add(struct rte_pcpu_mempool *mp, int with_cfg, int with_v, int mode)
{
	struct rte_pcpu_mempool_rcu_config c = {
		.v = with_v ? bi.qv : NULL,
		.mode = (enum rte_pcpu_mempool_qsbr_mode)mode,
	};

	return ERR_M1(rte_pcpu_mempool_rcu_qsbr_add(mp, with_cfg ? &c : NULL));
}

static int r_rcu_add_null_pool(void) { return rcu_add(NULL, 1, 1, 0); }
static int r_rcu_add_null_cfg(void) { return rcu_add(bi.other, 0, 1, 0); }
static int r_rcu_add_null_v(void) { return rcu_add(bi.other, 1, 0, 0); }
static int r_rcu_add_bad_mode(void) { return rcu_add(bi.other, 1, 1, 9); }

static int
r_rcu_add_twice(void)
{
	if (rcu_add(bi.budget, 1, 1, RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC) !=
	    NOT_FAILED)
		return WRONG_RET;
	return rcu_add(bi.budget, 1, 1, RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC);
}

/*
 * A DQ-mode defer queue DPDK 22.11 cannot make: from 2^31 entries on its
 * ring size wraps (the queue was made, then rte_pcpu_mempool_free()
 * crashed), from 2^30 on the ring is too large. Refused, the pool stays
 * without RCU: a put is reused at once.
 */
static int
rcu_add_dq(uint32_t dq_size)
{
	struct rte_pcpu_mempool_rcu_config c = {
		.v = bi.qv,
		.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ,
		.dq_size = dq_size,
	};
	int ret = ERR_M1(rte_pcpu_mempool_rcu_qsbr_add(bi.other, &c));
	void *o;

	if (rte_pcpu_mempool_get(bi.other, &o) != 0)
		return WRONG_RET;
	if (rte_pcpu_mempool_put(bi.other, o) != 0 ||
	    rte_pcpu_mempool_in_use_count(bi.other) != 0)
		return WRONG_RET;
	return ret;
}

static int r_rcu_add_dq_wraps(void) { return rcu_add_dq(UINT32_C(1) << 31); }
static int r_rcu_add_dq_max(void) { return rcu_add_dq(UINT32_MAX); }
static int r_rcu_add_dq_too_big(void) { return rcu_add_dq(UINT32_C(1) << 30); }

/* rte_mempool with the "pcpu" ops */
static struct rte_mempool *
ops_create(const char *name, unsigned int n, unsigned int cache,
		unsigned int priv, rte_mempool_ctor_t *mp_init, void *arg,
		unsigned int flags)
{
	return rte_pcpu_mempool_ops_create(name, n, 64, cache, priv, mp_init,
		arg, NULL, NULL, SOCKET_ID_ANY, flags);
}

static int r_ops_create_name_null(void)
{ return ERR_NULL(ops_create(NULL, 16, 0, 0, NULL, NULL, 0)); }
static int r_ops_create_n_0(void)
{ return ERR_NULL(ops_create("bi_ops_n0", 0, 0, 0, NULL, NULL, 0)); }

static int
r_ops_create_name_too_long(void)
{
	char name[RTE_MEMPOOL_NAMESIZE + 1];

	memset(name, 'x', RTE_MEMPOOL_NAMESIZE);
	name[RTE_MEMPOOL_NAMESIZE] = '\0';
	return ERR_NULL(ops_create(name, 16, 0, 0, NULL, NULL, 0));
}

static int r_ops_create_name_exists(void)
{ return ERR_NULL(ops_create("bi_ops", 16, 0, 0, NULL, NULL, 0)); }
static int r_ops_create_name_control(void)
{ return ERR_NULL(ops_create("bi_ops\t", 16, 0, 0, NULL, NULL, 0)); }
static int r_ops_create_name_non_ascii(void)
{ return ERR_NULL(ops_create("bi_ops\xc3\xa9", 16, 0, 0, NULL, NULL, 0)); }

/* elt_size that DPDK's rounding up to 8 in 32 bits would wrap to 0 */
static int r_ops_create_elt_size_wraps(void)
{ return ERR_NULL(rte_pcpu_mempool_ops_create("bi_ops_ew", 16, UINT32_MAX,
	0, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0)); }
static int r_ops_create_elt_size_too_big(void)
{ return ERR_NULL(rte_pcpu_mempool_ops_create("bi_ops_eb", 16,
	RTE_PCPU_MAX_SIZE + 1, 0, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY,
	0)); }
static int r_ops_create_cache_too_big(void)
{ return ERR_NULL(ops_create("bi_ops_c", 64, 64, 0, NULL, NULL, 0)); }
static int r_ops_create_bad_flags(void)
{ return ERR_NULL(ops_create("bi_ops_f", 16, 0, 0, NULL, NULL, 0x8000)); }

/* mp_init makes it an mbuf pool: 2048 B of data room */
static int
r_ops_create_mbuf_pool(void)
{
	struct rte_pktmbuf_pool_private pp = {
		.mbuf_data_room_size = 2048 - sizeof(struct rte_mbuf),
	};

	return ERR_NULL(rte_pcpu_mempool_ops_create("bi_ops_mbuf", 16, 2048,
		0, sizeof(pp), rte_pktmbuf_pool_init, &pp, NULL, NULL,
		SOCKET_ID_ANY, 0));
}

static void
count_unlimited(struct rte_pcpu_owner *o, void *arg)
{
	struct rte_pcpu_owner_stats st;

	if (rte_pcpu_owner_stats_get(o, &st) == 0 && st.limit_bytes == 0)
		(*(unsigned int *)arg)++;
}

/* every owner id without a limit taken (by creates that all succeed: the
 * row's one line is the pool's): the pool's own owner cannot be made,
 * the ops' first failure, before any memory */
static int
r_ops_create_no_owner_id(void)
{
	static struct rte_pcpu_owner *o[RTE_PCPU_OWNER_MAX_UNLIMITED];
	unsigned int n = 0, have = 0;
	struct rte_mempool *mp;
	char name[32];
	int ret;

	rte_pcpu_owner_walk(count_unlimited, &have);
	while (have + n < RTE_PCPU_OWNER_MAX_UNLIMITED) {
		snprintf(name, sizeof(name), "bi_ops_full_%u", n);
		o[n] = rte_pcpu_owner_create(name, 0);
		if (o[n] == NULL)
			break;
		n++;
	}
	if (have + n < RTE_PCPU_OWNER_MAX_UNLIMITED)
		ret = WRONG_RET;
	else if ((mp = ops_create("bi_ops_noid", 16, 0, 0, NULL, NULL,
			0)) != NULL) {
		rte_mempool_free(mp);
		ret = NOT_FAILED;
	} else {
		ret = rte_errno;
	}
	while (n > 0)
		rte_pcpu_owner_free(o[--n]);
	return ret;
}

/* the pool's ring, "PC_" and its name, exists: one line (DPDK's failed
 * ring create would log its own) */
static int
r_ops_create_ring_name_taken(void)
{
	struct rte_ring *r = rte_ring_create("PC_bi_ops_rt", 64, SOCKET_ID_ANY,
		0);
	int ret;

	if (r == NULL)
		return WRONG_RET;
	ret = ERR_NULL(ops_create("bi_ops_rt", 16, 0, 0, NULL, NULL, 0));
	rte_ring_free(r);
	return ret;
}

static int
r_ops_populate_bad_conf(void)
{
	struct rte_pcpu_mempool_ops_conf conf = { .flags = 0x80 };
	struct rte_mempool *mp;
	int ret;

	mp = rte_mempool_create_empty("bi_ops_conf", 16, 64, 0, 0,
		SOCKET_ID_ANY, 0);
	if (mp == NULL || rte_mempool_set_ops_byname(mp,
			RTE_PCPU_MEMPOOL_OPS_NAME, &conf) != 0) {
		rte_mempool_free(mp);
		return WRONG_RET;
	}
	ret = ERR_NEG(rte_mempool_populate_default(mp));
	rte_mempool_free(mp);
	return ret;
}

/* an rte_mempool whose name its "pcpu" owner could not take */
static int
r_ops_populate_bad_name(void)
{
	struct rte_mempool *mp;
	int ret;

	mp = rte_mempool_create_empty("bi_ops_\x1b[1m", 16, 64, 0, 0,
		SOCKET_ID_ANY, 0);
	if (mp == NULL || rte_mempool_set_ops_byname(mp,
			RTE_PCPU_MEMPOOL_OPS_NAME, NULL) != 0) {
		rte_mempool_free(mp);
		return WRONG_RET;
	}
	ret = ERR_NEG(rte_mempool_populate_default(mp));
	rte_mempool_free(mp);
	return ret;
}

/*
 * The log lines of one row's call. rte_log() writes each message with one
 * fflush() to a cookie stream, which appends it to a memfd as a record
 * (its level, its length, its text): a file, so that what a row's forked
 * child logs (init-no-address-space) is there too.
 */
struct bi_log_rec {
	int level;
	uint32_t len;
};

static struct {
	int fd;      /* the row's messages, as records */
	FILE *cap;   /* the stream rte_log() writes to during a row */
	FILE *old;   /* the stream before */
	char text[1024];
} bi_log = { .fd = -1 };

static ssize_t
bi_log_write(void *cookie __rte_unused, const char *buf, size_t size)
{
	struct bi_log_rec r = {
		.level = rte_log_cur_msg_loglevel(),
		.len = (uint32_t)size,
	};
	struct iovec iov[2] = {
		{ .iov_base = &r, .iov_len = sizeof(r) },
		{ .iov_base = (void *)(uintptr_t)buf, .iov_len = size },
	};

	/* DEBUG lines show only when asked for: not the user's one line */
	if (r.level == RTE_LOG_DEBUG)
		return (ssize_t)size;
	if (writev(bi_log.fd, iov, 2) != (ssize_t)(sizeof(r) + size))
		return -1;
	return (ssize_t)size;
}

static int
bi_log_open(void)
{
	cookie_io_functions_t io = { .write = bi_log_write };

	bi_log.fd = memfd_create("pcpu_bad_input_log", MFD_CLOEXEC);
	if (bi_log.fd < 0)
		return -1;
	bi_log.cap = fopencookie(NULL, "w", io);
	if (bi_log.cap == NULL) {
		close(bi_log.fd);
		bi_log.fd = -1;
		return -1;
	}
	return 0;
}

static void
bi_log_close(void)
{
	fclose(bi_log.cap);
	close(bi_log.fd);
	bi_log.cap = NULL;
	bi_log.fd = -1;
}

static int
bi_log_start(void)
{
	if (ftruncate(bi_log.fd, 0) != 0 ||
	    lseek(bi_log.fd, 0, SEEK_SET) != 0)
		return -1;
	bi_log.old = rte_log_get_stream();
	rte_openlog_stream(bi_log.cap);
	return 0;
}

/*
 * Restore the log stream; the number of lines logged (a message without
 * a final newline counts as one too), and in @p n_err how many of them at
 * ERR. Their text is in bi_log.text (as much as it holds), also echoed
 * to stdout, where it went before.
 */
static unsigned int
bi_log_stop(unsigned int *n_err)
{
	unsigned int lines = 0, n;
	struct bi_log_rec r;
	size_t o = 0, i, take;
	off_t at = 0;
	char line[512];

	rte_openlog_stream(bi_log.old);
	*n_err = 0;
	while (pread(bi_log.fd, &r, sizeof(r), at) == (ssize_t)sizeof(r)) {
		at += (off_t)sizeof(r);
		take = RTE_MIN((size_t)r.len, sizeof(line));
		if (pread(bi_log.fd, line, take, at) != (ssize_t)take)
			break;
		at += (off_t)r.len;
		n = 0;
		for (i = 0; i < take; i++)
			n += line[i] == '\n';
		if (take == 0 || line[take - 1] != '\n')
			n++;
		lines += n;
		if (r.level == RTE_LOG_ERR)
			*n_err += n;
		take = RTE_MIN(take, sizeof(bi_log.text) - 1 - o);
		memcpy(bi_log.text + o, line, take);
		o += take;
	}
	bi_log.text[o] = '\0';
	fputs(bi_log.text, stdout);
	return lines;
}


enum phase { BEFORE_SETUP, SET_UP };

struct bad_row {
	const char *id;     /* the row name in the guide's table */
	enum phase phase;
	int err;            /* expected rte_errno; 0: documented no-op */
	int (*call)(void);
	int quiet;          /* no log line: a no-op, or no input error */
};

/* A bad input: one ERR line (a documented no-op, err 0: none). */
#define ROW(id, ph, err, fn) { id, ph, err, fn, (err) == 0 }
/* A failure that is no input error, which logs nothing above DEBUG:
 * running out (the guide's "Errors": it may happen on every packet), and
 * a lookup of a name that does not exist (the answer the caller asked
 * for, as rte_mempool_lookup() gives it). */
#define QROW(id, ph, err, fn) { id, ph, err, fn, 1 }

/* Keep in the order and with the names of the guide's table. */
static const struct bad_row rows[] = {
	ROW("init-bad-flags", BEFORE_SETUP, EINVAL, r_init_bad_flags),
	ROW("init-bad-page-policy", BEFORE_SETUP, EINVAL, r_init_bad_policy),
	ROW("init-stride-not-pow2", BEFORE_SETUP, EINVAL, r_init_stride_not_pow2),
	ROW("init-stride-too-big", BEFORE_SETUP, EINVAL, r_init_stride_too_big),
	ROW("init-chunk-not-pow2", BEFORE_SETUP, EINVAL, r_init_chunk_not_pow2),
	ROW("init-chunk-too-small", BEFORE_SETUP, EINVAL, r_init_chunk_too_small),
	ROW("init-chunk-above-stride", BEFORE_SETUP, EINVAL,
		r_init_chunk_above_stride),
	ROW("init-huge-small-chunk", BEFORE_SETUP, EINVAL, r_init_huge_small_chunk),
	ROW("init-private-and-shared", BEFORE_SETUP, EINVAL,
		r_init_private_and_shared),
	ROW("init-base-misaligned", BEFORE_SETUP, EINVAL, r_init_base_misaligned),
	ROW("init-base-too-high", BEFORE_SETUP, EINVAL, r_init_base_too_high),
	ROW("init-base-taken", BEFORE_SETUP, EEXIST, r_init_base_taken),
	ROW("init-no-address-space", BEFORE_SETUP, ENOMEM,
		r_init_no_address_space),
	ROW("cleanup-not-set-up", BEFORE_SETUP, EALREADY, r_cleanup_not_set_up),
	ROW("free-not-set-up", BEFORE_SETUP, EINVAL, r_free_not_set_up),
	ROW("reclaim-not-set-up", BEFORE_SETUP, EALREADY, r_reclaim_not_set_up),
	ROW("cache-flush-not-set-up", BEFORE_SETUP, EALREADY, r_flush_not_set_up),
	ROW("dump-not-set-up", BEFORE_SETUP, EALREADY, r_dump_not_set_up),
	ROW("alloc-bad-not-set-up", BEFORE_SETUP, EINVAL, r_alloc_bad_not_set_up),
	QROW("owner-lookup-not-set-up", BEFORE_SETUP, ENOENT,
		r_owner_lookup_not_set_up),
	ROW("init-already", SET_UP, EALREADY, r_init_already),
	ROW("alloc-size-0", SET_UP, EINVAL, r_alloc_size_0),
	ROW("alloc-size-too-big", SET_UP, EINVAL, r_alloc_size_too_big),
	ROW("alloc-align-not-pow2", SET_UP, EINVAL, r_alloc_align_not_pow2),
	ROW("alloc-align-too-big", SET_UP, EINVAL, r_alloc_align_too_big),
	ROW("free-null", SET_UP, 0, r_free_null),
	ROW("free-outside", SET_UP, EINVAL, r_free_outside),
	ROW("free-never-allocated", SET_UP, EINVAL, r_free_never_allocated),
	ROW("free-interior", SET_UP, EINVAL, r_free_interior),
	ROW("free-interior-big", SET_UP, EINVAL, r_free_interior_big),
	ROW("free-misaligned", SET_UP, EINVAL, r_free_misaligned),
	ROW("free-double-cached", SET_UP, EINVAL, r_free_double_cached),
	ROW("free-double", SET_UP, EINVAL, r_free_double),
	ROW("zero-null", SET_UP, EINVAL, r_zero_null),
	ROW("zero-size-0", SET_UP, EINVAL, r_zero_size_0),
	ROW("zero-outside", SET_UP, EINVAL, r_zero_outside),
	ROW("zero-never-allocated", SET_UP, EINVAL, r_zero_never_allocated),
	ROW("zero-freed", SET_UP, EINVAL, r_zero_freed),
	ROW("zero-past-end", SET_UP, EINVAL, r_zero_past_end),
	ROW("zero-freed-cached", SET_UP, EINVAL, r_zero_freed_cached),
	ROW("zero-mempool-past-element", SET_UP, EINVAL,
		r_zero_mempool_past_element),
	ROW("zero-mempool-header", SET_UP, EINVAL, r_zero_mempool_header),
	ROW("cache-stats-null", SET_UP, EINVAL, r_cache_stats_null),
	ROW("cache-stats-bad-lcore", SET_UP, EINVAL, r_cache_stats_bad_lcore),
	ROW("cache-stats-bad-class", SET_UP, EINVAL, r_cache_stats_bad_class),
	ROW("stats-null", SET_UP, EINVAL, r_stats_null),
	ROW("chunk-walk-null", SET_UP, EINVAL, r_chunk_walk_null),
	ROW("alloc-owner-null", SET_UP, EINVAL, r_alloc_owner_null),
	ROW("alloc-owner-not-an-owner", SET_UP, EINVAL, r_alloc_owner_not_owner),
	ROW("alloc-owner-freed", SET_UP, EINVAL, r_alloc_owner_freed),
	ROW("alloc-owner-pool-owner", SET_UP, EINVAL, r_alloc_owner_pool_owner),
	ROW("alloc-owner-size-0", SET_UP, EINVAL, r_alloc_owner_size_0),
	QROW("alloc-owner-over-limit", SET_UP, ENOMEM, r_alloc_owner_over_limit),
	ROW("owner-create-name-null", SET_UP, EINVAL, r_owner_create_name_null),
	ROW("owner-create-name-empty", SET_UP, EINVAL,
		r_owner_create_name_empty),
	ROW("owner-create-name-too-long", SET_UP, ENAMETOOLONG,
		r_owner_create_name_too_long),
	ROW("owner-create-name-exists", SET_UP, EEXIST,
		r_owner_create_name_exists),
	ROW("owner-create-name-control", SET_UP, EINVAL,
		r_owner_create_name_control),
	ROW("owner-create-name-del", SET_UP, EINVAL, r_owner_create_name_del),
	ROW("owner-create-name-non-ascii", SET_UP, EINVAL,
		r_owner_create_name_non_ascii),
	ROW("owner-create-name-space-end", SET_UP, EINVAL,
		r_owner_create_name_space_end),
	ROW("owner-create-name-quote", SET_UP, EINVAL, r_owner_create_name_quote),
	ROW("owner-create-name-backslash", SET_UP, EINVAL,
		r_owner_create_name_backslash),
	ROW("owner-create-prefix-pool", SET_UP, EINVAL,
		r_owner_create_prefix_pool),
	ROW("owner-create-prefix-mempool", SET_UP, EINVAL,
		r_owner_create_prefix_mempool),
	ROW("owner-create-no-id", SET_UP, ENOSPC, r_owner_create_no_id),
	ROW("owner-free-null", SET_UP, 0, r_owner_free_null),
	ROW("owner-free-not-an-owner", SET_UP, EINVAL, r_owner_free_not_owner),
	ROW("owner-free-twice", SET_UP, EINVAL, r_owner_free_twice),
	ROW("owner-free-root", SET_UP, EPERM, r_owner_free_root),
	ROW("owner-free-pool-owner", SET_UP, EPERM, r_owner_free_pool_owner),
	ROW("owner-free-busy", SET_UP, EBUSY, r_owner_free_busy),
	ROW("owner-lookup-null", SET_UP, EINVAL, r_owner_lookup_null),
	QROW("owner-lookup-unknown", SET_UP, ENOENT, r_owner_lookup_unknown),
	ROW("owner-name-null", SET_UP, EINVAL, r_owner_name_null),
	ROW("owner-stats-null-owner", SET_UP, EINVAL, r_owner_stats_null_owner),
	ROW("owner-stats-null-stats", SET_UP, EINVAL, r_owner_stats_null_stats),
	ROW("owner-walk-null", SET_UP, 0, r_owner_walk_null),
	ROW("create-name-null", SET_UP, EINVAL, r_create_name_null),
	ROW("create-name-empty", SET_UP, EINVAL, r_create_name_empty),
	ROW("create-name-too-long", SET_UP, ENAMETOOLONG, r_create_name_too_long),
	ROW("create-name-exists", SET_UP, EEXIST, r_create_name_exists),
	ROW("create-name-control", SET_UP, EINVAL, r_create_name_control),
	ROW("create-name-non-ascii", SET_UP, EINVAL, r_create_name_non_ascii),
	ROW("create-name-space-start", SET_UP, EINVAL, r_create_name_space_start),
	ROW("create-name-quote", SET_UP, EINVAL, r_create_name_quote),
	ROW("create-n-0", SET_UP, EINVAL, r_create_n_0),
	ROW("create-elt-size-0", SET_UP, EINVAL, r_create_elt_0),
	ROW("create-elt-size-too-big", SET_UP, EINVAL, r_create_elt_too_big),
	ROW("create-cache-too-big", SET_UP, EINVAL, r_create_cache_too_big),
	ROW("create-cache-above-n", SET_UP, EINVAL, r_create_cache_above_n),
	ROW("create-bad-flags", SET_UP, EINVAL, r_create_bad_flags),
	ROW("create-prefill-over-budget", SET_UP, ENOMEM,
		r_create_prefill_over_budget),
	ROW("lookup-null", SET_UP, EINVAL, r_lookup_null),
	QROW("lookup-unknown", SET_UP, ENOENT, r_lookup_unknown),
	ROW("pool-free-null", SET_UP, 0, r_pool_free_null),
	ROW("pool-free-not-a-pool", SET_UP, EINVAL, r_pool_free_not_pool),
	ROW("pool-free-busy", SET_UP, EBUSY, r_pool_free_busy),
	ROW("free-pool-object", SET_UP, EINVAL, r_free_pool_object),
	ROW("free-mempool-object", SET_UP, EINVAL, r_free_mempool_object),
	ROW("get-null-pool", SET_UP, EINVAL, r_get_null_pool),
	ROW("get-null-obj", SET_UP, EINVAL, r_get_null_obj),
	QROW("get-empty", SET_UP, ENOENT, r_get_empty),
	QROW("get-over-budget", SET_UP, ENOMEM, r_get_over_budget),
	ROW("get-bulk-n-0", SET_UP, EINVAL, r_get_bulk_n_0),
	ROW("get-bulk-above-n", SET_UP, EINVAL, r_get_bulk_above_n),
	ROW("get-bulk-null", SET_UP, EINVAL, r_get_bulk_null),
	QROW("get-bulk-not-enough", SET_UP, ENOENT, r_get_bulk_not_enough),
	ROW("put-null-pool", SET_UP, EINVAL, r_put_null_pool),
	ROW("put-null-obj", SET_UP, EINVAL, r_put_null_obj),
	ROW("put-not-a-handle", SET_UP, EINVAL, r_put_not_handle),
	ROW("put-misaligned", SET_UP, EINVAL, r_put_misaligned),
	ROW("put-double-debug", SET_UP, EINVAL, r_put_double),
	ROW("put-foreign-debug", SET_UP, EINVAL, r_put_foreign),
	ROW("put-bulk-n-0", SET_UP, EINVAL, r_put_bulk_n_0),
	ROW("put-bulk-above-n", SET_UP, EINVAL, r_put_bulk_above_n),
	ROW("put-bulk-null", SET_UP, EINVAL, r_put_bulk_null),
	ROW("avail-count-null", SET_UP, EINVAL, r_avail_null),
	ROW("in-use-count-null", SET_UP, EINVAL, r_in_use_null),
	ROW("walk-null", SET_UP, 0, r_walk_null),
	ROW("pool-dump-null-pool", SET_UP, EINVAL, r_pool_dump_null_pool),
	ROW("pool-dump-null-file", SET_UP, EINVAL, r_pool_dump_null_file),
	ROW("pool-audit-null", SET_UP, EINVAL, r_pool_audit_null),
	ROW("pool-stats-null-pool", SET_UP, EINVAL, r_pool_stats_null_pool),
	ROW("pool-stats-null-stats", SET_UP, EINVAL, r_pool_stats_null_stats),
	ROW("pool-info-null-pool", SET_UP, EINVAL, r_pool_info_null_pool),
	ROW("pool-info-null-info", SET_UP, EINVAL, r_pool_info_null_info),
	ROW("pool-owner-null", SET_UP, EINVAL, r_pool_owner_null),
	ROW("pool-name-null", SET_UP, EINVAL, r_pool_name_null),
	ROW("rcu-add-null-pool", SET_UP, EINVAL, r_rcu_add_null_pool),
	ROW("rcu-add-null-cfg", SET_UP, EINVAL, r_rcu_add_null_cfg),
	ROW("rcu-add-null-v", SET_UP, EINVAL, r_rcu_add_null_v),
	ROW("rcu-add-bad-mode", SET_UP, EINVAL, r_rcu_add_bad_mode),
	ROW("rcu-add-twice", SET_UP, EEXIST, r_rcu_add_twice),
	ROW("rcu-add-dq-wraps", SET_UP, EINVAL, r_rcu_add_dq_wraps),
	ROW("rcu-add-dq-max", SET_UP, EINVAL, r_rcu_add_dq_max),
	ROW("rcu-add-dq-too-big", SET_UP, EINVAL, r_rcu_add_dq_too_big),
	ROW("ops-create-name-null", SET_UP, EINVAL, r_ops_create_name_null),
	ROW("ops-create-n-0", SET_UP, EINVAL, r_ops_create_n_0),
	ROW("ops-create-name-too-long", SET_UP, ENAMETOOLONG,
		r_ops_create_name_too_long),
	ROW("ops-create-name-exists", SET_UP, EEXIST, r_ops_create_name_exists),
	ROW("ops-create-name-control", SET_UP, EINVAL, r_ops_create_name_control),
	ROW("ops-create-name-non-ascii", SET_UP, EINVAL,
		r_ops_create_name_non_ascii),
	ROW("ops-create-elt-size-wraps", SET_UP, EINVAL,
		r_ops_create_elt_size_wraps),
	ROW("ops-create-elt-size-too-big", SET_UP, EINVAL,
		r_ops_create_elt_size_too_big),
	ROW("ops-create-cache-too-big", SET_UP, EINVAL,
		r_ops_create_cache_too_big),
	ROW("ops-create-bad-flags", SET_UP, EINVAL, r_ops_create_bad_flags),
	ROW("ops-create-mbuf-pool", SET_UP, EINVAL, r_ops_create_mbuf_pool),
	ROW("ops-create-no-owner-id", SET_UP, ENOSPC, r_ops_create_no_owner_id),
	ROW("ops-create-ring-name-taken", SET_UP, EEXIST,
		r_ops_create_ring_name_taken),
	ROW("ops-populate-bad-conf", SET_UP, EINVAL, r_ops_populate_bad_conf),
	ROW("ops-populate-bad-name", SET_UP, EINVAL, r_ops_populate_bad_name),
};

static int
warm(struct rte_pcpu_mempool *mp, unsigned int n)
{
	void *o[4];

	if (rte_pcpu_mempool_get_bulk(mp, o, n) != 0 ||
	    rte_pcpu_mempool_put_bulk(mp, o, n) != 0)
		return -1;
	return 0;
}

static int
set_up_objects(void)
{
	size_t qsz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);

	bi.live = rte_pcpu_alloc(64, 0);
	bi.live_big = rte_pcpu_alloc(1024, 0);
	bi.mp = rte_pcpu_mempool_create("bad_input", 4, 16, 2, 0, NULL, NULL,
		RTE_PCPU_MEMPOOL_F_DEBUG);
	bi.other = rte_pcpu_mempool_create("bad_input_other", 4, 16, 0, 0,
		NULL, NULL, 0);
	/* room for exactly one object, whatever the number of lcores */
	bi.budget = rte_pcpu_mempool_create("bad_input_budget", 4, 16, 0,
		16ull * rte_lcore_count() + 8, NULL, NULL, 0);
	bi.qv = rte_zmalloc("bad_input_qsbr", qsz, RTE_CACHE_LINE_SIZE);
	bi.ops_mp = rte_pcpu_mempool_ops_create("bi_ops", 16, 64, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	/* at its limit: one object of 64 B, whatever the number of lcores */
	bi.owner = rte_pcpu_owner_create("bi_owner",
		64ull * rte_lcore_count());
	bi.owner_live = bi.owner == NULL ? NULL :
		rte_pcpu_alloc_owner(64, 0, bi.owner);
	if (bi.live == NULL || bi.live_big == NULL || bi.mp == NULL ||
	    bi.other == NULL || bi.budget == NULL || bi.qv == NULL ||
	    bi.ops_mp == NULL || bi.owner_live == NULL ||
	    rte_rcu_qsbr_init(bi.qv, RTE_MAX_LCORE) != 0)
		return -1;
	/* make every pool object now: rows must not grow the pools */
	return warm(bi.mp, 4) | warm(bi.other, 4) | warm(bi.budget, 1);
}

static void
tear_down_objects(void)
{
	rte_pcpu_mempool_free(bi.mp);
	rte_pcpu_mempool_free(bi.other);
	rte_pcpu_mempool_free(bi.budget);
	rte_free(bi.qv);
	rte_mempool_free(bi.ops_mp);
	rte_pcpu_free(bi.live);
	rte_pcpu_free(bi.live_big);
	rte_pcpu_free(bi.owner_live);
	rte_pcpu_owner_free(bi.owner);
	memset(&bi, 0, sizeof(bi));
}

static const char *
err_name(int e)
{
	switch (e) {
	case 0: return "none (no-op)";
	case NOT_FAILED: return "did not fail";
	case WRONG_RET: return "return value and rte_errno disagree";
	default: return strerror(e);
	}
}

/* The pools and the allocator are as before the row. */
static int
unchanged(const struct rte_pcpu_stats *s0)
{
	struct rte_pcpu_stats s;

	if (rte_pcpu_stats_get(&s) != 0 || s.nr_cur_alloc != s0->nr_cur_alloc)
		return 0;
	if (rte_pcpu_audit() != 0)
		return 0;
	if (rte_pcpu_mempool_in_use_count(bi.mp) != 0 ||
	    rte_pcpu_mempool_in_use_count(bi.other) != 0 ||
	    rte_pcpu_mempool_in_use_count(bi.budget) != 0 ||
	    rte_mempool_avail_count(bi.ops_mp) != 16)
		return 0;
	return rte_pcpu_mempool_audit(bi.mp) == 0 &&
		rte_pcpu_mempool_audit(bi.other) == 0 &&
		rte_pcpu_mempool_audit(bi.budget) == 0;
}

static int
test_pcpu_bad_input(void)
{
	struct rte_pcpu_stats s0;
	unsigned int i, failed = 0;
	enum phase cur = BEFORE_SETUP;

	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(),
			"cleanup of an earlier set-up");
	TEST_ASSERT_SUCCESS(bi_log_open(), "log capture");
	for (i = 0; i < RTE_DIM(rows); i++) {
		const struct bad_row *r = &rows[i];
		unsigned int lines, n_err;
		int got;

		if (r->phase != cur) {
			TEST_ASSERT_SUCCESS(rte_pcpu_init(NULL), "set-up");
			TEST_ASSERT_SUCCESS(set_up_objects(),
				"objects the rows use");
			cur = r->phase;
		}
		if (cur == SET_UP)
			TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s0), "stats");
		rte_errno = 0;
		TEST_ASSERT_SUCCESS(bi_log_start(), "log capture");
		got = r->call();
		lines = bi_log_stop(&n_err);
		if (got != r->err) {
			printf(" + FAIL row %-28s expected %s, got %s\n", r->id,
				err_name(r->err), err_name(got));
			failed++;
			continue;
		}
		if (r->quiet ? lines != 0 : lines != 1 || n_err != 1) {
			printf(" + FAIL row %-28s %s, but %u log lines (%u at "
				"ERR): %s\n", r->id, err_name(got), lines, n_err,
				r->quiet ? "none expected" :
				"one ERR line expected");
			failed++;
			continue;
		}
		if (cur == SET_UP && !unchanged(&s0)) {
			printf(" + FAIL row %-28s %s, but the state changed or "
				"an audit failed\n", r->id, err_name(got));
			failed++;
			continue;
		}
		printf(" + row %-28s %s\n", r->id, err_name(got));
	}
	if (cur == SET_UP)
		tear_down_objects();
	bi_log_close();
	printf("pcpu_bad_input_autotest: %zu rows, %u failed\n", RTE_DIM(rows),
		failed);
	return failed == 0 ? TEST_SUCCESS : TEST_FAILED;
}

REGISTER_TEST_COMMAND(pcpu_bad_input_autotest, test_pcpu_bad_input);
