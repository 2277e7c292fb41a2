/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * pcpu_owner_autotest: owners of percpu memory (rte_pcpu_owner.h).
 *
 * The model test charges random allocations and frees of every path (the
 * lcore caches, the allocator, spans) to several owners with random
 * limits, from one lcore after another, and checks after every operation
 * that each owner's figures are the model's: bytes per copy, live
 * allocations, allocations and frees, failures, and that an owner with a
 * limit fails exactly when its charge would go above the limit. Reclaim,
 * cache flushes and the audit run between the operations. Other cases:
 * an lcore that appears later (charges grow), freeing owners (EBUSY,
 * EPERM), the pools' owners and budgets, the lcores' stocks of owners
 * with a limit, threads without an lcore id, spans, reused owner ids, and
 * chunk utilisation with and without owners.
 *
 * pcpu_owner_telemetry_hold is not a test but the helper of
 * pcpu_owner_telemetry.sh: it sets owners up, prints a ready line and
 * waits until the script is done querying them.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_mempool_ops.h>
#include <rte_pcpu_owner.h>

#include "test.h"
#include "test_pcpu_util.h"

static const uint32_t owner_classes[RTE_PCPU_CACHE_NB_CLASSES] = {
	8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512,
};

/* What an allocation of @p size bytes (natural alignment) on an lcore
 * with caches costs its owner per copy: its size class, or its size
 * rounded up to the 4-byte granule (rte_pcpu_owner.h). */
static uint64_t
owner_charge(size_t size)
{
	unsigned int c = 0;

	if (size > RTE_PCPU_CACHE_MAX_SIZE)
		return RTE_ALIGN_CEIL(size, 4);
	while (owner_classes[c] < size)
		c++;
	return owner_classes[c];
}

static struct rte_pcpu_owner_stats
ostats(const struct rte_pcpu_owner *o)
{
	struct rte_pcpu_owner_stats st;

	memset(&st, 0xff, sizeof(st));
	rte_pcpu_owner_stats_get(o, &st);
	return st;
}

static int
owner_setup(void)
{
	return pcpu_test_reinit(NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static void
owner_teardown(void)
{
	rte_pcpu_cleanup();
}

/* Run @p fn on lcore @p lcore_id (the calling lcore runs it inline). */
static int
owner_run_on(unsigned int lcore_id, lcore_function_t *fn, void *arg)
{
	if (lcore_id == rte_lcore_id())
		return fn(arg);
	if (rte_eal_remote_launch(fn, arg, lcore_id) != 0)
		return -1;
	return rte_eal_wait_lcore(lcore_id);
}

/* ---------------------------------------------------------------------- */

static int
test_owner_basics(void)
{
	struct rte_pcpu_owner *root, *a, *b;
	struct rte_pcpu_owner_stats st;
	unsigned int nl = pcpu_test_mem_lcores();
	void *h[3];

	root = rte_pcpu_owner_lookup(RTE_PCPU_OWNER_ROOT_NAME);
	TEST_ASSERT_NOT_NULL(root, "the root exists");
	TEST_ASSERT_EQUAL(ostats(root).id, 1u, "root id");
	a = rte_pcpu_owner_create("ob_a", 0);
	b = rte_pcpu_owner_create("ob_b", 1 << 20);
	TEST_ASSERT(a != NULL && b != NULL, "create");
	TEST_ASSERT(rte_pcpu_owner_lookup("ob_a") == a, "lookup");
	TEST_ASSERT_EQUAL(strcmp(rte_pcpu_owner_name(b), "ob_b"), 0, "name");
	st = ostats(b);
	TEST_ASSERT(st.live_bytes == 0 && st.nr_alloc == 0 &&
		st.limit_bytes == 1 << 20 && st.id >= 512 &&
		st.nr_lcores == nl, "fresh limited owner");
	TEST_ASSERT(ostats(a).id > 1 && ostats(a).id < 512,
		"an owner without a limit has an id below 512");

	h[0] = rte_pcpu_alloc_owner(20, 0, a);    /* class 24 */
	h[1] = rte_pcpu_alloc_owner(1000, 0, a);  /* allocator */
	h[2] = rte_pcpu_alloc_owner(64, 0, b);
	TEST_ASSERT(h[0] != NULL && h[1] != NULL && h[2] != NULL, "alloc");
	st = ostats(a);
	TEST_ASSERT_EQUAL(st.live_copy_bytes, (uint64_t)24 + 1000, "a copy");
	TEST_ASSERT_EQUAL(st.live_bytes, (uint64_t)1024 * nl, "a bytes");
	TEST_ASSERT(st.nr_alloc == 2 && st.nr_live == 2 && st.nr_free == 0,
		"a counts");
	TEST_ASSERT_EQUAL(ostats(b).live_bytes, (uint64_t)64 * nl, "b");
	TEST_ASSERT_EQUAL(ostats(b).peak_bytes, (uint64_t)64 * nl, "b peak");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with owners");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h[0]), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h[1]), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h[2]), "free");
	st = ostats(a);
	TEST_ASSERT(st.live_bytes == 0 && st.nr_free == 2 && st.nr_live == 0,
		"a after the frees");
	TEST_ASSERT_EQUAL(ostats(b).peak_bytes, (uint64_t)64 * nl,
		"b keeps its peak");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a), "free a");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(b), "free b");
	TEST_ASSERT_NULL(rte_pcpu_owner_lookup("ob_a"), "a is gone");
	TEST_ASSERT_EQUAL(rte_errno, ENOENT, "ENOENT");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* The model. */

#define MODEL_OWNERS 7        /* the root, 3 without a limit, 3 with */
#define MODEL_OPS_PER_PHASE 1500
#define MODEL_PHASES 12
#define MODEL_MAX_LIVE 4096

static const size_t model_sizes[] = {
	8, 12, 16, 24, 40, 64, 100, 128, 200, 256, 300, 512,
	513, 700, 1000, 2048, 4096, 70000,
};

