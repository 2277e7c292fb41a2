/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The "pcpu" mempool ops beside ring_mp_mc: the same rte_mempool, made as
 * applications make it (rte_mempool_create() without flags: ring_mp_mc
 * behind a per-lcore cache of 256), against one made with
 * rte_pcpu_mempool_ops_create() with the same arguments.
 *
 * - get+put: rte_mempool_get() + rte_mempool_put() of 16-byte objects, the
 *   same loop for both pools, interleaved rounds on 1 or 2 lcores;
 * - populate: creating (and populating) a pool of 1 M objects of 16 B and
 *   freeing it, in thread CPU time, the two pools in turn per round after
 *   one untimed round.
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_pcpu_mempool_ops.h>

#include "perf_bodies.h"

#define OPS_ELT 16u
#define OPS_CACHE 256u
/* as the cached pairs: room for every lcore's cache and flush threshold */
#define OPS_PAIR_OBJS 16383u

enum ops_variant {
	OPS_RING = 0,
	OPS_PCPU,
	OPS_MAX,
};

static const char * const ops_names[OPS_MAX] = {
	[OPS_RING] = "rte_mempool",
	[OPS_PCPU] = "pcpu_ops",
};

static struct rte_mempool *
ops_pcpu_create(unsigned int n)
{
	static unsigned int seq;
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "perf_ops%u", seq++);
	return rte_pcpu_mempool_ops_create(name, n, OPS_ELT, OPS_CACHE, 0, NULL,
		NULL, NULL, NULL, SOCKET_ID_ANY, 0);
}

int
perf_ops_pairs(unsigned int nb_lcores, struct perf_result *r)
{
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	struct perf_variant v[OPS_MAX];
	void *mp[OPS_MAX] = { NULL, NULL };
	int k, ret = -1;

	if (rr == NULL)
		return perf_fail(r, "calloc");
	mp[OPS_RING] = perf_mempool_create(OPS_ELT, OPS_PAIR_OBJS);
	mp[OPS_PCPU] = ops_pcpu_create(OPS_PAIR_OBJS);
	if (mp[OPS_RING] == NULL || mp[OPS_PCPU] == NULL) {
		perf_fail(r, "pool create");
		goto out;
	}
	for (k = 0; k < OPS_MAX; k++)
		v[k] = (struct perf_variant){ .name = ops_names[k],
			.fn = perf_mempool_pair_loop, .arg = mp[k] };
	if (perf_rounds_run(nb_lcores, v, OPS_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	perf_rounds_ratio(r, rr, v, OPS_PCPU, OPS_RING);
	perf_result_set(r, "size", OPS_ELT);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaseline: rte_mempool_create() (%s, cache %u), "
		"the same get+put loop, interleaved", r->label[0] ? "; " : "",
		perf_mempool_ops_name(mp[OPS_RING]), OPS_CACHE);
	ret = 0;
out:
	for (k = 0; k < OPS_MAX; k++)
		if (mp[k] != NULL)
			perf_mempool_free(mp[k]);
	free(rr);
	return ret;
}

int
perf_ops_populate(unsigned int nb_objs, struct perf_result *r)
{
	double create[OPS_MAX][PERF_MAX_ROUNDS], del[OPS_MAX][PERF_MAX_ROUNDS];
	unsigned int rounds = RTE_MIN(perf_rounds(), (unsigned int)PERF_MAX_ROUNDS);
	unsigned int n = perf_is_smoke() ? nb_objs / 16 : nb_objs, k;
	char key[PERF_NAME_LEN];
	uint64_t t0, t1, t2, total = 0;
	void *mp;
	int v;

	/* round 0 is untimed: the first touch of the EAL heap's pages */
	for (k = 0; k <= rounds; k++) {
		for (v = 0; v < OPS_MAX; v++) {
			t0 = perf_thread_cpu_ns();
			mp = v == OPS_RING ? perf_mempool_create(OPS_ELT, n) :
				ops_pcpu_create(n);
			t1 = perf_thread_cpu_ns();
			if (mp == NULL)
				return perf_fail(r, v == OPS_RING ?
					"rte_mempool_create" :
					"rte_pcpu_mempool_ops_create");
			perf_mempool_free(mp);
			t2 = perf_thread_cpu_ns();
			if (k == 0)
				continue;
			total += t2 - t0;
			create[v][k - 1] = perf_cpu_ms(t0, t1);
			del[v][k - 1] = perf_cpu_ms(t1, t2);
		}
	}
	for (v = 0; v < OPS_MAX; v++) {
		snprintf(key, sizeof(key), "%s_create_ms", ops_names[v]);
		perf_report_samples(r, key, create[v], rounds);
		snprintf(key, sizeof(key), "%s_free_ms", ops_names[v]);
		perf_report_samples(r, key, del[v], rounds);
	}
	perf_report_ratio(r, "pcpu_ops_over_rte_mempool_create",
		create[OPS_PCPU], create[OPS_RING], rounds);
	perf_report_ratio(r, "pcpu_ops_over_rte_mempool_free",
		del[OPS_PCPU], del[OPS_RING], rounds);
	perf_result_set(r, "objs", n);
	perf_result_set(r, "size", OPS_ELT);
	perf_result_set(r, "rounds", rounds);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "thread CPU time of rte_mempool_create() (ring_mp_mc)"
		" and rte_pcpu_mempool_ops_create(), n %u, %u B, cache %u, then "
		"rte_mempool_free(); in turn, %u rounds", n, OPS_ELT, OPS_CACHE,
		rounds);
	r->seconds = (double)total / 1e9;
	return 0;
}
