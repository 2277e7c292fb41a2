/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_fault_sweep: every failure point of the library (pcpu_fault.h)
 * made to fail in turn, call by call, as SQLite's malloc and I/O error
 * tests do. Built only with -Dfault_injection=true, linked with the static
 * library (the control functions are internal); devtools/fault-sweep.sh
 * builds it with AddressSanitizer and runs it (make fault-sweep).
 *
 *   pcpu_fault_sweep [EAL args] [-- [-s SCENARIO]... [-v]]
 *
 * For each scenario and each failure point, for N = 1, 2, ...: set the
 * library up (with no fault), make call N of the point fail, run the
 * scenario, take everything down; until call N is never reached, which
 * means the scenario passed with no fault left to inject. In each run:
 *
 * - an operation that fails must fail with one of its documented errors
 *   (rte_errno), because of the injected fault, with a WARNING or ERR
 *   line of the library's log; then rte_pcpu_audit() and the audits of
 *   the scenario's pools must be clean, and the same operation, run
 *   again with the fault cleared, must succeed;
 * - a fault that no operation reports (the library worked around it)
 *   must leave the audits clean too;
 * - once the library is taken down, EAL's heap (blocks, bytes,
 *   memzones), the address space the library maps and the C heap
 *   (AddressSanitizer's count of allocated bytes) are back where they
 *   were, so nothing leaked; LeakSanitizer checks the C heap again at
 *   exit.
 *
 * A run that breaks a rule prints why, with the library's log of the run.
 * At the end a table says how many calls of each point each scenario
 * made (each of which was made to fail once); the exit status is 0 when
 * no run broke a rule.
 *
 * A scenario is one line of sweep_scenarios[]: a set-up run without
 * faults and a body run with one. Faults at process start (telemetry
 * registration in a constructor) are injected in child processes through
 * PCPU_FAULT_ARM (the "startup" scenario). The "shared_" scenarios use a
 * shared area (RTE_PCPU_F_SHARED); the "attach_" ones run a primary with
 * EAL hugepages and its secondary processes as children, the faults in
 * the secondaries' first reading call or in the primary's answer
 * (mp_primary()).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <malloc.h>
#include <mntent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_mempool_ops.h>
#include <rte_pcpu_owner.h>

#include "pcpu_fault.h"
#include "test_pcpu_eal_usage.h"

/* AddressSanitizer's count of bytes the program holds (weak: absent
 * without ASan, then mallinfo2() counts glibc's heap) */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

#define SWEEP_MAX_HELD 2048
#define SWEEP_MAX_POOLS 4
#define SWEEP_POOL_OBJS 64
#define SWEEP_MAX_N 100000
#define SWEEP_LOG_SIZE (64 * 1024)
/* a child process that takes longer is killed */
#define SWEEP_CHILD_TIMEOUT_S 120
/* free 2 MiB hugepages the attach scenarios need */
#define SWEEP_MP_HUGEPAGES 64

/* What a scenario holds; sweep_teardown() gives it all back. */
struct sweep_ctx {
	const char *scenario;
	enum pcpu_fault_point point;
	uint64_t nth;               /* 0: no fault (the census) */
	void *held[SWEEP_MAX_HELD]; /* rte_pcpu_alloc() handles */
	unsigned int nb_held;
	struct rte_pcpu_mempool *pools[SWEEP_MAX_POOLS];
	void *pool_objs[SWEEP_MAX_POOLS][SWEEP_POOL_OBJS];
	unsigned int nb_pool_objs[SWEEP_MAX_POOLS];
	unsigned int nb_pools;
	struct rte_mempool *mempool;  /* of the "pcpu" mempool ops */
	unsigned int reader;        /* lcore of an online RCU reader, or
				     * RTE_MAX_LCORE */
	unsigned int failed_ops;    /* operations that failed and worked
				     * again */
	int fired;                  /* the fault was injected */
	int violation;
	char why[512];
};

/* Totals of the sweep. */
static struct {
	uint64_t runs;
	uint64_t injected;          /* runs whose fault fired */
	uint64_t reported;          /* ... and failed an operation */
	uint64_t absorbed;          /* ... and the library worked around */
	uint64_t violations;
	uint64_t map_leaks_logged;  /* munmap failures: address space kept */
	uint64_t calls[32][PCPU_FAULT_NB]; /* [scenario][point] */
	unsigned int warnings[32];  /* log lines of the body without a
				     * fault */
} sweep;

static struct rte_pcpu_conf sweep_conf;
static struct rte_rcu_qsbr *sweep_qsbr;
static int sweep_verbose;

/* ---------------------------------------------------------------------- */
/* The library's log of one run, in a fixed buffer (no allocation). */

static struct {
	char buf[SWEEP_LOG_SIZE];
	size_t len;
	unsigned int warnings;      /* WARNING or worse, from the library */
	int pcpu_type;
	FILE *stream;
} sweep_log;

static ssize_t
sweep_log_write(void *c __rte_unused, const char *data, size_t size)
{
	size_t room = sizeof(sweep_log.buf) - 1 - sweep_log.len;

	if ((uint32_t)rte_log_cur_msg_logtype() == (uint32_t)sweep_log.pcpu_type &&
	    rte_log_cur_msg_loglevel() <= (int)RTE_LOG_WARNING)
		sweep_log.warnings++;
	memcpy(sweep_log.buf + sweep_log.len, data, RTE_MIN(size, room));
	sweep_log.len += RTE_MIN(size, room);
	sweep_log.buf[sweep_log.len] = '\0';
	return (ssize_t)size;
}

static void
sweep_log_clear(void)
{
	sweep_log.len = 0;
	sweep_log.buf[0] = '\0';
	sweep_log.warnings = 0;
}

static int
sweep_log_start(void)
{
	cookie_io_functions_t io = { .write = sweep_log_write };

	sweep_log.pcpu_type = rte_log_register("lib.pcpu_mempool");
	sweep_log.stream = fopencookie(NULL, "w", io);
	if (sweep_log.stream == NULL)
		return -1;
	setvbuf(sweep_log.stream, NULL, _IONBF, 0);
	rte_openlog_stream(sweep_log.stream);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* What is held: EAL memory, mappings, the C heap. */

struct sweep_usage {
	struct pcpu_test_eal_usage eal; /* heap blocks, bytes, memzones */
	int64_t mapped;
	size_t heap;
	unsigned int fds;           /* open file descriptors (memfds) */
};

/* Open file descriptors of this process: a shared area is files. */
static unsigned int
count_fds(void)
{
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (dir == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL)
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void
sweep_usage_get(struct sweep_usage *u)
{
	memset(u, 0, sizeof(*u));
	pcpu_test_eal_usage_get(&u->eal);
	u->mapped = pcpu_fault_mapped_bytes();
	u->fds = count_fds();
	if (__sanitizer_get_current_allocated_bytes != NULL)
		u->heap = __sanitizer_get_current_allocated_bytes();
	else
		u->heap = mallinfo2().uordblks;
}

/* ---------------------------------------------------------------------- */
/* Rules. */

static int __rte_format_printf(2, 3)
sweep_violation(struct sweep_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->violation)
		return -1;
	x->violation = 1;
	va_start(ap, fmt);
	vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	return -1;
}

static int
sweep_fired(const struct sweep_ctx *x)
{
	return x->nth != 0 && pcpu_fault_fired(x->point) != 0;
}

/* The allocator's and every pool's audit. */
static int
sweep_audit(struct sweep_ctx *x, const char *when)
{
	unsigned int i;

	if (rte_pcpu_audit() != 0)
		return sweep_violation(x, "%s: rte_pcpu_audit() failed", when);
	for (i = 0; i < x->nb_pools; i++)
		if (x->pools[i] != NULL &&
		    rte_pcpu_mempool_audit(x->pools[i]) != 0)
			return sweep_violation(x, "%s: audit of pool %s failed",
				when, rte_pcpu_mempool_name(x->pools[i]));
	return 0;
}

/*
 * Operation @p name failed with rte_errno @p err: check the rules, clear
 * the fault, audit. 0 lets the operation run again.
 */
static int
sweep_op_failed(struct sweep_ctx *x, const char *name, int err,
		const int *documented)
{
	unsigned int i;

	if (!sweep_fired(x))
		return sweep_violation(x, "%s failed with no fault injected: "
			"%s", name, rte_strerror(err));
	for (i = 0; documented[i] != 0; i++)
		if (documented[i] == err)
			break;
	x->fired = 1;
	if (documented[i] == 0)
		return sweep_violation(x, "%s failed with rte_errno %d (%s), "
			"not a documented error", name, err, rte_strerror(err));
	if (sweep_log.warnings == 0)
		return sweep_violation(x, "%s failed (%s) without a WARNING or "
			"ERR line in the log", name, rte_strerror(err));
	pcpu_fault_arm(x->point, 0);
	x->failed_ops++;
	return sweep_audit(x, name);
}

/*
 * One operation of a scenario: @p stmt, after which @p ok tells whether it
 * worked; the documented errors follow. On failure the rules are checked
 * and the operation runs again with the fault cleared: it must work.
 */
#define OP(x, name, stmt, ok, ...) do {					\
	static const int op_errs_[] = { __VA_ARGS__, 0 };		\
	rte_errno = 0;							\
	stmt;								\
	if (!(ok)) {							\
		if (sweep_op_failed(x, name, rte_errno, op_errs_) != 0)	\
			return -1;					\
		rte_errno = 0;						\
		stmt;							\
		if (!(ok))						\
			return sweep_violation(x, "%s failed again with " \
				"the fault cleared: %s", name,		\
				rte_strerror(rte_errno));		\
	}								\
} while (0)

/* A check that is not an operation (a value read back). */
#define CHECK(x, cond, ...) do {					\
	if (!(cond))							\
		return sweep_violation(x, __VA_ARGS__);			\
} while (0)

/* ---------------------------------------------------------------------- */
/* Helpers of the scenarios. */

/* The audits in the body of a scenario: a pool's audit needs memory for
 * its check, so it is an operation like any other (ENOMEM). */
static int
audit_op(struct sweep_ctx *x, const char *when)
{
	unsigned int i;
	int ret;

	CHECK(x, rte_pcpu_audit() == 0, "%s: rte_pcpu_audit() failed", when);
	for (i = 0; i < x->nb_pools; i++)
		if (x->pools[i] != NULL)
			OP(x, "rte_pcpu_mempool_audit",
				ret = rte_pcpu_mempool_audit(x->pools[i]),
				ret == 0, ENOMEM);
	return 0;
}

