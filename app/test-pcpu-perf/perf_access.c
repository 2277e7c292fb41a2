/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Access: a {packets, bytes} increment per object through RTE_PCPU(),
 * every baseline of baselines.c interleaved with it in one case.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "perf_bodies.h"

/* The handle carried in the stream, as a flow table entry carries it. */
static uint64_t
access_pcpu(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, c->stream_h,
		RTE_PCPU((struct perf_pair *)e), PERF_PAIR_INC(p));
}

/* The object number in the stream, its handle in a side table. */
static uint64_t
access_pcpu_side(void *arg, unsigned int idx, uint64_t deadline)
{
	struct perf_access_ctx *c = arg;

	return PERF_ACCESS_LOOP(c, idx, deadline, c->order,
		RTE_PCPU((struct perf_pair *)c->handles[e]), PERF_PAIR_INC(p));
}

static void
access_pcpu_free(struct perf_access_ctx *c)
{
	uint32_t i;

	for (i = 0; c->handles != NULL && i < c->nb_objs; i++)
		if (c->handles[i] != NULL)
			rte_pcpu_free(c->handles[i]);
	free(c->handles);
	free(c->stream_h);
	c->handles = NULL;
	c->stream_h = NULL;
}

/* Objects allocated one by one through the caches, as a flow table
 * allocates them when flows arrive; handles in allocation order. */
static int
access_pcpu_setup(struct perf_access_ctx *c)
{
	struct rte_pcpu_stats st0, st1;
	uint32_t i;

	rte_pcpu_stats_get(&st0);
	c->handles = calloc(c->nb_objs, sizeof(void *));
	c->stream_h = calloc(c->nb_objs, sizeof(void *));
	if (c->handles == NULL || c->stream_h == NULL)
		return -1;
	for (i = 0; i < c->nb_objs; i++) {
		c->handles[i] = rte_pcpu_alloc(sizeof(struct perf_pair), 0);
		if (c->handles[i] == NULL)
			return -1;
	}
	for (i = 0; i < c->nb_objs; i++)
		c->stream_h[i] = c->handles[c->order[i]];
	rte_pcpu_stats_get(&st1);
	c->populated = st1.populated_bytes - st0.populated_bytes;
	return 0;
}

static uint64_t
access_pcpu_sum(struct perf_access_ctx *c)
{
	uint64_t s = 0, v[2];
	uint32_t i;

	for (i = 0; i < c->nb_objs; i++) {
		rte_pcpu_sum_u64(c->handles[i], 2, v);
		s += v[0];
	}
	return s;
}

/* The object number at each stream position: a random permutation, or
 * 0..n-1 (sequential: the entries are read from memory all the same).
 * Each in a 64-bit slot, which index schemes read as the RTE_PCPU loop
 * reads its 8-byte handle: a flow entry's slot for the reference is 8
 * bytes whichever it holds (rte_hash data is a void *, VPP's bihash
 * values are 64-bit). */
static uint64_t *
stream_order(uint32_t n, int random)
{
	uint64_t *ord = malloc(sizeof(*ord) * n), t;
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15) ^ n;
	uint32_t i;

	if (ord == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		ord[i] = i;
	for (i = n - 1; random && i > 0; i--) {
		uint32_t j = (uint32_t)(perf_rnd64(&seed) % (i + 1));

		t = ord[i];
		ord[i] = ord[j];
		ord[j] = t;
	}
	return ord;
}

/* How linear a walk of the handles in allocation order is: consecutive
 * handles one object apart, in either direction and ascending only. */
static void
report_handle_order(struct perf_result *r, void * const *h, uint32_t n,
		size_t size)
{
	uint32_t adj = 0, asc = 0, i;

	if (n < 2)
		return;
	for (i = 1; i < n; i++) {
		uintptr_t a = (uintptr_t)h[i - 1], b = (uintptr_t)h[i];

		adj += (a > b ? a - b : b - a) == size;
		asc += b > a && b - a == size;
	}
	perf_result_set(r, "adjacent_handles_pct", 100.0 * adj / (n - 1));
	perf_result_set(r, "ascending_handles_pct", 100.0 * asc / (n - 1));
}

