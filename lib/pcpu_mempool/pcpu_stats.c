/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * rte_pcpu_stats_get(), rte_pcpu_dump() and rte_pcpu_audit(): above the
 * layers, they ask each for its part (the allocator's counters and chunks,
 * the caches' counters and contents, the entry points' refusals, the
 * "pcpu" mempool ops' blocks and quarantine, the owners' charges and who
 * holds what) and put them together as users count: the allocator counts
 * objects as they leave and enter the chunks, so an object in a cache is
 * allocated for it; users see the objects the caches hand out and take
 * back, and so do the owners.
 *
 * In a secondary process each of them is the primary's answer to a
 * request (pcpu_proc.h, "Remote reads"): the operations registered here.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rte_pcpu.h"
#include "rte_pcpu_owner.h"
#include "pcpu_alloc.h"
#include "pcpu_cache.h"
#include "pcpu_front.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_mempool_audit.h"
#include "pcpu_mempool_ops.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"

/* Users' allocations and frees, from the allocator's and the caches'. */
static void
stats_user_counts(const struct pcpu_alloc_counters *ac,
		const struct pcpu_cache_counters *cc, uint64_t *nr_alloc,
		uint64_t *nr_dealloc)
{
	*nr_alloc = ac->nr_alloc - cc->refilled + cc->user_alloc;
	*nr_dealloc = ac->nr_dealloc - cc->flushed + cc->user_free;
}

/* A secondary process: the primary's figures. */
static int
stats_remote_get(struct rte_pcpu_stats *s)
{
	void *data;
	size_t len;

	if (pcpu_proc_call(PCPU_PROC_OP_STATS, NULL, NULL, &data, &len) != 0)
		return -1;
	if (data == NULL || len != sizeof(*s)) {
		free(data);
		PCPU_LOG(ERR, "stats: the primary's answer has %zu bytes, "
			"not %zu", len, sizeof(*s));
		rte_errno = EPROTO;
		return -1;
	}
	memcpy(s, data, sizeof(*s));
	free(data);
	return 0;
}

/* A secondary process: the primary's dump, written to @p f. */
static int
stats_remote_dump(FILE *f)
{
	void *data;
	size_t len;

	if (pcpu_proc_call(PCPU_PROC_OP_DUMP, NULL, NULL, &data, &len) != 0)
		return -1;
	if (data != NULL)
		fwrite(data, 1, len, f);
	free(data);
	return 0;
}

int
rte_pcpu_cache_stats_get(unsigned int lcore_id, unsigned int class_idx,
		struct rte_pcpu_cache_stats *stats)
{
	if (stats == NULL || lcore_id >= RTE_MAX_LCORE ||
	    class_idx >= RTE_PCPU_CACHE_NB_CLASSES) {
		if (stats == NULL)
			PCPU_LOG(ERR, "cache stats: stats NULL");
		else if (lcore_id >= RTE_MAX_LCORE)
			PCPU_LOG(ERR, "cache stats: lcore %u not below "
				"RTE_MAX_LCORE (%u)", lcore_id, RTE_MAX_LCORE);
		else
			PCPU_LOG(ERR, "cache stats: class %u not below %u",
				class_idx, RTE_PCPU_CACHE_NB_CLASSES);
		rte_errno = EINVAL;
		return -1;
	}
	if (pcpu_proc_secondary()) {
		uint32_t arg[PCPU_PROC_OP_ARG_MAX / sizeof(uint32_t)] = {
			lcore_id, class_idx };
		uint8_t out[PCPU_PROC_OP_ARG_MAX];

		if (pcpu_proc_call(PCPU_PROC_OP_CACHE, arg, out, NULL,
				NULL) != 0)
			return -1;
		memcpy(stats, out, sizeof(*stats));
		return 0;
	}
	pcpu_cache_stats(lcore_id, class_idx, stats);
	return 0;
}