struct model_obj {
	void *h;
	uint64_t charge;
	unsigned int owner;
};

struct model_owner {
	struct rte_pcpu_owner *o;
	uint64_t limit;
	uint64_t bytes, peak, nalloc, nfree, nfail;
};

struct model {
	struct model_owner ow[MODEL_OWNERS];
	struct model_obj live[MODEL_MAX_LIVE];
	unsigned int nlive;
	unsigned int nl;          /* lcores with memory */
	uint64_t seed;
	uint64_t ops, spans;
	struct rte_pcpu_owner_stats root0;
	char msg[256];
};

/* Owner @p k's figures against the model; 0 or -1 with m->msg. */
static int
model_check_owner(struct model *m, unsigned int k)
{
	const struct model_owner *mo = &m->ow[k];
	struct rte_pcpu_owner_stats st = ostats(mo->o);
	uint64_t base_bytes = k == 0 ? m->root0.live_copy_bytes : 0;
	uint64_t base_alloc = k == 0 ? m->root0.nr_alloc : 0;
	uint64_t base_free = k == 0 ? m->root0.nr_free : 0;

	if (st.live_copy_bytes != base_bytes + mo->bytes ||
	    st.live_bytes != st.live_copy_bytes * m->nl ||
	    st.nr_alloc != base_alloc + mo->nalloc ||
	    st.nr_free != base_free + mo->nfree ||
	    st.nr_live != st.nr_alloc - st.nr_free ||
	    st.nr_fail != mo->nfail || st.limit_bytes != mo->limit ||
	    (mo->limit != 0 && st.peak_bytes != mo->peak * m->nl) ||
	    (mo->limit != 0 && st.live_bytes > mo->limit)) {
		snprintf(m->msg, sizeof(m->msg), "op %" PRIu64 ": owner %s: "
			"copy %" PRIu64 " (model %" PRIu64 "), allocs %" PRIu64
			"/%" PRIu64 " frees %" PRIu64 "/%" PRIu64 " fails %"
			PRIu64 "/%" PRIu64 " peak %" PRIu64 "/%" PRIu64 " limit %"
			PRIu64, m->ops, rte_pcpu_owner_name(mo->o),
			st.live_copy_bytes, base_bytes + mo->bytes, st.nr_alloc,
			base_alloc + mo->nalloc, st.nr_free, base_free +
			mo->nfree, st.nr_fail, mo->nfail, st.peak_bytes,
			mo->peak * m->nl, st.limit_bytes);
		return -1;
	}
	return 0;
}

static int
model_check_all(struct model *m)
{
	unsigned int k;

	for (k = 0; k < MODEL_OWNERS; k++)
		if (model_check_owner(m, k) != 0)
			return -1;
	return 0;
}

/* One allocation; 0 or -1 with m->msg. */
static int
model_alloc(struct model *m)
{
	unsigned int k = (unsigned int)(pcpu_test_rnd(&m->seed) % MODEL_OWNERS);
	struct model_owner *mo = &m->ow[k];
	size_t size = model_sizes[pcpu_test_rnd(&m->seed) %
		RTE_DIM(model_sizes)];
	uint64_t charge;
	int fits;
	void *h;

	/* a span now and then: whole chunks, charged as any object */
	if (pcpu_test_rnd(&m->seed) % 400 == 0) {
		size = RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 1 +
			pcpu_test_rnd(&m->seed) % 100000;
		m->spans++;
	}
	charge = owner_charge(size);
	fits = mo->limit == 0 || (mo->bytes + charge) * m->nl <= mo->limit;
	h = k == 0 ? rte_pcpu_alloc(size, 0) :
		rte_pcpu_alloc_owner(size, 0, mo->o);
	if ((h != NULL) != fits) {
		snprintf(m->msg, sizeof(m->msg), "op %" PRIu64 ": alloc of %zu"
			" B for %s (%" PRIu64 " B per copy held, limit %" PRIu64
			" on %u lcores) %s", m->ops, size,
			rte_pcpu_owner_name(mo->o), mo->bytes, mo->limit, m->nl,
			h != NULL ? "succeeded beyond the limit" :
			"failed within the limit");
		return -1;
	}
	if (h == NULL) {
		if (rte_errno != ENOMEM) {
			snprintf(m->msg, sizeof(m->msg), "op %" PRIu64 ": "
				"refused with %s, not ENOMEM", m->ops,
				rte_strerror(rte_errno));
			return -1;
		}
		mo->nfail++;
		return 0;
	}
	mo->bytes += charge;
	mo->peak = RTE_MAX(mo->peak, mo->bytes);
	mo->nalloc++;
	m->live[m->nlive++] = (struct model_obj){ h, charge, k };
	return 0;
}

static int
model_free(struct model *m)
{
	unsigned int i = (unsigned int)(pcpu_test_rnd(&m->seed) % m->nlive);
	struct model_obj *ob = &m->live[i];
	struct model_owner *mo = &m->ow[ob->owner];

	if (rte_pcpu_free(ob->h) != 0) {
		snprintf(m->msg, sizeof(m->msg), "op %" PRIu64 ": free failed",
			m->ops);
		return -1;
	}
	mo->bytes -= ob->charge;
	mo->nfree++;
	*ob = m->live[--m->nlive];
	return 0;
}

/* One phase of operations, on whichever lcore runs it. */
static int
model_phase(void *arg)
{
	struct model *m = arg;
	unsigned int i;

	for (i = 0; i < MODEL_OPS_PER_PHASE; i++, m->ops++) {
		uint64_t r = pcpu_test_rnd(&m->seed) % 100;
		int ret;

		if (m->nlive == 0 || (m->nlive < MODEL_MAX_LIVE && r < 55))
			ret = model_alloc(m);
		else
			ret = model_free(m);
		if (ret != 0 || model_check_all(m) != 0)
			return -1;
		/* neither giving memory back nor emptying this lcore's
		 * caches changes what anyone holds */
		if (i % 500 == 499) {
			rte_pcpu_cache_flush();
			if (rte_pcpu_reclaim() < 0 || model_check_all(m) != 0)
				return -1;
		}
	}
	return 0;
}

