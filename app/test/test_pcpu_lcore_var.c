/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_lcore_var_test: the opt-in DPDK 24.11 lcore variable API
 * (lib/pcpu_mempool/lcore_var) where it differs from DPDK 24.11 or adds to
 * it, as the programmer's guide ("Migrating from rte_lcore_var") states:
 *
 * - allocation aborts, as 24.11 does, on a bad size or alignment and on
 *   a call before rte_eal_init() (checked in forked children before EAL
 *   starts, each with its panic message);
 * - alignment 0 is alignof(max_align_t), explicit alignments are kept;
 * - RTE_LCORE_VAR_FOREACH visits the lcores with percpu memory only;
 * - a thread registered after the allocation finds its value zeroed, not
 *   initialised by an earlier RTE_LCORE_VAR_FOREACH;
 *   the guide's remedy, an lcore callback registered after the
 *   allocation, initialises it;
 * - rte_pcpu_lcore_var_free() frees, and rejects a second free.
 *
 * With DPDK 24.11 and later the package is DPDK's own lcore variables,
 * and the same program checks DPDK's behaviour in those places instead:
 * allocation before rte_eal_init() works and size 0 is allowed, a bad size
 * or alignment aborts (RTE_VERIFY), every one of the RTE_MAX_LCORE ids has
 * a value (FOREACH visits them all, a thread registered later finds what
 * was written there), and rte_pcpu_lcore_var_free() fails with ENOTSUP.
 *
 * Own program: part of it runs before rte_eal_init(). The program written
 * to the 24.11 documentation is app/test/consumer/lcore_var_consumer.c.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_lcore_var.h>
#include <rte_pcpu_lcore_var.h>

#include "pcpu_compat.h"

#ifdef PCPU_HAVE_RTE_LCORE_VAR
/* DPDK's lcore variables: RTE_VERIFY()'s messages in rte_lcore_var_alloc() */
#define MSG_SIZE "size <= RTE_MAX_LCORE_VAR"
#define MSG_ALIGN_BIG "align <= RTE_CACHE_LINE_SIZE"
#define MSG_ALIGN_POW2 "rte_is_power_of_2(align)"
#else
#define MSG_SIZE "size must be 1.."
#define MSG_ALIGN_BIG "align a power of two"
#define MSG_ALIGN_POW2 "align a power of two"
#endif

static int failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: ", __FILE__, __LINE__); \
		failures++; \
	} else { \
		printf("ok   "); \
	} \
	printf(__VA_ARGS__); \
	printf("\n"); \
} while (0)

/*
 * Run @p fn in a child process and check that it aborts (rte_panic) with
 * @p message in its output.
 */
static void
check_panics(void (*fn)(void), const char *what, const char *message)
{
	char out[4096];
	size_t len = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) != 0) {
		CHECK(0, "%s: pipe: %s", what, strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		fn();
		_exit(0); /* not reached when it panics */
	}
	close(fds[1]);
	while (len < sizeof(out) - 1 &&
			(n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		CHECK(0, "%s: fork/waitpid: %s", what, strerror(errno));
		return;
	}
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
		strstr(out, message) != NULL,
		"%s: aborts with \"%s\"", what, message);
	if (!WIFSIGNALED(status) || strstr(out, message) == NULL)
		printf("     child status %#x, output:\n%s\n", status, out);
}

static RTE_LCORE_VAR_HANDLE(uint64_t, early);
static RTE_LCORE_VAR_HANDLE(char, bad);

#ifndef PCPU_HAVE_RTE_LCORE_VAR
static void
alloc_before_eal(void)
{
	RTE_LCORE_VAR_ALLOC(early);
}

static void
alloc_size_zero(void)
{
	RTE_LCORE_VAR_ALLOC_SIZE(bad, 0);
}
#endif

static void
alloc_size_too_big(void)
{
	RTE_LCORE_VAR_ALLOC_SIZE(bad, RTE_MAX_LCORE_VAR + 1);
}

static void
alloc_align_too_big(void)
{
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(bad, 8, RTE_CACHE_LINE_SIZE * 2);
}

static void
alloc_align_not_pow2(void)
{
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(bad, 8, 24);
}

struct state {
	uint32_t magic;
	uint32_t seen;
};

static RTE_LCORE_VAR_HANDLE(struct state, states);
static RTE_LCORE_VAR_HANDLE(struct state, inited);

