/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_mp_autotest: a DPDK secondary process reads the primary's percpu
 * memory, pools and statistics.
 *
 * The primary (this test) starts a secondary: this same program, with
 * --proc-type=secondary, the same --file-prefix and DPDK_TEST set to
 * pcpu_mp_secondary. They take turns through a control block in a memzone
 * (struct mp_ctl): the primary sets up what a step needs and posts the
 * step; the secondary does it and posts its verdict. A looping step runs
 * until the primary sets @c stop. The cases run in order, one secondary
 * for all but the last ones.
 *
 * Needs EAL hugepages: DPDK 22.11 gives a --no-huge primary no secondary
 * process (the test skips, 77). Run it with at least 3 lcores (two writer
 * lcores and the main one).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, MAP_FIXED_NOREPLACE */
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_memzone.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_mempool_ops.h>

#include "test.h"
#include "test_pcpu_util.h"

#define MP_ZONE "pcpu_mp_test"
#define MP_MAX 4096               /* handles a step can carry */
#define MP_OBJS 1000              /* counter objects */
#define MP_STEP_TIMEOUT_S 60
#define MP_POOL "mp_late"
#define MP_BIG (48u * 1024u)      /* objects that need new chunks */
#define MP_NR_BIG 64
#define MP_DEPOP_SIZE (16u * 1024u)
#define MP_NR_DEPOP 512
#define MP_SPAN_SIZE (4u << 20)   /* an object of whole chunks */
#define MP_OPS_POOL "mp_ops"      /* an rte_mempool with "pcpu" ops */
#define MP_OPS_WARM 4             /* objects lcore 1 gets and puts */

enum mp_step {
	MP_NONE = 0,
	MP_EXACT,       /* sums of h[] equal expect[] */
	MP_INIT_EXACT,  /* rte_pcpu_init(NULL), then MP_EXACT */
	MP_MONOTONIC,   /* sums never go down, until stop */
	MP_LATE,        /* pool MP_POOL and objects made after attach */
	MP_REFUSE,      /* writes refused; statistics are the primary's */
	MP_READ_LOOP,   /* read h[] (exact) and old[] (any value), until stop */
	MP_ZEROS,       /* every copy of h[] (size bytes) reads zero */
	MP_DETACH,      /* rte_pcpu_cleanup() */
	MP_SPIN,        /* read h[] until killed */
	MP_SUM,         /* sum sum_nr handles of sum_h once, timed */
	MP_EXIT,
};

/* The control block, in the memzone MP_ZONE. */
struct mp_ctl {
	uint32_t step;          /* primary: what to do */
	/* primary: bumped after each post, so that the same step posted
	 * twice in a row is seen twice (a step value alone is missed when
	 * the secondary sleeps through the change) */
	uint32_t post;
	uint32_t done_post;     /* secondary: the last post it answered */
	uint32_t started;       /* secondary: a looping step runs */
	uint32_t stop;          /* primary: end the looping step */
	int32_t result;         /* secondary: TEST_SUCCESS or TEST_FAILED */
	uint32_t nr;            /* handles in h[] */
	uint32_t nr_old;        /* handles in old[] */
	uint32_t size;          /* MP_ZEROS: bytes per copy */
	uint64_t loops;         /* secondary: rounds of a looping step */
	uint64_t mask[RTE_PCPU_MASK_WORDS]; /* lcores with memory */
	int32_t socket[RTE_MAX_LCORE];      /* their nodes */
	struct rte_pcpu_stats st;           /* the primary's, MP_REFUSE */
	uint32_t pool_in_use;               /* MP_REFUSE */
	uint32_t nr_chunks;                 /* MP_REFUSE */
	uint32_t ops_avail;                 /* MP_REFUSE: MP_OPS_POOL's */
	char msg[256];          /* secondary: why it failed */
	uint64_t h[MP_MAX];
	uint64_t expect[MP_MAX][2];
	uint64_t old[MP_MAX];
	/* MP_SUM: handles in EAL memory, their total, the time taken */
	void **sum_h;
	uint32_t sum_nr;
	uint64_t sum_total[2];
	uint64_t sum_ns;
};

static struct mp_ctl *ctl;
static pid_t mp_child = -1;
/* the suite runs once per page size */
static struct rte_pcpu_conf mp_conf;
static void *mp_objs[MP_OBJS];
static volatile int mp_writers_stop;

/* ---------------------------------------------------------------------- */
/* Primary: the secondary process. */

/* "(a,b,...)": the CPUs this thread may run on, for the child's lcore. */
static void
mp_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t n = 0;
	int c;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_SET(0, &set);
	n += (size_t)snprintf(buf + n, len - n, "0@(");
	for (c = 0; c < CPU_SETSIZE && n < len; c++)
		if (CPU_ISSET(c, &set))
			n += (size_t)snprintf(buf + n, len - n, "%s%d",
				buf[n - 1] == '(' ? "" : ",", c);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

/* Start a secondary running pcpu_mp_secondary with @p mode. */
static pid_t
mp_spawn(const char *mode, const char *arg)
{
	char exe[PATH_MAX], prefix[64], lcores[256];
	const char *dir = rte_eal_get_runtime_dir();
	const char *base = strrchr(dir, '/');
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(prefix, sizeof(prefix), "--file-prefix=%s",
		base != NULL ? base + 1 : dir);
	mp_cpus(lcores, sizeof(lcores));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid != 0)
		return pid;
	/* the child: nothing of DPDK's before exec */
	setenv("DPDK_TEST", "pcpu_mp_secondary", 1);
	setenv("DPDK_TEST_HUGE_REQUIRED", "1", 1);
	setenv("PCPU_MP_MODE", mode, 1);
	if (arg != NULL)
		setenv("PCPU_MP_ARG", arg, 1);
	execl(exe, exe, "--proc-type=secondary", prefix, "--no-pci",
		"--no-telemetry", "--lcores", lcores,
		"--log-level=lib.eal:warning", (char *)NULL);
	_exit(127);
}

/* Start a secondary for the steps from post 0, so that a step posted to
 * an earlier secondary (dead by now) and never answered is not taken for
 * this one's. */
static pid_t
mp_spawn_steps(void)
{
	ctl->step = MP_NONE;
	ctl->done_post = 0;
	__atomic_store_n(&ctl->post, 0, __ATOMIC_RELEASE);
	return mp_spawn("steps", NULL);
}

