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
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
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

static void owner_drain_locked(uint32_t id);

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

/*
 * What a sum of @p o's counters, @p copy bytes per copy, may raise its
 * peak to. The sum adds the lcores' counters one after the other while
 * they change: an allocation counted on one lcore after a free counted
 * before on another makes it higher than the live bytes ever were. An
 * owner with a limit reserves every byte before it is counted live and
 * unreserves it only after its free is counted, so its reservation, read
 * after the sum, bounds what was live meanwhile: the peak never shows more
 * than the limit let through. The sum of an owner without a limit is kept.
 */
static uint64_t
owner_peak_bound(const struct rte_pcpu_owner *o, uint64_t copy)
{
	uint64_t reserved;

	if (o->id < PCPU_OWNER_LIMITED)
		return copy;
	reserved = __atomic_load_n(&o->reserved, __ATOMIC_ACQUIRE);
	return (int64_t)copy > (int64_t)reserved ? reserved : copy;
}

/* How far a count rises before it samples @p o's peak again (see
 * pcpu_owner.h): PCPU_OWNER_PEAK_STEP, or for an owner with a smaller
 * limit a sixteenth of its limit per copy shared among the lcores. */
static int64_t
owner_peak_step(const struct rte_pcpu_owner *o)
{
	uint64_t nl;

	if (o->limit == 0)
		return PCPU_OWNER_PEAK_STEP;
	nl = RTE_MAX(pcpu_owner_nr_lcores(), 1u);
	return RTE_MIN(PCPU_OWNER_PEAK_STEP,
		(int64_t)(o->limit / nl / 16 / nl) + 1);
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
	pcpu_owner_kind_set(root, PCPU_OWNER_KIND_ROOT);
	pcpu_owners.initialised = 1;
	pthread_mutex_unlock(&pcpu_owners.lock);
	return 0;
}

/* The alloc_id of a record of id @p id and kind @p kind: its id if
 * rte_pcpu_alloc_owner() may charge it (the root, a user's owner). */
static uint32_t
owner_alloc_id_of(uint32_t id, uint32_t kind)
{
	return kind == PCPU_OWNER_KIND_ROOT || kind == PCPU_OWNER_KIND_USER ?
		id : PCPU_OWNER_NONE;
}

void
pcpu_owner_kind_set(struct rte_pcpu_owner *o, uint32_t kind)
{
	uint32_t alloc_id = owner_alloc_id_of(o->id, kind);

	if (alloc_id == PCPU_OWNER_NONE)
		__atomic_store_n(&o->alloc_id, PCPU_OWNER_NONE,
			__ATOMIC_RELEASE);
	__atomic_store_n(&o->kind, kind, __ATOMIC_RELEASE);
	if (alloc_id != PCPU_OWNER_NONE)
		__atomic_store_n(&o->alloc_id, alloc_id, __ATOMIC_RELEASE);
}

void
pcpu_owner_cleanup(void)
{
	unsigned int l;

	pthread_mutex_lock(&pcpu_owners.lock);
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		if (pcpu_owners.lcores[l] != NULL)
			rte_free(pcpu_owner_stock_of(pcpu_owners.lcores[l]));
		pcpu_owners.lcores[l] = NULL;
	}
	memset(pcpu_owners.rec, 0, sizeof(pcpu_owners.rec));
	pcpu_owners.initialised = 0;
	pthread_mutex_unlock(&pcpu_owners.lock);
}

/* One lcore's stock and counters: the stock first, the counters in the
 * lines after it. */
#define OWNER_LCORE_AREA (sizeof(struct pcpu_owner_stock) + \
	PCPU_OWNER_NB * sizeof(struct pcpu_owner_lcore))

