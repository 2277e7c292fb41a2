/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_OWNER_H_
#define _PCPU_OWNER_H_

/**
 * @file
 * @internal Owners and their charges (pcpu_owner.c): the accounting of
 * rte_pcpu_owner.h, below the allocator so that every layer that hands
 * objects to users can charge them: the allocator for the objects it
 * hands out itself (pcpu_alloc_one(), spans), the size-class caches for
 * theirs, the pools for all of theirs. The public entry points are in
 * pcpu_front_owner.c.
 *
 * An owner is known below by its *id*, which every allocation records:
 * the size-class caches in the object's tag, the allocator in its chunk's
 * owner vector or its span, a pool for all its objects. Ids: 0 is no
 * owner (the caches' own objects, free space), 1 the root, 2 .. 511
 * owners without a limit, 512 .. 1023 owners with one. The kind is in the
 * id so that the fast path tells them apart without a load.
 *
 * Counters. An owner without a limit is charged in per-lcore counters
 * (struct pcpu_owner_lcore, one array per lcore indexed by id, written
 * only by that lcore, with relaxed stores): a charge is two plain
 * additions and a compare, an uncharge two plain additions. The size-class
 * caches do not even do that per object: each class of each lcore counts
 * a *run* of allocations (and one of frees) of one owner with the
 * counters it keeps anyway, and credits the run to the owner's counters
 * when the owner changes (pcpu_owner_credit()); what runs hold meanwhile
 * is added by the *pending provider* the caches register
 * (pcpu_owner_pending_register()). An owner's bytes are the sum of every
 * lcore's count (which goes below zero on an lcore that frees what others
 * allocated), the runs pending, and its shared count, which threads
 * without an lcore id update with atomic adds. Its peak is sampled: when
 * an lcore has allocated a step since it last sampled, frees not deducted
 * (PCPU_OWNER_PEAK_STEP; for an owner with a smaller limit, a sixteenth
 * of its limit per copy shared among the lcores: the mark, peak_at, is
 * set a step above the count at a sample and lowered with the count by
 * every free), that lcore sums all counts and raises the peak, as does a
 * thread without an lcore id when the shared count's allocations reach
 * a step, and every read of the figures (a sum reads every lcore's
 * counters and runs: some thousand instructions, once per step). A mark
 * that stayed put through frees would let a count that fell (objects
 * freed on another lcore) rise again unseen.
 *
 * Limits and stocks. An owner with a limit is counted in the same
 * counters (by the caches' runs too), and in one more shared figure, its
 * *reservation*: the bytes per copy taken against the limit, changed with
 * a compare-and-swap that checks (reservation + bytes) x lcores <= limit,
 * so the limit is never exceeded. To keep that atomic off the fast path,
 * each lcore holds a *stock* (the idea of memcg_stock in Linux's
 * mm/memcontrol.c): a few slots, one per owner (direct-mapped by id), of
 * bytes reserved in advance. A charge takes its bytes from the slot, a
 * free puts them back (up to PCPU_OWNER_STOCK_MAX per slot); only when the
 * slot is empty does the lcore reserve again, for the charge and a batch
 * (at most PCPU_OWNER_STOCK_MAX, and at most half the room left shared
 * among the lcores, so that stocks shrink near the limit). The size-class
 * caches take their runs' credit out of the slot and give it back there
 * (pcpu_owner_stock_take(), pcpu_owner_stock_give()); what their runs hold
 * (credit, frees not given back) is part of the lcore's stock, which they
 * report and let a drain take (struct pcpu_owner_pending_ops). So the
 * reservation is the live bytes plus the stocks, which rte_pcpu_audit()
 * checks.
 *
 * A charge that the reservation refuses is exact all the same: if the
 * stocks of the lcores hold what it misses, it *drains* them
 * (owner_drain() in pcpu_owner.c) and tries again, so an allocation fails
 * only when the live bytes leave no room. The drain takes another lcore's
 * slot with the asymmetric handshake of pcpu_fence.h: the lcore marks its
 * stock busy around each use (plain stores) and keeps off it while a
 * drain is wanted; the drainer marks it wanted, runs the heavy fence and
 * waits until it is not busy; the caches' runs, whose credit the fast
 * path uses outside the stock, are taken in two phases with a second
 * heavy fence between them. A drain costs one or two membarrier(2) system
 * calls and happens only when it can turn a failure into a success, when
 * an owner is freed and when an lcore gains memory.
 *
 * Ids are reused: an id is given to a new owner only when no run refers
 * to it (a run of a freed owner is credited to its record, which the new
 * owner's creation resets).
 *
 * Locks: pcpu_owners.lock (a mutex) guards creating and freeing owners,
 * the per-lcore arrays and drains; nothing is called with it held. The
 * charge functions take no lock but that of a drain. Lock order of the library: pool registry,
 * pool, this lock; charges are made with any lock but the allocator's
 * index lock held (an lcore's first charge may allocate its array).
 */

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "rte_pcpu.h"
#include "rte_pcpu_owner.h"
#include "pcpu_compat.h"
#include "pcpu_fence.h"

