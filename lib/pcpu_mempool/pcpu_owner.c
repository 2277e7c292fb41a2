/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Owners and their charges (rte_pcpu_owner.h): the records, the counters
 * and the limits. pcpu_owner.h says how the counters work and what the
 * ids mean; the layers that hand objects to users call the charge
 * functions, the public entry points (pcpu_front_owner.c) the rest.
 *
 * Records are a fixed table indexed by id, so that an owner's pointer is
 * checked by arithmetic before it is read (pcpu_owner_valid()) and a
 * record never moves or goes away while the library is set up: a freed
 * owner's record is reused by a later owner with the same id.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"

struct pcpu_owners pcpu_owners = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The caches' runs (set by the caches' set-up, before any allocation). */
static const struct pcpu_owner_pending_ops *owner_pending;

void
pcpu_owner_pending_register(const struct pcpu_owner_pending_ops *ops)
{
	__atomic_store_n(&owner_pending, ops, __ATOMIC_RELEASE);
}

#define OWNER_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static const char *
owner_kind_name(uint32_t kind)
{
	switch (kind) {
	case PCPU_OWNER_KIND_ROOT: return "the root owner, which always exists";
	case PCPU_OWNER_KIND_POOL:
		return "an rte_pcpu_mempool's owner, freed with its pool";
	case PCPU_OWNER_KIND_MEMPOOL:
		return "an rte_mempool's owner, freed with its pool";
	default: return "an owner";
	}
}

/* Raise the peak to @p copy bytes per copy (a signed view: an unlimited
 * owner's shared count may be below zero for a while). */