/* Whether the child is still there (reaps it if not). */
static int
mp_child_alive(int *status)
{
	pid_t r;

	if (mp_child < 0)
		return 0;
	r = waitpid(mp_child, status, WNOHANG);
	if (r == 0)
		return 1;
	mp_child = -1;
	return 0;
}

/* Wait until @p cond holds, the child dies or the time is up. */
#define MP_WAIT(cond, what) do {					\
	time_t t0_ = time(NULL);					\
	int st_ = 0;							\
	while (!(cond)) {						\
		TEST_ASSERT(mp_child_alive(&st_), "secondary died "	\
			"(status %#x) waiting for %s", st_, what);	\
		TEST_ASSERT(time(NULL) - t0_ < MP_STEP_TIMEOUT_S,	\
			"no answer from the secondary: %s", what);	\
		usleep(1000);						\
	}								\
} while (0)

/* Post @p step: the secondary sees a new post number. */
static uint32_t
mp_post(enum mp_step step)
{
	uint32_t post = ctl->post + 1;

	ctl->step = step;
	__atomic_store_n(&ctl->post, post, __ATOMIC_RELEASE);
	return post;
}

/* Post @p step and wait for its verdict. */
static int
mp_do(enum mp_step step)
{
	uint32_t post;

	ctl->result = TEST_FAILED;
	ctl->msg[0] = '\0';
	ctl->stop = 0;
	post = mp_post(step);
	MP_WAIT(__atomic_load_n(&ctl->done_post, __ATOMIC_ACQUIRE) == post,
		"a step");
	TEST_ASSERT_EQUAL(ctl->result, TEST_SUCCESS, "secondary, step %d: %s",
		(int)step, ctl->msg);
	return TEST_SUCCESS;
}

/* Post a looping step; return once it runs. */
static int
mp_start(enum mp_step step)
{
	ctl->result = TEST_FAILED;
	ctl->msg[0] = '\0';
	ctl->stop = 0;
	ctl->loops = 0;
	__atomic_store_n(&ctl->started, 0, __ATOMIC_RELEASE);
	(void)mp_post(step);
	MP_WAIT(__atomic_load_n(&ctl->started, __ATOMIC_ACQUIRE) == step,
		"a looping step to start");
	return TEST_SUCCESS;
}

/* End the looping step and take its verdict. */
static int
mp_stop(enum mp_step step)
{
	__atomic_store_n(&ctl->stop, 1, __ATOMIC_RELEASE);
	MP_WAIT(__atomic_load_n(&ctl->done_post, __ATOMIC_ACQUIRE) ==
		ctl->post, "a looping step to end");
	TEST_ASSERT_EQUAL(ctl->result, TEST_SUCCESS, "secondary, step %d: %s",
		(int)step, ctl->msg);
	return TEST_SUCCESS;
}

/* Exact sums of the first two counters of @p h, as the primary reads. */
static void
mp_expect(unsigned int i, void *h)
{
	uint64_t s[2];

	rte_pcpu_sum_u64(h, 2, s);
	ctl->h[i] = (uintptr_t)h;
	ctl->expect[i][0] = s[0];
	ctl->expect[i][1] = s[1];
}

/* Write a distinct value pair into every lcore's copy of @p h. */
static void
mp_fill(void *h, uint64_t seed)
{
	unsigned int l;
	uint64_t *c;

	RTE_PCPU_FOREACH(l, c, (uint64_t *)h) {
		c[0] = seed * 1000 + l + 1;
		c[1] = seed * 7 + (uint64_t)l * 64;
	}
}

/* Sum every handle of @p h once; returns the time it took, ns. */
static uint64_t
mp_sum_all(void * const *h, uint32_t n, uint64_t total[2])
{
	uint64_t t0, s[2];
	uint32_t i;

	total[0] = total[1] = 0;
	t0 = rte_rdtsc_precise();
	for (i = 0; i < n; i++) {
		rte_pcpu_sum_u64(h[i], 2, s);
		total[0] += s[0];
		total[1] += s[1];
	}
	return (rte_rdtsc_precise() - t0) * UINT64_C(1000000000) /
		rte_get_tsc_hz();
}

static int
mp_suite_setup(void)
{
	const struct rte_memzone *mz;
	struct rte_pcpu_stats st;
	unsigned int l;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		TEST_SKIP("runs as a primary process");
	if (!rte_eal_has_hugepages())
		TEST_SKIP("DPDK 22.11 gives a --no-huge primary no secondary "
			"process: needs EAL hugepages (the -huge variant)");
	if (rte_lcore_count() < 3)
		TEST_SKIP("needs 3 lcores (2 writers and the main one)");
	rte_pcpu_cleanup();
	TEST_ASSERT_SUCCESS(rte_pcpu_init(&mp_conf), "init");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT_EQUAL(st.shared, 1u, "a primary with hugepages and a "
		"shared configuration has a shared area by default");
	printf("mp: %" PRIu64 " B pages\n", st.page_size);
	TEST_ASSERT_EQUAL(st.base_addr, RTE_PCPU_DEFAULT_BASE_ADDR,
		"default address");
	mz = rte_memzone_lookup(MP_ZONE);
	if (mz == NULL)
		mz = rte_memzone_reserve(MP_ZONE, sizeof(*ctl), SOCKET_ID_ANY,
			0);
	TEST_ASSERT_NOT_NULL(mz, "control memzone: %s",
		rte_strerror(rte_errno));
	ctl = mz->addr;
	memset(ctl, 0, sizeof(*ctl));
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		if (rte_pcpu_lcore_has_memory(l))
			ctl->mask[l / 64] |= UINT64_C(1) << (l % 64);
		ctl->socket[l] = rte_pcpu_lcore_socket_id(l);
	}
	mp_child = mp_spawn_steps();
	TEST_ASSERT(mp_child > 0, "cannot start the secondary process");
	return TEST_SUCCESS;
}

static void
mp_suite_teardown(void)
{
	int st;

	if (mp_child > 0 && mp_child_alive(&st)) {
		(void)mp_post(MP_EXIT);
		usleep(200 * 1000);
		kill(mp_child, SIGKILL);
		waitpid(mp_child, &st, 0);
		mp_child = -1;
	}
	rte_pcpu_cleanup();
}

/* ---------------------------------------------------------------------- */
/* Primary: the cases. */

/* Exact sums of objects written before, read by a secondary that made no
 * set-up call. */
