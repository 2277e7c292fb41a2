/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Allocator cases of pcpu_autotest: a randomized model test, lcore
 * isolation, late lcores, NUMA placement, reclaim, the populated-bytes
 * limit, the address-space limit and bad input.
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <numaif.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>

#include "test.h"
#include "test_pcpu_util.h"
#include "test_pcpu_alloc.h"
#include "test_pcpu_live_pages.h"

/* xorshift64*: seeded, reproducible */
static uint64_t rng_state;

static uint64_t
rnd(void)
{
	return pcpu_test_rnd(&rng_state);
}

static void
seed_rng(const char *what)
{
	const char *env = getenv("PCPU_TEST_SEED");
	uint64_t seed = env != NULL ? strtoull(env, NULL, 0) : rte_rdtsc();

	if (seed == 0)
		seed = 1;
	rng_state = seed;
	printf("%s: seed %" PRIu64 " (set PCPU_TEST_SEED to repeat)\n", what,
		seed);
}

/* Flush the calling lcore's caches so freed objects reach the chunks. */
static void
flush_caches(void)
{
	rte_pcpu_cache_flush();
}

static size_t
eff_align(size_t size, size_t align)
{
	size_t r;

	if (align != 0)
		return RTE_MAX(align, (size_t)RTE_PCPU_MIN_ALIGN);
	r = RTE_ALIGN_CEIL(size, RTE_PCPU_MIN_ALIGN);
	return RTE_MIN(r & -r, (size_t)RTE_CACHE_LINE_SIZE);
}

static uint8_t
pattern(uint32_t tag, unsigned int lcore_id)
{
	return (uint8_t)(tag * 31u + lcore_id * 7u + 1u);
}

struct live_obj {
	uint8_t *h;
	size_t size;
	uint32_t tag;
};

#define MODEL_OPS 200000
#define MODEL_MAX_LIVE 1500
#define MODEL_AUDIT_EVERY 1000

static size_t
model_size(void)
{
	unsigned int shift;

	if (rnd() % 100 < 90) {
		shift = 1 + (unsigned int)(rnd() % 12);       /* up to 4 KiB */
		return 1 + (size_t)(rnd() % (UINT64_C(1) << shift));
	}
	shift = 13 + (unsigned int)(rnd() % 6);               /* up to 256 KiB */
	return 1 + (size_t)(rnd() % (UINT64_C(1) << shift));
}

static size_t
model_align(void)
{
	if (rnd() % 4 == 0)
		return 0;
	return (size_t)1 << (rnd() % 13);                     /* 1 .. 4 KiB */
}

static int
test_pcpu_model(void)
{
	struct live_obj *live;
	struct rte_pcpu_stats st0, st;
	unsigned int nlive = 0, l, i;
	uint64_t ops, allocs = 0, frees = 0;
	uint32_t tag = 0;
	int ret = TEST_FAILED;

	live = calloc(MODEL_MAX_LIVE, sizeof(*live));
	TEST_ASSERT_NOT_NULL(live, "no memory for the model");
	seed_rng("model");
	rte_pcpu_stats_get(&st0);
	for (ops = 0; ops < MODEL_OPS; ops++) {
		if (nlive == 0 || (nlive < MODEL_MAX_LIVE && rnd() % 100 < 55)) {
			size_t size = model_size(), align = model_align();
			size_t a = eff_align(size, align);
			struct live_obj *o = &live[nlive];

			o->h = rte_pcpu_alloc(size, align);
			if (o->h == NULL) {
				printf("op %" PRIu64 ": alloc(%zu, %zu) failed: "
					"%s\n", ops, size, align,
					rte_strerror(rte_errno));
				goto out;
			}
			if ((uintptr_t)o->h % a != 0) {
				printf("op %" PRIu64 ": %p not aligned to %zu\n",
					ops, o->h, a);
				goto out;
			}
			for (i = 0; i < nlive; i++) {
				if (o->h < live[i].h + live[i].size &&
				    live[i].h < o->h + size) {
					printf("op %" PRIu64 ": [%p,+%zu) overlaps"
						" [%p,+%zu)\n", ops, o->h, size,
						live[i].h, live[i].size);
					goto out;
				}
			}
			o->size = size;
			o->tag = ++tag;
			for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
			     l = pcpu_test_lcore_next(l + 1)) {
				uint8_t *p = RTE_PCPU_LCORE(l, o->h);

				if (!pcpu_test_all_bytes(p, size, 0)) {
					printf("op %" PRIu64 ": lcore %u copy of "
						"%p (size %zu) not zeroed\n",
						ops, l, o->h, size);
					goto out;
				}
				memset(p, pattern(o->tag, l), size);
			}
			nlive++;
			allocs++;
		} else {
			unsigned int k = (unsigned int)(rnd() % nlive);
			struct live_obj *o = &live[k];

			for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
			     l = pcpu_test_lcore_next(l + 1)) {
				if (!pcpu_test_all_bytes(RTE_PCPU_LCORE(l, o->h), o->size,
						pattern(o->tag, l))) {
					printf("op %" PRIu64 ": lcore %u copy of "
						"%p lost its pattern\n", ops, l,
						o->h);
					goto out;
				}
			}
			if (rte_pcpu_free(o->h) != 0) {
				printf("op %" PRIu64 ": free(%p) failed: %s\n",
					ops, o->h, rte_strerror(rte_errno));
				goto out;
			}
			live[k] = live[--nlive];
			frees++;
		}
		if ((ops + 1) % MODEL_AUDIT_EVERY == 0) {
			if (rte_pcpu_audit() != 0) {
				printf("op %" PRIu64 ": audit failed\n", ops);
				goto out;
			}
			rte_pcpu_stats_get(&st);
			if (st.nr_cur_alloc != st0.nr_cur_alloc + nlive) {
				printf("op %" PRIu64 ": %" PRIu64 " live, model %u"
					"\n", ops, st.nr_cur_alloc - st0.nr_cur_alloc,
					nlive);
				goto out;
			}
		}
	}
	printf("model: %" PRIu64 " ops (%" PRIu64 " allocs, %" PRIu64
		" frees) on %u lcores, %u live at the end\n", ops, allocs,
		frees, pcpu_test_mem_lcores(), nlive);
	ret = TEST_SUCCESS;
