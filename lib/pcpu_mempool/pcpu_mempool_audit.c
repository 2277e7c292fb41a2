/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Looking at pools: statistics, dump, audit and the telemetry data
 * (pcpu_telemetry.c registers the commands). Statistics are sums of
 * per-lcore counters read lock-free; the audit freezes every cache under
 * the pool lock and checks where each object is.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_string_fns.h>

#include "pcpu_compat.h"
#include "pcpu_fault.h"
#include "pcpu_init.h"
#include "pcpu_mempool.h"
#include "pcpu_mempool_audit.h"
#include "pcpu_mempool_rcu.h"
#include "pcpu_objcache.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"

/* Objects a cache served: gets - misses. The owner adds to gets before
 * misses, so reading misses first never gives a negative count. */
static inline uint64_t
pool_cache_hits(const struct rte_pcpu_mempool_cache *c)
{
	uint64_t misses = __atomic_load_n(&c->misses, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&c->oc.nr_get, __ATOMIC_ACQUIRE) - misses;
}

/* Bytes that @p nobjs objects cost against the budget now: the charge of
 * the pool's owner, which the audit checks. */
static inline uint64_t
pool_charge(const struct pcpu_pool *p, uint64_t nobjs)
{
	return nobjs * p->charge_size * pcpu_pool_nr_lcores();
}

/*
 * The checks of a query @p op (API function @p fn) of pool @p mp into
 * @p out (named @p out_what in the log line): both non-NULL (else EINVAL)
 * and EAL's memory, where the pool and its caches are, still there
 * (pcpu_init_eal_gone()). The pool, or NULL with rte_errno and one line.
 */
static const struct pcpu_pool *
pool_query(const char *fn, const char *op, const struct rte_pcpu_mempool *mp,
		const void *out, const char *out_what)
{
	const struct pcpu_pool *p = pcpu_pool_of_query(mp, op);

	if (p == NULL)
		return NULL;
	if (out == NULL) {
		MP_LOG(ERR, "%s %s: %s NULL", op, p->name, out_what);
		rte_errno = EINVAL;
		return NULL;
	}
	return pcpu_init_eal_gone(fn) ? NULL : p;
}

int
rte_pcpu_mempool_stats_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_stats *s)
{
	const struct pcpu_pool *p;
	unsigned int l;

	p = pool_query("rte_pcpu_mempool_stats_get", "stats_get", mp, s,
		"stats");
	if (p == NULL)
		return -1;
	memset(s, 0, sizeof(*s));
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&p->caches[l], __ATOMIC_ACQUIRE);

		if (c == NULL)
			continue;
		s->get_success += pcpu_pool_stat_read(&c->oc.nr_get);
		s->put += pcpu_pool_stat_read(&c->oc.nr_put);
		s->cache_hits += pool_cache_hits(c);
		s->cache_misses += pcpu_pool_stat_read(&c->misses);
	}
	s->get_success += pcpu_pool_stat_read(&p->shared_gets);
	s->cache_misses += pcpu_pool_stat_read(&p->shared_gets);
	s->put += pcpu_pool_stat_read(&p->shared_puts);
	s->get_fail = pcpu_pool_stat_read(&p->get_fail);
	s->get_fail_budget = pcpu_pool_stat_read(&p->get_fail_budget);
	s->put_refused = pcpu_pool_stat_read(&p->put_refused);
	s->rcu_pending = pcpu_pool_rcu_pending(p);
	s->charged_bytes = pool_charge(p,
		__atomic_load_n(&p->nb_objs, __ATOMIC_RELAXED));
	return 0;
}

int
rte_pcpu_mempool_info_get(const struct rte_pcpu_mempool *mp,
		struct rte_pcpu_mempool_info *info)
{
	const struct pcpu_pool *p;
	unsigned int l;