struct pcpu_owner_lcore *
pcpu_owner_lcore_counters(unsigned int lcore_id)
{
	struct pcpu_owner_stock *st = NULL;
	struct pcpu_owner_lcore *lc;
	unsigned int socket;

	RTE_BUILD_BUG_ON(sizeof(struct pcpu_owner_stock) %
		RTE_CACHE_LINE_SIZE != 0);
	if (lcore_id >= RTE_MAX_LCORE)
		return NULL;
	lc = __atomic_load_n(&pcpu_owners.lcores[lcore_id], __ATOMIC_ACQUIRE);
	if (likely(lc != NULL))
		return lc;
	pthread_mutex_lock(&pcpu_owners.lock);
	lc = pcpu_owners.lcores[lcore_id];
	if (lc == NULL && pcpu_owners.initialised) {
		socket = rte_lcore_to_socket_id(lcore_id);
		st = pcpu_fault_rte_zmalloc_socket("pcpu_owner_lcore",
			OWNER_LCORE_AREA, RTE_CACHE_LINE_SIZE,
			socket < RTE_MAX_NUMA_NODES ? (int)socket :
			SOCKET_ID_ANY);
		if (st == NULL)
			st = pcpu_fault_rte_zmalloc("pcpu_owner_lcore",
				OWNER_LCORE_AREA, RTE_CACHE_LINE_SIZE);
		if (st == NULL) {
			PCPU_LOG(WARNING, "owners: no memory for lcore %u's "
				"counters: it charges the shared ones", lcore_id);
		} else {
			lc = (struct pcpu_owner_lcore *)(void *)(st + 1);
			__atomic_store_n(&pcpu_owners.lcores[lcore_id], lc,
				__ATOMIC_RELEASE);
		}
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
	o->reserved = 0;
	o->peak_copy = 0;
	o->nr_fail = 0;
	o->other_alloc = 0;
	o->other_free = 0;
	o->other_peak_at = 0;
	o->other_sampling = 0;
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
	pcpu_owner_kind_set(o, kind);
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
	 * credited: the next owner with this id resets the counters); what
	 * the stocks hold for it goes back, so that no slot keeps its id */
	pcpu_owner_kind_set(o, PCPU_OWNER_KIND_FREE);
	if (o->id >= PCPU_OWNER_LIMITED)
		owner_drain_locked(o->id);
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
		o->id = id;
		pcpu_owner_kind_set(o, PCPU_OWNER_KIND_FREE);
	}
	for (i = 0; i < n; i++) {
		if (m[i].id == PCPU_OWNER_NONE || m[i].id >= PCPU_OWNER_NB ||
		    m[i].kind == PCPU_OWNER_KIND_FREE)
			continue;
		o = &pcpu_owners.rec[m[i].id];
		o->limit = m[i].limit;
		rte_strscpy(o->name, m[i].name, sizeof(o->name));
		pcpu_owner_kind_set(o, m[i].kind);
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

/* Owner @p o's limit per copy: (reserved + b) x nl <= limit <=>
 * reserved + b <= limit / nl. */
static uint64_t
owner_cap(const struct rte_pcpu_owner *o, uint64_t nl)
{
	return nl != 0 ? o->limit / nl : UINT64_MAX;
}

/*
 * Reserve as many lots of @p bytes per copy against owner @p o's limit as
 * fit, at most @p want, and @p extra bytes more if room is left after
 * them (the stock's batch: up to @p extra, and at most half the room left
 * per lcore with memory). Lock-free.
 * @return The lots reserved (0 when fewer than @p need fit: nothing
 *   reserved); *extra_got: the extra bytes reserved.
 */
static uint32_t
owner_reserve(struct rte_pcpu_owner *o, uint64_t bytes, uint32_t need,
		uint32_t want, uint64_t extra, uint64_t *extra_got)
{
	uint64_t nl = pcpu_owner_nr_lcores(), cap = owner_cap(o, nl);
	uint64_t cur = OWNER_READ(o->reserved), k, x;

	do {
		k = cur >= cap ? 0 : bytes == 0 ? want :
			RTE_MIN((cap - cur) / bytes, (uint64_t)want);
		if (k < need || k == 0)
			return 0;
		x = cap - cur - k * bytes;
		x = RTE_MIN(extra, x / (2 * RTE_MAX(nl, UINT64_C(1))));
	} while (!__atomic_compare_exchange_n(&o->reserved, &cur,
			cur + k * bytes + x, 0, __ATOMIC_RELAXED,
			__ATOMIC_RELAXED));
	if (extra_got != NULL)
		*extra_got = x;
	return (uint32_t)k;
}

/* What the runs of the size-class caches of lcore @p l hold for owner
 * @p id (PCPU_OWNER_NONE: for any): a part of the lcore's stock. */
static uint64_t
owner_runs_held(uint32_t id, unsigned int l)
{
	const struct pcpu_owner_pending_ops *pending =
		__atomic_load_n(&owner_pending, __ATOMIC_ACQUIRE);

	return pending != NULL && pending->held != NULL ?
		pending->held(id, l) : 0;
}

/* What the lcores' stocks (their slots and the caches' runs) hold for
 * owner @p id (racy: a hint). */
static uint64_t
owner_stocked(uint32_t id)
{
	const struct pcpu_owner_stock_slot *sl;
	uint64_t sum = 0;
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct pcpu_owner_lcore *lc = __atomic_load_n(
			&pcpu_owners.lcores[l], __ATOMIC_ACQUIRE);

		if (lc == NULL)
			continue;
		sl = &pcpu_owner_stock_of(lc)->slot[id % PCPU_OWNER_STOCK_SLOTS];
		if (__atomic_load_n(&sl->id, __ATOMIC_RELAXED) == id)
			sum += __atomic_load_n(&sl->bytes, __ATOMIC_RELAXED);
		sum += owner_runs_held(id, l);
	}
	return sum;
}