out:
	while (nlive > 0)
		rte_pcpu_free(live[--nlive].h);
	free(live);
	TEST_ASSERT_EQUAL(ret, TEST_SUCCESS, "model test failed");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after the model test");
	rte_pcpu_stats_get(&st);
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, st0.nr_cur_alloc,
		"live objects after freeing everything");
	return TEST_SUCCESS;
}

/*
 * Large objects (spans of whole chunks) mixed with small ones, with
 * reclaims: the model test's checks (alignment, no overlap, every copy
 * zero when allocated, a pattern per lcore intact until the free, the
 * live count, the audit), plus, for every large object, its pages: a
 * free gives back exactly its populated bytes, and after everything is
 * freed and reclaimed no span is left. Large sizes are spread evenly in
 * log2 from 256 KiB to 64 MiB; a large object's copies are checked and
 * written at sample points (its first and last 4 KiB, and 16 offsets in
 * between) to keep the test fast, since populating them is what costs.
 */
#define LARGE_OPS 2000
#define LARGE_MIN_OBJS 10     /* large objects a run must make */
#define LARGE_MAX_LIVE 400
#define LARGE_MAX_BYTES (UINT64_C(64) << 20)
/* large bytes live at once, per lcore: well inside 1 GiB of address
 * space, and at most 1 GiB of memory on 8 lcores */
#define LARGE_LIVE_BYTES (UINT64_C(128) << 20)
#define LARGE_EDGE 4096u
#define LARGE_POINTS 16u

static size_t
large_size(void)
{
	/* log2 evenly in [18, 26], then evenly inside the octave */
	unsigned int shift = 18 + (unsigned int)(rnd() % 8);

	return ((size_t)1 << shift) + 1 + (size_t)(rnd() % ((size_t)1 << shift));
}

/* Sample offsets of a large object: point k of LARGE_POINTS. */
static size_t
large_point(size_t size, unsigned int k)
{
	return (size - 8) / (LARGE_POINTS - 1) * k;
}

/* Whether lcore @p l's copy of @p o reads @p v at every sample point
 * (@p v 0: zero; else the pattern). */
static int
large_check(const struct live_obj *o, unsigned int l, int zero)
{
	const uint8_t *p = RTE_PCPU_LCORE(l, o->h);
	uint8_t v = zero ? 0 : pattern(o->tag, l);
	unsigned int k;

	if (!pcpu_test_all_bytes(p, LARGE_EDGE, v) ||
	    !pcpu_test_all_bytes(p + o->size - LARGE_EDGE, LARGE_EDGE, v))
		return 0;
	for (k = 0; k < LARGE_POINTS; k++)
		if (!pcpu_test_all_bytes(p + large_point(o->size, k), 8, v))
			return 0;
	return 1;
}

static void
large_write(const struct live_obj *o, unsigned int l)
{
	uint8_t *p = RTE_PCPU_LCORE(l, o->h);
	uint8_t v = pattern(o->tag, l);
	unsigned int k;

	memset(p, v, LARGE_EDGE);
	memset(p + o->size - LARGE_EDGE, v, LARGE_EDGE);
	for (k = 0; k < LARGE_POINTS; k++)
		memset(p + large_point(o->size, k), v, 8);
}

/* Populated bytes a span of @p size takes on every unit with memory. */
static uint64_t
large_pop_bytes(size_t size, const struct rte_pcpu_stats *st)
{
	return RTE_ALIGN_CEIL((uint64_t)size, st->page_size) * st->nr_lcores;
}

static int
large_copies(const struct live_obj *o, int zero, uint64_t op)
{
	unsigned int l;
	int large = o->size > RTE_PCPU_CHUNK_OBJ_MAX_SIZE;

	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1)) {
		int ok = large ? large_check(o, l, zero) :
			pcpu_test_all_bytes(RTE_PCPU_LCORE(l, o->h), o->size,
				zero ? 0 : pattern(o->tag, l));

		if (!ok) {
			printf("op %" PRIu64 ": lcore %u copy of %p (size %zu) "
				"%s\n", op, l, o->h, o->size, zero ?
				"not zeroed" : "lost its pattern");
			return -1;
		}
		if (!zero)
			continue;
		if (large)
			large_write(o, l);
		else
			memset(RTE_PCPU_LCORE(l, o->h), pattern(o->tag, l),
				o->size);
	}
	return 0;
}