static int
test_mp_exact(void)
{
	unsigned int i;

	for (i = 0; i < MP_OBJS; i++) {
		mp_objs[i] = rte_pcpu_alloc(2 * sizeof(uint64_t), 0);
		TEST_ASSERT_NOT_NULL(mp_objs[i], "alloc %u", i);
		mp_fill(mp_objs[i], i);
		mp_expect(i, mp_objs[i]);
	}
	ctl->nr = MP_OBJS;
	return mp_do(MP_EXACT);
}

static int
mp_writer(void *arg __rte_unused)
{
	unsigned int i;
	uint64_t *c;

	while (!__atomic_load_n(&mp_writers_stop, __ATOMIC_RELAXED))
		for (i = 0; i < MP_OBJS; i++) {
			c = RTE_PCPU((uint64_t *)mp_objs[i]);
			__atomic_store_n(&c[0], c[0] + 1, __ATOMIC_RELAXED);
			__atomic_store_n(&c[1], c[1] + 64, __ATOMIC_RELAXED);
		}
	return 0;
}

/* Two writer lcores count while the secondary sums: the sums never go
 * down; once they stop, the sums are exact. */
static int
test_mp_monotonic(void)
{
	unsigned int l, writers = 0, i;

	mp_writers_stop = 0;
	RTE_LCORE_FOREACH_WORKER(l) {
		if (writers == 2)
			break;
		TEST_ASSERT_SUCCESS(rte_eal_remote_launch(mp_writer, NULL, l),
			"launch on lcore %u", l);
		writers++;
	}
	TEST_ASSERT_EQUAL(writers, 2u, "two worker lcores");
	TEST_ASSERT_SUCCESS(mp_start(MP_MONOTONIC), "start");
	/* let the secondary see the counters move for a while */
	MP_WAIT(__atomic_load_n(&ctl->loops, __ATOMIC_RELAXED) >= 200,
		"sums while writing");
	TEST_ASSERT_SUCCESS(mp_stop(MP_MONOTONIC), "monotonic sums");
	__atomic_store_n(&mp_writers_stop, 1, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	printf("mp: %" PRIu64 " rounds of sums while 2 lcores wrote\n",
		ctl->loops);
	for (i = 0; i < MP_OBJS; i++)
		mp_expect(i, mp_objs[i]);
	return mp_do(MP_EXACT);
}

/* A pool, and objects in new chunks, made after the secondary attached. */
static int
test_mp_late(void)
{
	struct rte_pcpu_mempool *mp;
	struct rte_pcpu_stats st0, st;
	unsigned int i, n = 0;
	void *o;

	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st0), "stats");
	mp = rte_pcpu_mempool_create(MP_POOL, 256, 16, 32, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool: %s", rte_strerror(rte_errno));
	for (i = 0; i < 100; i++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get(mp, &o), "get %u", i);
		mp_fill(o, 5000 + i);
		mp_expect(n++, o);
	}
	for (i = 0; i < MP_NR_BIG; i++) {
		char *h = rte_pcpu_alloc(MP_BIG, 64);

		TEST_ASSERT_NOT_NULL(h, "big %u", i);
		mp_fill(h, 9000 + i);
		mp_fill(h + MP_BIG - 16, 9500 + i);
		mp_expect(n++, h);
		mp_expect(n++, h + MP_BIG - 16);
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT(st.nr_chunks > st0.nr_chunks, "new chunks: %u -> %u",
		st0.nr_chunks, st.nr_chunks);
	ctl->nr = n;
	return mp_do(MP_LATE);
}

/* On a worker lcore: get and put MP_OPS_WARM objects of @p arg, an
 * rte_mempool with "pcpu" ops, so that its lcore cache holds some. */
static int
mp_ops_warm(void *arg)
{
	void *o[MP_OPS_WARM];

	if (rte_mempool_get_bulk(arg, o, MP_OPS_WARM) != 0)
		return -1;
	rte_mempool_put_bulk(arg, o, MP_OPS_WARM);
	return 0;
}

/* The secondary's writes fail; its statistics, dump and audit are the
 * primary's. An rte_mempool with "pcpu" ops refuses the secondary's get
 * when the cache of its lcore id (0) is empty, as here where only another
 * lcore took objects of it, and the pool stays as it was. */
static int
test_mp_refuse(void)
{
	struct rte_pcpu_mempool *mp = rte_pcpu_mempool_lookup(MP_POOL);
	struct rte_mempool *ops;
	unsigned int worker;
	int r;

	TEST_ASSERT_NOT_NULL(mp, "pool");
	/* a worker whose cache is not the secondary's (lcore 0, mp_cpus()) */
	RTE_LCORE_FOREACH_WORKER(worker)
		if (worker != 0)
			break;
	TEST_ASSERT(worker < RTE_MAX_LCORE, "a worker lcore other than 0");
	ops = rte_pcpu_mempool_ops_create(MP_OPS_POOL, 64, 16, 8, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(ops, "ops pool: %s", rte_strerror(rte_errno));
	if (rte_eal_remote_launch(mp_ops_warm, ops, worker) != 0 ||
	    rte_eal_wait_lcore(worker) != 0) {
		rte_mempool_free(ops);
		TEST_ASSERT(0, "warm the cache of lcore %u", worker);
	}
	ctl->ops_avail = rte_mempool_avail_count(ops);
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&ctl->st), "stats");
	ctl->pool_in_use = rte_pcpu_mempool_in_use_count(mp);
	ctl->nr_chunks = ctl->st.nr_chunks;
	TEST_ASSERT_EQUAL(ctl->st.readers, 1u, "the secondary reads");
	r = mp_do(MP_REFUSE);
	if (r == TEST_SUCCESS && (rte_mempool_avail_count(ops) != 64 ||
			rte_mempool_in_use_count(ops) != 0)) {
		printf("ops pool after the secondary: %u available, %u in use"
			"\n", rte_mempool_avail_count(ops),
			rte_mempool_in_use_count(ops));
		r = TEST_FAILED;
	}
	rte_mempool_free(ops);
	return r;
}

/* Memory freed while the secondary reads is not given back (it could
 * read a page that became a hole: SIGBUS or a page allocated behind the
 * primary's back); reused objects read zero in both processes; once the
 * secondary detached, the memory goes back. */