static int
test_owner_model(void)
{
	struct model *m = calloc(1, sizeof(*m));
	const char *env = getenv("PCPU_TEST_SEED");
	unsigned int k, phase, lcore, nb_lcores = 0;
	unsigned int lcores[RTE_MAX_LCORE];
	char name[32];
	int ret = TEST_FAILED;

	TEST_ASSERT_NOT_NULL(m, "calloc");
	RTE_LCORE_FOREACH(lcore)
		lcores[nb_lcores++] = lcore;
	m->seed = env != NULL ? strtoull(env, NULL, 0) : rte_rdtsc() | 1;
	printf("owner model: seed %" PRIu64 " (set PCPU_TEST_SEED to "
		"repeat)\n", m->seed);
	m->nl = pcpu_test_mem_lcores();
	m->ow[0].o = rte_pcpu_owner_lookup(RTE_PCPU_OWNER_ROOT_NAME);
	m->root0 = ostats(m->ow[0].o);
	for (k = 1; k < MODEL_OWNERS; k++) {
		/* limits of 4 KiB to 256 KiB per copy: all of them are hit */
		m->ow[k].limit = k < 4 ? 0 : m->nl * ((uint64_t)4096 <<
			(pcpu_test_rnd(&m->seed) % 7));
		snprintf(name, sizeof(name), "model_%u", k);
		m->ow[k].o = rte_pcpu_owner_create(name, m->ow[k].limit);
		if (m->ow[k].o == NULL) {
			printf("owner create %s: %s\n", name,
				rte_strerror(rte_errno));
			goto out;
		}
	}
	for (phase = 0; phase < MODEL_PHASES; phase++) {
		lcore = lcores[phase % nb_lcores];
		if (owner_run_on(lcore, model_phase, m) != 0) {
			printf("owner model, phase %u on lcore %u: %s\n", phase,
				lcore, m->msg);
			goto out;
		}
		/* every lcore idle: the audit is exact */
		if (rte_pcpu_audit() != 0 || model_check_all(m) != 0) {
			printf("owner model, after phase %u: audit or %s\n",
				phase, m->msg);
			goto out;
		}
		/* an owner with live allocations is not freed */
		for (k = 1; k < MODEL_OWNERS; k++) {
			if (m->ow[k].bytes == 0)
				continue;
			if (rte_pcpu_owner_free(m->ow[k].o) != -1 ||
			    rte_errno != EBUSY) {
				printf("owner %u freed with live allocations\n",
					k);
				goto out;
			}
			break;
		}
	}
	for (k = 1; k < MODEL_OWNERS; k++)
		if (m->ow[k].limit != 0 && m->ow[k].nfail == 0) {
			printf("owner model: owner %u never reached its "
				"limit\n", k);
			goto out;
		}
	printf("owner model: %" PRIu64 " ops on %u lcores (%u with memory), "
		"%" PRIu64 " spans, %u live at the end, failures at the limits"
		" %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n", m->ops, nb_lcores,
		m->nl, m->spans, m->nlive, m->ow[4].nfail, m->ow[5].nfail,
		m->ow[6].nfail);
	ret = TEST_SUCCESS;
out:
	while (m->nlive > 0)
		model_free(m);
	if (ret == TEST_SUCCESS && model_check_all(m) != 0) {
		printf("owner model, all freed: %s\n", m->msg);
		ret = TEST_FAILED;
	}
	for (k = 1; k < MODEL_OWNERS; k++)
		if (m->ow[k].o != NULL && rte_pcpu_owner_free(m->ow[k].o) != 0)
			ret = TEST_FAILED;
	free(m);
	TEST_ASSERT_SUCCESS(ret, "owner model");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after the model");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* An lcore that appears later. */

struct late_arg {
	struct rte_pcpu_owner *lim, *own;
	int reg_ok;
	unsigned int lcore_id;
	uint32_t nr_lcores;
	uint64_t lim_bytes, own_bytes;
	int alloc_refused;
};

static void *
late_thread(void *p)
{
	struct late_arg *a = p;
	void *h;

	a->reg_ok = rte_thread_register() == 0;
	if (!a->reg_ok)
		return NULL;
	a->lcore_id = rte_lcore_id();
	a->nr_lcores = ostats(a->lim).nr_lcores;
	a->lim_bytes = ostats(a->lim).live_bytes;
	a->own_bytes = ostats(a->own).live_bytes;
	h = rte_pcpu_alloc_owner(64, 0, a->lim);
	a->alloc_refused = h == NULL && rte_errno == ENOMEM;
	rte_pcpu_free(h);
	rte_thread_unregister();
	return NULL;
}

static int
test_owner_late_lcore(void)
{
	unsigned int nl = pcpu_test_mem_lcores(), i;
	struct late_arg a = { 0 };
	void *h[10], *x, *y;
	pthread_t t;

	/* room for exactly 10 objects of 64 B on the lcores of now */
	a.lim = rte_pcpu_owner_create("late_lim", (uint64_t)640 * nl);
	a.own = rte_pcpu_owner_create("late_own", 0);
	TEST_ASSERT(a.lim != NULL && a.own != NULL, "create");
	for (i = 0; i < 10; i++) {
		h[i] = rte_pcpu_alloc_owner(64, 0, a.lim);
		TEST_ASSERT_NOT_NULL(h[i], "alloc %u within the limit", i);
	}
	TEST_ASSERT_NULL(rte_pcpu_alloc_owner(64, 0, a.lim), "11th refused");
	TEST_ASSERT_EQUAL(ostats(a.lim).nr_fail, (uint64_t)1, "one failure");
	y = rte_pcpu_alloc_owner(100, 0, a.own);
	TEST_ASSERT_NOT_NULL(y, "alloc without a limit");
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, late_thread, &a),
		"pthread_create");
	pthread_join(t, NULL);
	if (!a.reg_ok) {
		for (i = 0; i < 10; i++)
			rte_pcpu_free(h[i]);
		rte_pcpu_free(y);
		rte_pcpu_owner_free(a.lim);
		rte_pcpu_owner_free(a.own);
		TEST_SKIP("no free lcore id for rte_thread_register()");
	}
	/* the new lcore has a copy of everything: the charges grew */
	TEST_ASSERT_EQUAL(a.nr_lcores, nl + 1, "lcores counted");
	TEST_ASSERT_EQUAL(a.lim_bytes, (uint64_t)640 * (nl + 1),
		"limited owner charged for the new copies, above its limit");
	TEST_ASSERT_EQUAL(a.own_bytes, (uint64_t)128 * (nl + 1),
		"owner charged for the new copies");
	TEST_ASSERT(a.alloc_refused, "above its limit: nothing more");
	/* the departed lcore keeps its copies: so do the charges */
	TEST_ASSERT_EQUAL(ostats(a.lim).live_bytes, (uint64_t)640 * (nl + 1),
		"charge after the thread left");
	TEST_ASSERT_EQUAL(ostats(a.lim).nr_fail, (uint64_t)2, "two failures");
	/* frees bring it back within: exactly when 64 more fit */
	for (i = 10; i-- > 0;) {
		uint64_t held = (uint64_t)64 * i;
		int fits = (held + 64) * (nl + 1) <= (uint64_t)640 * nl;

		TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]), "free %u", i);
		x = rte_pcpu_alloc_owner(64, 0, a.lim);
		TEST_ASSERT_EQUAL(x != NULL, fits, "with %" PRIu64 " B held",
			held);
		if (x != NULL) {
			TEST_ASSERT_SUCCESS(rte_pcpu_free(x), "free");
			break;
		}
	}
	while (i-- > 0)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]), "free %u", i);
	TEST_ASSERT_SUCCESS(rte_pcpu_free(y), "free");
	TEST_ASSERT_EQUAL(ostats(a.lim).live_bytes, (uint64_t)0, "nothing");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a.lim), "free lim");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a.own), "free own");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Freeing owners, and ids reused. */