static int
test_pcpu_model_large(void)
{
	struct rte_pcpu_stats st0, st, st1;
	struct live_obj *live;
	unsigned int nlive = 0, nlarge_live = 0, i;
	uint64_t ops, large_live = 0, nlarge = 0, large_max = 0, reclaims = 0;
	uint32_t tag = 0;
	int ret = TEST_FAILED;

	live = calloc(LARGE_MAX_LIVE, sizeof(*live));
	TEST_ASSERT_NOT_NULL(live, "no memory for the model");
	seed_rng("model_large");
	rte_pcpu_stats_get(&st0);
	/* the live-bytes cap refuses most large objects while others live:
	 * go on until enough were made, whatever the seed */
	for (ops = 0; ops < LARGE_OPS ||
			(nlarge < LARGE_MIN_OBJS && ops < 4 * LARGE_OPS); ops++) {
		if (nlive == 0 || (nlive < LARGE_MAX_LIVE && rnd() % 100 < 52)) {
			struct live_obj *o = &live[nlive];
			size_t size = model_size(), align = model_align();
			int large = rnd() % 100 < 2;

			if (large) {
				size = large_size();
				align = 0;
				if (large_live + size > LARGE_LIVE_BYTES)
					continue;
				/* a span's allocation first destroys the
				 * chunks earlier frees left empty, giving back
				 * their pages in the same call: settle them
				 * now so that its own pages can be counted */
				if (rte_pcpu_reclaim() < 0) {
					printf("op %" PRIu64 ": reclaim failed\n",
						ops);
					goto out;
				}
				reclaims++;
			}
			rte_pcpu_stats_get(&st);
			o->h = rte_pcpu_alloc(size, align);
			if (o->h == NULL) {
				printf("op %" PRIu64 ": alloc(%zu, %zu) failed: "
					"%s\n", ops, size, align,
					rte_strerror(rte_errno));
				goto out;
			}
			if ((uintptr_t)o->h % eff_align(size, align) != 0) {
				printf("op %" PRIu64 ": %p not aligned\n", ops,
					o->h);
				goto out;
			}
			for (i = 0; i < nlive; i++) {
				if (o->h < live[i].h + live[i].size &&
				    live[i].h < o->h + size) {
					printf("op %" PRIu64 ": [%p,+%zu) overlaps"
						" [%p,+%zu)\n", ops, o->h, size,
						live[i].h, live[i].size);
					goto out;
				}
			}
			o->size = size;
			o->tag = ++tag;
			if (large) {
				/* a span populates exactly its pages */
				rte_pcpu_stats_get(&st1);
				if (st1.populated_bytes - st.populated_bytes !=
				    large_pop_bytes(size, &st1)) {
					printf("op %" PRIu64 ": a span of %zu B "
						"populated %" PRIu64 " B\n", ops,
						size, st1.populated_bytes -
						st.populated_bytes);
					goto out;
				}
				large_live += size;
				large_max = RTE_MAX(large_max, large_live);
				nlarge++;
				nlarge_live++;
			}
			if (large_copies(o, 1, ops) != 0)
				goto out;
			nlive++;
		} else {
			unsigned int k = (unsigned int)(rnd() % nlive);
			struct live_obj *o = &live[k];
			int large = o->size > RTE_PCPU_CHUNK_OBJ_MAX_SIZE;

			if (large_copies(o, 0, ops) != 0)
				goto out;
			rte_pcpu_stats_get(&st);
			if (rte_pcpu_free(o->h) != 0) {
				printf("op %" PRIu64 ": free(%p) failed: %s\n",
					ops, o->h, rte_strerror(rte_errno));
				goto out;
			}
			if (large) {
				/* and gives them back at once */
				rte_pcpu_stats_get(&st1);
				if (st.populated_bytes - st1.populated_bytes !=
				    large_pop_bytes(o->size, &st1)) {
					printf("op %" PRIu64 ": the free of a "
						"span of %zu B gave back %" PRIu64
						" B\n", ops, o->size,
						st.populated_bytes -
						st1.populated_bytes);
					goto out;
				}
				large_live -= o->size;
				nlarge_live--;
			}
			live[k] = live[--nlive];
		}
		if ((ops + 1) % 250 == 0) {
			if (rte_pcpu_audit() != 0) {
				printf("op %" PRIu64 ": audit failed\n", ops);
				goto out;
			}
			rte_pcpu_stats_get(&st);
			if (st.nr_cur_alloc != st0.nr_cur_alloc + nlive) {
				printf("op %" PRIu64 ": %" PRIu64 " live, model %u"
					"\n", ops, st.nr_cur_alloc -
					st0.nr_cur_alloc, nlive);
				goto out;
			}
		}
		if ((ops + 1) % 1000 == 0) {
			flush_caches();
			if (rte_pcpu_reclaim() < 0 || rte_pcpu_audit() != 0) {
				printf("op %" PRIu64 ": reclaim\n", ops);
				goto out;
			}
			reclaims++;
		}
	}
	printf("model_large: %" PRIu64 " ops on %u lcores, %" PRIu64
		" large objects (up to %" PRIu64 " MiB per lcore live at once), %"
		PRIu64 " reclaims, %u live at the end (%u large)\n", ops,
		pcpu_test_mem_lcores(), nlarge, large_max >> 20, reclaims,
		nlive, nlarge_live);
	if (nlarge < LARGE_MIN_OBJS)
		printf("only %" PRIu64 " large objects\n", nlarge);
	else
		ret = TEST_SUCCESS;
out:
	while (nlive > 0)
		rte_pcpu_free(live[--nlive].h);
	free(live);
	TEST_ASSERT_EQUAL(ret, TEST_SUCCESS, "large model test failed");
	flush_caches();
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "last reclaim");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after the model test");
	rte_pcpu_stats_get(&st);
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, st0.nr_cur_alloc,
		"live objects after freeing everything");
	/* what is left is at most the spare chunk's pages */
	TEST_ASSERT(st.populated_pages * st.page_size <= st.chunk_size,
		"%" PRIu64 " pages per lcore populated after the last reclaim",
		st.populated_pages);
	return TEST_SUCCESS;
}