static int
test_mp_depopulate(void)
{
	struct rte_pcpu_stats st0, st1, st2, st3;
	void *objs[MP_NR_DEPOP], *span;
	const uint8_t *v;
	unsigned int i, l;
	int64_t back;
	time_t t0;

	for (i = 0; i < MP_NR_DEPOP; i++) {
		objs[i] = rte_pcpu_alloc(MP_DEPOP_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
		mp_fill(objs[i], 20000 + i);
		ctl->old[i] = (uintptr_t)objs[i];
	}
	/* a span too: its free gives its memory back at once, unless a
	 * secondary reads */
	span = rte_pcpu_alloc(MP_SPAN_SIZE, 0);
	TEST_ASSERT_NOT_NULL(span, "span");
	mp_fill(span, 30000);
	mp_fill((char *)span + MP_SPAN_SIZE - 16, 30001);
	ctl->old[MP_NR_DEPOP] = (uintptr_t)span;
	ctl->old[MP_NR_DEPOP + 1] = (uintptr_t)span + MP_SPAN_SIZE - 16;
	ctl->nr_old = MP_NR_DEPOP + 2;
	/* the live objects of the earlier cases stay exact meanwhile */
	for (i = 0; i < MP_OBJS; i++)
		mp_expect(i, mp_objs[i]);
	ctl->nr = MP_OBJS;
	TEST_ASSERT_SUCCESS(mp_start(MP_READ_LOOP), "read loop");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st0), "stats");
	for (i = 0; i < MP_NR_DEPOP; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(span), "free the span");
	TEST_ASSERT_EQUAL(rte_pcpu_free(span), -1, "a second free of the span");
	back = rte_pcpu_reclaim();
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st1), "stats");
	printf("mp: freed %u x %u B while a secondary reads: reclaim gave "
		"back %" PRId64 " B, populated %" PRIu64 " -> %" PRIu64
		" B, deferred %" PRIu64 " times\n", MP_NR_DEPOP, MP_DEPOP_SIZE,
		back, st0.populated_bytes, st1.populated_bytes,
		st1.nr_depop_deferred);
	TEST_ASSERT_EQUAL(back, 0, "memory given back under a reader");
	TEST_ASSERT_EQUAL(st1.populated_bytes, st0.populated_bytes,
		"populated bytes changed under a reader");
	TEST_ASSERT(st1.nr_depop_deferred > st0.nr_depop_deferred,
		"deferral not counted");
	TEST_ASSERT_EQUAL(st1.readers, 1u, "readers");
	/* reuse: the same pages, zeroed */
	for (i = 0; i < MP_NR_DEPOP; i++) {
		objs[i] = rte_pcpu_alloc(MP_DEPOP_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "realloc %u", i);
		RTE_PCPU_FOREACH(l, v, (const uint8_t *)objs[i])
			TEST_ASSERT(pcpu_test_all_bytes(v, MP_DEPOP_SIZE, 0),
				"reused object %u not zero on lcore %u", i, l);
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st2), "stats");
	TEST_ASSERT_EQUAL(st2.populated_bytes, st1.populated_bytes,
		"reuse populated new pages");
	TEST_ASSERT_SUCCESS(mp_stop(MP_READ_LOOP), "reads during the frees");
	printf("mp: the secondary read %" PRIu64 " rounds meanwhile\n",
		ctl->loops);
	/* once it detached, those pages may become holes: a reader must not
	 * read a handle that was dead before it attached (a read fault on a
	 * hole would put a page back into the file) */
	ctl->nr_old = 0;
	for (i = 0; i < MP_NR_DEPOP; i++)
		ctl->h[i] = (uintptr_t)objs[i];
	ctl->nr = MP_NR_DEPOP;
	ctl->size = MP_DEPOP_SIZE;
	TEST_ASSERT_SUCCESS(mp_do(MP_ZEROS), "zeros in the secondary");
	for (i = 0; i < MP_NR_DEPOP; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	TEST_ASSERT_SUCCESS(mp_do(MP_DETACH), "detach");
	/* the detach tells the primary, which gives memory back soon */
	t0 = time(NULL);
	do {
		usleep(10 * 1000);
		TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st3), "stats");
	} while ((st3.readers != 0 || st3.populated_bytes >=
		  st1.populated_bytes) && time(NULL) - t0 < 10);
	printf("mp: after the detach: populated %" PRIu64 " B, readers %u\n",
		st3.populated_bytes, st3.readers);
	TEST_ASSERT_EQUAL(st3.readers, 0u, "readers after the detach");
	TEST_ASSERT(st3.populated_bytes < st1.populated_bytes,
		"memory not given back after the detach");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* A secondary killed in the middle of its reads: the kernel drops its
 * lock, the primary gives memory back and its audits are clean. */
static int
test_mp_sigkill(void)
{
	struct rte_pcpu_mempool *mp = rte_pcpu_mempool_lookup(MP_POOL);
	struct rte_pcpu_stats st;
	void *objs[MP_NR_DEPOP];
	unsigned int i;
	int64_t back;
	int status;

	for (i = 0; i < MP_OBJS; i++)
		mp_expect(i, mp_objs[i]);
	ctl->nr = MP_OBJS;
	/* it attaches again by itself: its first read does */
	TEST_ASSERT_SUCCESS(mp_start(MP_SPIN), "spin");
	MP_WAIT(__atomic_load_n(&ctl->loops, __ATOMIC_RELAXED) >= 100,
		"reads");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	TEST_ASSERT_EQUAL(st.readers, 1u, "readers while it reads");
	for (i = 0; i < MP_NR_DEPOP; i++) {
		objs[i] = rte_pcpu_alloc(MP_DEPOP_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
	}
	for (i = 0; i < MP_NR_DEPOP; i++)
		rte_pcpu_free(objs[i]);
	TEST_ASSERT_EQUAL(kill(mp_child, SIGKILL), 0, "kill");
	TEST_ASSERT_EQUAL(waitpid(mp_child, &status, 0), mp_child, "wait");
	mp_child = -1;
	TEST_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		"status %#x", status);
	back = rte_pcpu_reclaim();
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	printf("mp: after SIGKILL: reclaim gave back %" PRId64 " B, readers "
		"%u\n", back, st.readers);
	TEST_ASSERT(back > 0, "nothing given back after the reader died");
	TEST_ASSERT_EQUAL(st.readers, 0u, "readers");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_NOT_NULL(mp, "pool");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(mp), "pool audit");
	return TEST_SUCCESS;
}