struct op_arg {
	struct rte_pcpu_owner *o;
	void *h;
};

static int
alloc_free_on(void *arg)
{
	struct op_arg *a = arg;

	a->h = a->o == NULL ? rte_pcpu_alloc(16, 0) :
		rte_pcpu_alloc_owner(16, 0, a->o);
	return a->h != NULL && rte_pcpu_free(a->h) == 0 ? 0 : -1;
}

static int
test_owner_free_rules(void)
{
	struct rte_pcpu_owner *root, *a, *b, *c;
	struct rte_pcpu_mempool *mp;
	struct op_arg op = { 0 };
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	uint32_t ida;
	void *h;

	root = rte_pcpu_owner_lookup(RTE_PCPU_OWNER_ROOT_NAME);
	TEST_ASSERT_EQUAL(rte_pcpu_owner_free(root), -1, "root");
	TEST_ASSERT_EQUAL(rte_errno, EPERM, "root: EPERM");
	mp = rte_pcpu_mempool_create("owner_rules", 8, 16, 0, 0, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool");
	TEST_ASSERT_EQUAL(rte_pcpu_owner_free(rte_pcpu_mempool_owner(mp)), -1,
		"a pool's owner");
	TEST_ASSERT_EQUAL(rte_errno, EPERM, "pool owner: EPERM");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "pool free");

	a = rte_pcpu_owner_create("rules_a", 0);
	TEST_ASSERT_NOT_NULL(a, "create");
	h = rte_pcpu_alloc_owner(16, 0, a);
	TEST_ASSERT_NOT_NULL(h, "alloc");
	TEST_ASSERT_EQUAL(rte_pcpu_owner_free(a), -1, "busy");
	TEST_ASSERT_EQUAL(rte_errno, EBUSY, "EBUSY");
	TEST_ASSERT(rte_pcpu_owner_lookup("rules_a") == a, "still there");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h), "free");
	TEST_ASSERT_EQUAL(rte_pcpu_owner_create("rules_a", 0), NULL, "twice");
	TEST_ASSERT_EQUAL(rte_errno, EEXIST, "EEXIST");

	/* a worker's cache keeps counting a's frees in its run after a is
	 * freed: a's id is not given to the next owner before that run
	 * ends, and then the next owner starts from zero */
	if (worker >= RTE_MAX_LCORE)
		TEST_SKIP("no worker lcore");
	op.o = a;
	TEST_ASSERT_SUCCESS(owner_run_on(worker, alloc_free_on, &op), "worker");
	ida = ostats(a).id;
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a), "free a");
	TEST_ASSERT_EQUAL(rte_pcpu_owner_name(a), NULL, "a is not an owner");
	b = rte_pcpu_owner_create("rules_b", 0);
	TEST_ASSERT_NOT_NULL(b, "create b");
	TEST_ASSERT_NOT_EQUAL(ostats(b).id, ida, "a's id in use by a run");
	op.o = NULL;
	TEST_ASSERT_SUCCESS(owner_run_on(worker, alloc_free_on, &op),
		"the worker's runs move to the root");
	TEST_ASSERT_SUCCESS(alloc_free_on(&op), "and this lcore's");
	c = rte_pcpu_owner_create("rules_c", 0);
	TEST_ASSERT_NOT_NULL(c, "create c");
	TEST_ASSERT_EQUAL(ostats(c).id, ida, "a's id free again");
	TEST_ASSERT(ostats(c).nr_alloc == 0 && ostats(c).nr_free == 0 &&
		ostats(c).live_bytes == 0, "c starts from zero");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(b), "free b");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(c), "free c");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Pools: the budget is the owner's limit. */