/* Lcore isolation: every lcore bumps only its own copies. */
struct flow_ctr {
	uint64_t packets;
	uint64_t bytes;
};

#define ISO_OBJS 1000
#define ISO_ROUNDS 100

static struct flow_ctr *iso_objs[ISO_OBJS];

static int
iso_worker(void *arg __rte_unused)
{
	unsigned int me = rte_lcore_id(), r, i;

	for (r = 0; r < ISO_ROUNDS; r++) {
		for (i = 0; i < ISO_OBJS; i++) {
			struct flow_ctr *c = RTE_PCPU(iso_objs[i]);

			c->packets += 1;
			c->bytes += me + 1;
		}
	}
	return 0;
}

static int
test_pcpu_lcore_isolation(void)
{
	unsigned int i, l, n = 0;
	uint64_t sum[2], want_bytes = 0;
	struct flow_ctr *v;

	for (i = 0; i < ISO_OBJS; i++)
		TEST_ASSERT_NOT_NULL(RTE_PCPU_ALLOC(iso_objs[i]), "alloc %u", i);
	rte_eal_mp_remote_launch(iso_worker, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	RTE_LCORE_FOREACH(l) {
		n++;
		want_bytes += (uint64_t)(l + 1) * ISO_ROUNDS;
	}
	for (i = 0; i < ISO_OBJS; i++) {
		RTE_PCPU_FOREACH(l, v, iso_objs[i]) {
			uint64_t want_p = rte_lcore_is_enabled(l) ? ISO_ROUNDS : 0;

			TEST_ASSERT_EQUAL(v->packets, want_p,
				"object %u lcore %u packets", i, l);
			TEST_ASSERT_EQUAL(v->bytes, want_p * (l + 1),
				"object %u lcore %u bytes", i, l);
		}
		rte_pcpu_sum_u64(iso_objs[i], 2, sum);
		TEST_ASSERT_EQUAL(sum[0], (uint64_t)n * ISO_ROUNDS,
			"object %u summed packets", i);
		TEST_ASSERT_EQUAL(sum[1], want_bytes, "object %u summed bytes",
			i);
	}
	for (i = 0; i < ISO_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(iso_objs[i]), "free %u", i);
	printf("isolation: %u objects on %u lcores (highest id %u)\n",
		ISO_OBJS, n, rte_get_next_lcore(-1, 0, 0));
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* A thread registered after objects exist sees them zeroed. */
#define LATE_OBJS 300

struct late_arg {
	uint64_t **objs;
	unsigned int lcore_id;
	int zero_ok;
	int seen_value;
	int reg_ok;
};

static void *
late_thread(void *p)
{
	struct late_arg *a = p;
	unsigned int i;

	a->reg_ok = rte_thread_register() == 0;
	if (!a->reg_ok)
		return NULL;
	a->lcore_id = rte_lcore_id();
	a->zero_ok = rte_pcpu_lcore_has_memory(a->lcore_id);
	a->seen_value = 1;
	for (i = 0; i < LATE_OBJS; i++) {
		uint64_t *c = RTE_PCPU(a->objs[i]);

		if (c[0] != 0 || c[1] != 0)
			a->zero_ok = 0;
		if (c[0] != 0 && c[0] != 1000u + i)
			a->seen_value = 0;
		c[0] = 1000u + i;
		c[1] = a->lcore_id;
	}
	rte_thread_unregister();
	return NULL;
}

static int
test_pcpu_late_lcore(void)
{
	uint64_t *objs[LATE_OBJS];
	struct late_arg a = { .objs = objs };
	unsigned int i, l;
	uint64_t *v, *fresh;
	pthread_t t;

	for (i = 0; i < LATE_OBJS; i++) {
		objs[i] = rte_pcpu_alloc(2 * sizeof(uint64_t), 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
		RTE_LCORE_FOREACH(l) {
			RTE_PCPU_LCORE(l, objs[i])[0] = 7;
		}
	}
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, late_thread, &a),
		"pthread_create");
	pthread_join(t, NULL);
	if (!a.reg_ok)
		TEST_SKIP("no free lcore id for rte_thread_register()");
	TEST_ASSERT(a.zero_ok, "registered thread (lcore %u) saw non-zero "
		"copies or had no memory", a.lcore_id);
	/* the departed lcore keeps its copies and values */
	TEST_ASSERT(rte_pcpu_lcore_has_memory(a.lcore_id),
		"lcore %u lost its memory", a.lcore_id);
	for (i = 0; i < LATE_OBJS; i++) {
		int found = 0;

		TEST_ASSERT_EQUAL(RTE_PCPU_LCORE(a.lcore_id, objs[i])[0],
			(uint64_t)1000 + i, "kept value of object %u", i);
		RTE_PCPU_FOREACH(l, v, objs[i])
			found |= l == a.lcore_id && v[1] == a.lcore_id;
		TEST_ASSERT(found, "FOREACH misses lcore %u", a.lcore_id);
	}
	/* objects allocated now are zeroed for the departed lcore too */
	fresh = rte_pcpu_alloc(64, 0);
	TEST_ASSERT_NOT_NULL(fresh, "alloc after the thread left");
	TEST_ASSERT(pcpu_test_all_bytes((uint8_t *)RTE_PCPU_LCORE(a.lcore_id, fresh), 64,
		0), "new object not zero on lcore %u", a.lcore_id);
	/* the next thread with that id finds the values (documented) */
	a.seen_value = 0;
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, late_thread, &a),
		"pthread_create");
	pthread_join(t, NULL);
	TEST_ASSERT(a.reg_ok, "second registration");
	TEST_ASSERT(a.seen_value, "second thread on lcore %u did not find "
		"the kept values", a.lcore_id);
	for (i = 0; i < LATE_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(fresh), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* move_pages(2) in query mode: lcore i's pages are on lcore i's node. */
#define NUMA_OBJS 64

static int
test_pcpu_numa_placement(void)
{
	/* two spans (objects of whole chunks) beside the chunk objects:
	 * their first and last pages are checked too */
	static const size_t span_size[2] = {
		RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 4096, (UINT64_C(3) << 20) + 8,
	};
	void *objs[NUMA_OBJS], *spans[2];
	void *pages[NUMA_OBJS + 4];
	int status[NUMA_OBJS + 4];
	unsigned int i, l, checked = 0, np = NUMA_OBJS + 4;

	for (i = 0; i < NUMA_OBJS; i++) {
		/* 48 KiB apart: many pages, several chunks over time */
		objs[i] = rte_pcpu_alloc(48 * 1024, 4096);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
	}
	for (i = 0; i < 2; i++) {
		spans[i] = rte_pcpu_alloc(span_size[i], 0);
		TEST_ASSERT_NOT_NULL(spans[i], "span %u", i);
	}
	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1)) {
		unsigned int node = rte_lcore_to_socket_id(l);

		for (i = 0; i < NUMA_OBJS; i++)
			pages[i] = RTE_PTR_ALIGN_FLOOR(
				RTE_PCPU_LCORE(l, (char *)objs[i]), 4096);
		for (i = 0; i < 2; i++) {
			char *c = RTE_PCPU_LCORE(l, (char *)spans[i]);

			pages[NUMA_OBJS + 2 * i] = c;
			pages[NUMA_OBJS + 2 * i + 1] = RTE_PTR_ALIGN_FLOOR(
				c + span_size[i] - 1, 4096);
		}
		for (i = 0; i < np; i++)
			status[i] = -1;
		TEST_ASSERT_SUCCESS(move_pages(0, np, pages, NULL, status, 0),
			"move_pages query for lcore %u", l);
		for (i = 0; i < np; i++) {
			if (node >= RTE_MAX_NUMA_NODES)
				TEST_ASSERT(status[i] >= 0, "lcore %u page %p "
					"not resident (%d)", l, pages[i],
					status[i]);
			else
				TEST_ASSERT_EQUAL(status[i], (int)node,
					"lcore %u page %p node", l, pages[i]);
			checked++;
		}
	}
	for (i = 0; i < NUMA_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	for (i = 0; i < 2; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(spans[i]), "free span %u", i);
	printf("numa: %u pages checked with move_pages(2), spans included\n",
		checked);
	return TEST_SUCCESS;
}

