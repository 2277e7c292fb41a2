/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_stress_autotest: concurrency stress of the allocator, the cache
 * buckets and the pools, meant for 8 lcores on 2 CPUs
 * (--lcores='(0-7)@(0,1)') so that lcores are preempted in the middle of
 * everything.
 *
 *   - mixer lcores (all workers but the last): rte_pcpu_alloc/free of
 *     random sizes and alignments, gets and puts of a plain pool (bulk
 *     too), gets of an RCU pool whose objects they publish in slots for
 *     the reader and retire with an RCU-deferred put, and the occasional
 *     rte_pcpu_cache_flush(). Every object is checked zero on every lcore
 *     when handed out, gets a per-lcore pattern in the mixer's own copy,
 *     and is checked (own copy intact, every other copy still zero)
 *     before it is given back;
 *   - a reader lcore (the last worker), a QSBR reader, sums the copies of
 *     the published objects with rte_pcpu_sum_u64() and checks that they
 *     are consistent ({tag, ~tag}): an object reused before its grace
 *     period would show up as zero or torn;
 *   - a control thread that registers with rte_thread_register(),
 *     allocates, checks its copies, uses the pool and unregisters, again
 *     and again;
 *   - ownership: one byte per 8 bytes of lcore 0's unit records who holds
 *     each object; a hand-out of an object someone holds is an error.
 *
 * Afterwards: every object given back, test counters equal to the pool
 * and allocator statistics, in-use counts zero, caches empty, live
 * objects back to the baseline, all audits clean.
 *
 * Duration: PCPU_STRESS_SECONDS (default 5; CI runs 60).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "test.h"
#include "test_pcpu_util.h"

#define STRESS_DEFAULT_SECONDS 5
#define NB_SLOTS 64          /* published RCU pool objects */
#define MAX_HELD 96          /* private objects a mixer holds at most */
#define MAX_POOL_HELD 16     /* plain pool objects a mixer holds at most */
#define MAX_OBJ_SIZE 2048
#define RCU_POOL_N 512
#define PLAIN_POOL_N 256
#define PLAIN_POOL_ELT 40

struct held {
	uint8_t *h;
	uint32_t size;
	uint8_t pat;
};

struct lcore_counts {
	uint64_t alloc, alloc_enomem, free;
	uint64_t plain_get, plain_get_fail, plain_put;
	uint64_t rcu_get, rcu_get_fail, rcu_put;
	uint64_t reads, flushes, registers;
} __rte_cache_aligned;

static struct {
	volatile int stop;
	uint8_t *owner;         /* who holds the object at base + 8 * i */
	size_t owner_len;
	uintptr_t base;
	uint64_t span;
	int64_t outstanding;    /* claims not released */
	struct rte_pcpu_mempool *mp_plain, *mp_rcu;
	struct rte_rcu_qsbr *qv;
	unsigned int reader;
	uint64_t *slots[NB_SLOTS];
	uint32_t errors;
	char first_error[256];
	struct lcore_counts cnt[RTE_MAX_LCORE];
	struct lcore_counts reg_cnt;   /* the registering thread */
} st;

static void __rte_format_printf(1, 2)
stress_error(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&st.errors, 1, __ATOMIC_RELAXED) == 0) {
		va_start(ap, fmt);
		vsnprintf(st.first_error, sizeof(st.first_error), fmt, ap);
		va_end(ap);
		printf("stress: first error: %s\n", st.first_error);
	}
	st.stop = 1;
}

static uint8_t *
owner_byte(const void *h)
{
	uintptr_t a = (uintptr_t)h;

	if (a < st.base || a - st.base >= st.span || (a & 7) != 0)
		return NULL;
	return &st.owner[(a - st.base) >> 3];
}

