/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Caches and pools: cached get+put (alloc+free) beside rte_mempool, the
 * pool's three initialisation modes, and scaling over 1 to 8 lcores.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "perf_bodies.h"

/* Cached pairs */

const char *
perf_pair_name(enum perf_pair_kind k)
{
	static const char * const names[PERF_PAIR_MAX] = {
		[PERF_PAIR_RTE_MEMPOOL] = "rte_mempool",
		[PERF_PAIR_POOL_ZERO] = "pool_get_put",
		[PERF_PAIR_POOL_NO_ZERO] = "pool_get_put_no_zero",
		[PERF_PAIR_PCPU_ALLOC] = "pcpu_alloc_free",
		[PERF_PAIR_PCPU_NOCACHE] = "pcpu_alloc_free_nocache",
	};

	return (unsigned int)k < PERF_PAIR_MAX ? names[k] : "?";
}

uint64_t
perf_pairs_pool_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_pairs_arg *a = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			if (unlikely(rte_pcpu_mempool_get(a->pool, &o) != 0)) {
				a->err = 1;
				return ops + i;
			}
			rte_pcpu_mempool_put(a->pool, o);
		}
		ops += 256;
	} while (rte_rdtsc() < deadline);
	return ops;
}

static uint64_t
pairs_alloc_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_pairs_arg *a = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			o = rte_pcpu_alloc(a->size, 0);
			if (unlikely(o == NULL)) {
				a->err = 1;
				return ops + i;
			}
			rte_pcpu_free(o);
		}
		ops += 256;
	} while (rte_rdtsc() < deadline);
	return ops;
}

int
perf_pairs_setup(uint32_t want, size_t size, void **mp, struct perf_pairs_arg *a,
		struct perf_variant *v, struct perf_result *r)
{
	int k;

	for (k = 0; k < PERF_PAIR_MAX; k++) {
		v[k].name = perf_pair_name((enum perf_pair_kind)k);
		v[k].fn = NULL;
		v[k].arg = &a[k];
		a[k] = (struct perf_pairs_arg){ .size = size };
		if (!(want & (1u << k)))
			continue;
		switch (k) {
		case PERF_PAIR_RTE_MEMPOOL:
			*mp = perf_mempool_create(size, 16383);
			if (*mp == NULL)
				return perf_fail(r, "rte_mempool_create");
			v[k].fn = perf_mempool_pair_loop;
			v[k].arg = *mp;
			break;
		case PERF_PAIR_POOL_ZERO:
		case PERF_PAIR_POOL_NO_ZERO:
			a[k].pool = rte_pcpu_mempool_create(
				k == PERF_PAIR_POOL_ZERO ? "perf_pairs_z" :
				"perf_pairs_nz", 16384, size, 256, 0, NULL,
				NULL, k == PERF_PAIR_POOL_NO_ZERO ?
				RTE_PCPU_MEMPOOL_F_NO_ZERO : 0);
			if (a[k].pool == NULL)
				return perf_fail(r, "rte_pcpu_mempool_create");
			v[k].fn = perf_pairs_pool_loop;
			break;
		default:
			v[k].fn = pairs_alloc_loop;
			break;
		}
	}
	return 0;
}

int
perf_pairs_free(void *mp, struct perf_pairs_arg *a, struct perf_result *r)
{
	int k, ret = 0;

	if (mp != NULL)
		perf_mempool_free(mp);
	for (k = 0; k < PERF_PAIR_MAX; k++) {
		if (a[k].err)
			ret = perf_fail(r, "get or alloc failed");
		if (a[k].pool == NULL)
			continue;
		if (rte_pcpu_mempool_audit(a[k].pool) != 0 ||
		    rte_pcpu_mempool_free(a[k].pool) != 0)
			ret = perf_fail(r, "rte_pcpu_mempool_free");
		a[k].pool = NULL;
	}
	return ret;
}