/* Free 2 MiB hugepages now (0 if unknown). */
static unsigned long
numa_free_hugepages(void)
{
	unsigned long n = 0;
	FILE *f;

	f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
		"r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

/*
 * The same with the area shared with secondary processes (a memfd,
 * mbind(2) of shared mappings), 4 KiB pages and 2 MiB pages (when free
 * hugepages allow): a secondary sees the pages where the primary put them.
 */
static int
test_pcpu_numa_placement_shared(void)
{
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_SHARED };
	struct rte_pcpu_stats st;
	unsigned int kinds = 0;
	int ret;

	conf.page_policy = RTE_PCPU_PAGE_NORMAL;
	if (pcpu_test_reinit(&conf) != 0 && rte_errno == ENOTSUP) {
		TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
		TEST_SKIP("no shared area without EAL's multi-process channel "
			"(--in-memory, --no-shconf)");
	}
	rte_pcpu_stats_get(&st);
	TEST_ASSERT(st.shared && st.page_size == 4096, "shared 4 KiB area");
	ret = test_pcpu_numa_placement();
	TEST_ASSERT_SUCCESS(ret, "shared area, 4 KiB pages");
	kinds++;
	/* 64 objects of 48 KiB: two 2 MiB pages per lcore, and slack */
	if (numa_free_hugepages() >= 4 * pcpu_test_mem_lcores() + 8) {
		conf.page_policy = RTE_PCPU_PAGE_HUGE;
		TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf),
			"init shared, 2 MiB");
		rte_pcpu_stats_get(&st);
		TEST_ASSERT(st.shared && st.page_size == 2u << 20,
			"shared 2 MiB area");
		ret = test_pcpu_numa_placement();
		TEST_ASSERT_SUCCESS(ret, "shared area, 2 MiB pages");
		kinds++;
	} else {
		printf("numa, shared: too few free hugepages for the 2 MiB "
			"case\n");
	}
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	printf("numa, shared: %u page kinds checked\n", kinds);
	return TEST_SUCCESS;
}

/* The 11,000-group reclaim scenario (Linux 5.14's partial depopulation). */
#define RECLAIM_GROUPS 11000
#define RECLAIM_PER_GROUP 10