/* The object was handed to @p who: nobody may hold it. */
static void
claim(const void *h, unsigned int who, const char *what)
{
	uint8_t *b = owner_byte(h), exp = 0;

	if (b == NULL) {
		stress_error("%s: %p is not in lcore 0's unit", what, h);
		return;
	}
	if (!__atomic_compare_exchange_n(b, &exp, (uint8_t)(who + 1), 0,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		stress_error("%s: %p handed to lcore %u while lcore %d holds it",
			what, h, who, (int)exp - 1);
		return;
	}
	__atomic_fetch_add(&st.outstanding, 1, __ATOMIC_RELAXED);
}

/* The holder gives the object back (before the free or put). */
static void
release(const void *h, const char *what)
{
	uint8_t *b = owner_byte(h);

	if (b == NULL || __atomic_exchange_n(b, 0, __ATOMIC_ACQ_REL) == 0) {
		stress_error("%s: %p released but not held", what, h);
		return;
	}
	__atomic_fetch_sub(&st.outstanding, 1, __ATOMIC_RELAXED);
}

/* Every lcore's copy reads zero. */
static void
check_zero(const uint8_t *h, size_t size, const char *what)
{
	unsigned int l;
	const uint8_t *v;

	RTE_PCPU_FOREACH(l, v, h)
		if (!pcpu_test_all_bytes(v, size, 0)) {
			stress_error("%s: %p (%zu B): lcore %u's copy is not zero",
				what, h, size, l);
			return;
		}
}

/* Own copy holds @p pat, every other copy zero. */
static void
check_pattern(const uint8_t *h, size_t size, unsigned int self, uint8_t pat,
		const char *what)
{
	unsigned int l;
	const uint8_t *v;

	RTE_PCPU_FOREACH(l, v, h) {
		uint8_t want = l == self ? pat : 0;

		if (!pcpu_test_all_bytes(v, size, want)) {
			stress_error("%s: %p (%zu B): lcore %u's copy lost its "
				"%#x pattern (self %u)", what, h, size, l, want,
				self);
			return;
		}
	}
}

static const size_t aligns[] = { 0, 0, 0, 8, 16, 64, 256, 4096 };

static void
mixer_alloc(struct held *held, unsigned int *nh, unsigned int self,
		uint64_t *seed, struct lcore_counts *c)
{
	uint64_t r = pcpu_test_rnd(seed);
	size_t size = (r & 3) != 0 ? 1 + (r >> 8) % 512 :
		1 + (r >> 8) % MAX_OBJ_SIZE;
	size_t align = aligns[(r >> 32) % RTE_DIM(aligns)];
	uint8_t *h = rte_pcpu_alloc(size, align);

	if (h == NULL) {
		if (rte_errno != ENOMEM)
			stress_error("alloc(%zu, %zu): rte_errno %d", size, align,
				rte_errno);
		c->alloc_enomem++;
		return;
	}
	c->alloc++;
	claim(h, self, "rte_pcpu_alloc");
	if (align != 0 && ((uintptr_t)h & (align - 1)) != 0)
		stress_error("alloc(%zu, %zu) = %p: misaligned", size, align,
			(void *)h);
	check_zero(h, size, "rte_pcpu_alloc");
	held[*nh].h = h;
	held[*nh].size = (uint32_t)size;
	held[*nh].pat = (uint8_t)(1 + (r >> 40) % 254);
	memset(RTE_PCPU_LCORE(self, h), held[*nh].pat, size);
	(*nh)++;
}

static void
mixer_free(struct held *held, unsigned int *nh, unsigned int i,
		unsigned int self, struct lcore_counts *c)
{
	struct held e = held[i];

	check_pattern(e.h, e.size, self, e.pat, "before rte_pcpu_free");
	held[i] = held[--(*nh)];
	release(e.h, "rte_pcpu_free");
	if (rte_pcpu_free(e.h) != 0)
		stress_error("rte_pcpu_free(%p): rte_errno %d", (void *)e.h,
			rte_errno);
	c->free++;
}

static void
plain_put(void **ph, unsigned int *np, unsigned int n, unsigned int self,
		struct lcore_counts *c)
{
	unsigned int i;

	for (i = *np - n; i < *np; i++) {
		check_pattern(ph[i], PLAIN_POOL_ELT, self,
			(uint8_t)(0x80 | self), "before pool put");
		release(ph[i], "pool put");
	}
	if (rte_pcpu_mempool_put_bulk(st.mp_plain, &ph[*np - n], n) != 0)
		stress_error("plain put_bulk of %u: %d", n, rte_errno);
	*np -= n;
	c->plain_put += n;
}

static void
rcu_publish(unsigned int self, uint64_t *seed, struct lcore_counts *c)
{
	uint64_t *o, *old, tag;
	int ret;

	ret = rte_pcpu_mempool_get(st.mp_rcu, (void **)&o);
	if (ret != 0) {
		if (ret != -ENOENT)
			stress_error("rcu pool get: %d", ret);
		c->rcu_get_fail++;
		return;
	}
	c->rcu_get++;
	claim(o, self, "rcu pool get");
	check_zero((uint8_t *)o, 16, "rcu pool get");
	tag = (pcpu_test_rnd(seed) | 1) & ~(UINT64_C(0xff) << 56);
	tag |= (uint64_t)self << 56;
	RTE_PCPU_LCORE(self, o)[0] = tag;
	RTE_PCPU_LCORE(self, o)[1] = ~tag;
	old = __atomic_exchange_n(&st.slots[pcpu_test_rnd(seed) % NB_SLOTS], o,
		__ATOMIC_ACQ_REL);
	if (old == NULL)
		return;
	/* retire the previous one: readers may still hold it */
	release(old, "rcu pool put");
	if (rte_pcpu_mempool_put(st.mp_rcu, old) != 0)
		stress_error("rcu pool put(%p): %d", (void *)old, rte_errno);
	c->rcu_put++;
}

static int
mixer(void *arg __rte_unused)
{
	unsigned int self = rte_lcore_id(), nh = 0, np = 0, i, n;
	struct lcore_counts *c = &st.cnt[self];
	struct held held[MAX_HELD];
	void *ph[MAX_POOL_HELD];
	uint64_t seed = rte_rdtsc() ^ ((uint64_t)self << 32) ^ 0x9e3779b97f4a7c15;

	while (!st.stop) {
		uint64_t r = pcpu_test_rnd(&seed) % 1000;

		if (r < 330) {
			if (nh < MAX_HELD)
				mixer_alloc(held, &nh, self, &seed, c);
		} else if (r < 650) {
			if (nh > 0)
				mixer_free(held, &nh, (unsigned int)
					(pcpu_test_rnd(&seed) % nh), self, c);
		} else if (r < 760) {
			n = 1 + pcpu_test_rnd(&seed) % 4;
			if (np + n > MAX_POOL_HELD)
				continue;
			if (rte_pcpu_mempool_get_bulk(st.mp_plain, &ph[np],
					n) != 0) {
				if (rte_errno != ENOENT)
					stress_error("plain get_bulk: %d",
						rte_errno);
				c->plain_get_fail++;
				continue;
			}
			for (i = np; i < np + n; i++) {
				claim(ph[i], self, "plain pool get");
				check_zero(ph[i], PLAIN_POOL_ELT,
					"plain pool get");
				memset(RTE_PCPU_LCORE(self, (uint8_t *)ph[i]),
					0x80 | self, PLAIN_POOL_ELT);
			}
			np += n;
			c->plain_get += n;
		} else if (r < 870) {
			if (np > 0)
				plain_put(ph, &np, 1 + (unsigned int)
					(pcpu_test_rnd(&seed) % np), self, c);
		} else if (r < 998) {
			rcu_publish(self, &seed, c);
		} else {
			if (rte_pcpu_cache_flush() < 0)
				stress_error("rte_pcpu_cache_flush: %d",
					rte_errno);
			c->flushes++;
		}
	}
	while (nh > 0)
		mixer_free(held, &nh, nh - 1, self, c);
	if (np > 0)
		plain_put(ph, &np, np, self, c);
	return 0;
}

static int
reader(void *arg __rte_unused)
{
	unsigned int self = rte_lcore_id(), s;
	struct lcore_counts *c = &st.cnt[self];
	uint64_t sum[2];

	if (rte_rcu_qsbr_thread_register(st.qv, self) != 0) {
		stress_error("reader: rte_rcu_qsbr_thread_register failed");
		return -1;
	}
	rte_rcu_qsbr_thread_online(st.qv, self);
	while (!st.stop) {
		for (s = 0; s < NB_SLOTS; s++) {
			uint64_t *o = __atomic_load_n(&st.slots[s],
				__ATOMIC_ACQUIRE);

			if (o == NULL)
				continue;
			rte_pcpu_sum_u64(o, 2, sum);
			c->reads++;
			if (sum[0] == 0 || sum[1] != ~sum[0]) {
				stress_error("reader: object %p in slot %u sums "
					"to {%#" PRIx64 ", %#" PRIx64 "}: reused "
					"before its grace period?", (void *)o, s,
					sum[0], sum[1]);
				break;
			}
		}
		rte_rcu_qsbr_quiescent(st.qv, self);
	}
	rte_rcu_qsbr_thread_offline(st.qv, self);
	rte_rcu_qsbr_thread_unregister(st.qv, self);
	return 0;
}

/* A thread that keeps registering and unregistering as an lcore. */
static void *
registrar(void *arg __rte_unused)
{
	struct lcore_counts *c = &st.reg_cnt;
	uint64_t seed = rte_rdtsc() | 1;

	while (!st.stop) {
		unsigned int self, k;
		uint8_t *h[4];
		void *o;

		if (rte_thread_register() != 0) {
			stress_error("rte_thread_register: %d", rte_errno);
			break;
		}
		c->registers++;
		self = rte_lcore_id();
		if (self >= RTE_MAX_LCORE || !rte_pcpu_lcore_has_memory(self)) {
			stress_error("registered lcore %u has no memory", self);
			rte_thread_unregister();
			break;
		}
		for (k = 0; k < RTE_DIM(h); k++) {
			size_t size = 1 + pcpu_test_rnd(&seed) % 600;

			h[k] = rte_pcpu_alloc(size, 0);
			if (h[k] == NULL) {
				if (rte_errno != ENOMEM)
					stress_error("registered alloc: %d",
						rte_errno);
				c->alloc_enomem++;
				continue;
			}
			c->alloc++;
			claim(h[k], self, "registered alloc");
			check_zero(h[k], size, "registered alloc");
			memset(RTE_PCPU(h[k]), 0x5a, size);
			check_pattern(h[k], size, self, 0x5a,
				"registered thread");
			release(h[k], "registered free");
			if (rte_pcpu_free(h[k]) != 0)
				stress_error("registered free: %d", rte_errno);
			c->free++;
		}
		if (rte_pcpu_mempool_get(st.mp_plain, &o) == 0) {
			c->plain_get++;
			claim(o, self, "registered pool get");
			check_zero(o, PLAIN_POOL_ELT, "registered pool get");
			release(o, "registered pool put");
			if (rte_pcpu_mempool_put(st.mp_plain, o) != 0)
				stress_error("registered pool put: %d",
					rte_errno);
			c->plain_put++;
		} else {
			c->plain_get_fail++;
		}
		rte_thread_unregister();
	}
	return NULL;
}

static int
flush_lcore(void *arg __rte_unused)
{
	return rte_pcpu_cache_flush() < 0 ? -1 : 0;
}

static void
sum_counts(struct lcore_counts *t)
{
	unsigned int l;

	memset(t, 0, sizeof(*t));
	for (l = 0; l < RTE_MAX_LCORE + 1; l++) {
		const struct lcore_counts *c = l < RTE_MAX_LCORE ?
			&st.cnt[l] : &st.reg_cnt;

		t->alloc += c->alloc;
		t->alloc_enomem += c->alloc_enomem;
		t->free += c->free;
		t->plain_get += c->plain_get;
		t->plain_get_fail += c->plain_get_fail;
		t->plain_put += c->plain_put;
		t->rcu_get += c->rcu_get;
		t->rcu_get_fail += c->rcu_get_fail;
		t->rcu_put += c->rcu_put;
		t->reads += c->reads;
		t->flushes += c->flushes;
		t->registers += c->registers;
	}
}

/* The allocator's statistics when the roles start. */
static struct rte_pcpu_stats stress_s0;
static pthread_t stress_reg;

/* The library, the pools, the RCU variable and the ownership map. */
static int
stress_setup(void)
{
	struct rte_pcpu_mempool_rcu_config rcfg = { 0 };
	unsigned int l, nb_workers = 0;
	void *probe;

	RTE_LCORE_FOREACH_WORKER(l)
		nb_workers++;
	if (nb_workers < 2)
		TEST_SKIP("needs at least 2 worker lcores (got %u)", nb_workers);

	memset(&st, 0, sizeof(st));
	/* set the allocator up (defaults) if nobody did */
	probe = rte_pcpu_alloc(8, 0);
	TEST_ASSERT_NOT_NULL(probe, "first allocation");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(probe), "free of the probe");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&stress_s0), "stats");
	st.base = rte_pcpu_shared.base;
	st.span = stress_s0.unit_stride;
	st.owner_len = (size_t)(st.span >> 3);
	st.owner = mmap(NULL, st.owner_len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st.owner == MAP_FAILED) {
		st.owner = NULL;
		TEST_ASSERT(0, "owner map of %zu bytes", st.owner_len);
	}

	st.mp_plain = rte_pcpu_mempool_create("stress_plain", PLAIN_POOL_N,
		PLAIN_POOL_ELT, 8, 0, NULL, NULL, 0);
	st.mp_rcu = rte_pcpu_mempool_create("stress_rcu", RCU_POOL_N, 16, 16,
		0, NULL, NULL, 0);
	st.qv = rte_zmalloc("stress_qsbr",
		rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE), RTE_CACHE_LINE_SIZE);
	if (st.mp_plain == NULL || st.mp_rcu == NULL || st.qv == NULL ||
	    rte_rcu_qsbr_init(st.qv, RTE_MAX_LCORE) != 0) {
		printf("stress: set-up failed: %s\n", rte_strerror(rte_errno));
		return TEST_FAILED;
	}
	rcfg.v = st.qv;
	rcfg.mode = RTE_PCPU_MEMPOOL_QSBR_MODE_DQ;
	rcfg.trigger_reclaim_limit = 32;
	if (rte_pcpu_mempool_rcu_qsbr_add(st.mp_rcu, &rcfg) != 0) {
		printf("stress: rcu_qsbr_add: %s\n", rte_strerror(rte_errno));
		return TEST_FAILED;
	}
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&stress_s0), "stats");
	/* the last worker reads, the others mix */
	RTE_LCORE_FOREACH_WORKER(l)
		st.reader = l;
	return TEST_SUCCESS;
}