/* Whether slot @p sl holds something a drain of @p id (PCPU_OWNER_NONE:
 * of every owner) takes back. */
static int
owner_slot_drained(const struct pcpu_owner_stock_slot *sl, uint32_t id)
{
	uint32_t held = __atomic_load_n(&sl->id, __ATOMIC_RELAXED);

	return held != PCPU_OWNER_NONE && (id == PCPU_OWNER_NONE || held == id);
}

/*
 * Take back what every lcore's stock holds for owner @p id (or, with
 * PCPU_OWNER_NONE, for every owner) into the reservations: the drainer's
 * side of the handshake of pcpu_fence.h. Owners' lock held; the caller is
 * in no stock.
 */
static void
owner_drain_locked(uint32_t id)
{
	const struct pcpu_owner_pending_ops *pending =
		__atomic_load_n(&owner_pending, __ATOMIC_ACQUIRE);
	struct pcpu_owner_stock *st[RTE_MAX_LCORE];
	unsigned int lcore[RTE_MAX_LCORE];
	struct pcpu_owner_stock_slot *sl;
	unsigned int l, n = 0, i, k, spins;
	int phase1 = 0;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		if (pcpu_owners.lcores[l] == NULL)
			continue;
		st[n] = pcpu_owner_stock_of(pcpu_owners.lcores[l]);
		/* a slot that takes the owner after this look was filled
		 * by a reservation made after it: nothing to take back */
		for (k = 0; k < PCPU_OWNER_STOCK_SLOTS; k++)
			if (owner_slot_drained(&st[n]->slot[k], id))
				break;
		if (k == PCPU_OWNER_STOCK_SLOTS && owner_runs_held(id, l) == 0)
			continue;
		lcore[n] = l;
		__atomic_store_n(&st[n]->drain, 1, __ATOMIC_RELAXED);
		n++;
	}
	if (n == 0)
		return;
	pcpu_fence_heavy();
	for (i = 0; i < n; i++) {
		spins = 0;
		while (__atomic_load_n(&st[i]->busy, __ATOMIC_ACQUIRE) != 0) {
			/* the lcore may be preempted: let it run */
			if (++spins < 64)
				rte_pause();
			else
				sched_yield();
		}
		for (k = 0; k < PCPU_OWNER_STOCK_SLOTS; k++) {
			sl = &st[i]->slot[k];
			if (!owner_slot_drained(sl, id))
				continue;
			pcpu_owner_unreserve(sl->id, sl->bytes);
			__atomic_store_n(&sl->bytes, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&sl->id, PCPU_OWNER_NONE,
				__ATOMIC_RELAXED);
		}
		if (pending != NULL && pending->drain != NULL &&
		    pending->drain(id, lcore[i], 0) != 0)
			phase1 = 1;
	}
	if (phase1) {
		pcpu_fence_heavy();
		for (i = 0; i < n; i++)
			pending->drain(id, lcore[i], 1);
	}
	for (i = 0; i < n; i++)
		__atomic_store_n(&st[i]->drain, 0, __ATOMIC_RELEASE);
}

