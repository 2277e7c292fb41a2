/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * 9. The percpu area shared with secondary processes (a memfd mapped
 * MAP_SHARED, the default when EAL has hugepages) beside a private one
 * (anonymous memory: RTE_PCPU_F_PRIVATE, the default without them), in
 * one run. The backing is a property of the allocator's set-up, so each
 * round sets the allocator up with one backing, builds the case's objects,
 * measures one window (or one allocation pass), takes everything down and
 * does the same with the other backing: the two take turns as the
 * variants of the other cases do.
 *
 * Also the readers' inline change that came with secondary processes:
 * RTE_PCPU_FOREACH() and rte_pcpu_sum_u64() start with one load and a
 * branch (attach a secondary that is not yet), measured beside the same
 * loops written without it, in the same rounds.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "perf_bodies.h"

enum bk_backing { BK_PRIVATE = 0, BK_SHARED, BK_MAX };

static const char * const bk_name[BK_MAX] = { "private", "shared" };

/* Set the allocator up with @p b and the page size of @p huge. */
static int
bk_init(enum bk_backing b, int huge)
{
	struct rte_pcpu_conf conf = {
		.flags = b == BK_SHARED ? RTE_PCPU_F_SHARED : RTE_PCPU_F_PRIVATE,
		.page_policy = huge ? RTE_PCPU_PAGE_HUGE : RTE_PCPU_PAGE_NORMAL,
	};
	struct rte_pcpu_stats st;

	if (perf_pcpu_reinit(&conf) != 0)
		return -1;
	/* both or neither: the comparison needs the shared one */
	if (rte_pcpu_stats_get(&st) != 0 || st.shared != (b == BK_SHARED))
		return -1;
	return 0;
}

static void
bk_report_pair(struct perf_result *r, const char *what, double a[BK_MAX][PERF_MAX_ROUNDS],
		unsigned int n)
{
	char name[PERF_NAME_LEN];
	unsigned int b;

	for (b = 0; b < BK_MAX; b++)
		if (snprintf(name, sizeof(name), "%s_%s", bk_name[b], what) <
		    (int)sizeof(name))
			perf_report_samples(r, name, a[b], n);
	if (snprintf(name, sizeof(name), "shared_over_private_%s", what) <
	    (int)sizeof(name))
		perf_report_ratio(r, name, a[BK_SHARED], a[BK_PRIVATE], n);
}

/* ---------------------------------------------------------------------- */
/* Access: RTE_PCPU() increments, and TLS beside them. */