/* Start every role: mixers and the reader on the workers, the thread
 * that registers and unregisters. */
static int
stress_start(void)
{
	unsigned int l;

	st.stop = 0;
	RTE_LCORE_FOREACH_WORKER(l)
		rte_eal_remote_launch(l == st.reader ? reader : mixer, NULL, l);
	if (pthread_create(&stress_reg, NULL, registrar, NULL) != 0) {
		st.stop = 1;
		rte_eal_mp_wait_lcore();
		printf("stress: cannot start the registering thread\n");
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* Stop them all; the mixers give back what they hold. */
static void
stress_stop(void)
{
	st.stop = 1;
	rte_eal_mp_wait_lcore();
	pthread_join(stress_reg, NULL);
}

/* Retire what is published, empty every cache, and check that every
 * count agrees and every audit is clean. */
static int
stress_finish(void)
{
	struct rte_pcpu_mempool_stats ps_plain, ps_rcu;
	struct rte_pcpu_stats s1;
	struct lcore_counts t;
	unsigned int l, s;

	for (s = 0; s < NB_SLOTS; s++) {
		uint64_t *o = st.slots[s];

		if (o == NULL)
			continue;
		st.slots[s] = NULL;
		release(o, "final rcu put");
		if (rte_pcpu_mempool_put(st.mp_rcu, o) != 0)
			stress_error("final rcu put: %d", rte_errno);
		st.cnt[rte_lcore_id()].rcu_put++;
	}
	RTE_LCORE_FOREACH_WORKER(l)
		rte_eal_remote_launch(flush_lcore, NULL, l);
	rte_eal_mp_wait_lcore();

	sum_counts(&t);
	printf("stress: %" PRIu64 " allocs (%" PRIu64 " ENOMEM), %" PRIu64
		" frees, plain pool %" PRIu64 " gets (%" PRIu64 " empty) %"
		PRIu64 " puts, rcu pool %" PRIu64 " gets (%" PRIu64
		" empty) %" PRIu64 " puts, %" PRIu64 " reads, %" PRIu64
		" flushes, %" PRIu64 " registrations, %u errors\n",
		t.alloc, t.alloc_enomem, t.free, t.plain_get, t.plain_get_fail,
		t.plain_put, t.rcu_get, t.rcu_get_fail, t.rcu_put, t.reads,
		t.flushes, t.registers, st.errors);
	if (st.errors != 0) {
		printf("stress: FAILED: %u errors, first: %s\n", st.errors,
			st.first_error);
		return TEST_FAILED;
	}
	TEST_ASSERT(t.alloc > 0 && t.plain_get > 0 && t.rcu_get > 0 &&
		t.reads > 0 && t.registers > 0, "every role made progress");
	TEST_ASSERT_EQUAL(__atomic_load_n(&st.outstanding, __ATOMIC_RELAXED),
		(int64_t)0, "objects still held after the run");
	TEST_ASSERT_EQUAL(t.alloc, t.free, "allocations vs frees");
	TEST_ASSERT_EQUAL(t.plain_get, t.plain_put, "plain gets vs puts");
	TEST_ASSERT_EQUAL(t.rcu_get, t.rcu_put, "rcu gets vs puts");

	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(st.mp_plain, &ps_plain),
		"plain stats");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_stats_get(st.mp_rcu, &ps_rcu),
		"rcu stats");
	TEST_ASSERT_EQUAL(ps_plain.get_success, t.plain_get, "plain get_success");
	TEST_ASSERT_EQUAL(ps_plain.put, t.plain_put, "plain put");
	TEST_ASSERT_EQUAL(ps_plain.put_refused, (uint64_t)0, "plain refused");
	TEST_ASSERT_EQUAL(ps_rcu.get_success, t.rcu_get, "rcu get_success");
	TEST_ASSERT_EQUAL(ps_rcu.put, t.rcu_put, "rcu put");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(st.mp_plain), 0u,
		"plain pool in use");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_in_use_count(st.mp_rcu),
		(unsigned int)ps_rcu.rcu_pending, "rcu pool in use = pending");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(st.mp_plain), "plain audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_audit(st.mp_rcu), "rcu audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "allocator audit");
	/* the pool free reclaims every RCU put first (no reader online) */
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(st.mp_plain), "plain free");
	st.mp_plain = NULL;
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(st.mp_rcu), "rcu free");
	st.mp_rcu = NULL;
	TEST_ASSERT(rte_pcpu_cache_flush() >= 0, "flush of the main lcore");
	TEST_ASSERT_SUCCESS(rte_pcpu_stats_get(&s1), "stats");
	TEST_ASSERT_EQUAL(s1.cached_objs, (uint64_t)0, "objects left in caches");
	/* user-level live objects (cached ones are not counted); the pools
	 * made no object before the baseline */
	TEST_ASSERT_EQUAL(s1.nr_cur_alloc, stress_s0.nr_cur_alloc,
		"live objects back to the baseline");
	TEST_ASSERT_EQUAL(s1.nr_alloc - stress_s0.nr_alloc,
		s1.nr_dealloc - stress_s0.nr_dealloc,
		"allocations vs frees in the allocator's statistics");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "allocator audit at the end");
	return TEST_SUCCESS;
}