static int
reclaim_run(enum rte_pcpu_page_policy policy, int check)
{
	struct rte_pcpu_conf conf = { .page_policy = policy };
	struct rte_pcpu_stats st;
	void **objs;
	size_t *sizes;
	uint64_t peak, final, live_pages, bound;
	unsigned int g, k, n = RECLAIM_GROUPS * RECLAIM_PER_GROUP;
	int64_t given;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init");
	objs = calloc(n, sizeof(*objs));
	sizes = calloc(n, sizeof(*sizes));
	TEST_ASSERT(objs != NULL && sizes != NULL, "no memory");
	rng_state = 11000;
	for (g = 0; g < RECLAIM_GROUPS; g++) {
		for (k = 0; k < RECLAIM_PER_GROUP; k++) {
			unsigned int j = g * RECLAIM_PER_GROUP + k;

			sizes[j] = (size_t)64 << (rnd() % 6); /* 64 B .. 2 KiB */
			objs[j] = rte_pcpu_alloc(sizes[j], 0);
			TEST_ASSERT_NOT_NULL(objs[j], "alloc %u", j);
		}
	}
	rte_pcpu_stats_get(&st);
	peak = st.populated_bytes;
	for (g = 0; g < RECLAIM_GROUPS; g++) {
		if (g % 11 == 0)
			continue;
		for (k = 0; k < RECLAIM_PER_GROUP; k++) {
			unsigned int j = g * RECLAIM_PER_GROUP + k;

			TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[j]), "free %u", j);
			objs[j] = NULL;
		}
	}
	flush_caches();
	given = rte_pcpu_reclaim();
	TEST_ASSERT(given >= 0, "reclaim");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after reclaim");
	rte_pcpu_stats_get(&st);
	final = st.populated_bytes;
	live_pages = pcpu_test_live_pages(objs, sizes, n, &st);
	TEST_ASSERT(live_pages != UINT64_MAX, "no memory");
	bound = live_pages * st.page_size * st.nr_lcores * 11 / 10 +
		st.chunk_size * st.nr_lcores;
	printf("reclaim (%" PRIu64 " KiB pages, %u lcores): peak %" PRIu64
		" kB, final %" PRIu64 " kB, peak/final %.2fx, pages with a "
		"live object %" PRIu64 " kB, final/live %.3f, given back %"
		PRId64 " kB (Linux: 481,152 kB -> 135,552 kB, 3.55x)\n",
		st.page_size >> 10, st.nr_lcores, peak >> 10, final >> 10,
		final ? (double)peak / (double)final : 0.0,
		(live_pages * st.page_size * st.nr_lcores) >> 10,
		live_pages ? (double)final / (double)(live_pages *
			st.page_size * st.nr_lcores) : 0.0, given >> 10);
	for (k = 0; k < n; k++)
		if (objs[k] != NULL)
			TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[k]), "free %u", k);
	free(objs);
	free(sizes);
	if (check)
		TEST_ASSERT(final <= bound, "final populated %" PRIu64
			" above 1.1 x live pages + one chunk = %" PRIu64,
			final, bound);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

static int
test_pcpu_reclaim(void)
{
	int ret = reclaim_run(RTE_PCPU_PAGE_NORMAL, 1);

	if (ret == TEST_SUCCESS && rte_eal_has_hugepages())
		ret = reclaim_run(RTE_PCPU_PAGE_AUTO, 0);
	pcpu_test_reinit(NULL);
	return ret;
}

/*
 * A mass free in random order with reclaims along the way (chunks emptied
 * early are depopulated down to nothing while others still hold the
 * reserve), then a last reclaim: it keeps one spare chunk and the reserve
 * of empty pages (4 with 4 KiB pages), not less: the spare must be the
 * free chunk that holds them.
 */
#define SPARE_OBJS 65536u
#define SPARE_SIZE 256u

static int
test_pcpu_reclaim_spare(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_NORMAL };
	struct rte_pcpu_stats st;
	void **objs = calloc(SPARE_OBJS, sizeof(*objs));
	uint32_t i, j, max_chunks;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init");
	for (i = 0; i < SPARE_OBJS; i++) {
		objs[i] = rte_pcpu_alloc(SPARE_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
	}
	rng_state = 65536;
	for (i = SPARE_OBJS - 1; i > 0; i--) {
		void *t;

		j = rnd() % (i + 1);
		t = objs[i];
		objs[i] = objs[j];
		objs[j] = t;
	}
	for (i = 0; i < SPARE_OBJS; i++) {
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
		if (i % 5003 == 0)
			flush_caches();
		if (i % 20011 == 0)
			TEST_ASSERT(rte_pcpu_reclaim() >= 0, "reclaim %u", i);
	}
	free(objs);
	flush_caches();
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "last reclaim");
	rte_pcpu_stats_get(&st);
	max_chunks = st.nr_max_chunks;
	printf("reclaim after a mass free: %u chunks at most, %u left, %"
		PRIu64 " pages populated per lcore, %" PRIu64 " empty\n",
		max_chunks, st.nr_chunks, st.populated_pages,
		st.empty_pop_pages);
	TEST_ASSERT(max_chunks >= 3, "only %u chunks: no spare to choose",
		max_chunks);
	TEST_ASSERT_EQUAL(st.nr_chunks, 1u, "chunks left");
	TEST_ASSERT_EQUAL(st.populated_pages, 4u, "populated pages left");
	TEST_ASSERT_EQUAL(st.empty_pop_pages, 4u, "empty pages left");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/*
 * With a reserve of empty pages as large as the memory in use, a mass free
 * and a reclaim keep every chunk and page (a fully free chunk beyond the
 * spare is destroyed only when the reserve does not need its pages), and
 * allocating the objects again populates nothing.
 */