static int
hold(struct sweep_ctx *x, void *h)
{
	if (x->nb_held == SWEEP_MAX_HELD)
		return sweep_violation(x, "scenario holds too many objects");
	x->held[x->nb_held++] = h;
	return 0;
}

/* Allocate @p n objects of @p size, write every lcore's copy. */
static int
alloc_some(struct sweep_ctx *x, size_t size, size_t align, unsigned int n)
{
	unsigned int i, l;
	uint8_t *h, *v;

	for (i = 0; i < n; i++) {
		OP(x, "rte_pcpu_alloc", h = rte_pcpu_alloc(size, align),
			h != NULL, ENOMEM);
		RTE_PCPU_FOREACH(l, v, h) {
			CHECK(x, v[0] == 0 && v[size - 1] == 0,
				"object of %zu bytes not zero on lcore %u",
				size, l);
			v[0] = (uint8_t)l;
			v[size - 1] = 0xa5;
		}
		if (hold(x, h) != 0)
			return -1;
	}
	return 0;
}

/* Free the held objects from @p first on, newest first. */
static int
free_from(struct sweep_ctx *x, unsigned int first)
{
	while (x->nb_held > first) {
		void *h = x->held[--x->nb_held];

		CHECK(x, rte_pcpu_free(h) == 0, "rte_pcpu_free(%p): %s", h,
			rte_strerror(rte_errno));
	}
	return 0;
}

static int
sweep_init(struct sweep_ctx *x, const struct rte_pcpu_conf *conf)
{
	OP(x, "rte_pcpu_init", , rte_pcpu_init(conf) == 0, ENOMEM);
	return 0;
}

/* A pool the context holds; its index in *idx. */
static int
pool_create(struct sweep_ctx *x, const char *name, unsigned int n,
		size_t elt_size, unsigned int cache, rte_pcpu_mempool_obj_cb_t *init,
		unsigned int flags, unsigned int *idx)
{
	struct rte_pcpu_mempool *mp;

	if (x->nb_pools == SWEEP_MAX_POOLS)
		return sweep_violation(x, "too many pools");
	OP(x, "rte_pcpu_mempool_create", mp = rte_pcpu_mempool_create(name, n,
		elt_size, cache, 0, init, NULL, flags), mp != NULL, ENOMEM);
	*idx = x->nb_pools;
	x->pools[x->nb_pools++] = mp;
	return 0;
}

static int
pool_get(struct sweep_ctx *x, unsigned int idx, unsigned int n)
{
	struct rte_pcpu_mempool *mp = x->pools[idx];
	void **dst = &x->pool_objs[idx][x->nb_pool_objs[idx]];
	int ret;

	if (x->nb_pool_objs[idx] + n > SWEEP_POOL_OBJS)
		return sweep_violation(x, "too many pool objects");
	OP(x, "rte_pcpu_mempool_get_bulk",
		ret = rte_pcpu_mempool_get_bulk(mp, dst, n), ret == 0, ENOMEM);
	x->nb_pool_objs[idx] += n;
	return 0;
}

static int
pool_put(struct sweep_ctx *x, unsigned int idx, unsigned int n)
{
	struct rte_pcpu_mempool *mp = x->pools[idx];

	n = RTE_MIN(n, x->nb_pool_objs[idx]);
	if (n == 0)
		return 0;
	x->nb_pool_objs[idx] -= n;
	CHECK(x, rte_pcpu_mempool_put_bulk(mp,
		&x->pool_objs[idx][x->nb_pool_objs[idx]], n) == 0,
		"put_bulk: %s", rte_strerror(rte_errno));
	return 0;
}

static int
pool_free(struct sweep_ctx *x, unsigned int idx)
{
	if (pool_put(x, idx, SWEEP_POOL_OBJS) != 0)
		return -1;
	CHECK(x, rte_pcpu_mempool_free(x->pools[idx]) == 0,
		"rte_pcpu_mempool_free(%s): %s",
		rte_pcpu_mempool_name(x->pools[idx]), rte_strerror(rte_errno));
	x->pools[idx] = NULL;
	return 0;
}

/* obj_init: a mark in every copy, checked by pool_check_marks() */
static void
mark_init(struct rte_pcpu_mempool *mp __rte_unused, void *arg __rte_unused,
		void *obj, unsigned int lcore_id)
{
	*(uint64_t *)obj = 0x5eed0000 + lcore_id;
}

static int
pool_check_marks(struct sweep_ctx *x, unsigned int idx)
{
	unsigned int i, l;
	uint64_t *v;

	for (i = 0; i < x->nb_pool_objs[idx]; i++)
		RTE_PCPU_FOREACH(l, v, (uint64_t *)x->pool_objs[idx][i])
			CHECK(x, *v == 0x5eed0000 + l, "pool object %p: lcore "
				"%u's copy not initialised (%#" PRIx64 ")",
				x->pool_objs[idx][i], l, *v);
	return 0;
}