int
rte_pcpu_stats_get(struct rte_pcpu_stats *s)
{
	struct pcpu_alloc_counters ac;
	struct pcpu_cache_counters cc;
	unsigned int i;

	if (s == NULL) {
		PCPU_LOG(ERR, "stats: stats NULL");
		rte_errno = EINVAL;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	if (pcpu_init_eal_gone("stats"))
		return -1;
	if (pcpu_proc_secondary())
		return stats_remote_get(s);
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		return 0;
	/* exact when no cache runs meanwhile */
	pcpu_cache_counters(&cc);
	pcpu_alloc_counters(&ac);
	stats_user_counts(&ac, &cc, &s->nr_alloc, &s->nr_dealloc);
	s->nr_cur_alloc = s->nr_alloc >= s->nr_dealloc ?
		s->nr_alloc - s->nr_dealloc : 0;
	s->nr_max_alloc = ac.nr_max_alloc;
	s->nr_alloc_fail = ac.nr_alloc_fail + cc.alloc_fail +
		pcpu_front_arg_failures();
	s->nr_chunks = ac.nr_chunks;
	s->nr_max_chunks = ac.nr_max_chunks;
	/* sizes users asked for: of the allocator directly, and of caches */
	s->min_alloc_size = RTE_MIN(ac.min_alloc_size, cc.min_size);
	if (s->min_alloc_size == UINT64_MAX)
		s->min_alloc_size = 0;
	s->max_alloc_size = RTE_MAX(ac.max_alloc_size, cc.max_size);
	s->populated_bytes = ac.populated_pages * ac.page_size * ac.nr_lcores;
	s->max_populated_bytes = ac.max_populated_bytes;
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		s->populated_bytes_socket[i] = ac.populated_bytes_socket[i];
	s->populated_pages = ac.populated_pages;
	s->empty_pop_pages = ac.empty_pop_pages;
	s->page_size = ac.page_size;
	s->max_populated = ac.conf.max_populated;
	s->unit_stride = ac.conf.unit_stride;
	s->chunk_size = ac.conf.chunk_size;
	s->nr_lcores = ac.nr_lcores;
	s->nr_huge_fallback = ac.nr_huge_fallback;
	s->cached_objs = cc.cached_objs;
	s->cached_bytes = cc.cached_bytes;
	s->base_addr = ac.base;
	s->shared = ac.shared;
	s->readers = ac.readers;
	s->nr_depop_deferred = ac.nr_depop_deferred;
	return 0;
}

/* One line per owner. */
static void
stats_dump_owner(struct rte_pcpu_owner *o, void *arg)
{
	struct rte_pcpu_owner_stats st;
	char limit[24];

	pcpu_owner_stats(o, &st);
	if (st.limit_bytes != 0)
		snprintf(limit, sizeof(limit), "%" PRIu64, st.limit_bytes);
	else
		snprintf(limit, sizeof(limit), "none");
	fprintf(arg, "  owner %s (id %u): live %" PRIu64 " bytes (%" PRIu64
		" per lcore copy) in %" PRIu64 " allocations, peak %" PRIu64
		" limit %s, nr_alloc %" PRIu64 " nr_free %" PRIu64
		" nr_fail %" PRIu64 "\n", o->name, st.id, st.live_bytes,
		st.live_copy_bytes, st.nr_live, st.peak_bytes, limit,
		st.nr_alloc, st.nr_free, st.nr_fail);
}

int
rte_pcpu_dump(FILE *f)
{
	struct rte_pcpu_stats s;

	if (f == NULL)
		f = stdout;
	if (pcpu_init_eal_gone("dump"))
		return -1;
	if (pcpu_proc_secondary())
		return stats_remote_dump(f);
	if (pcpu_init_not_set_up("dump"))
		return -1;
	rte_pcpu_stats_get(&s);
	fprintf(f, "pcpu: unit stride %" PRIu64 " chunk %" PRIu64
		" page %" PRIu64 " lcores %u limit %" PRIu64 "\n",
		s.unit_stride, s.chunk_size, s.page_size, s.nr_lcores,
		s.max_populated);
	fprintf(f, "  nr_alloc %" PRIu64 " nr_dealloc %" PRIu64
		" nr_cur_alloc %" PRIu64 " nr_max_alloc %" PRIu64
		" nr_alloc_fail %" PRIu64 "\n", s.nr_alloc, s.nr_dealloc,
		s.nr_cur_alloc, s.nr_max_alloc, s.nr_alloc_fail);
	fprintf(f, "  nr_chunks %u nr_max_chunks %u min_alloc %" PRIu64
		" max_alloc %" PRIu64 "\n", s.nr_chunks, s.nr_max_chunks,
		s.min_alloc_size, s.max_alloc_size);
	fprintf(f, "  populated %" PRIu64 " bytes (max %" PRIu64
		"), %" PRIu64 " pages per lcore, %" PRIu64
		" empty, huge fallbacks %u, cached %" PRIu64 " objs %" PRIu64
		" bytes\n", s.populated_bytes, s.max_populated_bytes,
		s.populated_pages, s.empty_pop_pages, s.nr_huge_fallback,
		s.cached_objs, s.cached_bytes);
	fprintf(f, "  area at %#" PRIx64 ", %s, secondary reading %s, "
		"giving back deferred %" PRIu64 " times\n", s.base_addr,
		s.shared ? "shared" : "private", s.readers ? "yes" : "no",
		s.nr_depop_deferred);
	rte_pcpu_owner_walk(stats_dump_owner, f);
	pcpu_alloc_dump_chunks(f);
	pcpu_mempool_ops_dump(f);
	return 0;
}

/* What the owners' audit compares (stats_owner_check()). */
struct stats_owner_audit {
	struct pcpu_alloc_owner_sums as;   /* the allocator's objects */
	struct pcpu_cache_owner_sums cs;   /* the caches' */
	uint64_t pool_bytes[PCPU_OWNER_NB]; /* the pools' */
	uint64_t pool_objs[PCPU_OWNER_NB];
	uint64_t charged;                  /* sum of the live owners' */
	uint64_t cache_live;               /* users' objects of the caches */
	int failed;
	char *msg;
	size_t len;
};

/* What is held for owner @p id, bytes per copy and objects. */
static void
stats_owner_held(const struct stats_owner_audit *a, uint32_t id,
		uint64_t *bytes, uint64_t *objs)
{
	*bytes = a->as.bytes[id] + a->cs.bytes[id] + a->pool_bytes[id];
	*objs = a->as.objs[id] + a->cs.objs[id] + a->pool_objs[id];
}

/* One live owner: its charge is what is held for it. */
static void
stats_owner_check(struct rte_pcpu_owner *o, void *arg)
{
	struct stats_owner_audit *a = arg;
	struct pcpu_owner_sum s;
	uint64_t bytes, objs;

	stats_owner_held(a, o->id, &bytes, &objs);
	pcpu_owner_sum(o->id, &s);
	a->charged += s.copy_bytes;
	a->cache_live += a->cs.bytes[o->id];
	if (a->failed)
		return;
	if (pcpu_owner_audit_record(o->id, s.copy_bytes, a->msg,
			a->len) != 0) {
		a->failed = 1;
		return;
	}
	if (s.copy_bytes == bytes && s.nr_alloc - s.nr_free == objs)
		return;
	snprintf(a->msg, a->len, "owner %s is charged %" PRIu64 " bytes per "
		"copy in %" PRIu64 " allocations, holds %" PRIu64 " in %"
		PRIu64, o->name, s.copy_bytes, s.nr_alloc - s.nr_free, bytes,
		objs);
	a->failed = 1;
}

/*
 * Every owner's charge against what the allocator, the caches (@p a->cs,
 * filled by their audit) and the pools hold for it, and the sum of the
 * charges against the bytes users hold: every live object in the chunks
 * and spans but those parked in the caches (allocated for the allocator,
 * no user's).
 */
static int
stats_owner_audit(struct stats_owner_audit *a, char *msg, size_t len)
{
	uint64_t bytes, objs, pools = 0;
	uint32_t id;

	a->msg = msg;
	a->len = len;
	if (pcpu_alloc_owner_audit(&a->as, msg, len) != 0)
		return -1;
	pcpu_pool_owner_sums(a->pool_bytes, a->pool_objs);
	for (id = 0; id < PCPU_OWNER_NB; id++)
		pools += a->pool_bytes[id];
	pcpu_owner_walk(stats_owner_check, a);
	if (a->failed)
		return -1;
	for (id = PCPU_OWNER_NONE; id < PCPU_OWNER_NB; id++) {
		stats_owner_held(a, id, &bytes, &objs);
		if (objs != 0 && pcpu_owners.rec[id].kind ==
		    PCPU_OWNER_KIND_FREE) {
			snprintf(msg, len, "%" PRIu64 " objects are held for "
				"owner %u, which does not exist", objs, id);
			return -1;
		}
	}
	/*
	 * A pool whose objects could not be marked as its for want of
	 * memory (pcpu_alloc_pool_mark(), logged) holds objects the chunks
	 * do not know as a pool's: they are among those without an owner
	 * reference, beside the caches'.
	 */
	if (a->as.pool_bytes > pools)
		snprintf(msg, len, "pool objects of %" PRIu64 " bytes in the "
			"chunks, pools hold %" PRIu64, a->as.pool_bytes, pools);
	else if (a->as.cache_bytes != a->cache_live + a->cs.cached_bytes +
			(pools - a->as.pool_bytes))
		snprintf(msg, len, "objects without an owner reference of %"
			PRIu64 " bytes in the chunks; %" PRIu64 " held by users "
			"of the caches, %" PRIu64 " cached, %" PRIu64 " unmarked "
			"pool objects", a->as.cache_bytes, a->cache_live,
			a->cs.cached_bytes, pools - a->as.pool_bytes);
	else if (a->charged != a->as.live_bytes - a->cs.cached_bytes)
		snprintf(msg, len, "owners are charged %" PRIu64 " bytes per "
			"copy, users hold %" PRIu64 " (%" PRIu64 " live, %"
			PRIu64 " cached)", a->charged, a->as.live_bytes -
			a->cs.cached_bytes, a->as.live_bytes,
			a->cs.cached_bytes);
	else
		return 0;
	return -1;
}

/* The audit's sums by owner: too large for a stack, and an audit must
 * not fail for want of memory, so one buffer that audits take in turn. */
static struct stats_owner_audit stats_audit_buf;
static pthread_mutex_t stats_audit_lock = PTHREAD_MUTEX_INITIALIZER;

static int
stats_audit_locked(void)
{
	struct stats_owner_audit *oa = &stats_audit_buf;
	struct pcpu_alloc_counters ac;
	struct pcpu_cache_counters cc;
	uint64_t cached = 0, user_alloc, user_free;
	char msg[256];

	memset(oa, 0, sizeof(*oa));
	if (pcpu_alloc_audit(&ac, msg, sizeof(msg)) != 0 ||
	    pcpu_cache_audit(&cached, &oa->cs, msg, sizeof(msg)) != 0 ||
	    pcpu_mempool_ops_audit(msg, sizeof(msg)) != 0)
		goto fail;
	/* user-live + cached == live objects in the chunks */
	pcpu_cache_counters(&cc);
	stats_user_counts(&ac, &cc, &user_alloc, &user_free);
	if (cc.cached_objs != cached) {
		snprintf(msg, sizeof(msg), "caches hold %" PRIu64
			" objects, counted %" PRIu64, cached, cc.cached_objs);
		goto fail;
	}
	if (user_alloc - user_free + cached != ac.live_objs) {
		snprintf(msg, sizeof(msg), "user-live %" PRIu64 " + cached %"
			PRIu64 " != %" PRIu64 " objects in chunks",
			user_alloc - user_free, cached, ac.live_objs);
		goto fail;
	}
	if (stats_owner_audit(oa, msg, sizeof(msg)) != 0)
		goto fail;
	return 0;
fail:
	PCPU_LOG(ERR, "audit: %s", msg);
	rte_errno = EFAULT;
	return -1;
}

int
rte_pcpu_audit(void)
{
	int ret;

	if (pcpu_init_eal_gone("audit"))
		return -1;
	if (pcpu_proc_secondary()) {
		if (pcpu_proc_call(PCPU_PROC_OP_AUDIT, NULL, NULL, NULL,
				NULL) == 0)
			return 0;
		if (rte_errno == EFAULT)
			PCPU_LOG(ERR, "audit: the primary process found a "
				"broken invariant (its log says which)");
		return -1;
	}
	if (!__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&stats_audit_lock);
	ret = stats_audit_locked();
	pthread_mutex_unlock(&stats_audit_lock);
	return ret;
}

int
rte_pcpu_chunk_walk(void (*fn)(const struct rte_pcpu_chunk_stats *cs,
		void *arg), void *arg)
{
	struct rte_pcpu_chunk_stats *v = NULL;
	size_t len = 0;
	void *data;
	int i, n;

	if (fn == NULL) {
		PCPU_LOG(ERR, "chunk walk: callback NULL");
		rte_errno = EINVAL;
		return -1;
	}
	if (pcpu_proc_secondary()) {
		if (pcpu_proc_call(PCPU_PROC_OP_CHUNKS, NULL, NULL, &data,
				&len) != 0)
			return -1;
		v = data;
		n = (int)(len / sizeof(*v));
	} else {
		if (pcpu_init_not_set_up("chunk walk"))
			return -1;
		n = pcpu_alloc_chunk_stats(&v);
		if (n < 0) {
			rte_errno = ENOMEM;
			return -1;
		}
	}
	/* without the allocator's locks: fn may call the library */
	for (i = 0; i < n; i++)
		fn(&v[i], arg);
	free(v);
	return n;
}

/* ---------------------------------------------------------------------- */
/* The primary's side of the remote reads (on its pcpu-mp thread). */

static int
stats_serve_stats(const void *arg __rte_unused, void *out __rte_unused,
		FILE *data)
{
	struct rte_pcpu_stats s;

	if (rte_pcpu_stats_get(&s) != 0)
		return -1;
	if (fwrite(&s, sizeof(s), 1, data) != 1) {
		rte_errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int
stats_serve_dump(const void *arg __rte_unused, void *out __rte_unused,
		FILE *data)
{
	return rte_pcpu_dump(data);
}

static int
stats_serve_audit(const void *arg __rte_unused, void *out __rte_unused,
		FILE *data __rte_unused)
{
	return rte_pcpu_audit();
}

static int
stats_serve_cache(const void *arg, void *out, FILE *data __rte_unused)
{
	struct rte_pcpu_cache_stats cs;
	uint32_t a[2];

	memcpy(a, arg, sizeof(a));
	if (rte_pcpu_cache_stats_get(a[0], a[1], &cs) != 0)
		return -1;
	memcpy(out, &cs, sizeof(cs));
	return 0;
}

static int
stats_serve_chunks(const void *arg __rte_unused, void *out __rte_unused,
		FILE *data)
{
	struct rte_pcpu_chunk_stats *v;
	int n;

	n = pcpu_alloc_chunk_stats(&v);
	if (n < 0) {
		rte_errno = ENOMEM;
		return -1;
	}
	if (n > 0 && fwrite(v, sizeof(*v), (size_t)n, data) != (size_t)n) {
		free(v);
		rte_errno = ENOMEM;
		return -1;
	}
	free(v);
	return 0;
}

_Static_assert(sizeof(struct rte_pcpu_cache_stats) <= PCPU_PROC_OP_ARG_MAX,
	"cache statistics fit in a small answer");

static struct pcpu_proc_op stats_ops[] = {
	{ .id = PCPU_PROC_OP_STATS, .serve = stats_serve_stats },
	{ .id = PCPU_PROC_OP_DUMP, .serve = stats_serve_dump },
	{ .id = PCPU_PROC_OP_AUDIT, .serve = stats_serve_audit },
	{ .id = PCPU_PROC_OP_CACHE, .serve = stats_serve_cache },
	{ .id = PCPU_PROC_OP_CHUNKS, .serve = stats_serve_chunks },
};

RTE_INIT(pcpu_stats_ops_register)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(stats_ops); i++)
		pcpu_proc_op_register(&stats_ops[i]);
}