static void
stress_release(void)
{
	if (st.mp_plain != NULL)
		rte_pcpu_mempool_free(st.mp_plain);
	if (st.mp_rcu != NULL)
		rte_pcpu_mempool_free(st.mp_rcu);
	st.mp_plain = st.mp_rcu = NULL;
	rte_free(st.qv);
	st.qv = NULL;
	if (st.owner != NULL)
		munmap(st.owner, st.owner_len);
	st.owner = NULL;
}

static unsigned int
env_seconds(const char *name, unsigned int def)
{
	const char *env = getenv(name);

	return env != NULL && atoi(env) > 0 ? (unsigned int)atoi(env) : def;
}

static int
test_pcpu_stress(void)
{
	unsigned int seconds = env_seconds("PCPU_STRESS_SECONDS",
		STRESS_DEFAULT_SECONDS);
	uint64_t start, hz = rte_get_timer_hz(), next_report;
	struct lcore_counts t;
	int ret;

	ret = stress_setup();
	if (ret != TEST_SUCCESS)
		goto out;
	printf("stress: %u s, %u mixer lcores, reader lcore %u, one thread "
		"registering and unregistering, %u lcores with memory\n",
		seconds, rte_lcore_count() - 2, st.reader, stress_s0.nr_lcores);
	ret = stress_start();
	if (ret != TEST_SUCCESS)
		goto out;
	start = rte_get_timer_cycles();
	next_report = start + 10 * hz;
	while (!st.stop && rte_get_timer_cycles() - start < seconds * hz) {
		rte_delay_ms(50);
		if (rte_get_timer_cycles() >= next_report) {
			sum_counts(&t);
			printf("stress: %" PRIu64 " s: %" PRIu64 " allocs, %"
				PRIu64 " pool gets, %" PRIu64 " rcu gets, %"
				PRIu64 " reads, %" PRIu64 " registrations\n",
				(rte_get_timer_cycles() - start) / hz, t.alloc,
				t.plain_get, t.rcu_get, t.reads, t.registers);
			next_report += 10 * hz;
		}
	}
	stress_stop();
	ret = stress_finish();
out:
	stress_release();
	return ret;
}