/* initialises lcore_id's value of 'inited', for lcores present and future */
static int
inited_lcore_init(unsigned int lcore_id, void *arg)
{
	(void)arg;
	RTE_LCORE_VAR_LCORE(lcore_id, inited)->magic = 0xbeef;
	return 0;
}

/* what a thread registered after the allocation finds */
struct late_result {
	unsigned int lcore_id;
	struct state value;
	struct state inited;
};

static void *
late_thread(void *arg)
{
	struct late_result *r = arg;

	if (rte_thread_register() != 0) {
		r->lcore_id = LCORE_ID_ANY;
		return NULL;
	}
	r->lcore_id = rte_lcore_id();
	r->value = *RTE_LCORE_VAR(states);
	r->inited = *RTE_LCORE_VAR(inited);
	RTE_LCORE_VAR(states)->seen = 1;
	rte_thread_unregister();
	return NULL;
}

int
main(int argc, char **argv)
{
	RTE_LCORE_VAR_HANDLE(uint8_t, any);
	RTE_LCORE_VAR_HANDLE(uint8_t, line);
	RTE_LCORE_VAR_HANDLE(char, biggest);
	struct late_result late = { 0 };
	struct state *s;
#ifdef PCPU_HAVE_RTE_LCORE_VAR
	uint64_t *v64;
#endif
	unsigned int lcore_id, prev, nr, nr_eal, nr_ok;
	pthread_t t;
	void *cb;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);

	/* 24.11's failure behaviour: abort, never NULL */
#ifdef PCPU_HAVE_RTE_LCORE_VAR
	/* DPDK's: allocation works before rte_eal_init(), every lcore id's
	 * value zeroed; size 0 is allowed */
	RTE_LCORE_VAR_ALLOC(early);
	nr = 0;
	RTE_LCORE_VAR_FOREACH(lcore_id, v64, early)
		nr += *v64 == 0;
	CHECK(early != NULL && nr == RTE_MAX_LCORE,
		"RTE_LCORE_VAR_ALLOC before rte_eal_init(): all %u ids zeroed", nr);
	RTE_LCORE_VAR_ALLOC_SIZE(bad, 0);
	CHECK(bad != NULL, "size 0: a handle");
#else
	check_panics(alloc_before_eal, "RTE_LCORE_VAR_ALLOC before rte_eal_init()",
		"called before rte_eal_init()");
	check_panics(alloc_size_zero, "size 0", MSG_SIZE);