int
perf_pairs(int no_cache, size_t size, unsigned int nb_lcores,
		struct perf_result *r)
{
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_NO_CACHE };
	struct perf_pairs_arg a[PERF_PAIR_MAX];
	struct perf_variant v[PERF_PAIR_MAX];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	uint32_t want = no_cache ?
		(1u << PERF_PAIR_RTE_MEMPOOL) | (1u << PERF_PAIR_PCPU_NOCACHE) :
		(1u << PERF_PAIR_PCPU_NOCACHE) - 1;
	void *mp = NULL;
	int k, ret = -1;

	if (rr == NULL)
		return perf_fail(r, "calloc");
	if (no_cache && perf_pcpu_reinit(&conf) != 0) {
		free(rr);
		perf_pcpu_reinit(NULL);
		return perf_fail(r, "rte_pcpu_init");
	}
	if (perf_pairs_setup(want, size, &mp, a, v, r) != 0)
		goto out;
	if (perf_rounds_run(nb_lcores, v, PERF_PAIR_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	for (k = 1; k < PERF_PAIR_MAX; k++)
		perf_rounds_ratio(r, rr, v, k, PERF_PAIR_RTE_MEMPOOL);
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaseline: rte_mempool (%s, cache 256), "
		"interleaved", r->label[0] ? "; " : "",
		perf_mempool_ops_name(mp));
	ret = 0;
out:
	if (perf_pairs_free(mp, a, r) != 0)
		ret = -1;
	free(rr);
	if (no_cache && perf_pcpu_reinit(NULL) != 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* Zeroing vs obj_init vs no init */

const char *
perf_init_name(enum perf_init_mode m)
{
	static const char * const names[PERF_INIT_MAX] = {
		[PERF_INIT_ZERO] = "zero_on_get",
		[PERF_INIT_OBJ_INIT] = "obj_init",
		[PERF_INIT_NONE] = "no_init",
	};

	return (unsigned int)m < PERF_INIT_MAX ? names[m] : "?";
}

/* Writes every word of the copy, as a real constructor would. */
static void
perf_obj_init(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	size_t size = (size_t)(uintptr_t)arg;

	RTE_SET_USED(mp);
	RTE_SET_USED(lcore_id);
	memset(obj, 0, size);
}

static struct rte_pcpu_mempool *
init_pool(const char *name, enum perf_init_mode m, size_t size,
		unsigned int n, unsigned int cache, unsigned int flags)
{
	return rte_pcpu_mempool_create(name, n, size, cache, 0,
		m == PERF_INIT_OBJ_INIT ? perf_obj_init : NULL,
		(void *)(uintptr_t)size,
		flags | (m == PERF_INIT_NONE ? RTE_PCPU_MEMPOOL_F_NO_ZERO : 0));
}

/* ns per object of a first use: create prefilled, get and put every
 * object once; -1 on failure. */
static double
init_first_use(enum perf_init_mode m, size_t size, unsigned int n,
		void **objs)
{
	struct rte_pcpu_mempool *p;
	uint64_t t0 = perf_thread_cpu_ns(), t1;

	p = init_pool("perf_first", m, size, n, 0, RTE_PCPU_MEMPOOL_F_PREFILL);
	if (p == NULL)
		return -1;
	if (rte_pcpu_mempool_get_bulk(p, objs, n) != 0 ||
	    rte_pcpu_mempool_put_bulk(p, objs, n) != 0) {
		rte_pcpu_mempool_free(p);
		return -1;
	}
	t1 = perf_thread_cpu_ns();
	rte_pcpu_mempool_free(p);
	return (double)(t1 - t0) / n;
}

int
perf_init(size_t size, struct perf_result *r)
{
	struct perf_pairs_arg a[PERF_INIT_MAX];
	struct perf_variant v[PERF_INIT_MAX];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	double first[PERF_INIT_MAX][PERF_MAX_ROUNDS];
	unsigned int n = size >= 1024 ? 256 : 2048, k, runs;
	char name[PERF_NAME_LEN];
	void **objs = malloc(sizeof(void *) * n);
	int m, ret = -1;

	memset(a, 0, sizeof(a));
	if (rr == NULL || objs == NULL) {
		perf_fail(r, "calloc");
		goto out;
	}
	/* steady state: cached get+put on the main lcore, modes in turn */
	for (m = 0; m < PERF_INIT_MAX; m++) {
		snprintf(name, sizeof(name), "perf_init%d", m);
		a[m].pool = init_pool(name, (enum perf_init_mode)m, size, 1024,
			64, 0);
		if (a[m].pool == NULL) {
			perf_fail(r, "rte_pcpu_mempool_create");
			goto out;
		}
		v[m] = (struct perf_variant){
			.name = perf_init_name((enum perf_init_mode)m),
			.fn = perf_pairs_pool_loop, .arg = &a[m] };
	}
	if (perf_rounds_run(1, v, PERF_INIT_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	/* first use: an untimed round populates the pages, then the modes
	 * take turns */
	runs = RTE_MIN(perf_rounds(), (unsigned int)PERF_MAX_ROUNDS);
	for (k = 0; k <= runs; k++) {
		for (m = 0; m < PERF_INIT_MAX; m++) {
			double t = init_first_use((enum perf_init_mode)m, size,
				n, objs);

			if (t < 0) {
				perf_fail(r, "prefilled pool");
				goto out;
			}
			if (k > 0)
				first[m][k - 1] = t;
		}
	}
	for (m = 0; m < PERF_INIT_MAX; m++) {
		snprintf(name, sizeof(name), "%s_first_ns",
			perf_init_name((enum perf_init_mode)m));
		perf_report_samples(r, name, first[m], runs);
	}
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaselines: the other two init modes, "
		"interleaved; pairs run on the main lcore, zeroing writes every "
		"lcore's copy", r->label[0] ? "; " : "");
	ret = 0;
out:
	for (m = 0; m < PERF_INIT_MAX; m++) {
		if (a[m].err && ret == 0)
			ret = perf_fail(r, "get failed");
		if (a[m].pool != NULL)
			rte_pcpu_mempool_free(a[m].pool);
	}
	free(objs);
	free(rr);
	return ret;
}

/* Scaling: the same bodies on 1, 2, 4, 8 lcores */

enum scaling_variant {
	SCALING_PCPU_ACCESS = 0,
	SCALING_ATOMIC_ACCESS,
	SCALING_POOL,
	SCALING_PCPU_ALLOC,
	SCALING_PCPU_NOCACHE,
	SCALING_RTE_MEMPOOL,
	SCALING_MAX,
};

#define SCALING_OBJS 10000u

int
perf_scaling(int no_cache, unsigned int nb_lcores, struct perf_result *r)
{
	static const char * const names[SCALING_MAX] = {
		[SCALING_PCPU_ACCESS] = "pcpu_access",
		[SCALING_ATOMIC_ACCESS] = "atomic_shared_access",
		[SCALING_POOL] = "pool_get_put",
		[SCALING_PCPU_ALLOC] = "pcpu_alloc_free",
		[SCALING_PCPU_NOCACHE] = "pcpu_alloc_free_nocache",
		[SCALING_RTE_MEMPOOL] = "rte_mempool_get_put",
	};
	struct rte_pcpu_conf conf = { .flags = RTE_PCPU_F_NO_CACHE };
	struct perf_access_case *ac = calloc(1, sizeof(*ac));
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	struct perf_pairs_arg a[PERF_PAIR_MAX];
	struct perf_variant pv[PERF_PAIR_MAX], v[SCALING_MAX];
	void *mp = NULL;
	int k, ret = -1, have_ac = 0;

	memset(a, 0, sizeof(a));
	if (ac == NULL || rr == NULL) {
		free(ac);
		free(rr);
		return perf_fail(r, "calloc");
	}
	if (no_cache && perf_pcpu_reinit(&conf) != 0) {
		perf_fail(r, "rte_pcpu_init");
		goto out;
	}
	if (perf_pairs_setup(no_cache ? (1u << PERF_PAIR_RTE_MEMPOOL) |
			(1u << PERF_PAIR_PCPU_NOCACHE) :
			(1u << PERF_PAIR_RTE_MEMPOOL) |
			(1u << PERF_PAIR_POOL_ZERO) |
			(1u << PERF_PAIR_PCPU_ALLOC), 16, &mp, a, pv, r) != 0)
		goto out;
	if (!no_cache) {
		have_ac = 1;
		if (perf_access_case_setup(ac, (1u << PERF_SCHEME_PCPU) |
				(1u << PERF_SCHEME_ATOMIC), SCALING_OBJS, 1,
				nb_lcores, r) != 0)
			goto out;
	}
	for (k = 0; k < SCALING_MAX; k++)
		v[k] = (struct perf_variant){ .name = names[k] };
	if (!no_cache) {
		v[SCALING_PCPU_ACCESS].fn = ac->v[PERF_SCHEME_PCPU].fn;
		v[SCALING_PCPU_ACCESS].arg = ac->v[PERF_SCHEME_PCPU].arg;
		v[SCALING_ATOMIC_ACCESS].fn = ac->v[PERF_SCHEME_ATOMIC].fn;
		v[SCALING_ATOMIC_ACCESS].arg = ac->v[PERF_SCHEME_ATOMIC].arg;
		v[SCALING_POOL].fn = pv[PERF_PAIR_POOL_ZERO].fn;
		v[SCALING_POOL].arg = pv[PERF_PAIR_POOL_ZERO].arg;
		v[SCALING_PCPU_ALLOC].fn = pv[PERF_PAIR_PCPU_ALLOC].fn;
		v[SCALING_PCPU_ALLOC].arg = pv[PERF_PAIR_PCPU_ALLOC].arg;
	} else {
		v[SCALING_PCPU_NOCACHE].fn = pv[PERF_PAIR_PCPU_NOCACHE].fn;
		v[SCALING_PCPU_NOCACHE].arg = pv[PERF_PAIR_PCPU_NOCACHE].arg;
	}
	v[SCALING_RTE_MEMPOOL].fn = pv[PERF_PAIR_RTE_MEMPOOL].fn;
	v[SCALING_RTE_MEMPOOL].arg = pv[PERF_PAIR_RTE_MEMPOOL].arg;
	if (perf_rounds_run(nb_lcores, v, SCALING_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	for (k = SCALING_POOL; k < SCALING_RTE_MEMPOOL; k++)
		perf_rounds_ratio(r, rr, v, k, SCALING_RTE_MEMPOOL);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%saccess: %u objects in random order, handle in "
		"the stream; pairs: 16 B; interleaved", r->label[0] ? "; " : "",
		SCALING_OBJS);
	ret = 0;
	if (have_ac) {
		/* the check reads ops per scheme: map the rounds back */
		struct perf_rounds_res *cr = calloc(1, sizeof(*cr));

		if (cr == NULL) {
			ret = perf_fail(r, "calloc");
		} else {
			cr->nb_lcores = rr->nb_lcores;
			memcpy(cr->ops[PERF_SCHEME_PCPU],
				rr->ops[SCALING_PCPU_ACCESS],
				sizeof(cr->ops[0]));
			memcpy(cr->ops[PERF_SCHEME_ATOMIC],
				rr->ops[SCALING_ATOMIC_ACCESS],
				sizeof(cr->ops[0]));
			if (perf_access_case_check(ac, cr, r) != 0)
				ret = -1;
			free(cr);
		}
	}
out:
	if (have_ac)
		perf_access_case_free(ac);
	if (perf_pairs_free(mp, a, r) != 0)
		ret = -1;
	free(ac);
	free(rr);
	if (no_cache && perf_pcpu_reinit(NULL) != 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}