static int
test_owner_pools(void)
{
	unsigned int nl = pcpu_test_mem_lcores();
	struct rte_pcpu_mempool_stats ps;
	struct rte_pcpu_owner_stats st;
	struct rte_pcpu_owner *o;
	struct rte_mempool *mp;
	struct rte_pcpu_mempool *p;
	void *objs[4];

	/* a budget of 3 objects of 64 B */
	p = rte_pcpu_mempool_create("owner_pool", 8, 64, 0, (uint64_t)3 * 64 *
		nl, NULL, NULL, 0);
	TEST_ASSERT_NOT_NULL(p, "pool");
	o = rte_pcpu_mempool_owner(p);
	TEST_ASSERT(o != NULL && rte_pcpu_owner_lookup("pool:owner_pool") == o,
		"the pool's owner");
	TEST_ASSERT_EQUAL(ostats(o).limit_bytes, (uint64_t)3 * 64 * nl,
		"limit = budget");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(p, objs, 3), "get 3");
	TEST_ASSERT_EQUAL(rte_pcpu_mempool_get(p, &objs[3]), -ENOMEM, "budget");
	st = ostats(o);
	rte_pcpu_mempool_stats_get(p, &ps);
	TEST_ASSERT(st.live_bytes == ps.charged_bytes &&
		st.live_bytes == (uint64_t)3 * 64 * nl && st.nr_live == 3,
		"charged to the owner");
	TEST_ASSERT(st.nr_fail == 1 && ps.get_fail_budget == 1,
		"failure counted twice as one");
	TEST_ASSERT_NULL(rte_pcpu_alloc_owner(8, 0, o), "only the pool");
	TEST_ASSERT_EQUAL(rte_errno, EINVAL, "EINVAL");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(p, objs, 3), "put");
	/* objects free in the pool are the pool's still */
	TEST_ASSERT_EQUAL(ostats(o).live_bytes, (uint64_t)3 * 64 * nl, "kept");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(p), "pool free");
	TEST_ASSERT_NULL(rte_pcpu_owner_lookup("pool:owner_pool"), "gone");

	/* the "pcpu" mempool ops: one owner per pool for its blocks */
	mp = rte_pcpu_mempool_ops_create("owner_ops", 100, 64, 0, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
	TEST_ASSERT_NOT_NULL(mp, "ops pool");
	o = rte_pcpu_owner_lookup("mempool:owner_ops");
	TEST_ASSERT_NOT_NULL(o, "its owner");
	st = ostats(o);
	TEST_ASSERT(st.nr_live >= 1 && st.live_copy_bytes >=
		(uint64_t)100 * (mp->header_size + mp->elt_size +
		mp->trailer_size) - mp->header_size, "its blocks are charged");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	rte_mempool_free(mp);
	TEST_ASSERT_NULL(rte_pcpu_owner_lookup("mempool:owner_ops"), "gone");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Spans and threads without an lcore id. */

struct plain_arg {
	struct rte_pcpu_owner *o;
	void *h;
};

static void *
plain_thread(void *p)
{
	struct plain_arg *a = p;

	/* not registered: no lcore id, no cache, the shared counters */
	a->h = rte_pcpu_alloc_owner(64, 0, a->o);
	return NULL;
}

static int
test_owner_spans_threads(void)
{
	size_t span = RTE_PCPU_CHUNK_OBJ_MAX_SIZE + 12345;
	struct plain_arg a = { 0 };
	struct rte_pcpu_owner_stats st;
	pthread_t t;
	void *s;

	a.o = rte_pcpu_owner_create("spans", 0);
	TEST_ASSERT_NOT_NULL(a.o, "create");
	s = rte_pcpu_alloc_owner(span, 0, a.o);
	TEST_ASSERT_NOT_NULL(s, "span");
	TEST_ASSERT_EQUAL(ostats(a.o).live_copy_bytes,
		(uint64_t)RTE_ALIGN_CEIL(span, 4), "span charged");
	TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, plain_thread, &a),
		"pthread_create");
	pthread_join(t, NULL);
	TEST_ASSERT_NOT_NULL(a.h, "alloc from a thread without an lcore id");
	st = ostats(a.o);
	TEST_ASSERT(st.live_copy_bytes == RTE_ALIGN_CEIL(span, 4) + 64 &&
		st.nr_alloc == 2, "the thread's allocation charged");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(a.h), "free the thread's");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(s), "free the span");
	st = ostats(a.o);
	TEST_ASSERT(st.live_bytes == 0 && st.nr_free == 2, "uncharged");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a.o), "owner free");
	return TEST_SUCCESS;
}

struct plain_objs_arg {
	struct rte_pcpu_owner *o; /* NULL: free h[] */
	size_t size;
	unsigned int n;
	void **h;
	int err;
};

static void *
plain_objs_thread(void *p)
{
	struct plain_objs_arg *a = p;
	unsigned int i;

	for (i = 0; i < a->n; i++) {
		if (a->o == NULL)
			a->err |= rte_pcpu_free(a->h[i]) != 0;
		else if ((a->h[i] = rte_pcpu_alloc_owner(a->size, 0,
				a->o)) == NULL)
			a->err = 1;
	}
	return NULL;
}

/* A thread without an lcore id allocates @p n objects of @p size bytes of
 * @p o into @p h, or frees them (@p o NULL): 0 when every one was. */
static int
plain_objs(struct rte_pcpu_owner *o, size_t size, void **h, unsigned int n)
{
	struct plain_objs_arg a = {
		.o = o, .size = size, .n = n, .h = h, .err = 0,
	};
	pthread_t t;

	if (pthread_create(&t, NULL, plain_objs_thread, &a) != 0)
		return -1;
	pthread_join(t, NULL);
	return a.err ? -1 : 0;
}