int
perf_backing_access(uint32_t nb_objs, struct perf_result *r)
{
	double ns[BK_MAX][PERF_MAX_ROUNDS], tls[PERF_MAX_ROUNDS];
	unsigned int rounds = perf_rounds(), k, b, bi;
	struct perf_access_case *ac, *tc = NULL;
	struct perf_lcores_res res;
	int ret = -1;

	ac = calloc(1, sizeof(*ac));
	if (nb_objs == 1)
		tc = calloc(1, sizeof(*tc));
	if (ac == NULL || (nb_objs == 1 && tc == NULL)) {
		free(ac);
		return perf_fail(r, "calloc");
	}
	/* TLS: one object of the thread's own, as RTE_PCPU() of one handle */
	if (tc != NULL && perf_access_case_setup(tc, 1u << PERF_SCHEME_TLS, 1,
			0, 1, r) != 0)
		goto out;
	for (k = 0; k < rounds; k++) {
		for (bi = 0; bi < BK_MAX; bi++) {
			b = k & 1 ? BK_MAX - 1 - bi : bi;
			if (bk_init((enum bk_backing)b, 0) != 0) {
				perf_fail(r, "rte_pcpu_init");
				goto out;
			}
			if (perf_access_case_setup(ac, 1u << PERF_SCHEME_PCPU,
					nb_objs, 0, 1, r) != 0)
				goto out;
			if (perf_run_lcores(1, ac->v[PERF_SCHEME_PCPU].fn,
					ac->v[PERF_SCHEME_PCPU].arg,
					perf_warmup_ms(), perf_window_ms(),
					&res) != 0) {
				perf_fail(r, "launch");
				goto out;
			}
			ns[b][k] = res.ns_per_op;
			perf_access_case_free(ac);
			memset(ac, 0, sizeof(*ac));
		}
		if (tc == NULL)
			continue;
		if (perf_run_lcores(1, tc->v[PERF_SCHEME_TLS].fn,
				tc->v[PERF_SCHEME_TLS].arg, perf_warmup_ms(),
				perf_window_ms(), &res) != 0) {
			perf_fail(r, "launch");
			goto out;
		}
		tls[k] = res.ns_per_op;
	}
	bk_report_pair(r, "ns", ns, rounds);
	if (tc != NULL) {
		perf_report_samples(r, "tls_ns", tls, rounds);
		perf_report_ratio(r, "shared_over_tls", ns[BK_SHARED], tls,
			rounds);
		perf_report_ratio(r, "private_over_tls", ns[BK_PRIVATE], tls,
			rounds);
	}
	perf_result_set(r, "objects", nb_objs);
	perf_result_label(r, "%sRTE_PCPU() increment, a shared area beside a "
		"private one%s, rounds interleaved", r->label[0] ? "; " : "",
		tc != NULL ? " and TLS" : "");
	r->seconds = rounds * BK_MAX * perf_window_ms() / 1e3;
	ret = 0;
out:
	perf_access_case_free(ac);
	free(ac);
	if (tc != NULL) {
		perf_access_case_free(tc);
		free(tc);
	}
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Readers: the sum helper and FOREACH, with and without the attach
 * check. */

enum bk_reader {
	BK_SUM = 0,         /* rte_pcpu_sum_u64() */
	BK_SUM_PLAIN,       /* its loop without the attach check */
	BK_FOREACH,         /* RTE_PCPU_FOREACH() */
	BK_FOREACH_PLAIN,   /* its loop without the attach check */
	BK_READERS,
};

static const char * const bk_reader_name[BK_READERS] = {
	"sum", "sum_plain", "foreach", "foreach_plain",
};

struct bk_reader_arg {
	enum bk_reader kind;
	uint32_t nb_objs;
	void **handles;
	uint64_t sink;
};

/* The sum loop as rte_pcpu_sum_u64() had it before: from
 * __rte_pcpu_lcore_next(0), no attach check. */
static inline void
bk_sum_plain(const void *handle, unsigned int n, uint64_t *sum)
{
	unsigned int lcore_id, i;

	for (i = 0; i < n; i++)
		sum[i] = 0;
	for (lcore_id = __rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = __rte_pcpu_lcore_next(lcore_id + 1)) {
		const uint64_t *c = (const uint64_t *)
			__rte_pcpu_lcore_ptr(lcore_id, handle);

		for (i = 0; i < n; i++)
			sum[i] += __atomic_load_n(&c[i], __ATOMIC_RELAXED);
	}
}

static uint64_t
bk_reader_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct bk_reader_arg *a = arg;
	const struct perf_pair *v;
	uint64_t ops = 0, s[2], acc = 0;
	unsigned int l;
	uint32_t p = 0, k;

	RTE_SET_USED(idx);
	do {
		for (k = 0; k < 1024; k++) {
			const struct perf_pair *h = a->handles[p];

			switch (a->kind) {
			case BK_SUM:
				rte_pcpu_sum_u64(h, 2, s);
				acc += s[0] + s[1];
				break;
			case BK_SUM_PLAIN:
				bk_sum_plain(h, 2, s);
				acc += s[0] + s[1];
				break;
			case BK_FOREACH:
				RTE_PCPU_FOREACH(l, v, h)
					acc += v->packets + v->bytes;
				break;
			default:
				for (l = __rte_pcpu_lcore_next(0);
				     l < RTE_MAX_LCORE &&
				     ((v = RTE_PCPU_LCORE(l, h)), 1);
				     l = __rte_pcpu_lcore_next(l + 1))
					acc += v->packets + v->bytes;
				break;
			}
			if (++p == a->nb_objs)
				p = 0;
		}
		ops += 1024;
	} while (rte_rdtsc() < deadline);
	a->sink += acc;
	return ops;
}

