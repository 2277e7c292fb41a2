/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Deferred puts: with an RCU QSBR variable attached, an object put back is
 * reused only after every reader registered on it has reported a
 * quiescent state, as rte_hash_rcu_qsbr_add() does for hash entries. DQ
 * mode queues puts on an rte_rcu_qsbr defer queue whose free callback
 * returns them to the shared stack; SYNC mode waits for a grace period in
 * the put. Objects waiting count as in use (rcu_enq - rcu_done).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "pcpu_asan.h"
#include "pcpu_fault.h"
#include "pcpu_init.h"
#include "pcpu_mempool_rcu.h"
#include "pcpu_proc.h"

/* Bytes of one defer-queue entry: DPDK's 64-bit token, then the element
 * (one object pointer). */
#define POOL_RCU_DQ_ENTRY (sizeof(uint64_t) + sizeof(void *))

/*
 * Largest defer queue, in entries. DPDK 22.11's rte_rcu_qsbr_dq_create()
 * makes a ring of size + 1 rounded up to a power of two, computed in 32
 * bits: from 2^30 on the ring would exceed RTE_RING_SZ_MASK (refused
 * there), and from 2^31 on the rounding wraps to a ring too small for the
 * queue, which DPDK accepts and which corrupts memory once used.
 */
#define POOL_RCU_DQ_SIZE_MAX ((UINT32_C(1) << 30) - 1)

/* Reclaim up to @p max objects from the defer queue (the pool's
 * rcu_reclaim): it stops at the first put whose grace period is not over,
 * so PCPU_POOL_RECLAIM_ALL costs no more than the puts it returns. */
static void
pool_rcu_reclaim(struct pcpu_pool *p, unsigned int max)
{
	unsigned int freed, pending, avail;

	if (pcpu_pool_rcu_pending(p) != 0)
		rte_rcu_qsbr_dq_reclaim(p->dq, max, &freed, &pending, &avail);
}

/* Defer-queue free callback: objects past their grace period. */
static void
pool_rcu_free(void *arg, void *e, unsigned int n)
{
	struct pcpu_pool *p = arg;
	unsigned int i;

	/* past the grace period: no reader holds them any more */
	for (i = 0; i < n; i++)
		pcpu_asan_poison(((void **)e)[i], p->elt_size);
	pthread_mutex_lock(&p->lock);
	pcpu_pool_push_shared(p, e, n);
	pthread_mutex_unlock(&p->lock);
	__atomic_fetch_add(&p->rcu_done, n, __ATOMIC_RELEASE);
}

int
pcpu_pool_put_rcu(struct pcpu_pool *p, void * const *objs, unsigned int n)
{
	unsigned int lcore_id = pcpu_pool_lcore_id(), ok, i;
	struct rte_pcpu_mempool_cache *c = NULL;
	int ret;

	if (pcpu_proc_refuse("rte_pcpu_mempool_put"))
		return -ENOTSUP;
	if (p->rcu_mode == RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC) {
		/* the putter must not be an online reader of v */
		rte_rcu_qsbr_synchronize(p->rcu_v, RTE_QSBR_THRID_INVALID);
		return pcpu_pool_put_now(p, objs, n);
	}
	if (p->out != NULL)
		pthread_mutex_lock(&p->lock);
	ok = pcpu_pool_put_check(p, objs, n, &ret);
	if (p->out != NULL)
		pthread_mutex_unlock(&p->lock);
	if (lcore_id < RTE_MAX_LCORE)
		c = __atomic_load_n(&p->caches[lcore_id], __ATOMIC_ACQUIRE);
	for (i = 0; i < ok; i++) {
		void *obj = objs[i];

		__atomic_fetch_add(&p->rcu_enq, 1, __ATOMIC_RELEASE);
		if (c != NULL) {
			/* a user's put that passes by the cache; under the
			 * lock, as a stealer's drain counts flushes too */
			pthread_mutex_lock(&p->lock);
			pcpu_pool_stat_add(&c->oc.nr_put, 1);
			pcpu_pool_stat_add(&c->oc.flushed, 1);
			pthread_mutex_unlock(&p->lock);
		} else {
			__atomic_fetch_add(&p->shared_puts, 1,
				__ATOMIC_RELAXED);
		}
		if (rte_rcu_qsbr_dq_enqueue(p->dq, &obj) == 0)
			continue;
		/* queue full: wait for the grace period here */
		rte_rcu_qsbr_synchronize(p->rcu_v, RTE_QSBR_THRID_INVALID);
		pool_rcu_free(p, &obj, 1);
	}
	return ret;
}

/* Name of the pool's defer queue, also the name of its ring. */
static void
pool_rcu_dq_name(const struct pcpu_pool *p, char *name, size_t len)
{
	snprintf(name, len, "pcpu_mp_%u", p->id);
}

/*
 * Drop the entries left on the defer queue's ring; returns how many.
 * DPDK 22.11's rte_rcu_qsbr_dq_create() names the ring after the queue
 * and stores each entry as a 64-bit token followed by the element (here
 * one object pointer).
 */