/** Id of no owner: free space, the size-class caches' own objects. */
#define PCPU_OWNER_NONE 0u
/** Id of the root owner. */
#define PCPU_OWNER_ROOT 1u
/** First id of an owner with a limit. */
#define PCPU_OWNER_LIMITED 512u
/** Number of ids. */
#define PCPU_OWNER_NB 1024u
/** Bits of an id. */
#define PCPU_OWNER_ID_BITS 10
/** Bytes per copy an lcore's count of an owner without a limit rises
 * between two samples of the owner's peak. */
#define PCPU_OWNER_PEAK_STEP (INT64_C(256) << 10)

/** Slots of an lcore's stock, direct-mapped by owner id. */
#define PCPU_OWNER_STOCK_SLOTS 4u
/** Most bytes per copy one slot of a stock holds. */
#define PCPU_OWNER_STOCK_MAX (UINT32_C(16) << 10)

/** Who holds an owner. */
enum pcpu_owner_kind {
	PCPU_OWNER_KIND_FREE = 0,  /**< Record not in use. */
	PCPU_OWNER_KIND_ROOT,      /**< The root. */
	PCPU_OWNER_KIND_USER,      /**< rte_pcpu_owner_create(). */
	PCPU_OWNER_KIND_POOL,      /**< An rte_pcpu_mempool's. */
	PCPU_OWNER_KIND_MEMPOOL,   /**< An rte_mempool's with "pcpu" ops. */
};

/** One lcore's counters of one owner (32 bytes); only that lcore writes
 * them, with relaxed stores. */
struct pcpu_owner_lcore {
	int64_t bytes;      /**< Bytes per copy charged minus uncharged
			      *  here. */
	int64_t peak_at;    /**< Sample the peak when bytes reaches it:
			      *  a step above bytes at the last sample,
			      *  lowered by every free since. */
	uint64_t nr_alloc;  /**< Allocations charged here. */
	uint64_t nr_free;   /**< Frees uncharged here. */
};

/** One slot of an lcore's stock. */
struct pcpu_owner_stock_slot {
	uint32_t id;     /**< Owner with a limit, or PCPU_OWNER_NONE. */
	uint32_t bytes;  /**< Bytes per copy reserved for it, unused. */
};

/**
 * One lcore's stock (see the top of the file; 64 bytes, just before the
 * lcore's counters in the same allocation). The lcore writes the slots
 * only with @c busy set and @c drain clear; a drainer only once it saw
 * @c busy clear after setting @c drain and running the heavy fence.
 */
struct pcpu_owner_stock {
	uint32_t busy;   /**< The lcore is using its slots. */
	uint32_t drain;  /**< A drainer wants the slots. */
	struct pcpu_owner_stock_slot slot[PCPU_OWNER_STOCK_SLOTS];
} __rte_cache_aligned;