static int
test_pcpu_reclaim_reserve(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_NORMAL,
		.empty_pages_reserve = 2 * SPARE_OBJS * SPARE_SIZE / 4096 };
	struct rte_pcpu_stats st0, st1, st2;
	void **objs = calloc(SPARE_OBJS, sizeof(*objs));
	uint32_t i;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init");
	for (i = 0; i < SPARE_OBJS; i++) {
		objs[i] = rte_pcpu_alloc(SPARE_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc %u", i);
	}
	rte_pcpu_stats_get(&st0);
	for (i = 0; i < SPARE_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	flush_caches();
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "reclaim");
	rte_pcpu_stats_get(&st1);
	for (i = 0; i < SPARE_OBJS; i++) {
		objs[i] = rte_pcpu_alloc(SPARE_SIZE, 0);
		TEST_ASSERT_NOT_NULL(objs[i], "alloc again %u", i);
	}
	rte_pcpu_stats_get(&st2);
	printf("reserve of %u pages: %u chunks, %" PRIu64 " pages populated "
		"per lcore with the objects, %u and %" PRIu64 " after a mass "
		"free and a reclaim, %u and %" PRIu64 " with them again\n",
		conf.empty_pages_reserve, st0.nr_chunks, st0.populated_pages,
		st1.nr_chunks, st1.populated_pages, st2.nr_chunks,
		st2.populated_pages);
	TEST_ASSERT(st0.nr_chunks >= 3, "only %u chunks", st0.nr_chunks);
	TEST_ASSERT_EQUAL(st1.nr_chunks, st0.nr_chunks, "chunks kept");
	TEST_ASSERT_EQUAL(st1.populated_pages, st0.populated_pages,
		"pages kept");
	TEST_ASSERT_EQUAL(st1.empty_pop_pages, st1.populated_pages,
		"all empty");
	TEST_ASSERT_EQUAL(st2.nr_chunks, st0.nr_chunks, "no chunk created");
	TEST_ASSERT_EQUAL(st2.populated_pages, st0.populated_pages,
		"nothing populated again");
	for (i = 0; i < SPARE_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	free(objs);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/* Populated-bytes limit: ENOMEM at the limit, success after frees. */
#define LIMIT_MAX_OBJS 100000

static int
limit_fill(void **objs, unsigned int *n)
{
	*n = 0;
	while (*n < LIMIT_MAX_OBJS) {
		objs[*n] = rte_pcpu_alloc(1024, 0);
		if (objs[*n] == NULL)
			break;
		(*n)++;
	}
	TEST_ASSERT(*n < LIMIT_MAX_OBJS, "limit never reached");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "error at the limit");
	return TEST_SUCCESS;
}

static int
test_pcpu_limit(void)
{
	struct rte_pcpu_conf conf = { .page_policy = RTE_PCPU_PAGE_NORMAL };
	struct rte_pcpu_stats st;
	void **objs = calloc(LIMIT_MAX_OBJS, sizeof(*objs));
	unsigned int n1, n2, i, nl;

	TEST_ASSERT_NOT_NULL(objs, "no memory");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	nl = pcpu_test_mem_lcores();
	conf.max_populated = (uint64_t)64 * 4096 * nl;
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init with a limit");
	TEST_ASSERT_EQUAL(limit_fill(objs, &n1), TEST_SUCCESS, "first fill");
	rte_pcpu_stats_get(&st);
	TEST_ASSERT(st.populated_bytes <= conf.max_populated,
		"populated %" PRIu64 " above limit %" PRIu64,
		st.populated_bytes, conf.max_populated);
	TEST_ASSERT(st.nr_alloc_fail >= 1, "failure not counted");
	for (i = 0; i < n1; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	flush_caches();
	TEST_ASSERT(rte_pcpu_reclaim() >= 0, "reclaim");
	TEST_ASSERT_EQUAL(limit_fill(objs, &n2), TEST_SUCCESS, "second fill");
	printf("limit %" PRIu64 " bytes on %u lcores: %u then %u objects of "
		"1 KiB\n", conf.max_populated, nl, n1, n2);
	TEST_ASSERT(n1 > 0 && n2 >= n1 * 9 / 10, "recovered %u of %u", n2,
		n1);
	for (i = 0; i < n2; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(objs[i]), "free %u", i);
	free(objs);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/* The reserved address space used up: ENOMEM, recovery after a free. */
static int
test_pcpu_address_space(void)
{
	struct rte_pcpu_conf conf = {
		.unit_stride = 512 * 1024,
		.chunk_size = 256 * 1024,
		.page_policy = RTE_PCPU_PAGE_NORMAL,
	};
	void *a, *b, *c;

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(&conf), "init 2 chunks");
	a = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	b = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	TEST_ASSERT(a != NULL && b != NULL, "two full-chunk objects");
	c = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	TEST_ASSERT_NULL(c, "third object in two chunks");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "error when space is used up");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(a), "free");
	c = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	TEST_ASSERT_NOT_NULL(c, "alloc after a free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(b), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(c), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");

	/* a span needs both chunks: the spare free chunk makes way */
	a = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, 0);
	TEST_ASSERT_NOT_NULL(a, "span of both chunks");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with a span");
	b = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE, 0);
	TEST_ASSERT_NULL(b, "chunk object beside a span filling the unit");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "error when a span fills it");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(a), "free the span");
	b = rte_pcpu_alloc(64, 0);
	TEST_ASSERT_NOT_NULL(b, "alloc after the span's free");
	c = rte_pcpu_alloc(RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1, 0);
	TEST_ASSERT_NULL(c, "span beside a chunk in use");
	TEST_ASSERT_EQUAL(rte_errno, ENOMEM, "span error");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(b), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "default init");
	return TEST_SUCCESS;
}