int
perf_access_case_setup(struct perf_access_case *ac, uint32_t want, uint32_t nb_objs,
		int random, unsigned int nb_lcores, struct perf_result *r)
{
	char why[160];
	int s, ret;

	memset(ac, 0, sizeof(*ac));
	ac->order = stream_order(nb_objs, random && nb_objs > 1);
	if (ac->order == NULL)
		return perf_fail(r, "stream");
	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];

		c->scheme = (enum perf_scheme)s;
		c->nb_objs = nb_objs;
		c->nb_lcores = nb_lcores;
		c->order = ac->order;
		ac->v[s].name = perf_scheme_name(c->scheme);
		ac->v[s].arg = c;
		if (!(want & (1u << s)))
			continue;
		switch (s) {
		case PERF_SCHEME_PCPU:
			if (access_pcpu_setup(c) != 0)
				return perf_fail(r, "rte_pcpu_alloc");
			ac->v[s].fn = access_pcpu;
			break;
		case PERF_SCHEME_PCPU_SIDE:
			/* the same objects as PERF_SCHEME_PCPU, which the
			 * enum sets up first */
			if (!ac->ready[PERF_SCHEME_PCPU])
				continue;
			c->handles = ac->ctx[PERF_SCHEME_PCPU].handles;
			c->populated = ac->ctx[PERF_SCHEME_PCPU].populated;
			ac->v[s].fn = access_pcpu_side;
			break;
		default:
			ret = perf_baseline_access_setup(c, why, sizeof(why));
			if (ret != 0)
				perf_baseline_access_free(c);
			if (ret < 0)
				return perf_fail(r, perf_scheme_name(c->scheme));
			if (ret > 0) {
				perf_result_label(r, "%sn/a: %s (%s)",
					r->label[0] ? "; " : "",
					perf_scheme_name(c->scheme), why);
				continue;
			}
			ac->v[s].fn = perf_baseline_access_loop(c->scheme);
			break;
		}
		ac->ready[s] = 1;
	}
	return 0;
}

int
perf_access_case_check(struct perf_access_case *ac, const struct perf_rounds_res *rr,
		struct perf_result *r)
{
	int s, ret = 0;

	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];
		uint64_t want = 0, got;
		unsigned int l;

		if (!ac->ready[s] || s == PERF_SCHEME_PCPU_SIDE)
			continue;
		for (l = 0; l < rr->nb_lcores; l++) {
			/* TLS of other lcores is out of reach */
			if (s == PERF_SCHEME_TLS && l > 0)
				break;
			want += rr->ops[s][l];
			if (s == PERF_SCHEME_PCPU)
				want += rr->ops[PERF_SCHEME_PCPU_SIDE][l];
		}
		got = s == PERF_SCHEME_PCPU ? access_pcpu_sum(c) :
			perf_baseline_access_sum(c);
		if (got != want) {
			r->error = 1;
			perf_result_label(r, "%scount check of %s failed: "
				"%llu != %llu", r->label[0] ? "; " : "",
				perf_scheme_name(c->scheme),
				(unsigned long long)got,
				(unsigned long long)want);
			ret = -1;
		}
	}
	return ret;
}

void
perf_access_case_free(struct perf_access_case *ac)
{
	int s;

	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		struct perf_access_ctx *c = &ac->ctx[s];

		if (s == PERF_SCHEME_PCPU) {
			access_pcpu_free(c);
		} else if (s == PERF_SCHEME_PCPU_SIDE) {
			/* borrowed from PERF_SCHEME_PCPU */
			c->handles = NULL;
		} else if (ac->ready[s]) {
			perf_baseline_access_free(c);
		}
	}
	free(ac->order);
}

int
perf_access(uint32_t nb_objs, int random, unsigned int nb_lcores,
		struct perf_result *r)
{
	struct perf_access_case *ac = calloc(1, sizeof(*ac));
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	char key[PERF_NAME_LEN];
	int s, ret = -1;

	if (ac == NULL || rr == NULL) {
		free(ac);
		free(rr);
		return perf_fail(r, "calloc");
	}
	if (perf_access_case_setup(ac, (1u << PERF_SCHEME_MAX) - 1, nb_objs, random,
			nb_lcores, r) != 0)
		goto out;
	if (perf_rounds_run(nb_lcores, ac->v, PERF_SCHEME_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, ac->v);
	for (s = 0; s < PERF_SCHEME_MAX; s++) {
		if (s != PERF_SCHEME_PCPU)
			perf_rounds_ratio(r, rr, ac->v, PERF_SCHEME_PCPU, s);
		if (!ac->ready[s])
			continue;
		snprintf(key, sizeof(key), "%s_bytes",
			perf_scheme_name((enum perf_scheme)s));
		perf_result_set(r, key, (double)ac->ctx[s].populated);
	}
	perf_rounds_ratio(r, rr, ac->v, PERF_SCHEME_PCPU_SIDE,
		PERF_SCHEME_VPP);
	perf_result_set(r, "objects", nb_objs);
	report_handle_order(r, ac->ctx[PERF_SCHEME_PCPU].handles, nb_objs,
		sizeof(struct perf_pair));
	perf_result_label(r, "%sinterleaved: RTE_PCPU with the handle in the "
		"stream, beside the side-table variant and every baseline",
		r->label[0] ? "; " : "");
	ret = perf_access_case_check(ac, rr, r);
out:
	perf_access_case_free(ac);
	free(ac);
	free(rr);
	return ret;
}