/** An owner's record: the public struct rte_pcpu_owner. */
struct rte_pcpu_owner {
	uint32_t kind;        /**< enum pcpu_owner_kind; FREE when unused. */
	uint32_t id;          /**< Its index in pcpu_owners.rec[]. */
	/** @c id while rte_pcpu_alloc_owner() may charge it (the root and
	 * users' owners), else PCPU_OWNER_NONE: that call's whole check of
	 * the record is one load (pcpu_owner_alloc_id()). Written with
	 * @c kind by pcpu_owner_kind_set() only. */
	uint32_t alloc_id;
	/** 1 while a thread without an lcore id samples the peak (one at a
	 * time: see owner_count_alloc_any()); in what was padding. */
	uint32_t other_sampling;
	uint64_t limit;       /**< Bytes, all lcores; 0: none. */
	/** Live bytes per copy of threads without an lcore id (modulo
	 * 2^64: they may free more than they allocated). */
	uint64_t copy_bytes;
	/** With a limit: bytes per copy reserved against it (live bytes
	 * and the lcores' stocks). */
	uint64_t reserved;
	uint64_t peak_copy;   /**< High-water mark of the bytes per copy. */
	uint64_t nr_fail;     /**< Allocations refused at the limit. */
	uint64_t other_alloc; /**< Allocations of threads without counters. */
	uint64_t other_free;  /**< Frees of threads without counters. */
	/** Threads without an lcore id sample the peak when @c copy_bytes
	 * reaches it, as an lcore does at its counters' peak_at: that count
	 * alone is no figure of the owner (an lcore may free what such a
	 * thread allocated), only the sum is. */
	uint64_t other_peak_at;
	char name[RTE_PCPU_OWNER_NAMESIZE];
} __rte_cache_aligned;

/** The owners. */
struct pcpu_owners {
	struct rte_pcpu_owner rec[PCPU_OWNER_NB]; /**< By id. */
	/** Each lcore's counters, PCPU_OWNER_NB entries after the lcore's
	 * stock; NULL until the lcore first charges. */
	struct pcpu_owner_lcore *lcores[RTE_MAX_LCORE];
	pthread_mutex_t lock;
	int initialised;
};

/** The one instance (pcpu_owner.c). */
extern struct pcpu_owners pcpu_owners;

/** Set up: the root owner. 0, or -1 (already set up). */
int pcpu_owner_init(void);

/** Forget every owner and release the per-lcore arrays. Not MT-safe. */
void pcpu_owner_cleanup(void);

/**
 * Create an owner of kind @p kind (not the root) with @p name (checked
 * by the caller: 1 .. RTE_PCPU_OWNER_NAMESIZE - 1 characters) and
 * @p limit (bytes, 0: none).
 * @return The owner, or NULL with rte_errno (EEXIST, ENOSPC, EINVAL before
 *   set-up) and one log line.
 */
struct rte_pcpu_owner *pcpu_owner_create(const char *name, uint64_t limit,
		enum pcpu_owner_kind kind);

/**
 * Free an owner whose allocations are all freed. @p kinds: bit mask of
 * the kinds the caller may free (1 << kind).
 * @return 0, or -1 with rte_errno (EBUSY, EPERM, EINVAL) and one log line.
 */
int pcpu_owner_free(struct rte_pcpu_owner *o, unsigned int kinds);

/** The owner named @p name, or NULL. */
struct rte_pcpu_owner *pcpu_owner_find(const char *name);

/** What a secondary process knows of one of the primary's owners. */
struct pcpu_owner_mirror {
	uint32_t id;     /**< Its id in the primary. */
	uint32_t kind;   /**< enum pcpu_owner_kind. */
	uint64_t limit;  /**< Its limit, bytes (0: none). */
	char name[RTE_PCPU_OWNER_NAMESIZE];
};

/**
 * Secondary process: make the records the @p n owners of the primary in
 * @p m (ids as there), and only them, so that the public functions find,
 * name and walk them as in the primary. Their counters stay zero: the
 * figures are the primary's to give (pcpu_front_owner.c).
 */
void pcpu_owner_mirror(const struct pcpu_owner_mirror *m, unsigned int n);

/** Call @p fn for every owner in the order of their ids, under the
 * owners' lock. */
void pcpu_owner_walk(void (*fn)(struct rte_pcpu_owner *o, void *arg),
		void *arg);

/**
 * Whether @p o points at the start of a record of pcpu_owners.rec[],
 * without reading it. One compare: the byte offset rotated right by the
 * record's log2 size is the record's index when the offset is a multiple
 * of the size, and far above PCPU_OWNER_NB when it is not (its low bits
 * rotate into the top), so "index < PCPU_OWNER_NB" checks the range and
 * the alignment at once; rte_pcpu_alloc_owner() pays for it on every
 * call.
 */