#define HANDOFF_ROUNDS 64u
#define HANDOFF_OBJS 64u

/*
 * A thread without an lcore id allocates, the main lcore frees, round
 * after round: the shared count of such threads only rises (the frees
 * are counted on the lcore), so the peak must come from the sum, not from
 * that count. It once did, and grew with every round (64 x 4 KiB per copy
 * here), past the limit of an owner that has one.
 */
static int
test_owner_handoff_peak(void)
{
	const uint64_t live_max = HANDOFF_OBJS * 64;
	struct rte_pcpu_owner_stats st;
	void *h[HANDOFF_OBJS];
	struct rte_pcpu_owner *o;
	unsigned int r, i, k;
	uint64_t limit = 0;

	for (k = 0; k < 2; k++) {
		o = rte_pcpu_owner_create(k ? "handoff-limit" : "handoff",
			limit);
		TEST_ASSERT_NOT_NULL(o, "create");
		/* the main lcore's first charge gives it counters, which its
		 * frees then count on */
		h[0] = rte_pcpu_alloc_owner(64, 0, o);
		TEST_ASSERT_NOT_NULL(h[0], "alloc on the main lcore");
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h[0]), "free");
		for (r = 0; r < HANDOFF_ROUNDS; r++) {
			TEST_ASSERT_SUCCESS(plain_objs(o, 64, h, HANDOFF_OBJS),
				"round %u alloc", r);
			for (i = 0; i < HANDOFF_OBJS; i++)
				TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]),
					"free");
		}
		st = ostats(o);
		TEST_ASSERT(st.live_bytes == 0 &&
			st.nr_alloc == HANDOFF_ROUNDS * HANDOFF_OBJS + 1 &&
			st.nr_free == st.nr_alloc, "%s: all freed",
			rte_pcpu_owner_name(o));
		TEST_ASSERT(st.peak_bytes >= 64 * st.nr_lcores &&
			st.peak_bytes <= live_max * st.nr_lcores,
			"%s: peak %" PRIu64 ", live never above %" PRIu64,
			rte_pcpu_owner_name(o), st.peak_bytes,
			live_max * st.nr_lcores);
		TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
		TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(o), "owner free");
		/* the second owner: a limit twice what is live at most */
		limit = 2 * live_max * st.nr_lcores;
	}
	return TEST_SUCCESS;
}

#define MOVED_SIZE 1024u
#define MOVED_ROUND_OBJS 128u      /* 128 KiB per copy a round */
#define MOVED_ROUNDS 16u
#define MOVED_HIGH_OBJS 2048u      /* 2 MiB per copy at the high */

/*
 * After objects moved between counts (a thread without an lcore id
 * allocates and the main lcore frees, round after round, then the
 * reverse), a later high must still be sampled, to within a step per
 * count: each count's next sample comes after a step of allocations,
 * frees lowering the mark. It once waited for the count to pass its value
 * at its last sample, and missed a 2 MiB high entirely (a peak of 1 KiB
 * per copy).
 */
static int
test_owner_moved_peak(void)
{
	static void *h[MOVED_HIGH_OBJS];
	const uint64_t high = (uint64_t)MOVED_HIGH_OBJS * MOVED_SIZE;
	/* two counts: the main lcore's and the shared one */
	const uint64_t slack = 2 * (256u << 10);
	struct rte_pcpu_owner_stats st;
	struct rte_pcpu_owner *o;
	unsigned int r, i;

	o = rte_pcpu_owner_create("moved", 0);
	TEST_ASSERT_NOT_NULL(o, "create");
	for (r = 0; r < MOVED_ROUNDS; r++) {
		TEST_ASSERT_SUCCESS(plain_objs(o, MOVED_SIZE, h,
			MOVED_ROUND_OBJS), "round %u: alloc", r);
		for (i = 0; i < MOVED_ROUND_OBJS; i++)
			TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]), "free");
	}
	for (r = 0; r < MOVED_ROUNDS; r++) {
		for (i = 0; i < MOVED_ROUND_OBJS; i++) {
			h[i] = rte_pcpu_alloc_owner(MOVED_SIZE, 0, o);
			TEST_ASSERT_NOT_NULL(h[i], "alloc");
		}
		TEST_ASSERT_SUCCESS(plain_objs(NULL, 0, h, MOVED_ROUND_OBJS),
			"round %u: free", r);
	}
	/* the high: 128 KiB per copy on the main lcore, the rest shared */
	for (i = 0; i < MOVED_ROUND_OBJS; i++) {
		h[i] = rte_pcpu_alloc_owner(MOVED_SIZE, 0, o);
		TEST_ASSERT_NOT_NULL(h[i], "alloc on the main lcore");
	}
	TEST_ASSERT_SUCCESS(plain_objs(o, MOVED_SIZE, h + MOVED_ROUND_OBJS,
		MOVED_HIGH_OBJS - MOVED_ROUND_OBJS), "alloc the rest");
	for (i = 0; i < MOVED_HIGH_OBJS; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]), "free");
	/* only now read: no read sampled the high */
	st = ostats(o);
	TEST_ASSERT(st.live_bytes == 0, "all freed");
	TEST_ASSERT(st.peak_bytes <= high * st.nr_lcores &&
		st.peak_bytes + slack * st.nr_lcores >= high * st.nr_lcores,
		"peak %" PRIu64 " per copy, the high %" PRIu64 " (a step per "
		"count may be missed)", st.peak_bytes / st.nr_lcores, high);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(o), "owner free");
	return TEST_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* No separate chunk types: owners change nothing in the chunks. */

#define UTIL_N 20000u

static int
util_workload(struct rte_pcpu_owner **o, unsigned int nb, void **objs,
		struct rte_pcpu_stats *st)
{
	uint64_t seed = 7;
	unsigned int k;