/* Run @p fn on the first worker lcore (skipped without one). */
static int
on_worker(struct sweep_ctx *x, lcore_function_t *fn)
{
	unsigned int l = rte_get_next_lcore(-1, 1, 0);

	if (l >= RTE_MAX_LCORE)
		return 0;
	if (rte_eal_remote_launch(fn, x, l) != 0)
		return sweep_violation(x, "remote launch on lcore %u", l);
	return rte_eal_wait_lcore(l) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------- */
/* Scenarios. */

static int
setup_init(struct sweep_ctx *x)
{
	return sweep_init(x, &sweep_conf);
}

/* Set-up: the library, and the main lcore's cache of every class. */
static int
setup_warm(struct sweep_ctx *x)
{
	if (setup_init(x) != 0 || alloc_some(x, 8, 0, 1) != 0)
		return -1;
	return free_from(x, 0);
}

/* rte_pcpu_init(), then the first allocations set up the lcore's caches. */
static int
run_init(struct sweep_ctx *x)
{
	if (sweep_init(x, &sweep_conf) != 0 || alloc_some(x, 16, 0, 4) != 0)
		return -1;
	return free_from(x, 0);
}

/* Cached sizes: refills that create and populate chunks, flushes. */
static int
run_alloc_small(struct sweep_ctx *x)
{
	static const size_t sizes[] = { 8, 24, 64, 200, 512 };
	unsigned int i;

	/* over 512 KiB per lcore: more than the first chunk */
	for (i = 0; i < RTE_DIM(sizes); i++)
		if (alloc_some(x, sizes[i], 0, 100) != 0)
			return -1;
	if (alloc_some(x, 512, 0, 1000) != 0)
		return -1;
	if (free_from(x, x->nb_held / 2) != 0 ||
	    alloc_some(x, 48, 0, 16) != 0 || free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_cache_flush() >= 0, "cache flush: %s",
		rte_strerror(rte_errno));
	return 0;
}

/* Sizes the chunk allocator serves directly, up to the largest chunk
 * object and the largest alignment: several chunks. */
static int
run_alloc_large(struct sweep_ctx *x)
{
	if (alloc_some(x, 1000, 0, 8) != 0 ||
	    alloc_some(x, 4104, RTE_PCPU_MAX_ALIGN, 4) != 0 ||
	    alloc_some(x, 64 * 1024, 0, 3) != 0 ||
	    alloc_some(x, RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0, 5) != 0)
		return -1;
	return free_from(x, 0);
}

/* Spans: objects of one and of several whole chunks. */
static int
run_alloc_span(struct sweep_ctx *x)
{
	if (alloc_some(x, RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 8, 0, 2) != 0 ||
	    alloc_some(x, (1u << 20) + 4096, RTE_PCPU_MAX_ALIGN, 2) != 0 ||
	    alloc_some(x, 3u << 20, 0, 2) != 0 || free_from(x, 2) != 0 ||
	    alloc_some(x, 2u << 20, 0, 1) != 0)
		return -1;
	return free_from(x, 0);
}

/* An owner's figures: @p nr live allocations of @p copy bytes per copy in
 * all, as many frees as allocations but those, no failure counted. */
static int
owner_check(struct sweep_ctx *x, struct rte_pcpu_owner *o, uint64_t nr,
		uint64_t copy, uint64_t allocs)
{
	struct rte_pcpu_owner_stats st;

	CHECK(x, rte_pcpu_owner_stats_get(o, &st) == 0, "owner stats: %s",
		rte_strerror(rte_errno));
	CHECK(x, st.nr_live == nr && st.live_copy_bytes == copy &&
		st.nr_alloc == allocs && st.nr_fail == 0,
		"owner %s: %" PRIu64 " live in %" PRIu64 " bytes per copy, %"
		PRIu64 " allocations, %" PRIu64 " failures; expected %" PRIu64
		" in %" PRIu64 ", %" PRIu64 ", 0", rte_pcpu_owner_name(o),
		st.nr_live, st.live_copy_bytes, st.nr_alloc, st.nr_fail, nr,
		copy, allocs);
	return 0;
}

/*
 * Owners: an allocation that fails for a call the library makes takes its
 * charge back and counts no failure at the limit, whatever layer failed
 * (cache refill, chunk, owner vector, span), for an owner with a limit
 * (never reached) and one without; at the end both are charged nothing
 * and can be freed.
 */
static int
run_owners(struct sweep_ctx *x)
{
	static const size_t sizes[] = { 24, 512, 1000, 64 * 1024,
		RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 8 };
	struct rte_pcpu_owner *o[2];
	struct rte_pcpu_owner_stats st;
	uint64_t copy[2] = { 0, 0 }, nr[2] = { 0, 0 }, before;
	unsigned int i, k, base = x->nb_held;
	uint8_t *h;

	o[0] = rte_pcpu_owner_create("sweep_owner", 0);
	o[1] = rte_pcpu_owner_create("sweep_limited", UINT64_C(1) << 40);
	CHECK(x, o[0] != NULL && o[1] != NULL, "owner create: %s",
		rte_strerror(rte_errno));
	for (i = 0; i < 2 * RTE_DIM(sizes); i++) {
		k = i % 2;
		CHECK(x, rte_pcpu_owner_stats_get(o[k], &st) == 0, "stats");
		before = st.live_copy_bytes;
		OP(x, "rte_pcpu_alloc_owner",
			h = rte_pcpu_alloc_owner(sizes[i / 2], 0, o[k]),
			h != NULL, ENOMEM);
		if (hold(x, h) != 0)
			return -1;
		CHECK(x, rte_pcpu_owner_stats_get(o[k], &st) == 0, "stats");
		copy[k] += st.live_copy_bytes - before;
		nr[k]++;
		if (owner_check(x, o[k], nr[k], copy[k], nr[k]) != 0)
			return -1;
	}
	if (audit_op(x, "owners") != 0 || free_from(x, base) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		if (owner_check(x, o[k], 0, 0, nr[k]) != 0)
			return -1;
		CHECK(x, rte_pcpu_owner_free(o[k]) == 0, "owner free: %s",
			rte_strerror(rte_errno));
	}
	return 0;
}

/* Set-up: chunks with pages to give back. */
static int
setup_reclaim(struct sweep_ctx *x)
{
	if (setup_warm(x) != 0 || alloc_some(x, 64 * 1024, 0, 12) != 0 ||
	    alloc_some(x, 100, 0, 40) != 0)
		return -1;
	if (free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_cache_flush() >= 0, "flush");
	return 0;
}

/* Depopulation and destruction of chunks, then population again. */
static int
run_reclaim(struct sweep_ctx *x)
{
	CHECK(x, rte_pcpu_reclaim() >= 0, "rte_pcpu_reclaim: %s",
		rte_strerror(rte_errno));
	if (alloc_some(x, 64 * 1024, 0, 6) != 0 || free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_reclaim() >= 0, "rte_pcpu_reclaim: %s",
		rte_strerror(rte_errno));
	return 0;
}

static int
setup_huge(struct sweep_ctx *x)
{
	struct rte_pcpu_conf conf = sweep_conf;

	conf.page_policy = RTE_PCPU_PAGE_HUGE;
	conf.chunk_size = 2u << 20;
	return sweep_init(x, &conf);
}

/* 2 MiB pages: population maps hugepages, reclaim unmaps them. */
static int
run_alloc_huge(struct sweep_ctx *x)
{
	if (alloc_some(x, RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0, 10) != 0 ||
	    alloc_some(x, 40, 0, 8) != 0 || alloc_some(x, 3u << 20, 0, 1) != 0 ||
	    free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_cache_flush() >= 0, "flush");
	CHECK(x, rte_pcpu_reclaim() >= 0, "reclaim");
	return 0;
}

static int
worker_pool_use(void *arg)
{
	struct sweep_ctx *x = arg;
	void *o[6];
	int ret;

	/* this lcore's cache parks objects for the main lcore to steal */
	OP(x, "rte_pcpu_mempool_get_bulk (worker)",
		ret = rte_pcpu_mempool_get_bulk(x->pools[0], o, RTE_DIM(o)),
		ret == 0, ENOMEM);
	CHECK(x, rte_pcpu_mempool_put_bulk(x->pools[0], o, RTE_DIM(o)) == 0,
		"worker put");
	return 0;
}

/* A pool with lcore caches: growth, refills, another lcore's cache,
 * stealing from it, free. */
static int
run_pool_cache(struct sweep_ctx *x)
{
	unsigned int p;

	if (pool_create(x, "sweep_cache", 48, 24, 8, NULL, 0, &p) != 0 ||
	    pool_get(x, p, 10) != 0 || pool_put(x, p, 10) != 0 ||
	    on_worker(x, worker_pool_use) != 0 ||
	    pool_get(x, p, 48) != 0 || audit_op(x, "pool in use") != 0)
		return -1;
	return pool_free(x, p);
}

/* Pools without caches: debug table, prefill, obj_init. */
static int
run_pool_nocache(struct sweep_ctx *x)
{
	unsigned int p, q;

	if (pool_create(x, "sweep_debug", 32, 40, 0, NULL,
			RTE_PCPU_MEMPOOL_F_DEBUG, &p) != 0 ||
	    pool_get(x, p, 20) != 0 || pool_put(x, p, 5) != 0 ||
	    pool_create(x, "sweep_prefill", 16, 16, 4, mark_init,
			RTE_PCPU_MEMPOOL_F_PREFILL, &q) != 0 ||
	    pool_get(x, q, 16) != 0 || pool_check_marks(x, q) != 0 ||
	    audit_op(x, "pools in use") != 0)
		return -1;
	if (pool_free(x, p) != 0 || pool_free(x, q) != 0)
		return -1;
	return 0;
}

static int
pool_rcu(struct sweep_ctx *x, enum rte_pcpu_mempool_qsbr_mode mode)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	unsigned int p;
	int ret;

	if (pool_create(x, "sweep_rcu", 24, 16, 4, NULL, 0, &p) != 0)
		return -1;
	cfg.v = sweep_qsbr;
	cfg.mode = mode;
	cfg.max_reclaim_size = 4;
	OP(x, "rte_pcpu_mempool_rcu_qsbr_add",
		ret = rte_pcpu_mempool_rcu_qsbr_add(x->pools[p], &cfg),
		ret == 0, ENOMEM);
	/* no reader online: every grace period ends at once */
	if (pool_get(x, p, 24) != 0 || pool_put(x, p, 24) != 0 ||
	    pool_get(x, p, 24) != 0 || pool_put(x, p, 12) != 0 ||
	    audit_op(x, "RCU pool in use") != 0)
		return -1;
	return pool_free(x, p);
}

static int
run_pool_rcu_dq(struct sweep_ctx *x)
{
	return pool_rcu(x, RTE_PCPU_MEMPOOL_QSBR_MODE_DQ);
}

static int
run_pool_rcu_sync(struct sweep_ctx *x)
{
	return pool_rcu(x, RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC);
}

/* A stock rte_mempool with the "pcpu" ops: create (the driver's data, its
 * ring, the percpu blocks of populate: over 400 KiB per lcore, new chunk
 * pages), get and put, free. */
static int
run_mempool_ops(struct sweep_ctx *x)
{
	void *o[16];

	OP(x, "rte_pcpu_mempool_ops_create",
		x->mempool = rte_pcpu_mempool_ops_create("sweep_ops", 2047, 200,
			8, 0, NULL, NULL, NULL, NULL, SOCKET_ID_ANY, 0),
		x->mempool != NULL, ENOMEM);
	CHECK(x, rte_mempool_get_bulk(x->mempool, o, RTE_DIM(o)) == 0,
		"rte_mempool_get_bulk");
	rte_mempool_put_bulk(x->mempool, o, RTE_DIM(o));
	CHECK(x, rte_pcpu_audit() == 0, "rte_pcpu_audit with the pool");
	rte_mempool_free(x->mempool);
	x->mempool = NULL;
	return 0;
}

/* Set-up: chunks with populated pages and a pool with obj_init, so an
 * arriving lcore needs pages and initialised copies. */
static int
setup_lcore(struct sweep_ctx *x)
{
	unsigned int p;

	if (setup_warm(x) != 0 || alloc_some(x, 300, 0, 20) != 0 ||
	    alloc_some(x, 64 * 1024, 0, 4) != 0 ||
	    pool_create(x, "sweep_lcore", 16, 24, 4, mark_init, 0, &p) != 0 ||
	    pool_get(x, p, 8) != 0)
		return -1;
	return 0;
}

/* On a thread that registers as an lcore (its arrival), allocates, uses
 * the pool, and unregisters (its departure). */
static int
lcore_life(struct sweep_ctx *x)
{
	int ret;

	OP(x, "rte_thread_register", ret = rte_thread_register(), ret == 0,
		ENOMEM);
	CHECK(x, rte_pcpu_lcore_has_memory(rte_lcore_id()),
		"registered lcore %u has no memory", rte_lcore_id());
	ret = pool_check_marks(x, 0);
	if (ret == 0)
		ret = alloc_some(x, 200, 0, 10);
	if (ret == 0)
		ret = pool_get(x, 0, 4);
	if (ret == 0)
		ret = pool_check_marks(x, 0);
	if (ret == 0)
		ret = pool_put(x, 0, 4);
	rte_thread_unregister();
	return ret;
}

static void *
lcore_thread(void *arg)
{
	return (void *)(intptr_t)lcore_life(arg);
}

static int
run_lcore(struct sweep_ctx *x)
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, lcore_thread, x) != 0)
		return sweep_violation(x, "pthread_create");
	pthread_join(t, &ret);
	if (ret != NULL)
		return -1;
	return pool_check_marks(x, 0);
}

static volatile int sweep_reader_stop;

static int
reader_loop(void *arg __rte_unused)
{
	unsigned int id = rte_lcore_id();

	rte_rcu_qsbr_thread_register(sweep_qsbr, id);
	rte_rcu_qsbr_thread_online(sweep_qsbr, id);
	while (!__atomic_load_n(&sweep_reader_stop, __ATOMIC_ACQUIRE))
		rte_pause();
	rte_rcu_qsbr_thread_offline(sweep_qsbr, id);
	rte_rcu_qsbr_thread_unregister(sweep_qsbr, id);
	return 0;
}

/* Set-up: everything there is to take down, RCU puts still waiting on a
 * reader that is online. */
static int
setup_cleanup(struct sweep_ctx *x)
{
	struct rte_pcpu_mempool_rcu_config cfg = { 0 };
	unsigned int p, q, r;
	int ret;

	if (setup_warm(x) != 0 || alloc_some(x, 40, 0, 30) != 0 ||
	    alloc_some(x, 64 * 1024, 0, 3) != 0 ||
	    pool_create(x, "sweep_c1", 16, 16, 4, NULL, 0, &p) != 0 ||
	    pool_get(x, p, 6) != 0 ||
	    pool_create(x, "sweep_c2", 16, 32, 0, NULL,
			RTE_PCPU_MEMPOOL_F_DEBUG, &q) != 0 ||
	    pool_get(x, q, 3) != 0 ||
	    pool_create(x, "sweep_c3", 16, 16, 4, NULL, 0, &r) != 0)
		return -1;
	cfg.v = sweep_qsbr;
	cfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	OP(x, "rcu_qsbr_add", ret = rte_pcpu_mempool_rcu_qsbr_add(x->pools[r],
		&cfg), ret == 0, ENOMEM);
	x->reader = rte_get_next_lcore(-1, 1, 0);
	if (x->reader < RTE_MAX_LCORE) {
		__atomic_store_n(&sweep_reader_stop, 0, __ATOMIC_RELEASE);
		if (rte_eal_remote_launch(reader_loop, NULL, x->reader) != 0)
			return sweep_violation(x, "reader launch");
		/* puts after the reader is online wait for it */
		rte_delay_us_block(1000);
	}
	return pool_get(x, r, 8) == 0 ? pool_put(x, r, 8) : -1;
}