static __rte_always_inline int
pcpu_owner_is_record(const struct rte_pcpu_owner *o)
{
	const unsigned int shift = __builtin_ctz(sizeof(pcpu_owners.rec[0]));
	uintptr_t off = (uintptr_t)o - (uintptr_t)pcpu_owners.rec;

	RTE_BUILD_BUG_ON(!RTE_IS_POWER_OF_2(sizeof(pcpu_owners.rec[0])));
	return ((off >> shift) | (off << (sizeof(off) * 8 - shift))) <
		PCPU_OWNER_NB;
}

/** @p o if it is a live owner's record, else NULL. Lock-free. */
static inline struct rte_pcpu_owner *
pcpu_owner_valid(const struct rte_pcpu_owner *o)
{
	/* the pointer is checked before it is read */
	if (!pcpu_owner_is_record(o) ||
	    __atomic_load_n(&o->kind, __ATOMIC_ACQUIRE) == PCPU_OWNER_KIND_FREE)
		return NULL;
	return (struct rte_pcpu_owner *)(uintptr_t)o;
}

/**
 * The id of @p o if it is a live owner that rte_pcpu_alloc_owner() may
 * charge (the root or a user's), else 0. Lock-free, and the allocation
 * fast path calls it: the pointer's range and alignment, then one load of
 * the record (@c alloc_id, which says both "live" and "may be charged").
 */
static __rte_always_inline uint32_t
pcpu_owner_alloc_id(const struct rte_pcpu_owner *o)
{
	/* the pointer is checked before it is read */
	if (unlikely(!pcpu_owner_is_record(o)))
		return PCPU_OWNER_NONE;
	return __atomic_load_n(&o->alloc_id, __ATOMIC_ACQUIRE);
}

/** The kind of owner id @p id: PCPU_OWNER_KIND_FREE for PCPU_OWNER_NONE
 * and for a record not in use. Lock-free (acquire). */
static inline uint32_t
pcpu_owner_kind_of(uint32_t id)
{
	return id == PCPU_OWNER_NONE ? PCPU_OWNER_KIND_FREE :
		__atomic_load_n(&pcpu_owners.rec[id].kind, __ATOMIC_ACQUIRE);
}

/**
 * Make @p o's kind @p kind (and its alloc_id follow): a record becoming
 * live is published by the release store of its kind after its other
 * fields, then of its alloc_id; one going back to FREE loses its alloc_id
 * first. Owners' lock held (or no other thread yet).
 */
void pcpu_owner_kind_set(struct rte_pcpu_owner *o, uint32_t kind);

/** The live figures of owner @p id. */
struct pcpu_owner_sum {
	uint64_t copy_bytes;  /**< Live bytes per copy. */
	uint64_t nr_alloc;
	uint64_t nr_free;
};

/** Sum owner @p id's counters (lock-free; exact when no thread charges
 * it meanwhile); updates its peak. */
void pcpu_owner_sum(uint32_t id, struct pcpu_owner_sum *s);

/**
 * The audit's check of live owner @p id's record, whose live bytes per
 * copy are @p live (pcpu_owner_sum()): its alloc_id agrees with its kind,
 * and with a limit, its reservation is those bytes and what the lcores'
 * stocks hold. Not MT-safe (nobody charges the owner meanwhile).
 * @return 0, or -1 with the difference written to @p msg.
 */
int pcpu_owner_audit_record(uint32_t id, uint64_t live, char *msg,
		size_t len);

/** rte_pcpu_owner_stats_get() of a valid owner. */
void pcpu_owner_stats(const struct rte_pcpu_owner *o,
		struct rte_pcpu_owner_stats *st);

/**
 * What the size-class caches hold in their runs (see the top of the file):
 * they register it with pcpu_owner_pending_register() so that every sum of
 * an owner's counters includes it.
 */
