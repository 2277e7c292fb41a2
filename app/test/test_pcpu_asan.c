/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_asan_autotest: death tests for the AddressSanitizer annotations
 * (lib/pcpu_mempool/pcpu_asan.h). Each case forks a child that frees an
 * object (through the chunk allocator, a cache bucket, a pool, or a pool
 * with an RCU grace period) and then writes through another lcore's copy
 * (RTE_PCPU_LCORE()) or sums the copies; the parent expects the child to
 * die with an ASan "use-after-poison" report on its stderr. Control
 * children that write to a live object, or sum an object put with RCU
 * while a reader is still online, must exit cleanly (no false positive).
 * Without ASan the command is skipped (77).
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

#ifdef TEST_ASAN

/* What the child does after its object has been freed. */
enum deed { DEED_WRITE, DEED_SUM, DEED_LIVE_WRITE };

enum how {
	HOW_SLOW,      /* 1 KiB object: chunk allocator */
	HOW_CACHE,     /* 16 B object: parked in the lcore cache */
	HOW_POOL,      /* pool object back in the pool */
	HOW_LIVE,      /* control: nothing freed */
	HOW_RCU_WAIT,  /* RCU put, a reader still online: still readable */
	HOW_RCU_DONE,  /* RCU put reclaimed after the grace period */
};

/* Pool with a defer queue reclaiming on every put; the child itself is
 * the QSBR reader (thread id 0), online. */
static struct rte_pcpu_mempool *
rcu_pool(struct rte_rcu_qsbr **vp)
{
	struct rte_pcpu_mempool_rcu_config c = { 0 };
	struct rte_pcpu_mempool *mp;
	struct rte_rcu_qsbr *v;

	v = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	mp = rte_pcpu_mempool_create("asan_rcu", 8, 16, 0, 0, NULL, NULL, 0);
	if (v == NULL || mp == NULL || rte_rcu_qsbr_init(v, 1) != 0 ||
	    rte_rcu_qsbr_thread_register(v, 0) != 0)
		_exit(3);
	rte_rcu_qsbr_thread_online(v, 0);
	c.v = v;
	c.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	c.trigger_reclaim_limit = 0; /* reclaim on every put */
	if (rte_pcpu_mempool_rcu_qsbr_add(mp, &c) != 0)
		_exit(3);
	*vp = v;
	return mp;
}

static unsigned int
other_lcore(void)
{
	unsigned int l;

	RTE_LCORE_FOREACH_WORKER(l)
		if (rte_pcpu_lcore_has_memory(l))
			return l;
	return RTE_MAX_LCORE;
}

/* The child: free (per @p how), then misbehave (per @p deed). */
static void __rte_noreturn
child(enum how how, enum deed deed, unsigned int other)
{
	struct rte_pcpu_mempool *mp = NULL;
	struct rte_rcu_qsbr *v = NULL;
	uint64_t *h = NULL, *b = NULL, sum[2];

	switch (how) {
	case HOW_RCU_WAIT:
	case HOW_RCU_DONE:
		mp = rcu_pool(&v);
		if (rte_pcpu_mempool_get(mp, (void **)&h) != 0 ||
		    rte_pcpu_mempool_get(mp, (void **)&b) != 0)
			_exit(3);
		break;
	case HOW_SLOW:
		h = rte_pcpu_alloc(1024, 0);
		break;
	case HOW_CACHE:
	case HOW_LIVE:
		h = rte_pcpu_alloc(16, 0);
		break;
	case HOW_POOL:
		mp = rte_pcpu_mempool_create("asan_death", 8, 16, 4, 0, NULL,
			NULL, 0);
		if (mp == NULL || rte_pcpu_mempool_get(mp, (void **)&h) != 0)
			_exit(3);
		break;
	}
	if (h == NULL)
		_exit(3);
	/* legal use first: every copy is addressable while live */
	RTE_PCPU_LCORE(other, h)[0] = 1;
	RTE_PCPU_LCORE(rte_lcore_id(), h)[1] = 2;
	if (how == HOW_POOL) {
		rte_pcpu_mempool_put(mp, h);
	} else if (how == HOW_RCU_WAIT) {
		/* the reader (this thread) is online: h stays readable */
		rte_pcpu_mempool_put(mp, h);
		rte_pcpu_mempool_put(mp, b);
	} else if (how == HOW_RCU_DONE) {
		rte_pcpu_mempool_put(mp, h);
		rte_rcu_qsbr_thread_offline(v, 0);
		/* this put reclaims h: its grace period is over */
		rte_pcpu_mempool_put(mp, b);
	} else if (how != HOW_LIVE) {
		rte_pcpu_free(h);
	}
	if (deed == DEED_SUM)
		rte_pcpu_sum_u64(h, 2, sum);
	else
		RTE_PCPU_LCORE(other, h)[1] = 42;
	if (how == HOW_RCU_WAIT) {
		/* EAL memory is shared with the parent and the next child:
		 * free the pool so that its defer queue's ring name is free */
		rte_rcu_qsbr_thread_offline(v, 0);
		if (rte_pcpu_mempool_free(mp) != 0)
			_exit(4);
	}
	_exit(0);
}