/* The primary sets the allocator up again while a secondary is attached:
 * the secondary's next library call attaches it to the new area (its
 * inline readers do as soon as the primary's message that the old one
 * went has come), where it reads the new objects exactly. */
static int
test_mp_reinit(void)
{
	unsigned int i;

	mp_child = mp_spawn_steps();
	TEST_ASSERT(mp_child > 0, "cannot start the secondary process");
	for (i = 0; i < MP_OBJS; i++)
		mp_expect(i, mp_objs[i]);
	ctl->nr = MP_OBJS;
	TEST_ASSERT_SUCCESS(mp_do(MP_EXACT), "attached");
	TEST_ASSERT_SUCCESS(rte_pcpu_cleanup(), "cleanup");
	TEST_ASSERT_SUCCESS(rte_pcpu_init(&mp_conf), "init again");
	for (i = 0; i < MP_OBJS; i++) {
		mp_objs[i] = rte_pcpu_alloc(2 * sizeof(uint64_t), 0);
		TEST_ASSERT_NOT_NULL(mp_objs[i], "alloc %u", i);
		mp_fill(mp_objs[i], 40000 + i);
		mp_expect(i, mp_objs[i]);
	}
	TEST_ASSERT_SUCCESS(mp_do(MP_INIT_EXACT), "the new generation");
	return mp_do(MP_EXIT);
}

/* A secondary that has something where the area goes gets the documented
 * error, and reads nothing, with no crash. */
static int
test_mp_collision(void)
{
	struct rte_pcpu_stats st;
	char addr[32];
	int status;
	pid_t pid;

	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&st), "stats");
	/* a page in the middle of the area */
	snprintf(addr, sizeof(addr), "%#" PRIx64, st.base_addr +
		st.unit_stride * RTE_MAX_LCORE / 2);
	pid = mp_spawn("collide", addr);
	TEST_ASSERT(pid > 0, "cannot start the secondary process");
	TEST_ASSERT_EQUAL(waitpid(pid, &status, 0), pid, "wait");
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"the colliding secondary: status %#x", status);
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_mp_testsuite = {
	.suite_name = "percpu memory read by a secondary process",
	.setup = mp_suite_setup,
	.teardown = mp_suite_teardown,
	.unit_test_cases = {
		TEST_CASE(test_mp_exact),
		TEST_CASE(test_mp_monotonic),
		TEST_CASE(test_mp_late),
		TEST_CASE(test_mp_refuse),
		TEST_CASE(test_mp_depopulate),
		TEST_CASE(test_mp_sigkill),
		TEST_CASE(test_mp_reinit),
		TEST_CASE(test_mp_collision),
		TEST_CASES_END()
	}
};

/* Once with the default page policy (hugepages while free), once with
 * 4 KiB pages. */
static int
test_pcpu_mp(void)
{
	int r1, r2;

	memset(&mp_conf, 0, sizeof(mp_conf));
	r1 = unit_test_suite_runner(&pcpu_mp_testsuite);
	mp_conf.page_policy = RTE_PCPU_PAGE_NORMAL;
	r2 = unit_test_suite_runner(&pcpu_mp_testsuite);
	if (r1 == TEST_FAILED || r2 == TEST_FAILED)
		return TEST_FAILED;
	return r1 == TEST_SKIPPED && r2 == TEST_SKIPPED ? TEST_SKIPPED :
		TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(pcpu_mp_autotest, test_pcpu_mp);

/* ---------------------------------------------------------------------- */
/* pcpu_mp_perf_autotest: a secondary sums a million flows' counters. */

#define MP_SUM_FLOWS 1000000u
#define MP_SUM_ROUNDS 9

static int
mp_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The flows of dpdk-flowcount: a pool of 64-byte counter blocks, a
 * million of them out, every lcore's copy counting; their handles in EAL
 * memory, where the secondary reads them as it would from a flow table.
 * The primary and the secondary then take turns summing them all
 * (rte_pcpu_sum_u64() of packets and bytes per flow), MP_SUM_ROUNDS times
 * each; the medians and ranges are printed on one line.
 */
static int
test_pcpu_mp_perf(void)
{
	uint64_t prim[MP_SUM_ROUNDS], sec[MP_SUM_ROUNDS], total[2];
	double ratio[MP_SUM_ROUNDS], rs[MP_SUM_ROUNDS];
	struct rte_pcpu_mempool *mp = NULL;
	unsigned int i, k, l;
	uint64_t *c;
	void **h;
	int ret = TEST_FAILED;

	memset(&mp_conf, 0, sizeof(mp_conf));
	ret = mp_suite_setup();
	if (ret != TEST_SUCCESS)
		return ret;
	ret = TEST_FAILED;
	h = rte_malloc("pcpu_mp_perf", sizeof(void *) * MP_SUM_FLOWS, 0);
	mp = rte_pcpu_mempool_create("mp_flows", MP_SUM_FLOWS, 64, 0, 0,
		NULL, NULL, 0);
	if (h == NULL || mp == NULL) {
		printf("mp perf: no memory for %u flows\n", MP_SUM_FLOWS);
		goto out;
	}
	if (rte_pcpu_mempool_get_bulk(mp, h, MP_SUM_FLOWS) != 0) {
		printf("mp perf: cannot get %u flows\n", MP_SUM_FLOWS);
		goto out;
	}
	for (i = 0; i < MP_SUM_FLOWS; i++)
		RTE_PCPU_FOREACH(l, c, (uint64_t *)h[i]) {
			c[0] = i % 7 + l;
			c[1] = (i % 7 + l) * 100;
		}
	ctl->sum_h = h;
	ctl->sum_nr = MP_SUM_FLOWS;
	mp_sum_all(h, MP_SUM_FLOWS, ctl->sum_total);
	for (k = 0; k < MP_SUM_ROUNDS; k++) {
		prim[k] = mp_sum_all(h, MP_SUM_FLOWS, total);
		if (total[0] != ctl->sum_total[0])
			goto out;
		if (mp_do(MP_SUM) != TEST_SUCCESS)
			goto out;
		sec[k] = ctl->sum_ns;
		ratio[k] = (double)sec[k] / (double)prim[k];
	}
	qsort(prim, MP_SUM_ROUNDS, sizeof(prim[0]), mp_cmp_u64);
	qsort(sec, MP_SUM_ROUNDS, sizeof(sec[0]), mp_cmp_u64);
	memcpy(rs, ratio, sizeof(rs));
	for (i = 1; i < MP_SUM_ROUNDS; i++)
		for (k = i; k > 0 && rs[k - 1] > rs[k]; k--) {
			double t = rs[k];

			rs[k] = rs[k - 1];
			rs[k - 1] = t;
		}
	printf("mp-sum: flows=%u lcores=%u rounds=%u secondary_ms=%.2f "
		"[%.2f-%.2f] primary_ms=%.2f [%.2f-%.2f] "
		"secondary_over_primary=%.3f [%.3f-%.3f] "
		"secondary_ns_per_flow=%.2f\n", MP_SUM_FLOWS,
		pcpu_test_mem_lcores(), MP_SUM_ROUNDS,
		sec[MP_SUM_ROUNDS / 2] / 1e6, sec[0] / 1e6,
		sec[MP_SUM_ROUNDS - 1] / 1e6, prim[MP_SUM_ROUNDS / 2] / 1e6,
		prim[0] / 1e6, prim[MP_SUM_ROUNDS - 1] / 1e6,
		rs[MP_SUM_ROUNDS / 2], rs[0], rs[MP_SUM_ROUNDS - 1],
		(double)sec[MP_SUM_ROUNDS / 2] / MP_SUM_FLOWS);
	ret = mp_do(MP_EXIT);
out:
	if (mp != NULL && rte_pcpu_mempool_in_use_count(mp) == MP_SUM_FLOWS)
		rte_pcpu_mempool_put_bulk(mp, h, MP_SUM_FLOWS);
	rte_pcpu_mempool_free(mp);
	rte_free(h);
	ctl->sum_h = NULL;
	mp_suite_teardown();
	return ret;
}

REGISTER_TEST_COMMAND(pcpu_mp_perf_autotest, test_pcpu_mp_perf);

/* ---------------------------------------------------------------------- */
/* Secondary. */

static void __rte_format_printf(1, 2)
sec_fail(const char *fmt, ...)
{
	va_list ap;

	if (ctl->result == TEST_FAILED && ctl->msg[0] != '\0')
		return;  /* the first failure tells */
	va_start(ap, fmt);
	vsnprintf(ctl->msg, sizeof(ctl->msg), fmt, ap);
	va_end(ap);
	ctl->result = TEST_FAILED;
}

#define SEC_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		sec_fail(__VA_ARGS__);					\
		return -1;						\
	}								\
} while (0)