	for (k = 0; k < UTIL_N; k++) {
		size_t size = 8 + pcpu_test_rnd(&seed) % 2000;

		objs[k] = o[k % nb] == NULL ? rte_pcpu_alloc(size, 0) :
			rte_pcpu_alloc_owner(size, 0, o[k % nb]);
		if (objs[k] == NULL)
			return -1;
		if (k % 3 == 2) {
			rte_pcpu_free(objs[k - 1]);
			objs[k - 1] = NULL;
		}
	}
	rte_pcpu_cache_flush();
	rte_pcpu_reclaim();
	rte_pcpu_stats_get(st);
	for (k = 0; k < UTIL_N; k++)
		rte_pcpu_free(objs[k]);
	return 0;
}

static int
test_owner_utilisation(void)
{
	struct rte_pcpu_owner *o[4] = { NULL };
	struct rte_pcpu_stats s0, s1;
	void **objs = calloc(UTIL_N, sizeof(*objs));
	char name[16];
	unsigned int k;

	TEST_ASSERT_NOT_NULL(objs, "calloc");
	TEST_ASSERT_SUCCESS(util_workload(o, 1, objs, &s0), "root workload");
	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "reinit");
	for (k = 0; k < RTE_DIM(o); k++) {
		snprintf(name, sizeof(name), "util_%u", k);
		o[k] = rte_pcpu_owner_create(name, k % 2 ? 1ull << 40 : 0);
		TEST_ASSERT_NOT_NULL(o[k], "create");
	}
	TEST_ASSERT_SUCCESS(util_workload(o, RTE_DIM(o), objs, &s1),
		"owners' workload");
	free(objs);
	printf("utilisation: %u chunks, %" PRIu64 " bytes populated without "
		"owners; %u, %" PRIu64 " with %zu owners\n", s0.nr_chunks,
		s0.populated_bytes, s1.nr_chunks, s1.populated_bytes,
		RTE_DIM(o));
	TEST_ASSERT(s0.nr_chunks == s1.nr_chunks &&
		s0.nr_max_chunks == s1.nr_max_chunks &&
		s0.populated_bytes == s1.populated_bytes,
		"the same chunks with and without owners");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit");
	return TEST_SUCCESS;
}

/*
 * Stocks (pcpu_owner.h): an lcore that allocated and freed keeps bytes
 * reserved for the owner; another lcore still gets every allocation the
 * limit lets in (it drains the stock), and not one more. Then lcores
 * allocating and freeing at the limit at once: the live bytes never go
 * above it, some allocations fail, and the audit finds the reservation
 * equal to the live bytes and the stocks.
 */
#define STOCK_ROOM 40u          /* objects of 64 B the limit lets in */
#define STOCK_OPS 20000u

struct stock_arg {
	struct rte_pcpu_owner *o;
	uint64_t limit;
	unsigned int nr_ok;     /* allocations that succeeded */
	/* objects the churning lcores hold: raised after an allocation,
	 * lowered before a free, so never above what the owner holds */
	unsigned int held;
	volatile int over;      /* held seen above the room */
	void *h[STOCK_ROOM + 1];
};

/* Allocate 64 B objects until refused (at most one more than the room);
 * free them all if @p free_all. */
static unsigned int
stock_fill(struct stock_arg *a, int free_all)
{
	unsigned int n = 0, i;

	while (n < STOCK_ROOM + 1 &&
	       (a->h[n] = rte_pcpu_alloc_owner(64, 0, a->o)) != NULL)
		n++;
	if (free_all)
		for (i = n; i > 0; i--)
			rte_pcpu_free(a->h[i - 1]);
	return n;
}

/* Alloc+free pairs of 64 B, each object freed before the next: the run of
 * the owner keeps credit and frees it has not given back yet. */
static int
stock_pairs_lcore(void *arg)
{
	struct stock_arg *a = arg;
	unsigned int i;
	void *h;

	for (i = 0; i < 1000; i++) {
		h = rte_pcpu_alloc_owner(64, 0, a->o);
		if (h == NULL)
			return -1;
		rte_pcpu_free(h);
	}
	return 0;
}

static int
stock_fill_free_lcore(void *arg)
{
	struct stock_arg *a = arg;

	a->nr_ok = stock_fill(a, 1);
	return 0;
}

static int
stock_churn_lcore(void *arg)
{
	struct stock_arg *a = arg;
	uint64_t seed = rte_lcore_id() + 1;
	void *h[STOCK_ROOM];
	unsigned int i, n = 0;

	for (i = 0; i < STOCK_OPS; i++) {
		if (n < STOCK_ROOM && pcpu_test_rnd(&seed) % 2 == 0) {
			h[n] = rte_pcpu_alloc_owner(64, 0, a->o);
			if (h[n] == NULL)
				continue;
			n++;
			if (__atomic_add_fetch(&a->held, 1, __ATOMIC_SEQ_CST) >
			    STOCK_ROOM)
				a->over = 1;
		} else if (n > 0) {
			__atomic_sub_fetch(&a->held, 1, __ATOMIC_SEQ_CST);
			rte_pcpu_free(h[--n]);
		}
	}
	__atomic_sub_fetch(&a->held, n, __ATOMIC_SEQ_CST);
	while (n > 0)
		rte_pcpu_free(h[--n]);
	return 0;
}