/* Bad input: documented errors, nothing changes. */
static int
test_pcpu_bad_input(void)
{
	struct rte_pcpu_stats st0, st;
	uint64_t local = 0;
	char *h, *h2;

	h = rte_pcpu_alloc(64, 0);
	TEST_ASSERT_NOT_NULL(h, "alloc");
	rte_pcpu_stats_get(&st0);

	TEST_ASSERT_NULL(rte_pcpu_alloc(0, 0), "size 0");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "size 0");
	TEST_ASSERT_NULL(rte_pcpu_alloc(RTE_PCPU_MAX_SIZE + 1, 0), "oversize");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "oversize");
	TEST_ASSERT_NULL(rte_pcpu_alloc(SIZE_MAX, 0), "SIZE_MAX");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "SIZE_MAX");
	TEST_ASSERT_NULL(rte_pcpu_alloc(16, 3), "align 3");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "align 3");
	TEST_ASSERT_NULL(rte_pcpu_alloc(16, RTE_PCPU_MAX_ALIGN * 2),
		"align too big");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "align too big");

	TEST_ASSERT_SUCCESS(rte_pcpu_free(NULL), "free(NULL) is a no-op");
	TEST_ASSERT_EQUAL(rte_pcpu_free(h + 8), -1, "interior pointer");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "interior pointer");
	TEST_ASSERT_EQUAL(rte_pcpu_free(h + 1), -1, "unaligned pointer");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "unaligned pointer");
	TEST_ASSERT_EQUAL(rte_pcpu_free(&local), -1, "outside the area");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "outside the area");
	h2 = h + 512 * 1024;  /* in the area, never allocated */
	TEST_ASSERT_EQUAL(rte_pcpu_free(h2), -1, "never allocated");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "never allocated");
	TEST_ASSERT_EQUAL(rte_pcpu_free(RTE_PCPU_LCORE(1, h)), -1,
		"another lcore's copy");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "another lcore's copy");
	TEST_ASSERT_EQUAL(rte_pcpu_stats_get(NULL), -1, "stats NULL");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "stats NULL");

	rte_pcpu_stats_get(&st);
	TEST_ASSERT_EQUAL(st.nr_cur_alloc, st0.nr_cur_alloc,
		"bad frees changed the live count");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after bad input");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free of the real object");
	TEST_ASSERT_EQUAL(rte_pcpu_free(h), -1, "double free");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "double free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after double free");
	rte_pcpu_stats_get(&st);
	TEST_ASSERT_EQUAL(st.nr_cur_alloc + 1, st0.nr_cur_alloc,
		"live count after the one real free");
	return TEST_SUCCESS;
}

/* The page size in use is visible and matches the EAL mode. */
static int
test_pcpu_page_mode(void)
{
	struct rte_pcpu_stats st;
	void *h = rte_pcpu_alloc(8, 0);

	TEST_ASSERT_NOT_NULL(h, "alloc");
	rte_pcpu_stats_get(&st);
	printf("page mode: %s EAL, %" PRIu64 " KiB pages, %u lcores with "
		"memory, %" PRIu64 " bytes populated, %u huge fallbacks\n",
		rte_eal_has_hugepages() ? "hugepage" : "no-huge",
		st.page_size >> 10, st.nr_lcores, st.populated_bytes,
		st.nr_huge_fallback);
	if (!rte_eal_has_hugepages())
		TEST_ASSERT_EQUAL(st.page_size, (uint64_t)4096,
			"no-huge EAL must use 4 KiB pages");
	else
		TEST_ASSERT(st.page_size == 4096 || st.page_size == 2u << 20,
			"page size %" PRIu64, st.page_size);
	TEST_ASSERT_EQUAL(st.nr_lcores, pcpu_test_mem_lcores(), "lcores with memory");
	TEST_ASSERT(st.populated_bytes >= st.page_size * st.nr_lcores,
		"populated bytes %" PRIu64, st.populated_bytes);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	return TEST_SUCCESS;
}

static int
alloc_suite_setup(void)
{
	return pcpu_test_reinit(NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

struct unit_test_suite pcpu_alloc_suite = {
	.suite_name = "percpu allocator",
	.setup = alloc_suite_setup,
	.unit_test_cases = {
		TEST_CASE(test_pcpu_page_mode),
		TEST_CASE(test_pcpu_bad_input),
		TEST_CASE(test_pcpu_lcore_isolation),
		TEST_CASE(test_pcpu_late_lcore),
		TEST_CASE(test_pcpu_numa_placement),
		TEST_CASE(test_pcpu_numa_placement_shared),
		TEST_CASE(test_pcpu_model),
		TEST_CASE(test_pcpu_model_large),
		TEST_CASE(test_pcpu_limit),
		TEST_CASE(test_pcpu_address_space),
		TEST_CASE(test_pcpu_reclaim),
		TEST_CASE(test_pcpu_reclaim_spare),
		TEST_CASE(test_pcpu_reclaim_reserve),
		TEST_CASES_END()
	}
};