/* rte_pcpu_cleanup() with objects, pools, caches and RCU puts live. */
static int
run_cleanup(struct sweep_ctx *x)
{
	unsigned int i;

	CHECK(x, rte_pcpu_cleanup() == 0, "rte_pcpu_cleanup: %s",
		rte_strerror(rte_errno));
	/* everything went with it */
	x->nb_held = 0;
	for (i = 0; i < x->nb_pools; i++) {
		x->pools[i] = NULL;
		x->nb_pool_objs[i] = 0;
	}
	return 0;
}

static int
run_startup(struct sweep_ctx *x __rte_unused)
{
	return 0;  /* child processes: sweep_startup() */
}

/* ---------------------------------------------------------------------- */
/* The shared area (RTE_PCPU_F_SHARED): files, mapped over the reservation,
 * holes punched to give memory back, the memzone and the thread that
 * answer secondary processes. */

static struct rte_pcpu_conf
shared_conf(void)
{
	struct rte_pcpu_conf conf = sweep_conf;

	conf.flags |= RTE_PCPU_F_SHARED;
	return conf;
}

/* rte_pcpu_init() of a shared area, then the first allocations. */
static int
run_shared_init(struct sweep_ctx *x)
{
	struct rte_pcpu_conf conf = shared_conf();

	if (sweep_init(x, &conf) != 0 || alloc_some(x, 16, 0, 4) != 0)
		return -1;
	return free_from(x, 0);
}

static int
setup_shared_warm(struct sweep_ctx *x)
{
	struct rte_pcpu_conf conf = shared_conf();

	if (sweep_init(x, &conf) != 0 || alloc_some(x, 8, 0, 1) != 0)
		return -1;
	return free_from(x, 0);
}

/* Cached and chunk sizes over several chunks (each mapped from the file
 * when created), a span of several chunks, frees. */
static int
run_shared_alloc(struct sweep_ctx *x)
{
	if (alloc_some(x, 64, 0, 100) != 0 ||
	    alloc_some(x, 512, 0, 1000) != 0 ||
	    alloc_some(x, 4104, RTE_PCPU_MAX_ALIGN, 4) != 0 ||
	    alloc_some(x, 64 * 1024, 0, 3) != 0 ||
	    alloc_some(x, (1u << 20) + 4096, 0, 1) != 0 ||
	    free_from(x, x->nb_held / 2) != 0 ||
	    alloc_some(x, 48, 0, 16) != 0 || free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_cache_flush() >= 0, "cache flush: %s",
		rte_strerror(rte_errno));
	return 0;
}

/* Set-up: chunks of a shared area with pages to give back. */
static int
setup_shared_reclaim(struct sweep_ctx *x)
{
	if (setup_shared_warm(x) != 0 || alloc_some(x, 64 * 1024, 0, 12) != 0 ||
	    alloc_some(x, 100, 0, 40) != 0)
		return -1;
	if (free_from(x, 0) != 0)
		return -1;
	CHECK(x, rte_pcpu_cache_flush() >= 0, "flush");
	return 0;
}

/* A shared area of 2 MiB pages: a hugepage file and its 4 KiB fall-back
 * file, the map of fall-back ranges in EAL memory. */
static int
setup_shared_huge(struct sweep_ctx *x)
{
	struct rte_pcpu_conf conf = shared_conf();

	conf.page_policy = RTE_PCPU_PAGE_HUGE;
	conf.chunk_size = 2u << 20;
	return sweep_init(x, &conf);
}

/* rte_pcpu_init() of a shared area of 2 MiB pages, then what alloc_huge
 * does. */
static int
run_shared_huge(struct sweep_ctx *x)
{
	return setup_shared_huge(x) == 0 ? run_alloc_huge(x) : -1;
}

/* Set-up: a shared area with objects and a pool, to take down. */
static int
setup_shared_cleanup(struct sweep_ctx *x)
{
	unsigned int p;

	if (setup_shared_warm(x) != 0 || alloc_some(x, 40, 0, 30) != 0 ||
	    alloc_some(x, 64 * 1024, 0, 3) != 0 ||
	    alloc_some(x, (1u << 20) + 4096, 0, 1) != 0 ||
	    pool_create(x, "sweep_shc", 16, 16, 4, NULL, 0, &p) != 0 ||
	    pool_get(x, p, 6) != 0)
		return -1;
	return 0;
}

static int
run_secondary(struct sweep_ctx *x __rte_unused)
{
	return 0;  /* child processes: sweep_secondary() */
}

/* The scenarios: name, set-up (no fault), body (one fault). */
static const struct sweep_scenario {
	const char *name;
	int (*setup)(struct sweep_ctx *x);
	int (*run)(struct sweep_ctx *x);
} sweep_scenarios[] = {
	{ "init", NULL, run_init },
	{ "alloc_small", setup_warm, run_alloc_small },
	{ "alloc_large", setup_warm, run_alloc_large },
	{ "alloc_span", setup_warm, run_alloc_span },
	{ "alloc_huge", setup_huge, run_alloc_huge },
	{ "reclaim", setup_reclaim, run_reclaim },
	{ "pool_cache", setup_warm, run_pool_cache },
	{ "pool_nocache", setup_warm, run_pool_nocache },
	{ "pool_rcu_dq", setup_warm, run_pool_rcu_dq },
	{ "pool_rcu_sync", setup_warm, run_pool_rcu_sync },
	{ "mempool_ops", setup_warm, run_mempool_ops },
	{ "owners", setup_warm, run_owners },
	{ "lcore", setup_lcore, run_lcore },
	{ "cleanup", setup_cleanup, run_cleanup },
	{ "startup", NULL, run_startup },
	{ "shared_init", NULL, run_shared_init },
	{ "shared_alloc", setup_shared_warm, run_shared_alloc },
	{ "shared_huge", NULL, run_shared_huge },
	{ "shared_reclaim", setup_shared_reclaim, run_reclaim },
	{ "shared_cleanup", setup_shared_cleanup, run_cleanup },
	{ "attach_stats", NULL, run_secondary },
	{ "attach_lookup", NULL, run_secondary },
	{ "attach_serve", NULL, run_secondary },
};

/* ---------------------------------------------------------------------- */
/* The sweep. */