struct pcpu_owner_pending_ops {
	/** Add the allocations, frees and bytes per copy pending in runs
	 * of owner @p id to @p s. Lock-free. */
	void (*add)(uint32_t id, struct pcpu_owner_sum *s);
	/** Whether a run refers to owner @p id. */
	int (*referenced)(uint32_t id);
	/** Bytes per copy the runs of lcore @p lcore_id hold reserved for
	 * owner @p id with a limit (PCPU_OWNER_NONE: for any), unallocated
	 * or freed: a part of its stock. Lock-free; a hint while the lcore
	 * runs. */
	uint64_t (*held)(uint32_t id, unsigned int lcore_id);
	/** Give what held() counts back to the reservations; called by a
	 * drain that holds the lcore's stock (pcpu_owner_stock_enter()),
	 * with @p phase 0 for every lcore drained, then, if one of them
	 * returned non-zero, once more with @p phase 1 after a heavy fence
	 * (pcpu_fence.h): the credit of a run, which the fast path uses
	 * outside the stock, is taken in two steps. */
	int (*drain)(uint32_t id, unsigned int lcore_id, int phase);
};

/** Register (or, with NULL, unregister) the caches' pending provider. */
void pcpu_owner_pending_register(const struct pcpu_owner_pending_ops *ops);

/**
 * An lcore gained memory (its bit is published): every charge grew by
 * its copies, so the limits per copy shrank. Take back every lcore's
 * stock, which was reserved against the old limits, so that an owner now
 * above its limit allocates nothing more. Takes pcpu_owners.lock; a
 * membarrier(2) system call if any stock holds something.
 */
void pcpu_owner_lcores_grew(void);

/** Lcores with memory: those whose copies the charges count. */
static inline uint32_t
pcpu_owner_nr_lcores(void)
{
	uint32_t n = 0, w;

	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		n += (uint32_t)__builtin_popcountll(__atomic_load_n(
			&rte_pcpu_shared.lcore_mask[w], __ATOMIC_ACQUIRE));
	return n;
}

/**
 * The calling lcore's counters (an array of PCPU_OWNER_NB entries),
 * allocated on its first call; NULL for a thread without an lcore id or
 * without memory for them. Takes pcpu_owners.lock the first time.
 */
struct pcpu_owner_lcore *pcpu_owner_lcore_counters(unsigned int lcore_id);

/* Out of line halves of the charge functions. */
int pcpu_owner_charge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr);
void pcpu_owner_uncharge_limited(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr, int refund);
void pcpu_owner_peak_sample(struct pcpu_owner_lcore *c, uint32_t id);

#define PCPU_OWNER_STAT_ADD(field, v) \
	__atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)

/** The stock of the lcore whose counters are @p lc. */
static __rte_always_inline struct pcpu_owner_stock *
pcpu_owner_stock_of(struct pcpu_owner_lcore *lc)
{
	return (struct pcpu_owner_stock *)(void *)lc - 1;
}

/** Enter the calling lcore's stock @p st: 1 if its slots are its to use
 * until pcpu_owner_stock_leave(), 0 if a drain wants them (leave at
 * once). */
static __rte_always_inline int
pcpu_owner_stock_enter(struct pcpu_owner_stock *st)
{
	__atomic_store_n(&st->busy, 1, __ATOMIC_RELAXED);
	pcpu_fence_light();
	return __atomic_load_n(&st->drain, __ATOMIC_ACQUIRE) == 0;
}

/** Leave the calling lcore's stock @p st. */
static __rte_always_inline void
pcpu_owner_stock_leave(struct pcpu_owner_stock *st)
{
	__atomic_store_n(&st->busy, 0, __ATOMIC_RELEASE);
}

/** Enter the calling lcore's stock @p st, waiting for a drain under way
 * to end (the slow paths of the size-class caches, which hold no lock:
 * a drain waits for no lcore that is not in its stock). */