#endif
	check_panics(alloc_size_too_big, "size RTE_MAX_LCORE_VAR + 1", MSG_SIZE);
	check_panics(alloc_align_too_big, "align 2 * RTE_CACHE_LINE_SIZE",
		MSG_ALIGN_BIG);
	check_panics(alloc_align_not_pow2, "align 24", MSG_ALIGN_POW2);

	if (rte_eal_init(argc, argv) < 0) {
		printf("FAIL rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}

	/* alignment: 0 is alignof(max_align_t), explicit ones are kept */
	RTE_LCORE_VAR_ALLOC_SIZE(any, 1);
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(line, 8, RTE_CACHE_LINE_SIZE);
	nr_ok = 0;
	RTE_LCORE_FOREACH(lcore_id)
		nr_ok += (uintptr_t)RTE_LCORE_VAR_LCORE(lcore_id, any) %
				alignof(max_align_t) == 0 &&
			(uintptr_t)RTE_LCORE_VAR_LCORE(lcore_id, line) %
				RTE_CACHE_LINE_SIZE == 0;
	CHECK(nr_ok == rte_lcore_count(),
		"align 0 -> %zu, align %u kept, on all %u lcores",
		alignof(max_align_t), RTE_CACHE_LINE_SIZE, nr_ok);

	/* the largest value 24.11 allows, zeroed on every lcore */
	RTE_LCORE_VAR_ALLOC_SIZE(biggest, RTE_MAX_LCORE_VAR);
	nr_ok = 0;
	RTE_LCORE_FOREACH(lcore_id) {
		char *v = RTE_LCORE_VAR_LCORE(lcore_id, biggest);

		nr_ok += v[0] == 0 && v[RTE_MAX_LCORE_VAR - 1] == 0;
		memset(v, 0x5a, RTE_MAX_LCORE_VAR);
	}
	CHECK(nr_ok == rte_lcore_count(),
		"RTE_MAX_LCORE_VAR (%u) bytes, zeroed, on all %u lcores",
		(unsigned int)RTE_MAX_LCORE_VAR, nr_ok);

	/* FOREACH: the lcores with memory (the compat layer: here the EAL
	 * lcores; DPDK's: every lcore id), in order */
	RTE_LCORE_VAR_ALLOC(states);
	nr = nr_ok = 0;
	prev = 0;
	RTE_LCORE_VAR_FOREACH(lcore_id, s, states) {
#ifdef PCPU_HAVE_RTE_LCORE_VAR
		nr_ok += (nr == 0 || lcore_id > prev) && s->magic == 0;
#else
		nr_ok += rte_lcore_is_enabled(lcore_id) &&
			(nr == 0 || lcore_id > prev) && s->magic == 0;
#endif
		prev = lcore_id;
		nr++;
		s->magic = 0xc0ffee;
	}
	nr_eal = rte_lcore_count();
#ifdef PCPU_HAVE_RTE_LCORE_VAR
	CHECK(nr == RTE_MAX_LCORE && nr_ok == nr,
		"RTE_LCORE_VAR_FOREACH: all %u ids, zeroed, in order", nr);
#else
	CHECK(nr == nr_eal && nr_ok == nr,
		"RTE_LCORE_VAR_FOREACH: the %u EAL lcores of %u ids, zeroed, in order",
		nr, RTE_MAX_LCORE);
#endif

	/* the remedy: an lcore callback registered after the allocation */
	RTE_LCORE_VAR_ALLOC(inited);
	cb = rte_lcore_callback_register("lcore_var_test", inited_lcore_init,
		NULL, NULL);
	nr = 0;
	RTE_LCORE_VAR_FOREACH(lcore_id, s, inited)
		nr += s->magic == 0xbeef;
	CHECK(cb != NULL && nr == nr_eal,
		"an lcore callback registered after the allocation sets the %u lcores",
		nr);

	/* a thread registered now: the compat layer's value is zeroed, not
	 * what FOREACH set above; DPDK's is what FOREACH set */
	rc = pthread_create(&t, NULL, late_thread, &late);
	if (rc == 0)
		pthread_join(t, NULL);
#ifdef PCPU_HAVE_RTE_LCORE_VAR
	CHECK(rc == 0 && late.lcore_id != LCORE_ID_ANY &&
		late.value.magic == 0xc0ffee && late.value.seen == 0,
		"a thread registered later (lcore %u) finds what FOREACH set",
		late.lcore_id);
#else
	CHECK(rc == 0 && late.lcore_id != LCORE_ID_ANY &&
		late.value.magic == 0 && late.value.seen == 0,
		"a thread registered later (lcore %u) finds its value zeroed",
		late.lcore_id);
#endif
	nr = 0;
	RTE_LCORE_VAR_FOREACH(lcore_id, s, states)
		nr += lcore_id == late.lcore_id && s->seen == 1;
	CHECK(nr == 1, "its value stays after it unregisters, and FOREACH visits it");
	CHECK(late.inited.magic == 0xbeef,
		"... and the lcore callback initialised its value of the other variable");
	rte_lcore_callback_unregister(cb);

	/* the free that DPDK's lcore variables lack */
	CHECK(rte_pcpu_lcore_var_free(NULL) == 0, "free(NULL) is a no-op");
#ifdef PCPU_HAVE_RTE_LCORE_VAR
	rte_errno = 0;
	CHECK(rte_pcpu_lcore_var_free(states) == -1 && rte_errno == ENOTSUP,
		"free with DPDK's lcore variables: -1, ENOTSUP");
	/* the value is still there: DPDK keeps it until rte_eal_cleanup() */
	CHECK(RTE_LCORE_VAR_LCORE(0, states)->magic == 0xc0ffee,
		"... and the value stays");
#else
	CHECK(rte_pcpu_lcore_var_free(states) == 0, "free");
	rte_errno = 0;
	CHECK(rte_pcpu_lcore_var_free(states) == -1 && rte_errno == EINVAL,
		"second free: -1, EINVAL");
	CHECK(rte_pcpu_lcore_var_free(biggest) == 0 &&
		rte_pcpu_lcore_var_free(any) == 0 &&
		rte_pcpu_lcore_var_free(line) == 0 &&
		rte_pcpu_lcore_var_free(inited) == 0, "free the others");
#endif

	rte_eal_cleanup();
	printf("pcpu_lcore_var_test: %s (%d failed)\n",
		failures == 0 ? "OK" : "FAILED", failures);
	return failures == 0 ? 0 : 1;
}