	p = pool_query("rte_pcpu_mempool_info_get", "info_get", mp, info,
		"info");
	if (p == NULL)
		return -1;
	memset(info, 0, sizeof(*info));
	info->n = p->n;
	info->cache_size = p->cache_size;
	info->flags = p->flags;
	info->nb_objs = __atomic_load_n(&p->nb_objs, __ATOMIC_RELAXED);
	info->nb_free = __atomic_load_n(&p->nb_free, __ATOMIC_RELAXED);
	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (__atomic_load_n(&p->caches[l], __ATOMIC_ACQUIRE) != NULL)
			info->nb_caches++;
	info->elt_size = p->elt_size;
	info->align = mp->align;
	info->max_bytes = p->max_bytes;
	info->obj_init = p->obj_init != NULL;
	if (p->rcu_v != NULL)
		info->rcu = p->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ ? 1 : 2;
	return 0;
}

static const char *
pool_rcu_name(const struct pcpu_pool *p)
{
	if (p->rcu_v == NULL)
		return "none";
	return p->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ ? "dq" : "sync";
}

int
rte_pcpu_mempool_dump(FILE *f, const struct rte_pcpu_mempool *mp)
{
	struct rte_pcpu_mempool_stats s;
	const struct pcpu_pool *p;
	unsigned int l;

	p = pool_query("rte_pcpu_mempool_dump", "dump", mp, f, "file");
	if (p == NULL || rte_pcpu_mempool_stats_get(mp, &s) != 0)
		return -1;
	fprintf(f, "pcpu_mempool %s: n %u elt_size %zu align %zu cache_size %u"
		" flags %#x budget %" PRIu64 " obj_init %s rcu %s owner pool:%s\n",
		p->name, p->n, p->elt_size, mp->align, p->cache_size,
		p->flags, p->max_bytes, p->obj_init != NULL ? "yes" : "no",
		pool_rcu_name(p), p->name);
	fprintf(f, "  objects %u free_shared %u in_use %u avail %u "
		"charged_bytes %" PRIu64 " steals %" PRIu64 " grows %" PRIu64
		"\n", __atomic_load_n(&p->nb_objs, __ATOMIC_RELAXED),
		__atomic_load_n(&p->nb_free, __ATOMIC_RELAXED),
		rte_pcpu_mempool_in_use_count(mp),
		rte_pcpu_mempool_avail_count(mp), s.charged_bytes,
		pcpu_pool_stat_read(&p->steals),
		pcpu_pool_stat_read(&p->grows));
	fprintf(f, "  get_success %" PRIu64 " get_fail %" PRIu64
		" get_fail_budget %" PRIu64 " put %" PRIu64 " cache_hits %"
		PRIu64 " cache_misses %" PRIu64 " put_refused %" PRIu64
		" rcu_pending %" PRIu64 "\n", s.get_success, s.get_fail,
		s.get_fail_budget, s.put, s.cache_hits, s.cache_misses,
		s.put_refused, s.rcu_pending);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct rte_pcpu_mempool_cache *c =
			__atomic_load_n(&p->caches[l], __ATOMIC_ACQUIRE);

		if (c == NULL)
			continue;
		fprintf(f, "  lcore %u cache: len %u size %u len_max %u gets %"
			PRIu64 " puts %" PRIu64 " hits %" PRIu64 " misses %"
			PRIu64 " refills %" PRIu64 " flushes %" PRIu64
			" stolen %" PRIu64 "\n", l,
			__atomic_load_n(&c->oc.len, __ATOMIC_RELAXED),
			c->oc.capacity,
			__atomic_load_n(&c->len_max, __ATOMIC_RELAXED),
			pcpu_pool_stat_read(&c->oc.nr_get),
			pcpu_pool_stat_read(&c->oc.nr_put),
			pool_cache_hits(c),
			pcpu_pool_stat_read(&c->misses),
			pcpu_pool_stat_read(&c->oc.nr_refill),
			pcpu_pool_stat_read(&c->oc.nr_flush),
			pcpu_pool_stat_read(&c->stolen));
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Audit. */

static int
audit_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

/* Index of @p h in sorted @p v, or -1. */
static long
audit_ptr_find(void * const *v, unsigned int n, uintptr_t h)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((uintptr_t)v[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && (uintptr_t)v[lo] == h ? (long)lo : -1;
}

/* Mark free object @p h in @p seen; 0 or -1 with a message. */
static int
audit_mark(void * const *sorted, unsigned int n, uint8_t *seen, uintptr_t h,
		const char *where, char *msg, size_t len)
{
	long i = audit_ptr_find(sorted, n, h);

	if (i < 0) {
		snprintf(msg, len, "%p in %s is not an object of the pool",
			(void *)h, where);
		return -1;
	}
	if (seen[i]) {
		snprintf(msg, len, "%p is free twice (again in %s)", (void *)h,
			where);
		return -1;
	}
	seen[i] = 1;
	return 0;
}

/* Every object listed once, every one a valid handle. */
static int
audit_objects(struct pcpu_pool *p, void **sorted, char *msg, size_t len)
{
	unsigned int i, nb = p->nb_objs;

	if (nb > p->n || p->nb_free > nb) {
		snprintf(msg, len, "%u objects, %u free, capacity %u", nb,
			p->nb_free, p->n);
		return -1;
	}
	memcpy(sorted, p->all, nb * sizeof(void *));
	qsort(sorted, nb, sizeof(void *), audit_ptr_cmp);
	for (i = 0; i < nb; i++) {
		if (!__rte_pcpu_mempool_handle_ok(&p->pub, sorted[i])) {
			snprintf(msg, len, "object %p is not a valid handle",
				sorted[i]);
			return -1;
		}
		if (i > 0 && sorted[i] == sorted[i - 1]) {
			snprintf(msg, len, "object %p listed twice", sorted[i]);
			return -1;
		}
	}
	return 0;
}

/* The F_DEBUG table against the free objects and the counters. */
static int
audit_debug_table(struct pcpu_pool *p, void * const *sorted,
		const uint8_t *seen, int64_t out, char *msg, size_t len)
{
	const void *key;
	void *data;
	uint32_t it = 0;
	int64_t nout = 0;

	while (rte_hash_iterate(p->out, &key, &data, &it) >= 0) {
		uintptr_t h = (uintptr_t)*(void * const *)key;
		long k = audit_ptr_find(sorted, p->nb_objs, h);

		if (k < 0 || seen[k]) {
			snprintf(msg, len, "out object %p is %s", (void *)h,
				k < 0 ? "not of the pool" : "also free");
			return -1;
		}
		nout++;
	}
	if (nout != out - (int64_t)pcpu_pool_rcu_pending(p)) {
		snprintf(msg, len, "debug table holds %" PRId64 " objects, "
			"counters say %" PRId64 " out", nout,
			out - (int64_t)pcpu_pool_rcu_pending(p));
		return -1;
	}
	return 0;
}

static int
pool_audit_locked(struct pcpu_pool *p, void **sorted, uint8_t *seen,
		char *msg, size_t len)
{
	unsigned int l, i, cached = 0, nb = p->nb_objs;
	struct pcpu_owner_sum charged;
	char where[32];
	int64_t out;

	if (audit_objects(p, sorted, msg, len) != 0)
		return -1;
	for (i = 0; i < p->nb_free; i++)
		if (audit_mark(sorted, nb, seen, p->free_objs[i],
				"the shared stack", msg, len) != 0)
			return -1;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_pcpu_mempool_cache *c = p->caches[l];

		if (c == NULL)
			continue;
		if (c->oc.len > c->oc.capacity) {
			snprintf(msg, len, "lcore %u cache holds %u > %u", l,
				c->oc.len, c->oc.capacity);
			return -1;
		}
		if (!pcpu_objcache_counts_ok(&c->oc)) {
			snprintf(msg, len, "lcore %u cache: counters say %"
				PRIu64 " objects, it holds %u", l,
				c->oc.refilled + c->oc.nr_put - c->oc.nr_get -
				c->oc.flushed, c->oc.len);
			return -1;
		}
		snprintf(where, sizeof(where), "lcore %u's cache", l);
		for (i = 0; i < c->oc.len; i++)
			if (audit_mark(sorted, nb, seen, c->oc.objs[i], where,
					msg, len) != 0)
				return -1;
		cached += c->oc.len;
	}
	out = pcpu_pool_out(p);
	if ((int64_t)cached + p->nb_free + out != nb) {
		snprintf(msg, len, "%u cached + %u shared + %" PRId64
			" out (incl. RCU) != %u objects", cached, p->nb_free,
			out, nb);
		return -1;
	}
	/* every object is charged to the pool's owner, and nothing else */
	pcpu_owner_sum(p->owner->id, &charged);
	if (charged.copy_bytes != (uint64_t)nb * p->charge_size ||
	    charged.nr_alloc - charged.nr_free != nb) {
		snprintf(msg, len, "owner %s: %" PRIu64 " objects, %" PRIu64
			" bytes per copy charged; %u objects of %u bytes exist",
			p->owner->name, charged.nr_alloc - charged.nr_free,
			charged.copy_bytes, nb, p->charge_size);
		return -1;
	}
	if (p->out != NULL)
		return audit_debug_table(p, sorted, seen, out, msg, len);
	return 0;
}

int
rte_pcpu_mempool_audit(const struct rte_pcpu_mempool *mp)
{
	struct pcpu_pool *p;
	void **sorted;
	uint8_t *seen;
	char msg[160];
	int ret;

	if (mp == NULL) {
		MP_LOG(ERR, "audit: pool NULL");
		rte_errno = EINVAL;
		return -1;
	}
	if (pcpu_init_eal_gone("rte_pcpu_mempool_audit"))
		return -1;
	p = pcpu_pool(mp);
	/* it stops the lcore caches: the primary's business */
	if (pcpu_proc_secondary()) {
		char arg[PCPU_PROC_OP_ARG_MAX] = { 0 };

		rte_strscpy(arg, p->name, sizeof(arg));
		if (pcpu_proc_call(PCPU_PROC_OP_POOL_AUDIT, arg, NULL, NULL,
				NULL) == 0)
			return 0;
		if (rte_errno == EFAULT)
			MP_LOG(ERR, "audit %s: the primary process found a "
				"broken invariant (its log says which)", p->name);
		return -1;
	}
	sorted = pcpu_fault_malloc((size_t)p->n * sizeof(void *) + 1);
	seen = pcpu_fault_calloc(p->n, 1);
	if (sorted == NULL || seen == NULL) {
		free(sorted);
		free(seen);
		MP_LOG(ERR, "audit %s: no memory for the check", p->name);
		rte_errno = ENOMEM;
		return -1;
	}
	pthread_mutex_lock(&p->lock);
	pcpu_pool_cache_freeze(p, NULL);
	ret = pool_audit_locked(p, sorted, seen, msg, sizeof(msg));
	pcpu_pool_cache_thaw(p, NULL);
	pthread_mutex_unlock(&p->lock);
	free(sorted);
	free(seen);
	if (ret != 0) {
		MP_LOG(ERR, "audit %s: %s", p->name, msg);
		rte_errno = EFAULT;
		return -1;
	}
	return 0;
}

void
pcpu_pool_owner_sums(uint64_t *bytes, uint64_t *objs)
{
	struct pcpu_pool *p;

	pcpu_pool_list_lock();
	PCPU_POOL_FOREACH(p) {
		pthread_mutex_lock(&p->lock);
		bytes[p->owner->id] += (uint64_t)p->nb_objs * p->charge_size;
		objs[p->owner->id] += p->nb_objs;
		pthread_mutex_unlock(&p->lock);
	}
	pcpu_pool_list_unlock();
}

/* ---------------------------------------------------------------------- */
/* Telemetry data (called on the telemetry thread). */

void
pcpu_pool_tel_list(struct rte_tel_data *d)
{
	struct pcpu_pool *p;

	if (pcpu_proc_secondary() && pcpu_proc_attach() != 0)
		return;
	pcpu_pool_list_lock();
	PCPU_POOL_FOREACH(p)
		rte_tel_data_add_array_string(d, p->name);
	pcpu_pool_list_unlock();
}

/* Per-lcore cache fields, one array each, indexed like "lcore_ids". */
enum tel_cache_field {
	TEL_LCORE, TEL_LEN, TEL_LEN_MAX, TEL_GETS, TEL_PUTS, TEL_HITS,
	TEL_MISSES, TEL_REFILLS, TEL_FLUSHES, TEL_STOLEN, TEL_NR_FIELDS
};

static const char * const tel_cache_keys[TEL_NR_FIELDS] = {
	"lcore_ids", "lcore_cache_len", "lcore_cache_len_max", "lcore_gets",
	"lcore_puts", "lcore_hits", "lcore_misses", "lcore_refills",
	"lcore_flushes", "lcore_stolen",
};

/* The pool's own fields (everything but the per-lcore arrays). */
static void
tel_pool_fields(const struct pcpu_pool *p, struct rte_tel_data *d)
{
	const struct rte_pcpu_mempool *mp = &p->pub;
	char owner[RTE_PCPU_OWNER_NAMESIZE];
	struct rte_pcpu_mempool_stats s;

	rte_pcpu_mempool_stats_get(mp, &s);
	snprintf(owner, sizeof(owner), "pool:%s", p->name);
	rte_tel_data_add_dict_string(d, "name", p->name);
	rte_tel_data_add_dict_uint(d, "elt_size", p->elt_size);
	rte_tel_data_add_dict_uint(d, "align", mp->align);
	rte_tel_data_add_dict_uint(d, "n", p->n);
	rte_tel_data_add_dict_uint(d, "cache_size", p->cache_size);
	rte_tel_data_add_dict_uint(d, "flags", p->flags);
	rte_tel_data_add_dict_uint(d, "in_use",
		rte_pcpu_mempool_in_use_count(mp));
	rte_tel_data_add_dict_uint(d, "avail", rte_pcpu_mempool_avail_count(mp));
	rte_tel_data_add_dict_uint(d, "objects",
		__atomic_load_n(&p->nb_objs, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_uint(d, "free_shared",
		__atomic_load_n(&p->nb_free, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_uint(d, "budget_bytes", p->max_bytes);
	rte_tel_data_add_dict_string(d, "owner", owner);
	rte_tel_data_add_dict_uint(d, "charged_bytes", s.charged_bytes);
	rte_tel_data_add_dict_string(d, "init", p->obj_init != NULL ?
		"obj_init" : mp->zero_bytes != 0 ? "zero_on_get" : "none");
	rte_tel_data_add_dict_string(d, "rcu", pool_rcu_name(p));
	rte_tel_data_add_dict_uint(d, "get_success", s.get_success);
	rte_tel_data_add_dict_uint(d, "get_fail", s.get_fail);
	rte_tel_data_add_dict_uint(d, "get_fail_budget", s.get_fail_budget);
	rte_tel_data_add_dict_uint(d, "put", s.put);
	rte_tel_data_add_dict_uint(d, "cache_hits", s.cache_hits);
	rte_tel_data_add_dict_uint(d, "cache_misses", s.cache_misses);
	rte_tel_data_add_dict_uint(d, "put_refused", s.put_refused);
	rte_tel_data_add_dict_uint(d, "rcu_pending", s.rcu_pending);
	rte_tel_data_add_dict_uint(d, "steals", pcpu_pool_stat_read(&p->steals));
	/* watermarks: flush above cache_size, refill/flush to half */
	rte_tel_data_add_dict_uint(d, "cache_high_watermark", p->cache_size);
	rte_tel_data_add_dict_uint(d, "cache_low_watermark", p->cache_size / 2);
}

int
pcpu_pool_tel_info(const char *name, struct rte_tel_data *d)
{
	struct rte_tel_data *arr[TEL_NR_FIELDS] = { NULL };
	const struct rte_pcpu_mempool_cache *c;
	struct pcpu_pool *p;
	unsigned int l, f;
	int ret = 0;

	for (f = 0; f < TEL_NR_FIELDS; f++) {
		arr[f] = rte_tel_data_alloc();
		if (arr[f] == NULL) {
			ret = -ENOMEM;
			goto out_free;
		}
		rte_tel_data_start_array(arr[f], RTE_TEL_UINT_VAL);
	}
	if (pcpu_proc_secondary() && pcpu_proc_attach() != 0) {
		ret = -ENOENT;
		goto out_free;
	}
	pcpu_pool_list_lock();
	p = pcpu_pool_find(name);
	if (p == NULL) {
		pcpu_pool_list_unlock();
		ret = -ENOENT;
		goto out_free;
	}
	tel_pool_fields(p, d);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		c = __atomic_load_n(&p->caches[l], __ATOMIC_ACQUIRE);
		if (c == NULL)
			continue;
		rte_tel_data_add_array_uint(arr[TEL_LCORE], l);
		rte_tel_data_add_array_uint(arr[TEL_LEN],
			__atomic_load_n(&c->oc.len, __ATOMIC_RELAXED));
		rte_tel_data_add_array_uint(arr[TEL_LEN_MAX],
			__atomic_load_n(&c->len_max, __ATOMIC_RELAXED));
		rte_tel_data_add_array_uint(arr[TEL_GETS],
			pcpu_pool_stat_read(&c->oc.nr_get));
		rte_tel_data_add_array_uint(arr[TEL_PUTS],
			pcpu_pool_stat_read(&c->oc.nr_put));
		rte_tel_data_add_array_uint(arr[TEL_HITS], pool_cache_hits(c));
		rte_tel_data_add_array_uint(arr[TEL_MISSES],
			pcpu_pool_stat_read(&c->misses));
		rte_tel_data_add_array_uint(arr[TEL_REFILLS],
			pcpu_pool_stat_read(&c->oc.nr_refill));
		rte_tel_data_add_array_uint(arr[TEL_FLUSHES],
			pcpu_pool_stat_read(&c->oc.nr_flush));
		rte_tel_data_add_array_uint(arr[TEL_STOLEN],
			pcpu_pool_stat_read(&c->stolen));
	}
	pcpu_pool_list_unlock();
	for (f = 0; f < TEL_NR_FIELDS; f++) {
		/* keep = 0: d takes ownership */
		if (rte_tel_data_add_dict_container(d, tel_cache_keys[f],
				arr[f], 0) != 0)
			rte_tel_data_free(arr[f]);
		arr[f] = NULL;
	}
	return 0;

out_free:
	for (f = 0; f < TEL_NR_FIELDS; f++)
		rte_tel_data_free(arr[f]);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The primary's side of a secondary's audit (on its pcpu-mp thread). */

static int
pool_serve_audit(const void *arg, void *out __rte_unused,
		FILE *data __rte_unused)
{
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
	struct rte_pcpu_mempool *mp;

	rte_strscpy(name, arg, sizeof(name));
	mp = rte_pcpu_mempool_lookup(name);
	if (mp == NULL)
		return -1;
	return rte_pcpu_mempool_audit(mp);
}

static struct pcpu_proc_op pool_audit_op = {
	.id = PCPU_PROC_OP_POOL_AUDIT,
	.serve = pool_serve_audit,
};

RTE_INIT(pcpu_pool_ops_register)
{
	pcpu_proc_op_register(&pool_audit_op);
}