static unsigned int
pool_rcu_dq_drop(const struct pcpu_pool *p)
{
	char name[RTE_RING_NAMESIZE];
	uint8_t entries[32 * POOL_RCU_DQ_ENTRY];
	unsigned int n, dropped = 0;
	struct rte_ring *r;

	pool_rcu_dq_name(p, name, sizeof(name));
	r = rte_ring_lookup(name);
	if (r == NULL)
		return 0;
	while ((n = rte_ring_dequeue_burst_elem(r, entries, POOL_RCU_DQ_ENTRY,
			32, NULL)) != 0)
		dropped += n;
	return dropped;
}

void
pcpu_pool_rcu_delete(struct pcpu_pool *p)
{
	unsigned int dropped;

	if (p->dq == NULL)
		return;
	if (rte_rcu_qsbr_dq_delete(p->dq) != 0) {
		/*
		 * A reader is still online, so some puts' grace periods are
		 * not over and rte_rcu_qsbr_dq_delete() keeps the queue (its
		 * ring and memory). Only rte_pcpu_cleanup() gets here with
		 * puts waiting (rte_pcpu_mempool_free() refuses with EBUSY):
		 * the library is going away, and the objects waiting are the
		 * pool's, released with it. Drop the entries, then the queue
		 * is empty and goes.
		 */
		dropped = pool_rcu_dq_drop(p);
		if (rte_rcu_qsbr_dq_delete(p->dq) != 0) {
			MP_LOG(ERR, "%s: cannot release the RCU defer queue: "
				"its memory is lost", p->name);
		} else {
			MP_LOG(INFO, "%s: released with %u RCU puts still "
				"waiting for readers", p->name, dropped);
		}
	}
	p->dq = NULL;
	p->rcu_reclaim = NULL;
}

int
rte_pcpu_mempool_rcu_qsbr_add(struct rte_pcpu_mempool *mp,
		const struct rte_pcpu_mempool_rcu_config *cfg)
{
	struct rte_rcu_qsbr_dq_parameters params = { 0 };
	char dq_name[RTE_RING_NAMESIZE];
	struct pcpu_pool *p;
	unsigned int l;

	if (pcpu_init_refuse("rte_pcpu_mempool_rcu_qsbr_add"))
		return -1;
	if (mp == NULL || cfg == NULL || cfg->v == NULL ||
	    (cfg->mode != RTE_PCPU_MEMPOOL_QSBR_MODE_DQ &&
	     cfg->mode != RTE_PCPU_MEMPOOL_QSBR_MODE_SYNC)) {
		MP_LOG(ERR, "rcu_qsbr_add: bad arguments");
		rte_errno = EINVAL;
		return -1;
	}
	p = pcpu_pool(mp);
	if (cfg->mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ &&
	    (cfg->dq_size != 0 ? cfg->dq_size : p->n) > POOL_RCU_DQ_SIZE_MAX) {
		MP_LOG(ERR, "%s: rcu_qsbr_add: defer queue of %u entries, "
			"more than %u", p->name,
			cfg->dq_size != 0 ? cfg->dq_size : p->n,
			POOL_RCU_DQ_SIZE_MAX);
		rte_errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&p->lock);
	if (p->rcu_v != NULL) {
		pthread_mutex_unlock(&p->lock);
		MP_LOG(ERR, "%s: RCU already attached", p->name);
		rte_errno = EEXIST;
		return -1;
	}
	if (cfg->mode == RTE_PCPU_MEMPOOL_QSBR_MODE_DQ) {
		pool_rcu_dq_name(p, dq_name, sizeof(dq_name));
		params.name = dq_name;
		params.flags = 0; /* MT-safe */
		params.size = cfg->dq_size != 0 ? cfg->dq_size : p->n;
		params.esize = sizeof(void *);
		params.trigger_reclaim_limit = cfg->trigger_reclaim_limit;
		params.max_reclaim_size = cfg->max_reclaim_size != 0 ?
			cfg->max_reclaim_size : params.size;
		params.free_fn = pool_rcu_free;
		params.p = p;
		params.v = cfg->v;
		/* the queue's ring takes its name: DPDK's failed create would
		 * log lines of its own and give ENOMEM for a name taken */
		if (rte_ring_lookup(dq_name) != NULL) {
			pthread_mutex_unlock(&p->lock);
			MP_LOG(ERR, "%s: the defer queue's ring name %s is taken",
				p->name, dq_name);
			rte_errno = EEXIST;
			return -1;
		}
		p->dq = pcpu_fault_rte_rcu_qsbr_dq_create(&params);
		if (p->dq == NULL) {
			pthread_mutex_unlock(&p->lock);
			MP_LOG(ERR, "%s: cannot create the defer queue: %s",
				p->name, rte_strerror(rte_errno));
			rte_errno = ENOMEM;
			return -1;
		}
		p->dq_max_reclaim = params.max_reclaim_size;
		p->rcu_reclaim = pool_rcu_reclaim;
	}
	p->rcu_mode = cfg->mode;
	__atomic_store_n(&p->rcu_v, cfg->v, __ATOMIC_RELEASE);
	/* puts must now go through the defer queue: no inline paths */
	p->inline_ok = 0;
	for (l = 0; l < RTE_MAX_LCORE; l++)
		__atomic_store_n(&p->pub.inline_caches[l], NULL,
			__ATOMIC_RELEASE);
	pthread_mutex_unlock(&p->lock);
	return 0;
}