int
perf_backing_readers(uint32_t nb_objs, struct perf_result *r)
{
	static double ns[BK_MAX][BK_READERS][PERF_MAX_ROUNDS];
	struct bk_reader_arg a = { .nb_objs = nb_objs };
	unsigned int rounds = perf_rounds(), k, b, bi, i, m, mi;
	char name[PERF_NAME_LEN];
	struct perf_lcores_res res;
	int ret = -1;

	a.handles = calloc(nb_objs, sizeof(void *));
	if (a.handles == NULL)
		return perf_fail(r, "calloc");
	for (k = 0; k < rounds; k++) {
		for (bi = 0; bi < BK_MAX; bi++) {
			/* every other round in the reverse order: no variant
			 * always runs first (warmer caches, a fresher heap) */
			b = k & 1 ? BK_MAX - 1 - bi : bi;
			if (bk_init((enum bk_backing)b, 0) != 0) {
				perf_fail(r, "rte_pcpu_init");
				goto out;
			}
			for (i = 0; i < nb_objs; i++) {
				a.handles[i] = rte_pcpu_alloc(
					sizeof(struct perf_pair), 0);
				if (a.handles[i] == NULL) {
					perf_fail(r, "rte_pcpu_alloc");
					goto out;
				}
			}
			for (mi = 0; mi < BK_READERS; mi++) {
				m = k & 1 ? BK_READERS - 1 - mi : mi;
				a.kind = (enum bk_reader)m;
				if (perf_run_lcores(1, bk_reader_loop, &a,
						perf_warmup_ms(),
						perf_window_ms(), &res) != 0) {
					perf_fail(r, "launch");
					goto out;
				}
				ns[b][m][k] = res.ns_per_op;
			}
			for (i = 0; i < nb_objs; i++)
				rte_pcpu_free(a.handles[i]);
		}
	}
	for (m = 0; m < BK_READERS; m++) {
		double v[BK_MAX][PERF_MAX_ROUNDS];

		for (b = 0; b < BK_MAX; b++)
			memcpy(v[b], ns[b][m], sizeof(v[b]));
		snprintf(name, sizeof(name), "%s_ns", bk_reader_name[m]);
		bk_report_pair(r, name, v, rounds);
	}
	/* what the attach check costs, per backing */
	for (b = 0; b < BK_MAX; b++) {
		snprintf(name, sizeof(name), "%s_sum_over_plain", bk_name[b]);
		perf_report_ratio(r, name, ns[b][BK_SUM], ns[b][BK_SUM_PLAIN],
			rounds);
		snprintf(name, sizeof(name), "%s_foreach_over_plain",
			bk_name[b]);
		perf_report_ratio(r, name, ns[b][BK_FOREACH],
			ns[b][BK_FOREACH_PLAIN], rounds);
	}
	perf_result_set(r, "objects", nb_objs);
	perf_result_set(r, "lcores_with_memory", rte_lcore_count());
	perf_result_label(r, "%sns per object read (2 counters, every lcore "
		"with memory): rte_pcpu_sum_u64() and RTE_PCPU_FOREACH() beside "
		"their loops without the attach check, shared and private "
		"areas, rounds interleaved", r->label[0] ? "; " : "");
	r->seconds = rounds * BK_MAX * BK_READERS * perf_window_ms() / 1e3;
	ret = 0;
out:
	free(a.handles);
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Pools: get+put, zero on get. */

int
perf_backing_pool(struct perf_result *r)
{
	double ns[BK_MAX][PERF_MAX_ROUNDS];
	struct perf_pairs_arg a = { .size = 16 };
	unsigned int rounds = perf_rounds(), k, b, bi;
	struct perf_lcores_res res;
	int ret = -1;

	for (k = 0; k < rounds; k++) {
		for (bi = 0; bi < BK_MAX; bi++) {
			b = k & 1 ? BK_MAX - 1 - bi : bi;
			if (bk_init((enum bk_backing)b, 0) != 0) {
				perf_fail(r, "rte_pcpu_init");
				goto out;
			}
			a.pool = rte_pcpu_mempool_create("perf_backing", 16384,
				16, 256, 0, NULL, NULL, 0);
			if (a.pool == NULL) {
				perf_fail(r, "rte_pcpu_mempool_create");
				goto out;
			}
			if (perf_run_lcores(1, perf_pairs_pool_loop, &a,
					perf_warmup_ms(), perf_window_ms(),
					&res) != 0 || a.err) {
				perf_fail(r, "get+put");
				goto out;
			}
			ns[b][k] = res.ns_per_op;
			if (rte_pcpu_mempool_free(a.pool) != 0) {
				perf_fail(r, "rte_pcpu_mempool_free");
				goto out;
			}
			a.pool = NULL;
		}
	}
	bk_report_pair(r, "ns", ns, rounds);
	perf_result_label(r, "%spool get+put of 16 B, zero on get, cache 256, "
		"1 lcore: a shared area beside a private one, rounds "
		"interleaved", r->label[0] ? "; " : "");
	r->seconds = rounds * BK_MAX * perf_window_ms() / 1e3;
	ret = 0;
out:
	rte_pcpu_mempool_free(a.pool);
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The allocator: 2^20 objects allocated and freed, caches on. */

int
perf_backing_alloc(int huge, struct perf_result *r)
{
	double al[BK_MAX][PERF_MAX_ROUNDS], fr[BK_MAX][PERF_MAX_ROUNDS];
	unsigned int n = perf_is_smoke() ? 1u << 16 : 1u << 20;
	unsigned int rounds = RTE_MIN(perf_rounds(), 5u), k, b, bi, i;
	uint64_t t0, t1;
	void **objs;
	int ret = -1;

	objs = malloc(sizeof(void *) * n);
	if (objs == NULL)
		return perf_fail(r, "malloc");
	for (k = 0; k < rounds; k++) {
		for (bi = 0; bi < BK_MAX; bi++) {
			b = k & 1 ? BK_MAX - 1 - bi : bi;
			if (bk_init((enum bk_backing)b, huge) != 0) {
				ret = huge ? perf_skip(r, "no 2 MiB pages") :
					perf_fail(r, "rte_pcpu_init");
				goto out;
			}
			t0 = perf_thread_cpu_ns();
			for (i = 0; i < n; i++) {
				objs[i] = rte_pcpu_alloc(16, 0);
				if (unlikely(objs[i] == NULL))
					break;
			}
			t1 = perf_thread_cpu_ns();
			if (i < n) {
				while (i-- > 0)
					rte_pcpu_free(objs[i]);
				ret = huge ? perf_skip(r, "2 MiB pages ran out") :
					perf_fail(r, "rte_pcpu_alloc");
				goto out;
			}
			al[b][k] = perf_cpu_ms(t0, t1);
			t0 = perf_thread_cpu_ns();
			for (i = 0; i < n; i++)
				rte_pcpu_free(objs[i]);
			t1 = perf_thread_cpu_ns();
			fr[b][k] = perf_cpu_ms(t0, t1);
			if (rte_pcpu_audit() != 0) {
				perf_fail(r, "rte_pcpu_audit");
				goto out;
			}
		}
	}
	bk_report_pair(r, "alloc_ms", al, rounds);
	bk_report_pair(r, "free_ms", fr, rounds);
	perf_result_set(r, "objects", n);
	perf_result_label(r, "%s%u x 16 B rte_pcpu_alloc() then rte_pcpu_free(), "
		"caches on, from a fresh allocator (its pages populated: "
		"shared memory file or anonymous memory), %s pages, rounds "
		"interleaved", r->label[0] ? "; " : "", n, huge ? "2 MiB" :
		"4 KiB");
	r->seconds = 0;
	for (k = 0; k < rounds; k++)
		for (b = 0; b < BK_MAX; b++)
			r->seconds += (al[b][k] + fr[b][k]) / 1e3;
	ret = 0;
out:
	free(objs);
	if (perf_pcpu_reinit(NULL) != 0 && ret == 0)
		ret = perf_fail(r, "rte_pcpu_init");
	return ret;
}