static inline void
pcpu_owner_stock_enter_wait(struct pcpu_owner_stock *st)
{
	while (unlikely(!pcpu_owner_stock_enter(st))) {
		pcpu_owner_stock_leave(st);
		while (__atomic_load_n(&st->drain, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
	}
}

/**
 * Take between 1 and @p want lots of @p bytes per copy for owner @p id
 * (with a limit) out of the stock of the lcore whose counters are @p lc,
 * which the caller has entered; an empty slot is refilled from the
 * reservation first, as a charge refills it. Nothing is counted.
 * @return The lots taken; 0 when the reservation refuses (the caller
 *   charges on its own, which drains the stocks if that helps).
 */
uint32_t pcpu_owner_stock_take(struct pcpu_owner_lcore *lc, uint32_t id,
		uint32_t bytes, uint32_t want);

/**
 * Give @p bytes per copy reserved for owner @p id (with a limit) back
 * into the stock of the lcore whose counters are @p lc, which the caller
 * has entered: into the owner's slot as far as it has room, the rest to
 * the reservation.
 */
void pcpu_owner_stock_give(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes);

/** Give @p bytes per copy back to owner @p id's reservation (a drain's
 * share of what a stock held). Lock-free. */
static inline void
pcpu_owner_unreserve(uint32_t id, uint64_t bytes)
{
	if (bytes != 0)
		__atomic_fetch_sub(&pcpu_owners.rec[id].reserved, bytes,
			__ATOMIC_RELAXED);
}

/**
 * Move @p bytes per copy of owner @p id (with a limit) out of (@p put 0)
 * or back into (1) the stock of the lcore whose counters are @p lc: out
 * if the owner's slot holds them, back if the slot is the owner's and
 * stays within PCPU_OWNER_STOCK_MAX.
 * @return 1, or 0 (nothing moved: the caller reserves the bytes, or
 *   gives them back to the reservation).
 */
static __rte_always_inline int
pcpu_owner_stock_move(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, int put)
{
	struct pcpu_owner_stock *st = pcpu_owner_stock_of(lc);
	struct pcpu_owner_stock_slot *sl = &st->slot[id % PCPU_OWNER_STOCK_SLOTS];
	int moved = 0;

	if (likely(pcpu_owner_stock_enter(st)) && sl->id == id &&
	    (put ? bytes <= PCPU_OWNER_STOCK_MAX - sl->bytes :
	     bytes <= sl->bytes)) {
		__atomic_store_n(&sl->bytes, put ?
			sl->bytes + (uint32_t)bytes :
			sl->bytes - (uint32_t)bytes, __ATOMIC_RELAXED);
		moved = 1;
	}
	pcpu_owner_stock_leave(st);
	return moved;
}

/** Count @p nr allocations of @p bytes bytes per copy in all on the
 * calling lcore's counters @p lc of owner @p id (charged already). */
static __rte_always_inline void
pcpu_owner_count_alloc(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_lcore *c = &lc[id];
	int64_t d = c->bytes + (int64_t)bytes;

	PCPU_OWNER_STAT_ADD(c->nr_alloc, nr);
	__atomic_store_n(&c->bytes, d, __ATOMIC_RELAXED);
	if (unlikely(d >= c->peak_at))
		pcpu_owner_peak_sample(c, id);
}

/** Count @p nr frees of @p bytes bytes per copy in all on the calling
 * lcore's counters @p lc of owner @p id. */
static __rte_always_inline void
pcpu_owner_count_free(struct pcpu_owner_lcore *lc, uint32_t id,
		uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_lcore *c = &lc[id];

	PCPU_OWNER_STAT_ADD(c->nr_free, nr);
	PCPU_OWNER_STAT_ADD(c->bytes, -(int64_t)bytes);
	/* slides with the count: the next sample comes after a step of
	 * allocations, however many frees came between */
	c->peak_at -= (int64_t)bytes;
}

/**
 * Charge @p nr allocations of @p bytes bytes per copy in all to owner
 * @p id, on the calling lcore's counters @p lc (never NULL: see
 * pcpu_owner_charge_any()). An owner with a limit is charged from the
 * lcore's stock, or out of line (a reservation, perhaps a drain).
 * @return 0, or -1 with rte_errno = ENOMEM when an owner with a limit
 *   would exceed it (counted in its nr_fail; nothing charged).
 */
static __rte_always_inline int
pcpu_owner_charge(struct pcpu_owner_lcore *lc, uint32_t id, uint64_t bytes,
		uint32_t nr)
{
	if (unlikely(id >= PCPU_OWNER_LIMITED) &&
	    !pcpu_owner_stock_move(lc, id, bytes, 0))
		return pcpu_owner_charge_limited(lc, id, bytes, nr);
	pcpu_owner_count_alloc(lc, id, bytes, nr);
	return 0;
}

/**
 * Uncharge @p nr frees of @p bytes bytes per copy in all from owner
 * @p id (the one they were charged to, not PCPU_OWNER_NONE), on the
 * calling lcore's counters @p lc (never NULL).
 */
static __rte_always_inline void
pcpu_owner_uncharge(struct pcpu_owner_lcore *lc, uint32_t id, uint64_t bytes,
		uint32_t nr)
{
	if (unlikely(id >= PCPU_OWNER_LIMITED) &&
	    !pcpu_owner_stock_move(lc, id, bytes, 1)) {
		pcpu_owner_uncharge_limited(lc, id, bytes, nr, 0);
		return;
	}
	pcpu_owner_count_free(lc, id, bytes, nr);
}

/**
 * Credit a run of @p n allocations (@p frees 0) or frees (1) of
 * @p size bytes per copy each to owner @p id (nothing for
 * PCPU_OWNER_NONE) on the calling lcore's counters @p lc. Counts only:
 * an owner with a limit was charged against it already.
 */
static __rte_always_inline void
pcpu_owner_credit(struct pcpu_owner_lcore *lc, uint32_t id, uint32_t n,
		uint32_t size, int frees)
{
	if (id == PCPU_OWNER_NONE || n == 0)
		return;
	if (frees)
		pcpu_owner_count_free(lc, id, (uint64_t)n * size, n);
	else
		pcpu_owner_count_alloc(lc, id, (uint64_t)n * size, n);
}

/** The calling thread's counters if it has them (never allocates them). */
static __rte_always_inline struct pcpu_owner_lcore *
pcpu_owner_self(void)
{
	unsigned int lcore_id = rte_lcore_id();

	return lcore_id < RTE_MAX_LCORE ? __atomic_load_n(
		&pcpu_owners.lcores[lcore_id], __ATOMIC_ACQUIRE) : NULL;
}

/* Out of line halves of the functions below. */
int pcpu_owner_charge_slow(uint32_t id, uint64_t bytes, uint32_t nr);
void pcpu_owner_uncharge_slow(uint32_t id, uint64_t bytes, uint32_t nr,
		int refund);

/**
 * pcpu_owner_charge() from any thread, with or without an lcore id
 * (threads without one, or without memory for their counters, use the
 * owner's shared counters; an lcore's first charge allocates its
 * counters). No lock may be held but pool locks.
 */
static __rte_always_inline int
pcpu_owner_charge_any(uint32_t id, uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_lcore *lc = pcpu_owner_self();

	if (likely(lc != NULL))
		return pcpu_owner_charge(lc, id, bytes, nr);
	return pcpu_owner_charge_slow(id, bytes, nr);
}

/** pcpu_owner_uncharge() from any thread; lock-free (it allocates no
 * counters), so callable under any lock. @p id PCPU_OWNER_NONE: nothing
 * to do. */
static __rte_always_inline void
pcpu_owner_uncharge_any(uint32_t id, uint64_t bytes, uint32_t nr)
{
	struct pcpu_owner_lcore *lc = pcpu_owner_self();

	if (likely(lc != NULL && id != PCPU_OWNER_NONE))
		pcpu_owner_uncharge(lc, id, bytes, nr);
	else
		pcpu_owner_uncharge_slow(id, bytes, nr, 0);
}

/** Take back a charge whose allocation failed (the allocations and bytes
 * are uncounted, not counted as frees). From any thread, lock-free. */
static inline void
pcpu_owner_refund_any(uint32_t id, uint64_t bytes, uint32_t nr)
{
	pcpu_owner_uncharge_slow(id, bytes, nr, 1);
}

/** Count an allocation refused at owner @p id's limit that did not try a
 * charge (a pool that saw the limit first). */
void pcpu_owner_count_fail(uint32_t id);

/**
 * Charge owner @p id as many allocations of @p bytes bytes per copy each
 * as its limit lets in, at most @p want, on behalf of any thread (as
 * pcpu_owner_charge_any()): a pool growing by what it can.
 * @return How many were charged: @p want without a limit, else the most
 *   that fit; 0 (nothing charged, no failure counted: the caller decides
 *   whether that is one) when fewer than @p need fit.
 */
uint32_t pcpu_owner_charge_upto(uint32_t id, uint64_t bytes, uint32_t need,
		uint32_t want);

#endif /* _PCPU_OWNER_H_ */