/* Give back whatever the scenario holds, then take the library down. */
static void
sweep_teardown(struct sweep_ctx *x)
{
	unsigned int i;

	if (x->reader < RTE_MAX_LCORE) {
		__atomic_store_n(&sweep_reader_stop, 1, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(x->reader);
		x->reader = RTE_MAX_LCORE;
	}
	rte_mempool_free(x->mempool);
	x->mempool = NULL;
	for (i = 0; i < x->nb_pools; i++) {
		if (x->pools[i] == NULL)
			continue;
		if (x->nb_pool_objs[i] != 0)
			rte_pcpu_mempool_put_bulk(x->pools[i], x->pool_objs[i],
				x->nb_pool_objs[i]);
		x->nb_pool_objs[i] = 0;
		rte_pcpu_mempool_free(x->pools[i]);
		x->pools[i] = NULL;
	}
	while (x->nb_held > 0)
		rte_pcpu_free(x->held[--x->nb_held]);
	rte_pcpu_cleanup();
}

static void
sweep_report(const struct sweep_ctx *x)
{
	if (x->nth != 0)
		printf("VIOLATION %s, %s call %" PRIu64 ": %s\n", x->scenario,
			pcpu_fault_name(x->point), x->nth, x->why);
	else
		printf("VIOLATION %s, without a fault: %s\n", x->scenario,
			x->why);
	printf("--- log of the run ---\n%s--- end of log ---\n", sweep_log.buf);
}

/*
 * One run: set-up, call @p nth of @p point made to fail (0: none) during
 * the body, checks, tear-down, leak checks. Returns whether the fault
 * fired (1), or 0.
 */
static int
sweep_run(const struct sweep_scenario *s, unsigned int si,
		enum pcpu_fault_point point, uint64_t nth,
		const struct sweep_usage *base)
{
	struct sweep_ctx x = { .scenario = s->name, .point = point,
		.nth = nth, .reader = RTE_MAX_LCORE };
	struct sweep_usage after;
	unsigned int p, body_warnings = 0;
	int fired = 0;

	sweep_log_clear();
	pcpu_fault_reset();
	if (s->setup != NULL && s->setup(&x) != 0) {
		if (!x.violation)
			sweep_violation(&x, "set-up failed");
		goto done;
	}
	/* counts of the body alone */
	pcpu_fault_reset();
	if (nth != 0)
		pcpu_fault_arm(point, nth);
	sweep_log_clear();
	s->run(&x);
	fired = x.fired || (nth != 0 && pcpu_fault_fired(point) != 0);
	if (nth == 0 && base != NULL) {
		for (p = 0; p < PCPU_FAULT_NB; p++)
			sweep.calls[si][p] = pcpu_fault_calls(
				(enum pcpu_fault_point)p);
		sweep.warnings[si] = sweep_log.warnings;
	}
	body_warnings = sweep_log.warnings;
	pcpu_fault_reset();
	if (!x.violation)
		sweep_audit(&x, "after the body");
done:
	sweep_teardown(&x);
	if (!x.violation && base != NULL) {
		sweep_usage_get(&after);
		if (after.mapped != base->mapped && point == PCPU_FAULT_MUNMAP &&
		    fired && body_warnings > sweep.warnings[si]) {
			/* a mapping that cannot be unmapped stays, logged */
			sweep.map_leaks_logged++;
		} else if (after.mapped != base->mapped) {
			sweep_violation(&x, "address space the library maps: "
				"%" PRId64 " bytes, %" PRId64 " before",
				after.mapped, base->mapped);
		}
		if (!pcpu_test_eal_usage_equal(&after.eal, &base->eal))
			sweep_violation(&x, "EAL memory leaked: %" PRIu64
				" blocks, %" PRIu64 " bytes, %u memzones; "
				"before %" PRIu64 ", %" PRIu64 ", %u",
				after.eal.blocks, after.eal.bytes,
				after.eal.memzones, base->eal.blocks,
				base->eal.bytes, base->eal.memzones);
		if (after.heap != base->heap)
			sweep_violation(&x, "C heap leaked: %zu bytes held, "
				"%zu before", after.heap, base->heap);
		if (after.fds != base->fds)
			sweep_violation(&x, "file descriptors leaked: %u open, "
				"%u before", after.fds, base->fds);
	}
	sweep.runs++;
	if (fired) {
		sweep.injected++;
		if (x.failed_ops != 0)
			sweep.reported++;
		else
			sweep.absorbed++;
	}
	if (x.violation) {
		sweep.violations++;
		sweep_report(&x);
	} else if (sweep_verbose && nth != 0) {
		printf("ok %s %s call %" PRIu64 ": %s\n", s->name,
			pcpu_fault_name(point), nth, !fired ? "not reached" :
			x.failed_ops != 0 ? "reported" : "worked around");
	}
	return fired;
}

/* ---------------------------------------------------------------------- */
/* Faults at process start: a child process per call. */

/* The EAL arguments of this process, before rte_eal_init() reorders
 * them, for the children. */
static char **sweep_eal_args;
static int sweep_nb_eal_args;

/* In the child: the constructor failed to register some telemetry
 * command; rte_pcpu_init() must register it, once. */
static int
startup_child(void)
{
	uint64_t ctor_calls = pcpu_fault_calls(PCPU_FAULT_TELEMETRY);
	uint64_t fired = pcpu_fault_fired(PCPU_FAULT_TELEMETRY);
	uint64_t after;
	void *h;

	if (rte_pcpu_init(&sweep_conf) != 0) {
		printf("child: rte_pcpu_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	after = pcpu_fault_calls(PCPU_FAULT_TELEMETRY);
	if (after != ctor_calls + fired) {
		printf("child: %" PRIu64 " registrations at start, %" PRIu64
			" failed, %" PRIu64 " more at init, want %" PRIu64 "\n",
			ctor_calls, fired, after - ctor_calls, fired);
		return 1;
	}
	h = rte_pcpu_alloc(8, 0);
	if (h == NULL || rte_pcpu_free(h) != 0 || rte_pcpu_audit() != 0 ||
	    rte_pcpu_cleanup() != 0 || rte_pcpu_init(&sweep_conf) != 0 ||
	    pcpu_fault_calls(PCPU_FAULT_TELEMETRY) != after ||
	    rte_pcpu_cleanup() != 0) {
		printf("child: library not usable, or registered again\n");
		return 1;
	}
	printf("child: %" PRIu64 " of %" PRIu64 " registrations failed at "
		"start, registered by rte_pcpu_init()\n", fired, ctor_calls);
	return fired != 0 ? 0 : 2;
}

/* A child process: this program with the sweep's EAL arguments (without
 * --file-prefix, and without --no-huge and -m when @p huge), then
 * --file-prefix=@p prefix (and EAL's base address when @p huge) and,
 * after "--", @p mode (and -v); @p env in its environment (NULL: none).
 * Its output goes to @p out. */
static pid_t
sweep_spawn(const char *prefix, int huge, const char *mode, char *env,
		FILE *out)
{
	char pfx[128], **argv;
	pid_t pid;
	int i, k = 0;

	argv = calloc((size_t)sweep_nb_eal_args + 6, sizeof(*argv));
	if (argv == NULL)
		return -1;
	for (i = 0; i < sweep_nb_eal_args; i++) {
		const char *a = sweep_eal_args[i];

		if (strncmp(a, "--file-prefix", 13) == 0)
			continue;
		if (huge && strcmp(a, "--no-huge") == 0)
			continue;
		if (huge && strncmp(a, "-m", 2) == 0) {
			i += a[2] == '\0';  /* "-m N": its value too */
			continue;
		}
		argv[k++] = sweep_eal_args[i];
	}
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", prefix);
	argv[k++] = pfx;
	/* EAL's hugepage memory where a secondary finds the range free too
	 * (its default, 4 GiB, is in AddressSanitizer's shadow, so the
	 * kernel would choose): 24 TiB, as the project's other tests with
	 * secondaries, above the shadow and below the percpu area (32 TiB) */
	if (huge)
		argv[k++] = (char *)(uintptr_t)"--base-virtaddr=0x180000000000";
	argv[k++] = (char *)(uintptr_t)"--";
	argv[k++] = (char *)(uintptr_t)mode;
	if (sweep_verbose)
		argv[k++] = (char *)(uintptr_t)"-v";
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(out), STDERR_FILENO);
		if (env != NULL)
			putenv(env);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	free(argv);
	return pid;
}

/* Wait for child @p pid at most @p timeout_s seconds (then kill it),
 * calling @p poll (if not NULL) with @p arg every millisecond meanwhile.
 * Its wait status, or -1. */
static int
sweep_wait(pid_t pid, unsigned int timeout_s, void (*poll)(void *arg),
		void *arg)
{
	time_t t0 = time(NULL);
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		if (poll != NULL)
			poll(arg);
		if ((unsigned int)(time(NULL) - t0) > timeout_s) {
			printf("child %d: no end after %u s, killed\n",
				(int)pid, timeout_s);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(1000);
	}
	return r == pid ? status : -1;
}

/* Copy @p out to stdout. */
static void
sweep_print_output(FILE *out)
{
	char buf[4096];
	size_t n;

	rewind(out);
	while ((n = fread(buf, 1, sizeof(buf), out)) > 0)
		fwrite(buf, 1, n, stdout);
}

/* Run the child with call @p nth of telemetry registration failing.
 * Returns 1 if the fault fired, 0 if not, -1 on a violation. */
static int
startup_run(uint64_t nth)
{
	char env[64], prefix[64];
	FILE *out;
	pid_t pid;
	int status;

	snprintf(prefix, sizeof(prefix), "sweep_child%d", (int)getpid());
	snprintf(env, sizeof(env), "PCPU_FAULT_ARM=telemetry:%" PRIu64, nth);
	/* the child's output, shown if it breaks a rule */
	out = tmpfile();
	pid = out != NULL ? sweep_spawn(prefix, 0, "--startup-child", env,
		out) : -1;
	status = pid > 0 ? sweep_wait(pid, SWEEP_CHILD_TIMEOUT_S, NULL, NULL) :
		-1;
	if (status == -1) {
		printf("VIOLATION startup, call %" PRIu64 ": no child\n", nth);
		if (out != NULL)
			fclose(out);
		sweep.violations++;
		return -1;
	}
	sweep.runs++;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		fclose(out);
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		fclose(out);
		sweep.injected++;
		sweep.absorbed++;
		if (sweep_verbose)
			printf("ok startup telemetry registration call %" PRIu64
				": worked around\n", nth);
		return 1;
	}
	sweep.violations++;
	printf("VIOLATION startup, telemetry registration call %" PRIu64
		": child exit status %#x\n--- output of the child ---\n", nth,
		status);
	sweep_print_output(out);
	printf("--- end of output ---\n");
	fclose(out);
	return -1;
}

static void
sweep_startup(unsigned int si)
{
	uint64_t nth;
	int r;

	for (nth = 1; nth < 64; nth++) {
		r = startup_run(nth);
		if (r <= 0)
			break;
		sweep.calls[si][PCPU_FAULT_TELEMETRY] = nth;
	}
}

/* ---------------------------------------------------------------------- */
/*
 * Secondary attach. DPDK 22.11 gives a --no-huge primary no secondary
 * process, and the sweep's own EAL runs without hugepages; so a child
 * primary with EAL hugepages (--mp-primary) sets up a shared area with
 * counters, a span and a pool, and starts secondary processes of this
 * program (--mp-secondary) one after the other: first one without a
 * fault, whose counts of calls say which points the secondary side
 * reaches, then, for each such point and N = 1, 2, ..., one with call N
 * of the point armed just before its first reading call
 * (rte_pcpu_stats_get() or rte_pcpu_mempool_lookup(), the scenario's
 * name says which; its rte_pcpu_cleanup() counts too), until call N is
 * not reached. A secondary checks the rules (below, mp_secondary()) and
 * says by its exit status; after each, the primary's audits must be
 * clean. In "attach_serve" the faults are the primary's own, while it
 * answers the first read (rte_pcpu_stats_get()) of a secondary without
 * one; and first its own first shared set-up, whose reservation of the
 * memzone fails. The child primary prints its counts for the table
 * ("mp-calls", "mp-runs" lines).
 */

#define SWEEP_MP_ZONE "sweep_mp_ctl"
#define SWEEP_MP_POOL "sweep_mp"
#define SWEEP_MP_OBJS 32
/* exit statuses of a secondary */
#define SWEEP_MP_REPORTED 0   /* failed as documented, worked again */
#define SWEEP_MP_BROKEN 1     /* a rule broken (it says which) */
#define SWEEP_MP_NOT_REACHED 2
#define SWEEP_MP_ABSORBED 3   /* fired, nothing failed */

/* What the child primary set up, for its secondaries to check; in a
 * memzone. */
struct sweep_mp_ctl {
	uint64_t h[SWEEP_MP_OBJS];        /* uint64_t counters */
	uint64_t sum[SWEEP_MP_OBJS];      /* their sums over the lcores */
	uint64_t span;                    /* a span; its first words */
	uint64_t span_sum;
	uint64_t nr_cur_alloc;            /* the primary's statistics */
	uint64_t calls[PCPU_FAULT_NB];    /* a secondary's, without fault */
	/* "serve": the secondary's first read is done (1), the primary has
	 * taken its counts and disarmed (2) */
	uint32_t first_read_done;
};

/* Errors a secondary's first reading call may give when the system
 * fails it (rte_pcpu.h: attaching, and the request to the primary). */
static const int mp_documented[] = { ENOMEM, ENOTCONN, ETIMEDOUT, 0 };

static int __rte_format_printf(1, 2)
mp_broken(const char *fmt, ...)
{
	va_list ap;

	printf("secondary: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n--- log of the secondary ---\n%s--- end of log ---\n",
		sweep_log.buf);
	return SWEEP_MP_BROKEN;
}

/* The first reading call of @p variant: 0 or -1 with rte_errno. */
static int
mp_first_read(int lookup)
{
	struct rte_pcpu_stats st;

	if (lookup)
		return rte_pcpu_mempool_lookup(SWEEP_MP_POOL) != NULL ? 0 : -1;
	return rte_pcpu_stats_get(&st);
}

/* Everything the primary set up reads right. */
static int
mp_check_reads(const struct sweep_mp_ctl *ctl)
{
	struct rte_pcpu_stats st;
	unsigned int i, l;
	uint64_t sum, *v;

	if (rte_pcpu_stats_get(&st) != 0)
		return mp_broken("rte_pcpu_stats_get: %s",
			rte_strerror(rte_errno));
	if (st.nr_cur_alloc != ctl->nr_cur_alloc)
		return mp_broken("%" PRIu64 " live objects, the primary has %"
			PRIu64, st.nr_cur_alloc, ctl->nr_cur_alloc);
	if (rte_pcpu_mempool_lookup(SWEEP_MP_POOL) == NULL)
		return mp_broken("rte_pcpu_mempool_lookup: %s",
			rte_strerror(rte_errno));
	for (i = 0; i < SWEEP_MP_OBJS; i++) {
		sum = 0;
		RTE_PCPU_FOREACH(l, v, (uint64_t *)(uintptr_t)ctl->h[i])
			sum += *v;
		if (sum != ctl->sum[i])
			return mp_broken("counter %u sums to %" PRIu64
				", want %" PRIu64, i, sum, ctl->sum[i]);
	}
	sum = 0;
	RTE_PCPU_FOREACH(l, v, (uint64_t *)(uintptr_t)ctl->span)
		sum += *v;
	if (sum != ctl->span_sum)
		return mp_broken("span sums to %" PRIu64 ", want %" PRIu64,
			sum, ctl->span_sum);
	return 0;
}

/*
 * A secondary (--mp-secondary=VARIANT,POINT,N): call N of POINT (0: none)
 * made to fail, counting the calls of its first reading call, then those
 * of its rte_pcpu_cleanup() (the reads checked between are not counted).
 * If the first reading call fails: because of the fault, with a
 * documented error and exactly one WARNING or ERR line of the library;
 * the same call with the fault cleared works. Then every read is right,
 * and rte_pcpu_cleanup() detaches (a fault there is worked around).
 */
static int
mp_secondary(const char *arg)
{
	uint64_t first_calls[PCPU_FAULT_NB] = { 0 };
	const struct rte_memzone *mz;
	struct sweep_mp_ctl *ctl;
	enum pcpu_fault_point point;
	int lookup, serve, reported = 0, fired, err, ret, i;
	unsigned long long nth;
	unsigned int p, q;
	char variant[16];
	time_t t0;

	if (sscanf(arg, "%15[a-z],%u,%llu", variant, &p, &nth) != 3 ||
	    p > PCPU_FAULT_NB || (nth != 0 && p == PCPU_FAULT_NB))
		return mp_broken("bad argument %s", arg);
	lookup = strcmp(variant, "lookup") == 0;
	serve = strcmp(variant, "serve") == 0;
	point = (enum pcpu_fault_point)p;
	mz = rte_memzone_lookup(SWEEP_MP_ZONE);
	if (mz == NULL || sweep_log_start() != 0)
		return mp_broken("no %s", SWEEP_MP_ZONE);
	ctl = mz->addr;
	pcpu_fault_reset();
	if (nth != 0)
		pcpu_fault_arm(point, nth);
	sweep_log_clear();
	rte_errno = 0;
	if (mp_first_read(lookup) != 0) {
		err = rte_errno;
		/* "serve": the fault is the primary's (it checks it) */
		if (!serve && (nth == 0 || pcpu_fault_fired(point) == 0))
			return mp_broken("first read failed with no fault "
				"injected: %s", rte_strerror(err));
		for (i = 0; mp_documented[i] != 0; i++)
			if (mp_documented[i] == err)
				break;
		if (mp_documented[i] == 0)
			return mp_broken("first read failed with rte_errno %d "
				"(%s), not a documented error", err,
				rte_strerror(err));
		/* the primary's failure to serve is logged there */
		if (sweep_log.warnings != (serve ? 0u : 1u))
			return mp_broken("first read failed (%s) with %u "
				"WARNING or ERR lines, want %u",
				rte_strerror(err), sweep_log.warnings,
				serve ? 0u : 1u);
		pcpu_fault_reset();
		reported = 1;
		if (mp_first_read(lookup) != 0)
			return mp_broken("first read failed again with the "
				"fault cleared: %s", rte_strerror(rte_errno));
	} else if (nth != 0 && pcpu_fault_fired(point) != 0) {
		return mp_broken("call %llu of %s failed and the first read "
			"worked: the fault is not reported", nth,
			pcpu_fault_name(point));
	}
	if (serve) {
		/* the primary's fault applies to the first read alone */
		t0 = time(NULL);
		__atomic_store_n(&ctl->first_read_done, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&ctl->first_read_done,
				__ATOMIC_ACQUIRE) != 2)
			if (time(NULL) - t0 > SWEEP_CHILD_TIMEOUT_S)
				return mp_broken("the primary does not answer");
			else
				usleep(1000);
	}
	for (q = 0; q < PCPU_FAULT_NB; q++)
		first_calls[q] = pcpu_fault_calls((enum pcpu_fault_point)q);
	/* the reads checked are not part of the sweep */
	fired = reported;
	pcpu_fault_reset();
	ret = mp_check_reads(ctl);
	if (ret != 0)
		return ret;
	/* the detach: the calls after those of the first read */
	pcpu_fault_reset();
	if (!reported && nth != 0 && nth > first_calls[point])
		pcpu_fault_arm(point, nth - first_calls[point]);
	if (rte_pcpu_cleanup() != 0)
		return mp_broken("detach: %s", rte_strerror(rte_errno));
	fired |= nth != 0 && pcpu_fault_fired(point) != 0;
	if (nth == 0)
		for (q = 0; q < PCPU_FAULT_NB; q++)
			ctl->calls[q] = first_calls[q] + pcpu_fault_calls(
				(enum pcpu_fault_point)q);
	rte_openlog_stream(NULL);
	fclose(sweep_log.stream);
	return reported ? SWEEP_MP_REPORTED : fired ? SWEEP_MP_ABSORBED :
		SWEEP_MP_NOT_REACHED;
}