static void
owner_peak(struct rte_pcpu_owner *o, uint64_t copy)
{
	uint64_t p = OWNER_READ(o->peak_copy);

	while ((int64_t)copy > (int64_t)p &&
	       !__atomic_compare_exchange_n(&o->peak_copy, &p, copy, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* ---------------------------------------------------------------------- */
/* Set-up. */

int
pcpu_owner_init(void)
{
	struct rte_pcpu_owner *root = &pcpu_owners.rec[PCPU_OWNER_ROOT];
	uint32_t id;

	pthread_mutex_lock(&pcpu_owners.lock);
	if (pcpu_owners.initialised) {
		pthread_mutex_unlock(&pcpu_owners.lock);
		return -1;
	}
	for (id = 0; id < PCPU_OWNER_NB; id++)
		pcpu_owners.rec[id].id = id;
	rte_strscpy(root->name, RTE_PCPU_OWNER_ROOT_NAME, sizeof(root->name));
	__atomic_store_n(&root->kind, PCPU_OWNER_KIND_ROOT, __ATOMIC_RELEASE);
	pcpu_owners.initialised = 1;
	pthread_mutex_unlock(&pcpu_owners.lock);
	return 0;
}

void
pcpu_owner_cleanup(void)
{
	unsigned int l;

	pthread_mutex_lock(&pcpu_owners.lock);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		rte_free(pcpu_owners.lcores[l]);
		pcpu_owners.lcores[l] = NULL;
	}
	memset(pcpu_owners.rec, 0, sizeof(pcpu_owners.rec));
	pcpu_owners.initialised = 0;
	pthread_mutex_unlock(&pcpu_owners.lock);
}

struct pcpu_owner_lcore *
pcpu_owner_lcore_counters(unsigned int lcore_id)
{
	struct pcpu_owner_lcore *lc;
	unsigned int socket;

	if (lcore_id >= RTE_MAX_LCORE)
		return NULL;
	lc = __atomic_load_n(&pcpu_owners.lcores[lcore_id], __ATOMIC_ACQUIRE);
	if (likely(lc != NULL))
		return lc;
	pthread_mutex_lock(&pcpu_owners.lock);
	lc = pcpu_owners.lcores[lcore_id];
	if (lc == NULL && pcpu_owners.initialised) {
		socket = rte_lcore_to_socket_id(lcore_id);
		lc = pcpu_fault_rte_zmalloc_socket("pcpu_owner_lcore",
			PCPU_OWNER_NB * sizeof(*lc), RTE_CACHE_LINE_SIZE,
			socket < RTE_MAX_NUMA_NODES ? (int)socket :
			SOCKET_ID_ANY);
		if (lc == NULL)
			lc = pcpu_fault_rte_zmalloc("pcpu_owner_lcore",
				PCPU_OWNER_NB * sizeof(*lc), RTE_CACHE_LINE_SIZE);
		if (lc == NULL)
			PCPU_LOG(WARNING, "owners: no memory for lcore %u's "
				"counters: it charges the shared ones", lcore_id);
		else
			__atomic_store_n(&pcpu_owners.lcores[lcore_id], lc,
				__ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pcpu_owners.lock);
	return lc;
}

/* ---------------------------------------------------------------------- */
/* Records. */

static struct rte_pcpu_owner *
owner_find_locked(const char *name)
{
	uint32_t id;

	for (id = PCPU_OWNER_ROOT; id < PCPU_OWNER_NB; id++) {
		struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

		if (o->kind != PCPU_OWNER_KIND_FREE &&
		    strncmp(o->name, name, sizeof(o->name)) == 0)
			return o;
	}
	return NULL;
}

struct rte_pcpu_owner *
pcpu_owner_find(const char *name)
{
	struct rte_pcpu_owner *o;

	pthread_mutex_lock(&pcpu_owners.lock);
	o = pcpu_owners.initialised ? owner_find_locked(name) : NULL;
	pthread_mutex_unlock(&pcpu_owners.lock);
	return o;
}

/* Zero a record's counters and every lcore's. Owners' lock held, nobody
 * charges it. */
static void
owner_reset_counters(struct rte_pcpu_owner *o)
{
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (pcpu_owners.lcores[l] != NULL)
			memset(&pcpu_owners.lcores[l][o->id], 0,
				sizeof(struct pcpu_owner_lcore));
	o->copy_bytes = 0;
	o->peak_copy = 0;
	o->nr_fail = 0;
	o->other_alloc = 0;
	o->other_free = 0;
}

struct rte_pcpu_owner *
pcpu_owner_create(const char *name, uint64_t limit, enum pcpu_owner_kind kind)
{
	uint32_t id = limit != 0 ? PCPU_OWNER_LIMITED : PCPU_OWNER_ROOT + 1;
	uint32_t end = limit != 0 ? PCPU_OWNER_NB : PCPU_OWNER_LIMITED;
	const struct pcpu_owner_pending_ops *pending;
	struct rte_pcpu_owner *o;
	int err;

	pthread_mutex_lock(&pcpu_owners.lock);
	if (!pcpu_owners.initialised) {
		PCPU_LOG(ERR, "owner create %s: allocator not set up", name);
		err = EINVAL;
		goto fail;
	}
	if (owner_find_locked(name) != NULL) {
		PCPU_LOG(ERR, "owner create: %s exists", name);
		err = EEXIST;
		goto fail;
	}
	/* a free id no run of the caches refers to any more */
	pending = __atomic_load_n(&owner_pending, __ATOMIC_ACQUIRE);
	while (id < end && (pcpu_owners.rec[id].kind != PCPU_OWNER_KIND_FREE ||
			(pending != NULL && pending->referenced(id))))
		id++;
	if (id == end) {
		PCPU_LOG(ERR, "owner create %s: all %u owners %s a limit exist",
			name, limit != 0 ? RTE_PCPU_OWNER_MAX_LIMITED :
			RTE_PCPU_OWNER_MAX_UNLIMITED, limit != 0 ? "with" :
			"without");
		err = ENOSPC;
		goto fail;
	}
	/* counters from zero: runs of its last owner credited after its
	 * free land here */
	o = &pcpu_owners.rec[id];
	owner_reset_counters(o);
	o->limit = limit;
	rte_strscpy(o->name, name, sizeof(o->name));
	__atomic_store_n(&o->kind, kind, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pcpu_owners.lock);
	PCPU_LOG(DEBUG, "owner %s created: id %u, limit %" PRIu64 " bytes",
		name, id, limit);
	return o;
fail:
	pthread_mutex_unlock(&pcpu_owners.lock);
	rte_errno = err;
	return NULL;
}

int
pcpu_owner_free(struct rte_pcpu_owner *o, unsigned int kinds)
{
	struct pcpu_owner_sum s;
	int err;

	pthread_mutex_lock(&pcpu_owners.lock);
	if (pcpu_owner_valid(o) == NULL) {
		PCPU_LOG(ERR, "owner free: %p is not an owner", (const void *)o);
		err = EINVAL;
		goto fail;
	}
	if (!(kinds & (1u << o->kind))) {
		PCPU_LOG(ERR, "owner free: %s is %s", o->name,
			owner_kind_name(o->kind));
		err = EPERM;
		goto fail;
	}
	pcpu_owner_sum(o->id, &s);
	if (s.nr_alloc != s.nr_free || s.copy_bytes != 0) {
		PCPU_LOG(ERR, "owner free: %s has live allocations: %" PRIu64
			", %" PRIu64 " bytes per lcore copy", o->name,
			s.nr_alloc - s.nr_free, s.copy_bytes);
		err = EBUSY;
		goto fail;
	}
	/* nobody charges it any more (its runs in the caches may still be
	 * credited: the next owner with this id resets the counters) */
	__atomic_store_n(&o->kind, PCPU_OWNER_KIND_FREE, __ATOMIC_RELEASE);
	owner_reset_counters(o);
	o->limit = 0;
	memset(o->name, 0, sizeof(o->name));
	pthread_mutex_unlock(&pcpu_owners.lock);
	return 0;
fail:
	pthread_mutex_unlock(&pcpu_owners.lock);
	rte_errno = err;
	return -1;
}

void
pcpu_owner_mirror(const struct pcpu_owner_mirror *m, unsigned int n)
{
	struct rte_pcpu_owner *o;
	unsigned int i;
	uint32_t id;

	pthread_mutex_lock(&pcpu_owners.lock);
	for (id = 0; id < PCPU_OWNER_NB; id++) {
		o = &pcpu_owners.rec[id];
		__atomic_store_n(&o->kind, PCPU_OWNER_KIND_FREE,
			__ATOMIC_RELEASE);
		o->id = id;
	}
	for (i = 0; i < n; i++) {
		if (m[i].id == PCPU_OWNER_NONE || m[i].id >= PCPU_OWNER_NB ||
		    m[i].kind == PCPU_OWNER_KIND_FREE)
			continue;
		o = &pcpu_owners.rec[m[i].id];
		o->limit = m[i].limit;
		rte_strscpy(o->name, m[i].name, sizeof(o->name));
		__atomic_store_n(&o->kind, m[i].kind, __ATOMIC_RELEASE);
	}
	pcpu_owners.initialised = 1;
	pthread_mutex_unlock(&pcpu_owners.lock);
}

void
pcpu_owner_walk(void (*fn)(struct rte_pcpu_owner *o, void *arg), void *arg)
{
	uint32_t id;

	pthread_mutex_lock(&pcpu_owners.lock);
	for (id = PCPU_OWNER_ROOT; id < PCPU_OWNER_NB; id++)
		if (pcpu_owners.rec[id].kind != PCPU_OWNER_KIND_FREE)
			fn(&pcpu_owners.rec[id], arg);
	pthread_mutex_unlock(&pcpu_owners.lock);
}

/* ---------------------------------------------------------------------- */
/* Charges. */

int
pcpu_owner_charge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr)
{
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];
	uint64_t nl = pcpu_owner_nr_lcores();
	uint64_t cur = OWNER_READ(o->copy_bytes);

	do {
		if ((cur + bytes) * nl > o->limit) {
			__atomic_fetch_add(&o->nr_fail, 1, __ATOMIC_RELAXED);
			rte_errno = ENOMEM;
			return -1;
		}
	} while (!__atomic_compare_exchange_n(&o->copy_bytes, &cur,
			cur + bytes, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	owner_peak(o, cur + bytes);
	if (lc != NULL)
		PCPU_OWNER_STAT_ADD(lc[id].nr_alloc, nr);
	else
		__atomic_fetch_add(&o->other_alloc, nr, __ATOMIC_RELAXED);
	return 0;
}

void
pcpu_owner_uncharge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr, int refund)
{
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

	__atomic_fetch_sub(&o->copy_bytes, bytes, __ATOMIC_RELAXED);
	if (lc != NULL) {
		if (refund)
			PCPU_OWNER_STAT_ADD(lc[id].nr_alloc, -(uint64_t)nr);
		else
			PCPU_OWNER_STAT_ADD(lc[id].nr_free, nr);
	} else {
		__atomic_fetch_add(refund ? &o->other_alloc : &o->other_free,
			refund ? -(uint64_t)nr : nr, __ATOMIC_RELAXED);
	}
}

void
pcpu_owner_peak_sample(struct pcpu_owner_lcore *c, uint32_t id)
{
	struct pcpu_owner_sum s;

	/* raises the peak to the sum of every lcore's count */
	pcpu_owner_sum(id, &s);
	c->peak_at = c->bytes + PCPU_OWNER_PEAK_STEP;
}

int
pcpu_owner_charge_slow(uint32_t id, uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_lcore *lc = pcpu_owner_lcore_counters(rte_lcore_id());
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

	if (lc != NULL)
		return pcpu_owner_charge(lc, id, bytes, nr);
	if (id >= PCPU_OWNER_LIMITED)
		return pcpu_owner_charge_limited(NULL, id, bytes, nr);
	__atomic_fetch_add(&o->other_alloc, nr, __ATOMIC_RELAXED);
	owner_peak(o, __atomic_add_fetch(&o->copy_bytes, bytes,
		__ATOMIC_RELAXED));
	return 0;
}

void
pcpu_owner_uncharge_slow(uint32_t id, uint64_t bytes, uint32_t nr, int refund)
{
	struct pcpu_owner_lcore *lc = pcpu_owner_self();
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

	if (id == PCPU_OWNER_NONE)
		return;
	if (id >= PCPU_OWNER_LIMITED) {
		pcpu_owner_uncharge_limited(lc, id, bytes, nr, refund);
	} else if (lc != NULL) {
		struct pcpu_owner_lcore *c = &lc[id];

		if (refund)
			PCPU_OWNER_STAT_ADD(c->nr_alloc, -(uint64_t)nr);
		else
			PCPU_OWNER_STAT_ADD(c->nr_free, nr);
		PCPU_OWNER_STAT_ADD(c->bytes, -(int64_t)bytes);
	} else {
		__atomic_fetch_add(refund ? &o->other_alloc : &o->other_free,
			refund ? -(uint64_t)nr : nr, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&o->copy_bytes, bytes, __ATOMIC_RELAXED);
	}
}

void
pcpu_owner_count_fail(uint32_t id)
{
	__atomic_fetch_add(&pcpu_owners.rec[id].nr_fail, 1, __ATOMIC_RELAXED);
}

uint32_t
pcpu_owner_charge_upto(uint32_t id, uint64_t bytes, uint32_t need,
		uint32_t want)
{
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];
	struct pcpu_owner_lcore *lc;
	uint64_t nl, cap, cur, k;

	if (want == 0)
		return 0;
	if (id < PCPU_OWNER_LIMITED)
		return pcpu_owner_charge_any(id, bytes * want, want) == 0 ?
			want : 0;
	nl = pcpu_owner_nr_lcores();
	/* (cur + k x bytes) x nl <= limit <=> cur + k x bytes <= limit / nl */
	cap = nl != 0 ? o->limit / nl : UINT64_MAX;
	cur = OWNER_READ(o->copy_bytes);
	do {
		k = cur >= cap ? 0 : bytes == 0 ? want :
			RTE_MIN((cap - cur) / bytes, (uint64_t)want);
		if (k < need || k == 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&o->copy_bytes, &cur,
			cur + k * bytes, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	owner_peak(o, cur + k * bytes);
	lc = pcpu_owner_lcore_counters(rte_lcore_id());
	if (lc != NULL)
		PCPU_OWNER_STAT_ADD(lc[id].nr_alloc, k);
	else
		__atomic_fetch_add(&o->other_alloc, k, __ATOMIC_RELAXED);
	return (uint32_t)k;
}

/* ---------------------------------------------------------------------- */
/* Reading. */

void
pcpu_owner_sum(uint32_t id, struct pcpu_owner_sum *s)
{
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];
	const struct pcpu_owner_pending_ops *pending;
	unsigned int l;

	s->copy_bytes = OWNER_READ(o->copy_bytes);
	s->nr_alloc = OWNER_READ(o->other_alloc);
	s->nr_free = OWNER_READ(o->other_free);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const struct pcpu_owner_lcore *lc = __atomic_load_n(
			&pcpu_owners.lcores[l], __ATOMIC_ACQUIRE);

		if (lc == NULL)
			continue;
		/* an owner with a limit keeps no bytes here: they are 0 */
		s->copy_bytes += (uint64_t)OWNER_READ(lc[id].bytes);
		s->nr_alloc += OWNER_READ(lc[id].nr_alloc);
		s->nr_free += OWNER_READ(lc[id].nr_free);
	}
	pending = __atomic_load_n(&owner_pending, __ATOMIC_ACQUIRE);
	if (pending != NULL)
		pending->add(id, s);
	owner_peak(o, s->copy_bytes);
}

void
pcpu_owner_stats(const struct rte_pcpu_owner *o,
		struct rte_pcpu_owner_stats *st)
{
	struct pcpu_owner_sum s;
	unsigned int l, socket;
	uint64_t w;

	memset(st, 0, sizeof(*st));
	pcpu_owner_sum(o->id, &s);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		w = __atomic_load_n(&rte_pcpu_shared.lcore_mask[l / 64],
			__ATOMIC_ACQUIRE);
		if (!((w >> (l % 64)) & 1))
			continue;
		/* as the allocator files the lcore's pages */
		socket = rte_lcore_to_socket_id(l);
		st->live_bytes_socket[socket < RTE_MAX_NUMA_NODES ? socket : 0] +=
			s.copy_bytes;
		st->nr_lcores++;
	}
	st->live_copy_bytes = s.copy_bytes;
	st->live_bytes = s.copy_bytes * st->nr_lcores;
	st->peak_bytes = OWNER_READ(o->peak_copy) * st->nr_lcores;
	st->limit_bytes = o->limit;
	st->nr_alloc = s.nr_alloc;
	st->nr_free = s.nr_free;
	st->nr_live = s.nr_alloc - s.nr_free;
	st->nr_fail = OWNER_READ(o->nr_fail);
	st->id = o->id;
}
