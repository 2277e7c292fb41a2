/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Owners (rte_pcpu_owner.h): what charging costs, and what it does to
 * the chunks.
 *
 * Pairs: rte_pcpu_alloc() + rte_pcpu_free() charged to the root, beside
 * rte_pcpu_alloc_owner() + rte_pcpu_free() charged to an owner without a
 * limit (per-lcore counters) and to one with a limit that is never
 * reached (a shared compare-and-swap per operation), in interleaved
 * rounds; 16 to 256 bytes go through the lcore caches, 1 KiB through the
 * allocator.
 *
 * Utilisation: one random workload (sizes 8 B to 4 KiB, a third of the
 * objects freed) run twice from a fresh allocator, every object charged
 * to the root, then the objects spread over 8 owners: the chunks, the
 * populated bytes and the bytes users hold per chunk byte, which are the
 * same when owners share chunks (no separate chunk types).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include <rte_pcpu_owner.h>

#include "perf_bodies.h"

enum owner_variant { OWNER_ROOT, OWNER_UNLIMITED, OWNER_LIMITED, OWNER_MAX };

struct owner_pairs_arg {
	size_t size;
	struct rte_pcpu_owner *owner;  /* NULL: rte_pcpu_alloc() */
	volatile int err;
};

static uint64_t
owner_pairs_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct owner_pairs_arg *a = arg;
	uint64_t ops = 0;
	unsigned int i;
	void *o;

	RTE_SET_USED(idx);
	do {
		for (i = 0; i < 256; i++) {
			o = a->owner == NULL ? rte_pcpu_alloc(a->size, 0) :
				rte_pcpu_alloc_owner(a->size, 0, a->owner);
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
perf_owner_pairs(size_t size, unsigned int nb_lcores, struct perf_result *r)
{
	static const char * const names[OWNER_MAX] = {
		"root", "owner", "limited_owner",
	};
	struct owner_pairs_arg a[OWNER_MAX];
	struct perf_variant v[OWNER_MAX];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	struct rte_pcpu_owner *own = NULL, *lim = NULL;
	struct rte_pcpu_owner_stats st;
	int k, ret = -1;

	if (rr == NULL)
		return perf_fail(r, "calloc");
	own = rte_pcpu_owner_create("perf_owner", 0);
	/* far above anything the loops hold */
	lim = rte_pcpu_owner_create("perf_owner_limited", UINT64_C(1) << 40);
	if (own == NULL || lim == NULL) {
		perf_fail(r, "rte_pcpu_owner_create");
		goto out;
	}
	for (k = 0; k < OWNER_MAX; k++) {
		a[k] = (struct owner_pairs_arg){ .size = size,
			.owner = k == OWNER_ROOT ? NULL :
				k == OWNER_UNLIMITED ? own : lim };
		v[k] = (struct perf_variant){ .name = names[k],
			.fn = owner_pairs_loop, .arg = &a[k] };
	}
	if (perf_rounds_run(nb_lcores, v, OWNER_MAX, rr) != 0) {
		perf_fail(r, "launch");
		goto out;
	}
	for (k = 0; k < OWNER_MAX; k++)
		if (a[k].err) {
			perf_fail(r, "alloc failed");
			goto out;
		}
	perf_rounds_report(r, rr, v);
	perf_rounds_ratio(r, rr, v, OWNER_UNLIMITED, OWNER_ROOT);
	perf_rounds_ratio(r, rr, v, OWNER_LIMITED, OWNER_ROOT);
	/* every pair was charged and uncharged */
	if (rte_pcpu_owner_stats_get(own, &st) != 0 || st.nr_live != 0 ||
	    st.nr_alloc == 0 || rte_pcpu_owner_stats_get(lim, &st) != 0 ||
	    st.nr_live != 0 || st.nr_alloc == 0) {
		perf_fail(r, "owner statistics");
		goto out;
	}
	perf_result_set(r, "size", (double)size);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sbaseline: rte_pcpu_alloc() (the root), "
		"interleaved; %s", r->label[0] ? "; " : "",
		size <= RTE_PCPU_CACHE_MAX_SIZE ? "lcore caches" :
		"allocator (no cache)");
	ret = 0;
out:
	free(rr);
	if (rte_pcpu_owner_free(own) != 0 || rte_pcpu_owner_free(lim) != 0)
		ret = perf_fail(r, "rte_pcpu_owner_free");
	if (ret == 0 && rte_pcpu_audit() != 0)
		ret = perf_fail(r, "rte_pcpu_audit");
	return ret;
}

/* Utilisation */

#define UTIL_OBJS 200000u
#define UTIL_OWNERS 8u

struct util_figures {
	uint32_t nr_chunks;
	uint64_t populated;
	uint64_t held;     /* bytes per copy users hold, all owners */
};

static void
util_sum_owner(struct rte_pcpu_owner *o, void *arg)
{
	struct rte_pcpu_owner_stats st;

	if (rte_pcpu_owner_stats_get(o, &st) == 0)
		*(uint64_t *)arg += st.live_copy_bytes;
}

/* The workload, every object charged to owners[k % nb] (NULL: the root). */
static int
util_run(struct rte_pcpu_owner **owners, unsigned int nb, void **objs,
		struct util_figures *f)
{
	struct rte_pcpu_stats st;
	uint64_t seed = 20260105;
	unsigned int k;

	for (k = 0; k < UTIL_OBJS; k++) {
		size_t size = (size_t)8 << (perf_rnd64(&seed) % 10);

		size += perf_rnd64(&seed) % size;
		objs[k] = owners[k % nb] == NULL ? rte_pcpu_alloc(size, 0) :
			rte_pcpu_alloc_owner(size, 0, owners[k % nb]);
		if (objs[k] == NULL)
			return -1;
		/* a third freed as the workload goes */
		if (k > 0 && perf_rnd64(&seed) % 3 == 0) {
			unsigned int j = (unsigned int)(perf_rnd64(&seed) % k);

			if (objs[j] != NULL) {
				rte_pcpu_free(objs[j]);
				objs[j] = NULL;
			}
		}
	}
	/* the caches' objects back to the chunks, empty pages to the system */
	rte_pcpu_cache_flush();
	rte_pcpu_reclaim();
	if (rte_pcpu_stats_get(&st) != 0)
		return -1;
	f->nr_chunks = st.nr_chunks;
	f->populated = st.populated_bytes;
	f->held = 0;
	rte_pcpu_owner_walk(util_sum_owner, &f->held);
	return rte_pcpu_audit();
}

static void
util_free_all(void **objs)
{
	unsigned int k;

	for (k = 0; k < UTIL_OBJS; k++)
		rte_pcpu_free(objs[k]);
	memset(objs, 0, UTIL_OBJS * sizeof(*objs));
}

int
perf_owner_utilisation(struct perf_result *r)
{
	struct rte_pcpu_owner *owners[UTIL_OWNERS] = { NULL };
	struct util_figures f[2];
	struct rte_pcpu_stats st;
	char name[32];
	void **objs = calloc(UTIL_OBJS, sizeof(*objs));
	unsigned int k, i;
	uint64_t t0;
	int ret = -1;

	if (objs == NULL)
		return perf_fail(r, "calloc");
	t0 = perf_thread_cpu_ns();
	for (i = 0; i < 2; i++) {
		if (perf_pcpu_reinit(NULL) != 0) {
			perf_fail(r, "rte_pcpu_init");
			goto out;
		}
		for (k = 0; i == 1 && k < UTIL_OWNERS; k++) {
			snprintf(name, sizeof(name), "perf_util_%u", k);
			owners[k] = rte_pcpu_owner_create(name, 0);
			if (owners[k] == NULL) {
				perf_fail(r, "rte_pcpu_owner_create");
				goto out;
			}
		}
		if (util_run(owners, i == 0 ? 1 : UTIL_OWNERS, objs,
				&f[i]) != 0) {
			util_free_all(objs);
			perf_fail(r, "workload");
			goto out;
		}
		util_free_all(objs);
	}
	rte_pcpu_stats_get(&st);
	for (i = 0; i < 2; i++) {
		const char *p = i == 0 ? "root" : "owners";

		snprintf(name, sizeof(name), "%s_chunks", p);
		perf_result_set(r, name, f[i].nr_chunks);
		snprintf(name, sizeof(name), "%s_populated_bytes", p);
		perf_result_set(r, name, (double)f[i].populated);
		snprintf(name, sizeof(name), "%s_held_bytes_per_copy", p);
		perf_result_set(r, name, (double)f[i].held);
		snprintf(name, sizeof(name), "%s_utilisation", p);
		perf_result_set(r, name, (double)f[i].held /
			((double)f[i].nr_chunks * (double)st.chunk_size));
	}
	perf_result_set(r, "owners", UTIL_OWNERS);
	perf_result_set(r, "objects", UTIL_OBJS);
	perf_result_set(r, "same_chunks", f[0].nr_chunks == f[1].nr_chunks &&
		f[0].populated == f[1].populated && f[0].held == f[1].held);
	r->seconds = (double)(perf_thread_cpu_ns() - t0) / 1e9;
	perf_result_label(r, "one workload charged to the root, then spread "
		"over %u owners: utilisation = bytes users hold / bytes of the "
		"chunks (one unit)", UTIL_OWNERS);
	ret = 0;
out:
	free(objs);
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}