/* Fork a child, collect its stderr and exit status. */
static int
run_child(enum how how, enum deed deed, char *out, size_t len, int *status)
{
	unsigned int other = other_lcore();
	size_t got = 0;
	int fds[2];
	pid_t pid;

	if (other == RTE_MAX_LCORE)
		return -ENOTSUP;
	if (pipe(fds) != 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		close(fds[1]);
		child(how, deed, other);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], out + got, len - 1 - got);

		if (r > 0 && got + (size_t)r < len - 1) {
			got += (size_t)r;
			continue;
		}
		if (r > 0) {
			/* buffer full: drain the rest */
			char sink[4096];

			got += (size_t)r;
			while (read(fds[0], sink, sizeof(sink)) > 0)
				;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, status, 0) != pid)
		return -errno;
	return 0;
}

static int
expect_report(enum how how, enum deed deed, const char *what)
{
	static char out[64 * 1024];
	int status = 0, ret;

	ret = run_child(how, deed, out, sizeof(out), &status);
	if (ret == -ENOTSUP)
		TEST_SKIP("needs a worker lcore with memory");
	TEST_ASSERT_SUCCESS(ret, "fork of the child failed");
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		WEXITSTATUS(status) != 3,
		"%s: child did not die of the report (status %#x), stderr:\n%s",
		what, status, out);
	TEST_ASSERT(strstr(out, "use-after-poison") != NULL,
		"%s: no use-after-poison report, stderr:\n%s", what, out);
	printf("%s: reported (child exit %d)\n", what, WEXITSTATUS(status));
	return TEST_SUCCESS;
}

static int
test_asan_free_slow(void)
{
	return expect_report(HOW_SLOW, DEED_WRITE,
		"write to another lcore's copy of a freed 1 KiB object");
}

static int
test_asan_free_cached(void)
{
	return expect_report(HOW_CACHE, DEED_WRITE,
		"write to another lcore's copy of a 16 B object in a cache");
}

static int
test_asan_pool_put(void)
{
	return expect_report(HOW_POOL, DEED_WRITE,
		"write to another lcore's copy of a pool object put back");
}

static int
test_asan_sum_freed(void)
{
	return expect_report(HOW_SLOW, DEED_SUM,
		"rte_pcpu_sum_u64() over a freed object");
}

static int
test_asan_rcu_done(void)
{
	return expect_report(HOW_RCU_DONE, DEED_SUM,
		"rte_pcpu_sum_u64() over an RCU put after its grace period");
}

static int
expect_clean(enum how how, enum deed deed)
{
	static char out[64 * 1024];
	int status = 0, ret;

	ret = run_child(how, deed, out, sizeof(out), &status);
	if (ret == -ENOTSUP)
		TEST_SKIP("needs a worker lcore with memory");
	TEST_ASSERT_SUCCESS(ret, "fork of the child failed");
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"legal accesses were reported (status %#x):\n%s",
		status, out);
	return TEST_SUCCESS;
}

static int
test_asan_live_ok(void)
{
	return expect_clean(HOW_LIVE, DEED_LIVE_WRITE);
}

/* A reader may still sum an object put with RCU until it reports a
 * quiescent state: no report. */
static int
test_asan_rcu_wait_ok(void)
{
	return expect_clean(HOW_RCU_WAIT, DEED_SUM);
}

/* Set the allocator up (defaults) so that the lcores have memory. */
static int
asan_setup(void)
{
	void *probe = rte_pcpu_alloc(8, 0);

	if (probe == NULL)
		return TEST_FAILED;
	rte_pcpu_free(probe);
	return TEST_SUCCESS;
}

static struct unit_test_suite asan_suite = {
	.suite_name = "pcpu_asan_autotest: ASan poisoning of freed copies",
	.setup = asan_setup,
	.unit_test_cases = {
		TEST_CASE(test_asan_live_ok),
		TEST_CASE(test_asan_free_slow),
		TEST_CASE(test_asan_free_cached),
		TEST_CASE(test_asan_pool_put),
		TEST_CASE(test_asan_sum_freed),
		TEST_CASE(test_asan_rcu_wait_ok),
		TEST_CASE(test_asan_rcu_done),
		TEST_CASES_END()
	},
};

static int
test_pcpu_asan(void)
{
	return unit_test_suite_runner(&asan_suite);
}

#else /* !TEST_ASAN */

static int
test_pcpu_asan(void)
{
	printf("pcpu_asan_autotest: not an AddressSanitizer build, skipped\n");
	return TEST_SKIPPED;
}

#endif /* TEST_ASAN */

REGISTER_TEST_COMMAND(pcpu_asan_autotest, test_pcpu_asan);