/* The secondary's first reading call is still to come (it attaches). */
static int mp_sec_first;

/* Sums of h[] against expect[]: exact, and read both ways. */
static int
sec_exact(void)
{
	unsigned int i, l;
	uint64_t s[2], f[2], t0;
	const uint64_t *c;

	if (mp_sec_first) {
		/* what the first reader pays: the request for the files and
		 * the mapping of the area */
		mp_sec_first = 0;
		t0 = rte_rdtsc_precise();
		rte_pcpu_sum_u64((void *)(uintptr_t)ctl->h[0], 2, s);
		printf("mp: the first reader attached in %.0f us\n",
			(double)(rte_rdtsc_precise() - t0) * 1e6 /
			rte_get_tsc_hz());
	}

	for (i = 0; i < ctl->nr; i++) {
		rte_pcpu_sum_u64((void *)(uintptr_t)ctl->h[i], 2, s);
		f[0] = f[1] = 0;
		RTE_PCPU_FOREACH(l, c, (const uint64_t *)(uintptr_t)ctl->h[i]) {
			f[0] += c[0];
			f[1] += c[1];
		}
		SEC_CHECK(s[0] == ctl->expect[i][0] && s[1] == ctl->expect[i][1],
			"object %u: sums %" PRIu64 "/%" PRIu64 ", primary %"
			PRIu64 "/%" PRIu64, i, s[0], s[1], ctl->expect[i][0],
			ctl->expect[i][1]);
		SEC_CHECK(f[0] == s[0] && f[1] == s[1], "object %u: FOREACH "
			"%" PRIu64 "/%" PRIu64 ", sum helper %" PRIu64 "/%"
			PRIu64, i, f[0], f[1], s[0], s[1]);
	}
	for (l = 0; l < RTE_MAX_LCORE; l++)
		SEC_CHECK(rte_pcpu_lcore_has_memory(l) ==
			(int)(ctl->mask[l / 64] >> (l % 64) & 1),
			"lcore %u: has memory %d, primary says otherwise", l,
			rte_pcpu_lcore_has_memory(l));
	return 0;
}