/* "(a,b,...)": the CPUs this process may run on. */
static void
mp_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t n = 1;
	int c;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_SET(0, &set);
	snprintf(buf, len, "(");
	for (c = 0; c < CPU_SETSIZE && n + 8 < len; c++)
		if (CPU_ISSET(c, &set))
			n += (size_t)snprintf(buf + n, len - n, "%s%d",
				n == 1 ? "" : ",", c);
	snprintf(buf + n, len - n, ")");
}

/* The fault of the child primary ("serve") in the first read of the
 * secondary that runs: fired, and the calls of each point. */
static struct {
	int fired;
	uint64_t calls[PCPU_FAULT_NB];
} mp_served;

/* While a secondary runs: when it says, through the control block
 * @p arg, that its first read is done, take the counts of the faults and
 * disarm. */
static void
mp_poll_served(void *arg)
{
	struct sweep_mp_ctl *ctl = arg;
	unsigned int p;

	if (__atomic_load_n(&ctl->first_read_done, __ATOMIC_ACQUIRE) != 1)
		return;
	for (p = 0; p < PCPU_FAULT_NB; p++) {
		mp_served.calls[p] = pcpu_fault_calls((enum pcpu_fault_point)p);
		mp_served.fired |= pcpu_fault_fired((enum pcpu_fault_point)p)
			!= 0;
	}
	pcpu_fault_reset();
	__atomic_store_n(&ctl->first_read_done, 2, __ATOMIC_RELEASE);
}

/* The child primary: one secondary with @p point call @p nth armed; its
 * exit status (SWEEP_MP_*), or -1. */
static int
mp_run_secondary(const char *variant, unsigned int point, uint64_t nth,
		struct sweep_mp_ctl *ctl)
{
	char exe[PATH_MAX], prefix[128], lcores[256], cpus[200], mode[96];
	const char *dir = rte_eal_get_runtime_dir();
	const char *base = strrchr(dir, '/');
	ssize_t n;
	pid_t pid;
	int status;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(prefix, sizeof(prefix), "--file-prefix=%s",
		base != NULL ? base + 1 : dir);
	mp_cpus(cpus, sizeof(cpus));
	snprintf(lcores, sizeof(lcores), "--lcores=0@%s", cpus);
	snprintf(mode, sizeof(mode), "--mp-secondary=%s,%u,%" PRIu64,
		variant, point, nth);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(exe, exe, "--proc-type=secondary", prefix, "--no-pci",
			"--no-telemetry", lcores, "--log-level=lib.eal:warning",
			"--", mode, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	status = sweep_wait(pid, SWEEP_CHILD_TIMEOUT_S, mp_poll_served, ctl);
	if (status == -1 || !WIFEXITED(status)) {
		printf("secondary %s call %" PRIu64 ": wait status %#x\n",
			pcpu_fault_name((enum pcpu_fault_point)point), nth,
			(unsigned int)status);
		return -1;
	}
	return WEXITSTATUS(status);
}

/* Counts of the child primary; its calls of each point during the
 * census of "serve". */
static struct {
	uint64_t runs, injected, reported, absorbed, violations;
	uint64_t serve_calls[PCPU_FAULT_NB];
} mp_counts;

/*
 * The child primary: one secondary of @p variant, call @p nth of @p point
 * made to fail in the secondary or, with "serve", in this primary while
 * it answers; then this primary's audits. Returns whether the fault
 * fired (1), or 0, or -1 on a violation.
 */
static int
mp_one(const char *variant, struct rte_pcpu_mempool *mp,
		struct sweep_mp_ctl *ctl, unsigned int point, uint64_t nth)
{
	const char *name = pcpu_fault_name((enum pcpu_fault_point)point);
	int serve = strcmp(variant, "serve") == 0, r, fired;
	unsigned int i, fds = count_fds();