/* Resident memory of this process in bytes (VmRSS), 0 if unknown. */
static uint64_t
soak_rss(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/*
 * pcpu_soak_autotest: the stress roles for PCPU_SOAK_SECONDS (default
 * 60), stopped every second for the audits: the allocator's (exact: no
 * lcore uses its cache then) and both pools'. After each, one line of
 * PCPU_SOAK_CSV (if set; else stdout): seconds, populated bytes, resident
 * bytes, live objects, cached objects, chunks, and the roles' counts so
 * far. devtools/soak.py runs it beside dpdk-flowcount and judges the
 * memory curve.
 */
static int
test_pcpu_soak(void)
{
	unsigned int seconds = env_seconds("PCPU_SOAK_SECONDS", 60), epoch;
	const char *csv_path = getenv("PCPU_SOAK_CSV");
	uint64_t start, hz = rte_get_timer_hz();
	struct rte_pcpu_stats s;
	struct lcore_counts t;
	FILE *csv = stdout;
	int ret;

	if (csv_path != NULL) {
		csv = fopen(csv_path, "w");
		if (csv == NULL) {
			printf("soak: cannot write %s\n", csv_path);
			return TEST_FAILED;
		}
		setvbuf(csv, NULL, _IOLBF, 0);
	}
	fprintf(csv, "seconds,populated_bytes,rss_bytes,live_objects,"
		"cached_objects,chunks,allocs,pool_gets,rcu_gets,reads,"
		"registrations\n");
	ret = stress_setup();
	if (ret != TEST_SUCCESS)
		goto out;
	printf("soak: %u s, audits every second, %u lcores with memory\n",
		seconds, stress_s0.nr_lcores);
	start = rte_get_timer_cycles();
	for (epoch = 0; rte_get_timer_cycles() - start < seconds * hz;
	     epoch++) {
		ret = stress_start();
		if (ret != TEST_SUCCESS)
			goto out;
		rte_delay_ms(1000);
		stress_stop();
		if (st.errors != 0) {
			printf("soak: error at %u s: %s\n", epoch + 1,
				st.first_error);
			ret = TEST_FAILED;
			goto out;
		}
		if (rte_pcpu_audit() != 0 ||
		    rte_pcpu_mempool_audit(st.mp_plain) != 0 ||
		    rte_pcpu_mempool_audit(st.mp_rcu) != 0) {
			printf("soak: audit failed at %u s\n", epoch + 1);
			ret = TEST_FAILED;
			goto out;
		}
		rte_pcpu_stats_get(&s);
		sum_counts(&t);
		fprintf(csv, "%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			PRIu64 "\n", (double)(rte_get_timer_cycles() - start) /
			(double)hz, s.populated_bytes, soak_rss(), s.nr_cur_alloc,
			s.cached_objs, s.nr_chunks, t.alloc, t.plain_get,
			t.rcu_get, t.reads, t.registers);
	}
	printf("soak: %u audits clean\n", epoch);
	ret = stress_finish();
out:
	stress_release();
	if (csv != stdout)
		fclose(csv);
	return ret;
}

REGISTER_TEST_COMMAND(pcpu_stress_autotest, test_pcpu_stress);
REGISTER_TEST_COMMAND(pcpu_soak_autotest, test_pcpu_soak);