static int
sec_monotonic(void)
{
	static uint64_t last[MP_OBJS][2];
	unsigned int i;
	uint64_t s[2];

	memset(last, 0, sizeof(last));
	__atomic_store_n(&ctl->started, MP_MONOTONIC, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < ctl->nr && i < MP_OBJS; i++) {
			rte_pcpu_sum_u64((void *)(uintptr_t)ctl->h[i], 2, s);
			SEC_CHECK(s[0] >= last[i][0] && s[1] >= last[i][1],
				"object %u went down: %" PRIu64 "/%" PRIu64
				" after %" PRIu64 "/%" PRIu64, i, s[0], s[1],
				last[i][0], last[i][1]);
			last[i][0] = s[0];
			last[i][1] = s[1];
		}
		__atomic_fetch_add(&ctl->loops, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static int
sec_late(void)
{
	struct rte_pcpu_mempool *mp = rte_pcpu_mempool_lookup(MP_POOL);

	SEC_CHECK(mp != NULL, "pool %s made after attach not found: %s",
		MP_POOL, rte_strerror(rte_errno));
	SEC_CHECK(rte_pcpu_mempool_in_use_count(mp) == 100,
		"pool in use %u, want 100", rte_pcpu_mempool_in_use_count(mp));
	return sec_exact();
}

static int
sec_refuse(void)
{
	struct rte_pcpu_conf conf = { 0 };
	struct rte_pcpu_mempool *mp = rte_pcpu_mempool_lookup(MP_POOL);
	struct rte_pcpu_cache_stats cs;
	struct rte_mempool *ops;
	struct rte_pcpu_stats st;
	char *buf = NULL, want[64];
	size_t len = 0;
	unsigned int l;
	void *o = NULL;
	uint64_t t0;
	FILE *f;
	int n;

	SEC_CHECK(mp != NULL, "pool");
	SEC_CHECK(rte_pcpu_alloc(16, 0) == NULL && rte_errno == ENOTSUP,
		"rte_pcpu_alloc not refused");
	SEC_CHECK(rte_pcpu_free((void *)(uintptr_t)ctl->h[0]) == -1 &&
		rte_errno == ENOTSUP, "rte_pcpu_free not refused");
	SEC_CHECK(rte_pcpu_reclaim() == -1 && rte_errno == ENOTSUP,
		"rte_pcpu_reclaim not refused");
	SEC_CHECK(rte_pcpu_cache_flush() == -1 && rte_errno == ENOTSUP,
		"rte_pcpu_cache_flush not refused");
	SEC_CHECK(rte_pcpu_init(&conf) == -1 && rte_errno == ENOTSUP,
		"rte_pcpu_init with a conf not refused");
	SEC_CHECK(rte_pcpu_init(NULL) == 0, "rte_pcpu_init(NULL): %s",
		rte_strerror(rte_errno));
	SEC_CHECK(rte_pcpu_mempool_get(mp, &o) == -ENOTSUP,
		"rte_pcpu_mempool_get not refused");
	SEC_CHECK(rte_pcpu_mempool_put(mp, (void *)(uintptr_t)ctl->h[0]) ==
		-ENOTSUP, "rte_pcpu_mempool_put not refused");
	SEC_CHECK(rte_pcpu_mempool_create("mp_sec", 8, 8, 0, 0, NULL, NULL,
		0) == NULL && rte_errno == ENOTSUP,
		"rte_pcpu_mempool_create not refused");
	SEC_CHECK(rte_pcpu_mempool_free(mp) == -1 && rte_errno == ENOTSUP,
		"rte_pcpu_mempool_free not refused");
	ops = rte_mempool_lookup(MP_OPS_POOL);
	SEC_CHECK(ops != NULL, "ops pool %s", MP_OPS_POOL);
	SEC_CHECK(rte_mempool_get(ops, &o) == -ENOTSUP,
		"rte_mempool_get of a \"pcpu\" pool not refused");
	SEC_CHECK(rte_mempool_avail_count(ops) == ctl->ops_avail,
		"ops pool: %u available, want %u",
		rte_mempool_avail_count(ops), ctl->ops_avail);
	SEC_CHECK(rte_pcpu_mempool_ops_create("mp_sec_ops", 8, 16, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0) == NULL &&
		rte_errno == ENOTSUP,
		"rte_pcpu_mempool_ops_create not refused");
	/* the primary's figures */
	t0 = rte_rdtsc_precise();
	SEC_CHECK(rte_pcpu_stats_get(&st) == 0, "stats: %s",
		rte_strerror(rte_errno));
	printf("mp: the primary answered a statistics request in %.0f us\n",
		(double)(rte_rdtsc_precise() - t0) * 1e6 / rte_get_tsc_hz());
	SEC_CHECK(st.nr_alloc == ctl->st.nr_alloc &&
		st.nr_dealloc == ctl->st.nr_dealloc &&
		st.nr_cur_alloc == ctl->st.nr_cur_alloc &&
		st.nr_chunks == ctl->st.nr_chunks &&
		st.populated_bytes == ctl->st.populated_bytes &&
		st.page_size == ctl->st.page_size &&
		st.nr_lcores == ctl->st.nr_lcores &&
		st.base_addr == ctl->st.base_addr && st.shared == 1 &&
		st.readers == 1, "stats differ from the primary's: nr_alloc %"
		PRIu64 "/%" PRIu64 " cur %" PRIu64 "/%" PRIu64 " chunks %u/%u"
		" populated %" PRIu64 "/%" PRIu64, st.nr_alloc,
		ctl->st.nr_alloc, st.nr_cur_alloc, ctl->st.nr_cur_alloc,
		st.nr_chunks, ctl->st.nr_chunks, st.populated_bytes,
		ctl->st.populated_bytes);
	SEC_CHECK(rte_pcpu_mempool_in_use_count(mp) == ctl->pool_in_use,
		"pool in use %u, primary %u", rte_pcpu_mempool_in_use_count(mp),
		ctl->pool_in_use);
	f = open_memstream(&buf, &len);
	SEC_CHECK(f != NULL, "memstream");
	n = rte_pcpu_dump(f);
	fclose(f);
	snprintf(want, sizeof(want), "nr_cur_alloc %" PRIu64 " ",
		ctl->st.nr_cur_alloc);
	SEC_CHECK(n == 0 && buf != NULL && strstr(buf, want) != NULL &&
		strstr(buf, "chunk 0 ") != NULL, "dump (%d): no '%s' or "
		"chunk 0", n, want);
	free(buf);
	SEC_CHECK(rte_pcpu_audit() == 0, "audit: %s", rte_strerror(rte_errno));
	SEC_CHECK(rte_pcpu_mempool_audit(mp) == 0, "pool audit");
	n = rte_pcpu_chunk_walk(NULL, NULL);
	SEC_CHECK(n == -1 && rte_errno == EINVAL, "chunk walk of NULL");
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		SEC_CHECK(rte_pcpu_lcore_socket_id(l) == ctl->socket[l],
			"lcore %u: node %d, primary %d", l,
			rte_pcpu_lcore_socket_id(l), ctl->socket[l]);
		if (!rte_pcpu_lcore_has_memory(l))
			continue;
		SEC_CHECK(rte_pcpu_cache_stats_get(l, 0, &cs) == 0 &&
			cs.size == 8, "cache stats of lcore %u", l);
	}
	return 0;
}

static void
sec_count_chunk(const struct rte_pcpu_chunk_stats *cs __rte_unused,
		void *arg)
{
	(*(unsigned int *)arg)++;
}

static int
sec_chunks(void)
{
	unsigned int n = 0;
	int ret;

	ret = rte_pcpu_chunk_walk(sec_count_chunk, &n);
	SEC_CHECK(ret >= 0 && (unsigned int)ret == n && n == ctl->nr_chunks,
		"chunk walk: %d chunks, %u calls, primary %u", ret, n,
		ctl->nr_chunks);
	return 0;
}

/* Read h[] exactly and old[] at all, until stop. */
static int
sec_read_loop(enum mp_step step, int check)
{
	volatile uint64_t sink = 0;
	const uint64_t *c;
	unsigned int i, l;
	uint64_t s[2];

	__atomic_store_n(&ctl->started, step, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < ctl->nr && i < MP_MAX; i++) {
			rte_pcpu_sum_u64((void *)(uintptr_t)ctl->h[i], 2, s);
			SEC_CHECK(!check || (s[0] == ctl->expect[i][0] &&
				s[1] == ctl->expect[i][1]), "live object %u "
				"changed: %" PRIu64 "/%" PRIu64, i, s[0], s[1]);
		}
		/* freed meanwhile: any value, but never a fault */
		for (i = 0; i < ctl->nr_old && i < MP_MAX; i++)
			RTE_PCPU_FOREACH(l, c,
					(const uint64_t *)(uintptr_t)ctl->old[i])
				sink += c[0];
		__atomic_fetch_add(&ctl->loops, 1, __ATOMIC_RELAXED);
	}
	RTE_SET_USED(sink);
	return 0;
}