	sweep_log_clear();
	pcpu_fault_reset();
	if (serve && nth != 0)
		pcpu_fault_arm((enum pcpu_fault_point)point, nth);
	memset(&mp_served, 0, sizeof(mp_served));
	ctl->first_read_done = 0;
	r = mp_run_secondary(variant, serve ? PCPU_FAULT_NB : point,
		serve ? 0 : nth, ctl);
	mp_counts.runs++;
	if (serve) {
		fired = nth != 0 && mp_served.fired;
		for (i = 0; nth == 0 && i < PCPU_FAULT_NB; i++)
			mp_counts.serve_calls[i] = mp_served.calls[i];
		pcpu_fault_reset();
		if (r == SWEEP_MP_REPORTED && !fired) {
			printf("VIOLATION attach_serve, %s call %" PRIu64 ": the "
				"secondary's first read failed with no fault\n",
				name, nth);
			r = -1;
		} else if (r == SWEEP_MP_REPORTED && sweep_log.warnings == 0) {
			printf("VIOLATION attach_serve, %s call %" PRIu64 ": the "
				"secondary's first read failed, the primary "
				"logged nothing\n", name, nth);
			r = -1;
		} else if (r == SWEEP_MP_NOT_REACHED && fired) {
			r = SWEEP_MP_ABSORBED;
		}
	} else {
		fired = r == SWEEP_MP_REPORTED || r == SWEEP_MP_ABSORBED;
	}
	if (r == SWEEP_MP_REPORTED || r == SWEEP_MP_ABSORBED) {
		mp_counts.injected++;
		mp_counts.reported += r == SWEEP_MP_REPORTED;
		mp_counts.absorbed += r == SWEEP_MP_ABSORBED;
	} else if (r != SWEEP_MP_NOT_REACHED) {
		printf("VIOLATION attach_%s, %s call %" PRIu64 ": secondary exit "
			"%d\n--- log of the primary ---\n%s--- end of log ---\n",
			variant, nth != 0 ? name : "no fault,", nth, r,
			sweep_log.buf);
		mp_counts.violations++;
		return -1;
	}
	/* an answer's descriptors are closed once it is sent */
	if (count_fds() != fds) {
		printf("VIOLATION attach_%s, %s call %" PRIu64 ": the primary "
			"holds %u open descriptors, %u before\n", variant, name,
			nth, count_fds(), fds);
		mp_counts.violations++;
		return -1;
	}
	if (rte_pcpu_audit() != 0 || rte_pcpu_mempool_audit(mp) != 0) {
		printf("VIOLATION attach_%s, %s call %" PRIu64 ": the primary's "
			"audit failed\n", variant, name, nth);
		mp_counts.violations++;
		return -1;
	}
	if (sweep_verbose && nth != 0)
		printf("ok attach_%s %s call %" PRIu64 ": %s\n", variant, name,
			nth, r == SWEEP_MP_NOT_REACHED ? "not reached" :
			r == SWEEP_MP_REPORTED ? "reported" : "worked around");
	return fired;
}

/*
 * The child primary (--mp-primary=VARIANT): a shared area, counters, a
 * span and a pool; the secondaries; its audits after each. Prints
 * "mp-calls POINT N" (calls made to fail) and "mp-runs RUNS INJECTED
 * REPORTED ABSORBED VIOLATIONS"; 0 when no rule was broken.
 */
static int
mp_primary(const char *variant)
{
	struct rte_pcpu_conf conf = shared_conf();
	uint64_t nth, census[PCPU_FAULT_NB], made[PCPU_FAULT_NB] = { 0 };
	int serve = strcmp(variant, "serve") == 0, r = 0;
	const struct rte_memzone *mz;
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_stats st;
	struct sweep_mp_ctl *ctl;
	void *objs[4], *h;
	unsigned int i, l, p;
	uint64_t *v;

	if (sweep_log_start() != 0)
		return 1;
	/* "serve" first: the memzone that secondaries read is reserved at
	 * a process's first shared set-up, and kept; so only here can its
	 * reservation fail (and an area asked to be shared then cannot be) */
	if (serve) {
		pcpu_fault_arm(PCPU_FAULT_MEMZONE, 1);
		sweep_log_clear();
		mp_counts.runs++;
		if (rte_pcpu_init(&conf) == 0 || rte_errno != ENOMEM ||
		    sweep_log.warnings == 0 ||
		    pcpu_fault_fired(PCPU_FAULT_MEMZONE) != 1) {
			printf("VIOLATION attach_serve, rte_memzone_reserve call "
				"1: rte_pcpu_init: %s, %u log lines\n",
				rte_strerror(rte_errno), sweep_log.warnings);
			return 1;
		}
		pcpu_fault_reset();
		mp_counts.injected++;
		mp_counts.reported++;
		made[PCPU_FAULT_MEMZONE] = 1;
	}
	if (rte_pcpu_init(&conf) != 0) {
		printf("child primary: rte_pcpu_init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	mz = rte_memzone_reserve(SWEEP_MP_ZONE, sizeof(*ctl), SOCKET_ID_ANY, 0);
	mp = rte_pcpu_mempool_create(SWEEP_MP_POOL, 16, 16, 4, 0, NULL, NULL,
		0);
	if (mz == NULL || mp == NULL ||
	    rte_pcpu_mempool_get_bulk(mp, objs, RTE_DIM(objs)) != 0) {
		printf("child primary: set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ctl = mz->addr;
	memset(ctl, 0, sizeof(*ctl));
	for (i = 0; i <= SWEEP_MP_OBJS; i++) {
		h = rte_pcpu_alloc(i < SWEEP_MP_OBJS ? sizeof(uint64_t) :
			RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 8, 0);
		if (h == NULL) {
			printf("child primary: alloc: %s\n",
				rte_strerror(rte_errno));
			return 1;
		}
		RTE_PCPU_FOREACH(l, v, (uint64_t *)h) {
			*v = (uint64_t)(i + 1) * 1000 + l;
			if (i < SWEEP_MP_OBJS)
				ctl->sum[i] += *v;
			else
				ctl->span_sum += *v;
		}
		if (i < SWEEP_MP_OBJS)
			ctl->h[i] = (uint64_t)(uintptr_t)h;
		else
			ctl->span = (uint64_t)(uintptr_t)h;
	}
	if (rte_pcpu_stats_get(&st) != 0)
		return 1;
	ctl->nr_cur_alloc = st.nr_cur_alloc;
	/* the census: which points the faulted side reaches */
	if (mp_one(variant, mp, ctl, PCPU_FAULT_NB, 0) < 0)
		r = -1;
	for (p = 0; p < PCPU_FAULT_NB; p++) {
		census[p] = serve ? mp_counts.serve_calls[p] : ctl->calls[p];
		if (sweep_verbose && census[p] != 0)
			printf("attach_%s: %" PRIu64 " calls of %s\n", variant,
				census[p], pcpu_fault_name(
				(enum pcpu_fault_point)p));
	}
	for (p = 0; p < PCPU_FAULT_NB && r >= 0; p++) {
		if (census[p] == 0)
			continue;
		for (nth = 1; nth < SWEEP_MAX_N; nth++) {
			r = mp_one(variant, mp, ctl, p, nth);
			if (r <= 0)
				break;
		}
		made[p] = nth - 1;
	}
	for (p = 0; p < PCPU_FAULT_NB; p++)
		if (made[p] != 0)
			printf("mp-calls %u %" PRIu64 "\n", p, made[p]);
	printf("mp-runs %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %"
		PRIu64 "\n", mp_counts.runs, mp_counts.injected,
		mp_counts.reported, mp_counts.absorbed, mp_counts.violations);
	rte_pcpu_mempool_put_bulk(mp, objs, RTE_DIM(objs));
	for (i = 0; i < SWEEP_MP_OBJS; i++)
		rte_pcpu_free((void *)(uintptr_t)ctl->h[i]);
	rte_pcpu_free((void *)(uintptr_t)ctl->span);
	if (rte_pcpu_mempool_free(mp) != 0 || rte_pcpu_cleanup() != 0 ||
	    rte_memzone_free(mz) != 0)
		mp_counts.violations++;
	rte_openlog_stream(NULL);
	fclose(sweep_log.stream);
	return mp_counts.violations == 0 ? 0 : 1;
}

/*
 * Remove the hugepage files of the child primary of --file-prefix
 * @p prefix once it has ended. EAL deletes a page's file when the page is
 * freed, but a child that the sweep made fail may end with memory still
 * allocated, and its files then hold their hugepages until a primary of
 * the same prefix starts, which never happens: the prefix has the sweep's
 * pid. Files of every hugetlbfs mount, as EAL may use any.
 */
static void
sweep_remove_hugepage_files(const char *prefix)
{
	char pattern[PATH_MAX];
	struct mntent *m;
	FILE *mounts;
	glob_t g;
	size_t i;

	mounts = setmntent("/proc/mounts", "r");
	if (mounts == NULL)
		return;
	while ((m = getmntent(mounts)) != NULL) {
		if (strcmp(m->mnt_type, "hugetlbfs") != 0)
			continue;
		snprintf(pattern, sizeof(pattern), "%s/%smap_*", m->mnt_dir,
			prefix);
		if (glob(pattern, 0, NULL, &g) != 0)
			continue;
		for (i = 0; i < g.gl_pathc; i++)
			if (unlink(g.gl_pathv[i]) != 0)
				printf("sweep: cannot remove %s: %s\n",
					g.gl_pathv[i], strerror(errno));
		globfree(&g);
	}
	endmntent(mounts);
}

/* The sweep's side: run the child primary of scenario @p si (variant
 * @p variant), count what it did. */
static void
sweep_secondary(unsigned int si, const char *variant)
{
	uint64_t runs, injected, reported, absorbed, violations, made;
	char prefix[64], mode[64], line[512];
	unsigned int p;
	int status = -1, counted = 0;
	FILE *out;
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "sweep_mp%d", (int)getpid());
	snprintf(mode, sizeof(mode), "--mp-primary=%s", variant);
	out = tmpfile();
	pid = out != NULL ? sweep_spawn(prefix, 1, mode, NULL, out) : -1;
	if (pid > 0)
		status = sweep_wait(pid, 20 * SWEEP_CHILD_TIMEOUT_S, NULL,
			NULL);
	sweep_remove_hugepage_files(prefix);
	if (out != NULL) {
		rewind(out);
		while (fgets(line, sizeof(line), out) != NULL) {
			if (sscanf(line, "mp-calls %u %" SCNu64, &p, &made) == 2 &&
			    p < PCPU_FAULT_NB)
				sweep.calls[si][p] = made;
			if (sscanf(line, "mp-runs %" SCNu64 " %" SCNu64 " %"
					SCNu64 " %" SCNu64 " %" SCNu64, &runs,
					&injected, &reported, &absorbed,
					&violations) == 5) {
				sweep.runs += runs;
				sweep.injected += injected;
				sweep.reported += reported;
				sweep.absorbed += absorbed;
				sweep.violations += violations;
				counted = 1;
			}
		}
	}
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    counted) {
		if (sweep_verbose)
			sweep_print_output(out);
		fclose(out);
		return;
	}
	sweep.violations += !counted;
	printf("VIOLATION %s: child primary exit status %#x\n--- output of "
		"the child ---\n", sweep_scenarios[si].name,
		(unsigned int)status);
	if (out != NULL) {
		sweep_print_output(out);
		fclose(out);
	}
	printf("--- end of output ---\n");
}

/* ---------------------------------------------------------------------- */

static void
sweep_table(const unsigned int *chosen, unsigned int nb)
{
	unsigned int p, k, covered = 0, cells = 0;

	printf("\nCalls made to fail, by failure point (rows) and scenario "
		"(columns); '.': none made:\n\n%-28s", "");
	for (k = 0; k < nb; k++)
		printf(" %3u", k + 1);
	printf("\n");
	for (p = 0; p < PCPU_FAULT_NB; p++) {
		int any = 0;

		printf("%-28s", pcpu_fault_name((enum pcpu_fault_point)p));
		for (k = 0; k < nb; k++) {
			uint64_t c = sweep.calls[chosen[k]][p];

			if (c != 0) {
				printf(" %3" PRIu64, c);
				any = 1;
				cells++;
			} else {
				printf("   .");
			}
		}
		printf("\n");
		covered += any;
	}
	printf("\n");
	for (k = 0; k < nb; k++)
		printf("%3u %s\n", k + 1, sweep_scenarios[chosen[k]].name);
	printf("\nfault sweep: %u of %u failure points made to fail, %u "
		"point x scenario pairs; %" PRIu64 " runs, %" PRIu64
		" faults injected: %" PRIu64 " reported as a documented error, %"
		PRIu64 " worked around (%" PRIu64 " failed munmap() logged); %"
		PRIu64 " violations\n", covered, (unsigned int)PCPU_FAULT_NB,
		cells, sweep.runs, sweep.injected, sweep.reported,
		sweep.absorbed, sweep.map_leaks_logged, sweep.violations);
}

static void
usage_exit(const char *prog, int status)
{
	unsigned int i;

	printf("usage: %s [EAL args] [-- [-s SCENARIO]... [-v]]\nscenarios:",
		prog);
	for (i = 0; i < RTE_DIM(sweep_scenarios); i++)
		printf(" %s", sweep_scenarios[i].name);
	printf("\n");
	exit(status);
}

/* A count of 2 MiB hugepages of the system, by its sysfs name. */
static unsigned long
hugepages_count(const char *name)
{
	char path[128];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		"/sys/kernel/mm/hugepages/hugepages-2048kB/%s", name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/* 2 MiB hugepages a new mapping can have (the "huge" scenarios need
 * some): the free ones but those reserved by mappings that have not
 * touched them yet (other processes' too, on a shared machine). */
static unsigned long
free_hugepages(void)
{
	unsigned long free = hugepages_count("free_hugepages");
	unsigned long resv = hugepages_count("resv_hugepages");

	return free > resv ? free - resv : 0;
}

static int
needs_hugepages(const struct sweep_scenario *s)
{
	return s->setup == setup_huge || s->run == run_shared_huge;
}

static int
needs_child_primary(const struct sweep_scenario *s)
{
	return s->run == run_secondary;
}

static int
needs_shared(const struct sweep_scenario *s)
{
	return s->run == run_shared_init || s->setup == setup_shared_warm ||
		s->run == run_shared_huge || s->setup == setup_shared_reclaim ||
		s->setup == setup_shared_cleanup;
}

/* Whether this process's EAL lets the area be shared. */
static int
shared_possible(void)
{
	struct rte_pcpu_conf conf = shared_conf();

	if (rte_pcpu_init(&conf) != 0)
		return 0;
	rte_pcpu_cleanup();
	return 1;
}

/* Drop the chosen scenarios that @p needs, saying why. */
static unsigned int
leave_out(unsigned int *chosen, unsigned int nb,
		int (*needs)(const struct sweep_scenario *s), const char *why)
{
	unsigned int i, k;

	for (i = k = 0; i < nb; i++) {
		if (!needs(&sweep_scenarios[chosen[i]]))
			chosen[k++] = chosen[i];
		else
			printf("fault sweep: scenario %s left out: %s\n",
				sweep_scenarios[chosen[i]].name, why);
	}
	return k;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "startup-child", no_argument, NULL, 'C' },
		{ "mp-primary", required_argument, NULL, 'P' },
		{ "mp-secondary", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int chosen[RTE_DIM(sweep_scenarios)], nb = 0, i, p;
	const char *prog = argv[0];
	struct sweep_usage base;
	struct timespec t0, t1;
	const char *mp_primary_arg = NULL, *mp_secondary_arg = NULL;
	int ret, opt, child = 0;
	uint64_t nth;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sweep_eal_args = calloc((size_t)argc + 1, sizeof(*sweep_eal_args));
	if (sweep_eal_args == NULL)
		return 1;
	for (i = 0; i < (unsigned int)argc && strcmp(argv[i], "--") != 0; i++)
		sweep_eal_args[sweep_nb_eal_args++] = argv[i];
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			for (i = 0; i < RTE_DIM(sweep_scenarios); i++)
				if (strcmp(optarg, sweep_scenarios[i].name) == 0)
					break;
			if (i == RTE_DIM(sweep_scenarios))
				usage_exit(prog, 1);
			chosen[nb++] = i;
			break;
		case 'v':
			sweep_verbose = 1;
			break;
		case 'C':
			child = 1;
			break;
		case 'P':
			mp_primary_arg = optarg;
			break;
		case 'S':
			mp_secondary_arg = optarg;
			break;
		default:
			usage_exit(prog, opt == 'h' ? 0 : 1);
		}
	}
	/* small units (the address space of 128 lcores is 8 GiB) and small
	 * chunks (a few objects make several chunks) */
	sweep_conf.unit_stride = 64u << 20;
	sweep_conf.chunk_size = 512u << 10;
	sweep_conf.page_policy = RTE_PCPU_PAGE_NORMAL;
	if (child)
		return startup_child();
	if (mp_secondary_arg != NULL) {
		ret = mp_secondary(mp_secondary_arg);
		rte_eal_cleanup();
		return ret;
	}
	if (mp_primary_arg != NULL) {
		ret = mp_primary(mp_primary_arg);
		rte_eal_cleanup();
		return ret;
	}

	if (nb == 0)
		for (i = 0; i < RTE_DIM(sweep_scenarios); i++)
			chosen[nb++] = i;
	/* 2 MiB pages for every lcore that may get memory, with margin */
	if (free_hugepages() < 8 * (rte_lcore_count() + 1))
		nb = leave_out(chosen, nb, needs_hugepages, "fewer than "
			"8 free 2 MiB hugepages per lcore");
	/* the child primary of the attach scenarios runs EAL on hugepages */
	if (free_hugepages() < SWEEP_MP_HUGEPAGES)
		nb = leave_out(chosen, nb, needs_child_primary, "fewer than "
			RTE_STR(SWEEP_MP_HUGEPAGES) " free 2 MiB hugepages for "
			"the EAL of their primary process (DPDK 22.11 gives a "
			"--no-huge primary no secondary process)");
	if (!shared_possible())
		nb = leave_out(chosen, nb, needs_shared, "RTE_PCPU_F_SHARED "
			"needs EAL's multi-process channel (not --no-shconf, "
			"--in-memory)");
	sweep_qsbr = rte_zmalloc("sweep_qsbr",
		rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE), RTE_CACHE_LINE_SIZE);
	if (sweep_qsbr == NULL || rte_rcu_qsbr_init(sweep_qsbr, RTE_MAX_LCORE)
	    != 0 || sweep_log_start() != 0) {
		printf("set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	printf("fault sweep: %u scenarios, %u failure points, %u lcores\n",
		nb, (unsigned int)PCPU_FAULT_NB, rte_lcore_count());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* every scenario once without a fault (what a first run sets up once
	 * per process is then there), the baseline, then once more: the
	 * census of calls, and it must pass with nothing leaked */
	for (i = 0; i < nb; i++)
		sweep_run(&sweep_scenarios[chosen[i]], chosen[i], PCPU_FAULT_NB,
			0, NULL);
	sweep_usage_get(&base);
	for (i = 0; i < nb; i++)
		sweep_run(&sweep_scenarios[chosen[i]], chosen[i], PCPU_FAULT_NB,
			0, &base);
	for (i = 0; i < nb; i++) {
		const struct sweep_scenario *s = &sweep_scenarios[chosen[i]];

		if (s->run == run_startup) {
			sweep_startup(chosen[i]);
			continue;
		}
		if (s->run == run_secondary) {
			/* "attach_stats": variant "stats" */
			sweep_secondary(chosen[i], strchr(s->name, '_') + 1);
			printf("scenario %-14s done: %" PRIu64 " runs, %" PRIu64
				" violations so far\n", s->name, sweep.runs,
				sweep.violations);
			continue;
		}
		for (p = 0; p < PCPU_FAULT_NB; p++) {
			for (nth = 1; nth < SWEEP_MAX_N; nth++) {
				uint64_t logged = sweep.map_leaks_logged;

				if (!sweep_run(s, chosen[i],
						(enum pcpu_fault_point)p, nth,
						&base))
					break;
				/* address space lost to a failed munmap(),
				 * logged: the new baseline */
				if (sweep.map_leaks_logged != logged)
					base.mapped = pcpu_fault_mapped_bytes();
			}
			/* what was made to fail: calls 1 .. nth - 1 */
			sweep.calls[chosen[i]][p] = nth - 1;
		}
		printf("scenario %-14s done: %" PRIu64 " runs, %" PRIu64
			" violations so far\n", s->name, sweep.runs,
			sweep.violations);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sweep_table(chosen, nb);
	printf("fault sweep took %.1f s\n", (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	rte_openlog_stream(NULL);
	fclose(sweep_log.stream);
	rte_free(sweep_qsbr);
	free(sweep_eal_args);
	rte_eal_cleanup();
	return sweep.violations == 0 ? 0 : 1;
}