void
pcpu_owner_lcores_grew(void)
{
	pthread_mutex_lock(&pcpu_owners.lock);
	owner_drain_locked(PCPU_OWNER_NONE);
	pthread_mutex_unlock(&pcpu_owners.lock);
}

/*
 * Reserve @p need to @p want lots of @p bytes for owner @p o exactly (no
 * batch). When fewer than @p need fit and the stocks hold what is
 * missing, drain them and try again: a failure then means the live
 * bytes leave no room. The caller is in no stock.
 */
static uint32_t
owner_reserve_exact(struct rte_pcpu_owner *o, uint64_t bytes, uint32_t need,
		uint32_t want)
{
	uint64_t nl, cap, cur;
	uint32_t k;

	k = owner_reserve(o, bytes, need, want, 0, NULL);
	if (k != 0)
		return k;
	nl = pcpu_owner_nr_lcores();
	cap = owner_cap(o, nl);
	cur = OWNER_READ(o->reserved);
	/* the stocks cannot make room for @p need lots: no drain */
	if (cur + need * bytes > cap + owner_stocked(o->id))
		return 0;
	pthread_mutex_lock(&pcpu_owners.lock);
	owner_drain_locked(o->id);
	pthread_mutex_unlock(&pcpu_owners.lock);
	return owner_reserve(o, bytes, need, want, 0, NULL);
}

/*
 * Count @p nr allocations of @p bytes per copy (charged already: reserved,
 * for an owner with a limit) on the counters of the lcore @p lc, or on
 * the owner's shared ones for a thread without (NULL).
 */
static void
owner_count_alloc_any(struct rte_pcpu_owner *o, struct pcpu_owner_lcore *lc,
		uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_sum s;
	uint64_t shared;

	if (lc != NULL) {
		pcpu_owner_count_alloc(lc, o->id, bytes, nr);
		return;
	}
	__atomic_fetch_add(&o->other_alloc, nr, __ATOMIC_RELAXED);
	shared = __atomic_add_fetch(&o->copy_bytes, bytes, __ATOMIC_RELAXED);
	/* modulo 2^64, as the count: it may be below zero. One sampler at a
	 * time (another's sum covers this allocation or counts it towards
	 * the next step). The mark moves by an add, not a store, so that
	 * the frees other such threads subtract meanwhile stay subtracted;
	 * a free between the two loads below is subtracted twice, which
	 * only brings the next sample closer. */
	if ((int64_t)(shared - OWNER_READ(o->other_peak_at)) >= 0 &&
	    !__atomic_exchange_n(&o->other_sampling, 1, __ATOMIC_ACQUIRE)) {
		uint64_t mark = OWNER_READ(o->other_peak_at);
		uint64_t now = OWNER_READ(o->copy_bytes);

		pcpu_owner_sum(o->id, &s);
		__atomic_fetch_add(&o->other_peak_at,
			now + (uint64_t)owner_peak_step(o) - mark,
			__ATOMIC_RELAXED);
		__atomic_store_n(&o->other_sampling, 0, __ATOMIC_RELEASE);
	}
}

/* Count @p nr frees (@p refund 0) or failed allocations taken back (1) of
 * @p bytes per copy, as owner_count_alloc_any() counts allocations. */