static int
test_owner_stocks(void)
{
	unsigned int nl = pcpu_test_mem_lcores(), other, l, n, nb = 0;
	struct stock_arg a = { 0 }, b;

	other = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	if (other >= RTE_MAX_LCORE)
		TEST_SKIP("needs two lcores");
	a.limit = (uint64_t)64 * STOCK_ROOM * nl;
	a.o = rte_pcpu_owner_create("stock_lim", a.limit);
	TEST_ASSERT_NOT_NULL(a.o, "create");
	/* the other lcore fills to the limit and frees: its stock keeps
	 * some of the room reserved */
	b = a;
	TEST_ASSERT_SUCCESS(owner_run_on(other, stock_fill_free_lcore, &b),
		"launch");
	TEST_ASSERT_EQUAL(b.nr_ok, STOCK_ROOM, "the other lcore: the room");
	TEST_ASSERT_EQUAL(ostats(a.o).live_bytes, UINT64_C(0), "all freed");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with a stock held");
	/* this lcore still gets all the room, and not one object more */
	n = stock_fill(&a, 0);
	TEST_ASSERT_EQUAL(n, STOCK_ROOM, "this lcore: the room (drained)");
	TEST_ASSERT_EQUAL(ostats(a.o).nr_fail, UINT64_C(2), "two failures");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit at the limit");
	while (n > 0)
		rte_pcpu_free(a.h[--n]);
	/* the same after pairs on the other lcore, which leave its run of
	 * the owner holding credit and frees: the drain takes both */
	TEST_ASSERT_SUCCESS(owner_run_on(other, stock_pairs_lcore, &b),
		"pairs");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit with credit in a run");
	n = stock_fill(&a, 0);
	TEST_ASSERT_EQUAL(n, STOCK_ROOM, "this lcore: the room after pairs");
	TEST_ASSERT_EQUAL(ostats(a.o).nr_fail, UINT64_C(3), "three failures");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit at the limit");
	while (n > 0)
		rte_pcpu_free(a.h[--n]);
	/* every worker lcore at the limit at once */
	RTE_LCORE_FOREACH_WORKER(l) {
		if (rte_eal_remote_launch(stock_churn_lcore, &a, l) == 0)
			nb++;
	}
	rte_eal_mp_wait_lcore();
	TEST_ASSERT(nb >= 1, "launched %u lcores", nb);
	TEST_ASSERT(!a.over, "more objects held than the limit lets in");
	/* the peak is sampled from counters that change meanwhile: it may
	 * miss, never show more than the limit let through */
	TEST_ASSERT(ostats(a.o).peak_bytes <= a.limit, "peak %" PRIu64
		" above the limit %" PRIu64, ostats(a.o).peak_bytes, a.limit);
	TEST_ASSERT_EQUAL(ostats(a.o).live_bytes, UINT64_C(0), "all freed");
	printf("stocks: %u lcores at the limit, %" PRIu64 " allocations, %"
		PRIu64 " refused\n", nb, ostats(a.o).nr_alloc,
		ostats(a.o).nr_fail);
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after the churn");
	/* freeing the owner takes its stocks back */
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(a.o), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_audit(), "audit after the free");
	return TEST_SUCCESS;
}

static struct unit_test_suite pcpu_owner_suite = {
	.suite_name = "pcpu_owner_autotest: owners of percpu memory",
	.setup = NULL,
	.teardown = NULL,
	.unit_test_cases = {
		TEST_CASE_ST(owner_setup, owner_teardown, test_owner_basics),
		TEST_CASE_ST(owner_setup, owner_teardown, test_owner_model),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_late_lcore),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_free_rules),
		TEST_CASE_ST(owner_setup, owner_teardown, test_owner_pools),
		TEST_CASE_ST(owner_setup, owner_teardown, test_owner_stocks),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_spans_threads),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_handoff_peak),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_moved_peak),
		TEST_CASE_ST(owner_setup, owner_teardown,
			test_owner_utilisation),
		TEST_CASES_END()
	}
};

static int
test_pcpu_owner(void)
{
	return unit_test_suite_runner(&pcpu_owner_suite);
}

REGISTER_TEST_COMMAND(pcpu_owner_autotest, test_pcpu_owner);

/* ---------------------------------------------------------------------- */
/* The telemetry helper. */

static int
owner_telemetry_hold(void)
{
	const char *done = getenv("PCPU_TEL_DONE");
	unsigned int nl, i;
	struct rte_pcpu_owner *o;
	struct rte_pcpu_mempool *mp;
	void *h[7], *pobj[3];

	TEST_ASSERT_SUCCESS(pcpu_test_reinit(NULL), "init");
	nl = pcpu_test_mem_lcores();
	/* 5 x 64 B (cached) and 2 x 1000 B (allocator), limit 4000 B per
	 * copy: an allocation of 2000 B more is refused, one 64 B freed */
	o = rte_pcpu_owner_create("tel_owner", (uint64_t)4000 * nl);
	TEST_ASSERT_NOT_NULL(o, "create");
	for (i = 0; i < 7; i++) {
		h[i] = rte_pcpu_alloc_owner(i < 5 ? 64 : 1000, 0, o);
		TEST_ASSERT_NOT_NULL(h[i], "alloc");
	}
	TEST_ASSERT_NULL(rte_pcpu_alloc_owner(2000, 0, o), "over the limit");
	TEST_ASSERT_SUCCESS(rte_pcpu_free(h[0]), "free");
	mp = rte_pcpu_mempool_create("tel_opool", 100, 32, 0, 1 << 20, NULL,
		NULL, 0);
	TEST_ASSERT_NOT_NULL(mp, "pool");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_get_bulk(mp, pobj, 3), "get");
	printf("PCPU_TEL_READY lcores=%u\n", nl);
	fflush(stdout);
	for (i = 0; i < 600 && done != NULL && access(done, F_OK) != 0; i++)
		rte_delay_ms(100);
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_put_bulk(mp, pobj, 3), "put");
	TEST_ASSERT_SUCCESS(rte_pcpu_mempool_free(mp), "pool free");
	for (i = 1; i < 7; i++)
		TEST_ASSERT_SUCCESS(rte_pcpu_free(h[i]), "free");
	TEST_ASSERT_SUCCESS(rte_pcpu_owner_free(o), "owner free");
	rte_pcpu_cleanup();
	return TEST_SUCCESS;
}

REGISTER_TEST_COMMAND(pcpu_owner_telemetry_hold, owner_telemetry_hold);