static int
sec_zeros(void)
{
	const uint8_t *c;
	unsigned int i, l;

	for (i = 0; i < ctl->nr; i++)
		RTE_PCPU_FOREACH(l, c, (const uint8_t *)(uintptr_t)ctl->h[i])
			SEC_CHECK(pcpu_test_all_bytes(c, ctl->size, 0),
				"reused object %u not zero on lcore %u", i, l);
	return 0;
}

static int
sec_sum(void)
{
	uint64_t total[2];

	ctl->sum_ns = mp_sum_all(ctl->sum_h, ctl->sum_nr, total);
	SEC_CHECK(total[0] == ctl->sum_total[0] && total[1] ==
		ctl->sum_total[1], "sum of %u flows: %" PRIu64 "/%" PRIu64
		", primary %" PRIu64 "/%" PRIu64, ctl->sum_nr, total[0],
		total[1], ctl->sum_total[0], ctl->sum_total[1]);
	return 0;
}

/* Something of ours where the area goes: the documented error. */
static int
sec_collide(void)
{
	const char *arg = getenv("PCPU_MP_ARG");
	struct rte_pcpu_stats st;
	char *buf = NULL;
	size_t len = 0;
	unsigned int l, n = 0;
	uint64_t addr;
	FILE *f, *old;
	void *p, *c;
	int ret;

	if (arg == NULL)
		return TEST_FAILED;
	addr = strtoull(arg, NULL, 0);
	p = mmap((void *)(uintptr_t)addr, 4096, PROT_READ,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	TEST_ASSERT(p == (void *)(uintptr_t)addr, "cannot map at %s", arg);
	f = open_memstream(&buf, &len);
	TEST_ASSERT_NOT_NULL(f, "memstream");
	old = rte_log_get_stream();
	rte_openlog_stream(f);
	ret = rte_pcpu_stats_get(&st);
	rte_openlog_stream(old);
	fclose(f);
	fputs(buf, stdout);
	TEST_ASSERT(ret == -1 && rte_errno == EADDRINUSE,
		"stats with the area's range taken: %d, %s", ret,
		rte_strerror(rte_errno));
	TEST_ASSERT(strstr(buf, "rte_pcpu_conf.base_addr") != NULL,
		"the log does not name rte_pcpu_conf.base_addr");
	free(buf);
	/* the readers find no lcore, and do not crash */
	RTE_PCPU_FOREACH(l, c, (void *)(uintptr_t)addr) {
		RTE_SET_USED(c);
		n++;
	}
	TEST_ASSERT_EQUAL(n, 0u, "lcores found without the area");
	printf("mp: the colliding secondary got EADDRINUSE and the log line\n");
	return TEST_SUCCESS;
}

static int
test_pcpu_mp_secondary(void)
{
	const struct rte_memzone *mz;
	const char *mode = getenv("PCPU_MP_MODE");
	uint32_t step, post, seen = 0;
	int r;

	if (rte_eal_process_type() != RTE_PROC_SECONDARY)
		TEST_SKIP("the secondary side of pcpu_mp_autotest");
	if (mode != NULL && strcmp(mode, "collide") == 0)
		return sec_collide();
	mz = rte_memzone_lookup(MP_ZONE);
	TEST_ASSERT_NOT_NULL(mz, "no control memzone");
	ctl = mz->addr;
	/* no set-up call: the first reader attaches */
	TEST_ASSERT_EQUAL(rte_pcpu_shared.initialised, 0u, "attached early");
	mp_sec_first = 1;
	for (;;) {
		post = __atomic_load_n(&ctl->post, __ATOMIC_ACQUIRE);
		if (post == seen) {
			usleep(200);
			continue;
		}
		seen = post;
		step = ctl->step;
		ctl->result = TEST_SUCCESS;
		switch (step) {
		case MP_EXACT:
			r = sec_exact();
			break;
		case MP_INIT_EXACT:
			r = rte_pcpu_init(NULL);
			if (r != 0)
				sec_fail("init: %s", rte_strerror(rte_errno));
			else
				r = sec_exact();
			break;
		case MP_MONOTONIC:
			r = sec_monotonic();
			break;
		case MP_LATE:
			r = sec_late();
			break;
		case MP_REFUSE:
			r = sec_refuse();
			if (r == 0)
				r = sec_chunks();
			break;
		case MP_READ_LOOP:
			r = sec_read_loop(MP_READ_LOOP, 1);
			break;
		case MP_ZEROS:
			r = sec_zeros();
			break;
		case MP_DETACH:
			r = rte_pcpu_cleanup();
			if (r != 0)
				sec_fail("cleanup: %s", rte_strerror(rte_errno));
			break;
		case MP_SPIN:
			r = sec_read_loop(MP_SPIN, 1);
			break;
		case MP_SUM:
			r = sec_sum();
			break;
		case MP_EXIT:
			__atomic_store_n(&ctl->done_post, post, __ATOMIC_RELEASE);
			return TEST_SUCCESS;
		default:
			r = -1;
			sec_fail("unknown step %u", step);
			break;
		}
		if (r != 0 && ctl->result == TEST_SUCCESS)
			sec_fail("step %u failed", step);
		/* a looping step that failed early still waits for stop */
		if (step == MP_MONOTONIC || step == MP_READ_LOOP ||
		    step == MP_SPIN) {
			__atomic_store_n(&ctl->started, step, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE))
				usleep(200);
		}
		__atomic_store_n(&ctl->done_post, post, __ATOMIC_RELEASE);
	}
}

REGISTER_TEST_COMMAND(pcpu_mp_secondary, test_pcpu_mp_secondary);