static void
owner_count_free_any(struct rte_pcpu_owner *o, struct pcpu_owner_lcore *lc,
		uint64_t bytes, uint32_t nr, int refund)
{
	if (lc != NULL && !refund) {
		pcpu_owner_count_free(lc, o->id, bytes, nr);
	} else if (lc != NULL) {
		PCPU_OWNER_STAT_ADD(lc[o->id].nr_alloc, -(uint64_t)nr);
		PCPU_OWNER_STAT_ADD(lc[o->id].bytes, -(int64_t)bytes);
	} else {
		__atomic_fetch_add(refund ? &o->other_alloc : &o->other_free,
			refund ? -(uint64_t)nr : nr, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&o->copy_bytes, bytes, __ATOMIC_RELAXED);
		/* as an lcore's peak_at (pcpu_owner_count_free()) */
		if (!refund)
			__atomic_fetch_sub(&o->other_peak_at, bytes,
				__ATOMIC_RELAXED);
	}
}

/* An allocation refused at owner @p o's limit. */
static int
owner_refuse(struct rte_pcpu_owner *o)
{
	__atomic_fetch_add(&o->nr_fail, 1, __ATOMIC_RELAXED);
	rte_errno = ENOMEM;
	return -1;
}

/*
 * Take 1 to @p want lots of @p bytes for owner @p o out of its slot in
 * the stock @p st, which the caller has entered, refilling the slot
 * first if it holds less than a lot: reserve a lot and a batch, giving
 * back first what the slot held for another owner.
 * @return The lots taken, or 0 (nothing reserved: the limit is in the
 *   way).
 */
static uint32_t
owner_slot_take(struct pcpu_owner_stock *st, struct rte_pcpu_owner *o,
		uint64_t bytes, uint32_t want)
{
	struct pcpu_owner_stock_slot *sl =
		&st->slot[o->id % PCPU_OWNER_STOCK_SLOTS];
	uint64_t batch = 0, held = sl->id == o->id ? sl->bytes : 0, k;

	if (held < bytes || bytes == 0) {
		if (owner_reserve(o, bytes, 1, 1, PCPU_OWNER_STOCK_MAX - held,
				&batch) != 1)
			return 0;
		/* the slot takes the owner only now, when its reservation
		 * is within its limit: a free never puts bytes into the
		 * slot of an owner above its limit (after lcores arrived) */
		if (sl->id != o->id) {
			pcpu_owner_unreserve(sl->id, sl->bytes);
			__atomic_store_n(&sl->id, o->id, __ATOMIC_RELAXED);
		}
		held += bytes + batch;
	}
	k = bytes == 0 ? want : RTE_MIN((uint64_t)want, held / bytes);
	__atomic_store_n(&sl->bytes, (uint32_t)(held - k * bytes),
		__ATOMIC_RELAXED);
	return (uint32_t)k;
}

/*
 * Refill the slot of owner @p o in the stock of the lcore whose counters
 * are @p lc and take @p bytes out of it for the charge under way.
 * @return 0, or -1 (nothing reserved: the limit or a drain is in the way).
 */
static int
owner_stock_refill(struct pcpu_owner_lcore *lc, struct rte_pcpu_owner *o,
		uint64_t bytes)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc);
	int ret = -1;

	if (pcpu_owner_stock_enter(st) && owner_slot_take(st, o, bytes, 1) == 1)
		ret = 0;
	pcpu_owner_stock_leave(st);
	return ret;
}

uint32_t
pcpu_owner_stock_take(struct pcpu_owner_lcore *lc, uint32_t id,
		uint32_t bytes, uint32_t want)
{
	return owner_slot_take(pcpu_owner_stock_of(lc), &pcpu_owners.rec[id],
		bytes, RTE_MAX(want, 1u));
}

void
pcpu_owner_stock_give(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes)
{
	struct pcpu_owner_stock_slot *sl = &pcpu_owner_stock_of(lc)->slot[
		id % PCPU_OWNER_STOCK_SLOTS];
	uint64_t room;

	if (sl->id == id) {
		room = RTE_MIN(bytes, (uint64_t)(PCPU_OWNER_STOCK_MAX -
			sl->bytes));
		__atomic_store_n(&sl->bytes, sl->bytes + (uint32_t)room,
			__ATOMIC_RELAXED);
		bytes -= room;
	}
	pcpu_owner_unreserve(id, bytes);
}

int
pcpu_owner_charge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr)
{
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

	if ((lc == NULL || owner_stock_refill(lc, o, bytes) != 0) &&
	    owner_reserve_exact(o, bytes, 1, 1) == 0)
		return owner_refuse(o);
	owner_count_alloc_any(o, lc, bytes, nr);
	return 0;
}

void
pcpu_owner_uncharge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr, int refund)
{
	/* the stock is tried first by the inline uncharge, not a refund's */
	if (!refund || lc == NULL || !pcpu_owner_stock_move(lc, id, bytes, 1))
		pcpu_owner_unreserve(id, bytes);
	owner_count_free_any(&pcpu_owners.rec[id], lc, bytes, nr, refund);
}

/* out of line even under LTO: rare, and its sum would cost the fast
 * paths that inline the call their registers */
__rte_noinline void
pcpu_owner_peak_sample(struct pcpu_owner_lcore *c, uint32_t id)
{
	struct pcpu_owner_sum s;

	/* raises the peak to the sum of every lcore's count */
	pcpu_owner_sum(id, &s);
	c->peak_at = c->bytes + owner_peak_step(&pcpu_owners.rec[id]);
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
	owner_count_alloc_any(o, NULL, bytes, nr);
	return 0;
}

/* out of line even under LTO, as pcpu_owner_peak_sample(): inlined into
 * the caches' free, it cost every free an instruction */
__rte_noinline void
pcpu_owner_uncharge_slow(uint32_t id, uint64_t bytes, uint32_t nr, int refund)
{
	struct pcpu_owner_lcore *lc = pcpu_owner_self();
	struct rte_pcpu_owner *o = &pcpu_owners.rec[id];

	if (id == PCPU_OWNER_NONE)
		return;
	if (id >= PCPU_OWNER_LIMITED)
		pcpu_owner_uncharge_limited(lc, id, bytes, nr, refund);
	else
		owner_count_free_any(o, lc, bytes, nr, refund);
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
	uint32_t k;

	if (want == 0)
		return 0;
	if (id < PCPU_OWNER_LIMITED)
		return pcpu_owner_charge_any(id, bytes * want, want) == 0 ?
			want : 0;
	k = owner_reserve_exact(o, bytes, RTE_MAX(need, 1u), want);
	if (k == 0)
		return 0;
	lc = pcpu_owner_lcore_counters(rte_lcore_id());
	owner_count_alloc_any(o, lc, k * bytes, k);
	return k;
}

int
pcpu_owner_audit_record(uint32_t id, uint64_t live, char *msg, size_t len)
{
	const struct rte_pcpu_owner *o = &pcpu_owners.rec[id];
	uint32_t alloc_id = owner_alloc_id_of(id, o->kind);
	uint64_t stocked;

	if (o->alloc_id != alloc_id) {
		snprintf(msg, len, "owner %s (kind %u) has alloc id %u, not %u",
			o->name, o->kind, o->alloc_id, alloc_id);
		return -1;
	}
	if (id < PCPU_OWNER_LIMITED)
		return 0;
	stocked = owner_stocked(id);
	if (o->reserved == live + stocked)
		return 0;
	snprintf(msg, len, "owner %s has %" PRIu64 " bytes per copy reserved "
		"against its limit, but %" PRIu64 " live and %" PRIu64
		" in the lcores' stocks", o->name, o->reserved, live, stocked);
	return -1;
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
		s->copy_bytes += (uint64_t)OWNER_READ(lc[id].bytes);
		s->nr_alloc += OWNER_READ(lc[id].nr_alloc);
		s->nr_free += OWNER_READ(lc[id].nr_free);
	}
	pending = __atomic_load_n(&owner_pending, __ATOMIC_ACQUIRE);
	if (pending != NULL)
		pending->add(id, s);
	owner_peak(o, owner_peak_bound(o, s->copy_bytes));
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
