/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Chunks and their memory: creating and destroying chunks, populating and
 * depopulating page ranges on every lcore, and giving an lcore that
 * appears its copies of everything populated so far.
 *
 * Everything here runs with pcpu_alloc.mutex held and the index lock
 * released: these are the system calls (pcpu_arena.c) the lock rules keep
 * out of the index lock. "Every lcore" means the allocator's own set,
 * pcpu_alloc.lcores, which includes an lcore while it arrives, before
 * readers see it in rte_pcpu_shared.lcore_mask.
 *
 * Lcore arrival, in order: populate the new lcore's copies of every
 * populated page (mutex held), add it to the allocator's set, call the
 * lcore listeners of the layers above in registration order (no lock
 * held: a pool runs its obj_init on the new copies), then publish its bit
 * in rte_pcpu_shared.lcore_mask. A reader that sees the bit therefore
 * sees initialised copies.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "pcpu_alloc_index.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"

/* Populate [off, off + len) of one lcore's unit backed as @p how, or with
 * 4 KiB pages when hugepages run out under the auto policy. */
static int
populate_backed(unsigned int lcore_id, uint64_t off, uint64_t len,
		enum pcpu_backing how)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	int socket = a->lcore_socket[lcore_id];
	int ret;

	ret = pcpu_arena_populate(&a->arena, lcore_id, socket, off, len, how);
	if (ret == -ENOMEM && how == PCPU_BACKING_HUGE &&
	    a->conf.page_policy == RTE_PCPU_PAGE_AUTO) {
		if (a->nr_huge_fallback++ == 0)
			PCPU_LOG(WARNING,
				"no free hugepages: falling back to 4 KiB pages");
		ret = pcpu_arena_populate(&a->arena, lcore_id, socket, off,
			len, PCPU_BACKING_SMALL);
	}
	return ret;
}

/* Populate pages [ps, pe) of chunk @p c for one lcore. */
static int
populate_one(struct pcpu_alloc_chunk *c, unsigned int lcore_id, uint32_t ps,
		uint32_t pe)
{
	return populate_backed(lcore_id, pcpu_alloc_page_off(c, ps),
		(uint64_t)(pe - ps) * pcpu_alloc.page_size, pcpu_alloc.huge ?
		PCPU_BACKING_HUGE : PCPU_BACKING_MAPPED);
}

int
pcpu_alloc_populate_range(unsigned int lcore_id, uint64_t off, uint64_t len)
{
	return populate_backed(lcore_id, off, len, pcpu_alloc.huge ?
		PCPU_BACKING_HUGE : PCPU_BACKING_SMALL);
}

/* 0, or -ENOMEM if the pages stay populated (pcpu_arena_depopulate()). */
static int
populate_undo_one(struct pcpu_alloc_chunk *c, unsigned int lcore_id,
		uint32_t ps, uint32_t pe)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	/* hugepages and their 4 KiB fall-back both go back the same way */
	return pcpu_arena_depopulate(&a->arena, lcore_id,
		a->lcore_socket[lcore_id], pcpu_alloc_page_off(c, ps),
		(uint64_t)(pe - ps) * a->page_size,
		a->huge ? PCPU_BACKING_HUGE : PCPU_BACKING_MAPPED);
}

/* Map (4 KiB mode) or just reserve (hugepage mode) lcore @p lcore_id's
 * range of chunk @p c. */
static int
populate_map(struct pcpu_alloc_chunk *c, unsigned int lcore_id)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	if (a->huge)
		return 0;
	return pcpu_arena_map(&a->arena, lcore_id, a->lcore_socket[lcore_id],
		pcpu_alloc_page_off(c, 0), pcpu_alloc_chunk_bytes());
}

/* Give lcore @p lcore_id's range of chunk @p c back to the reservation,
 * with all its memory. */
static void
populate_unmap(struct pcpu_alloc_chunk *c, unsigned int lcore_id)
{
	pcpu_arena_unmap(&pcpu_alloc.arena, lcore_id, pcpu_alloc_page_off(c, 0),
		pcpu_alloc_chunk_bytes());
}

/* populate_unmap() for every lcore with memory below @p below. */
static void
populate_unmap_all(struct pcpu_alloc_chunk *c, unsigned int below)
{
	unsigned int lcore_id;

	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < below;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1))
		populate_unmap(c, lcore_id);
}

/* Populates or depopulates pages [ps, pe) of a chunk on one lcore. */
typedef int (*populate_step_fn)(struct pcpu_alloc_chunk *c,
		unsigned int lcore_id, uint32_t ps, uint32_t pe);

/*
 * Apply @p step to pages [ps, pe) of chunk @p c on every lcore with memory.
 * The chunk's page map speaks for every lcore at once, so a failure on one
 * lcore applies @p undo to the lcores done before it; an undo that fails
 * too leaves that lcore unlike the others, which is logged and which the
 * audit reports. 0, or the failing step's error.
 */
static int
populate_every_lcore(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe,
		populate_step_fn step, populate_step_fn undo)
{
	unsigned int lcore_id, back;
	int ret;

	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1)) {
		ret = step(c, lcore_id, ps, pe);
		if (ret == 0)
			continue;
		for (back = pcpu_alloc_lcore_next(0); back < lcore_id;
		     back = pcpu_alloc_lcore_next(back + 1))
			if (undo(c, back, ps, pe) != 0)
				PCPU_LOG(ERR, "chunk %u: lcore %u's pages %u..%u "
					"could not be put back as the other "
					"lcores' are: the audit will say so",
					c->index, back, ps, pe - 1);
		return ret;
	}
	return 0;
}

int
pcpu_alloc_populate(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe)
{
	return populate_every_lcore(c, ps, pe, populate_one, populate_undo_one);
}

int
pcpu_alloc_depopulate(struct pcpu_alloc_chunk *c, uint32_t ps, uint32_t pe)
{
	return populate_every_lcore(c, ps, pe, populate_undo_one, populate_one);
}

struct pcpu_alloc_chunk *
pcpu_alloc_chunk_create(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c;
	unsigned int lcore_id;
	uint32_t idx;
	int ret;

	for (idx = 0; idx < a->nr_chunk_max; idx++)
		if (a->chunks[idx] == NULL && a->spans[idx] == NULL)
			break;
	if (idx == a->nr_chunk_max) {
		PCPU_LOG(ERR, "reserved address space used up (%u chunks of %"
			PRIu64 " bytes)", a->nr_chunk_max, pcpu_alloc_chunk_bytes());
		return NULL;
	}
	c = pcpu_fault_calloc(1, sizeof(*c));
	if (c == NULL || pcpu_chunk_init(&c->bm, pcpu_alloc_chunk_bytes(),
			a->page_size) != 0) {
		free(c);
		PCPU_LOG(ERR, "no memory for the metadata of a chunk");
		return NULL;
	}
	c->index = idx;
	c->list = -1;
	c->used = pcpu_fault_calloc(1, pcpu_alloc_map_len(c));
	if (c->used == NULL) {
		PCPU_LOG(ERR, "no memory for the metadata of a chunk");
		goto fail;
	}
	if (pcpu_alloc_owner_map_new(c) != 0)
		goto fail;
	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1)) {
		ret = populate_map(c, lcore_id);
		if (ret == 0)
			continue;
		PCPU_LOG(ERR, "cannot map chunk %u for lcore %u: %s", idx,
			lcore_id, strerror(-ret));
		populate_unmap_all(c, lcore_id);
		goto fail;
	}
	return c;
fail:
	pcpu_alloc_owner_map_free(c);
	free(c->used);
	pcpu_chunk_fini(&c->bm);
	free(c);
	return NULL;
}

uint64_t
pcpu_alloc_chunk_destroy(struct pcpu_alloc_chunk *c)
{
	uint64_t pages = c->bm.nr_populated;

	populate_unmap_all(c, RTE_MAX_LCORE);
	pcpu_alloc_owner_map_free(c);
	free(c->used);
	free(c->pool_map);
	pcpu_chunk_fini(&c->bm);
	free(c);
	return pages;
}

/* ---------------------------------------------------------------------- */
/* Lcores. */

static TAILQ_HEAD(pcpu_lcore_listener_list, pcpu_lcore_listener) pcpu_listeners =
	TAILQ_HEAD_INITIALIZER(pcpu_listeners);
static pthread_mutex_t pcpu_listeners_lock = PTHREAD_MUTEX_INITIALIZER;

void
pcpu_alloc_listener_register(struct pcpu_lcore_listener *l)
{
	pthread_mutex_lock(&pcpu_listeners_lock);
	TAILQ_INSERT_TAIL(&pcpu_listeners, l, next);
	pthread_mutex_unlock(&pcpu_listeners_lock);
}

void
pcpu_alloc_listener_unregister(struct pcpu_lcore_listener *l)
{
	pthread_mutex_lock(&pcpu_listeners_lock);
	TAILQ_REMOVE(&pcpu_listeners, l, next);
	pthread_mutex_unlock(&pcpu_listeners_lock);
}

/* Populate lcore @p lcore_id's copy of the populated pages of chunk @p c. */
static int
populate_lcore_chunk(struct pcpu_alloc_chunk *c, unsigned int lcore_id)
{
	uint32_t rs, re;
	int ret;

	ret = populate_map(c, lcore_id);
	for (rs = 0; ret == 0 && rs < c->bm.nr_pages; rs = re) {
		if (!pcpu_chunk_page_populated(&c->bm, rs)) {
			re = rs + 1;
			continue;
		}
		for (re = rs; re < c->bm.nr_pages &&
		     pcpu_chunk_page_populated(&c->bm, re); re++)
			;
		ret = populate_one(c, lcore_id, rs, re);
	}
	return ret;
}

/*
 * Give lcore @p lcore_id its copies of every populated page, on NUMA node
 * @p socket, and add it to the allocator's set. Mutex held. Returns 1 if
 * it was added, 0 if it had memory already, -1 on error (logged, nothing
 * kept).
 */
static int
populate_lcore_add(unsigned int lcore_id, unsigned int socket)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t idx;
	int ret;

	if (!a->initialised ||
	    (a->lcores[lcore_id / 64] >> (lcore_id % 64) & 1) != 0)
		return 0;
	a->lcore_socket[lcore_id] = socket < RTE_MAX_NUMA_NODES ?
		(int)socket : -1;
	if (a->conf.max_populated != 0 &&
	    a->populated_pages * a->page_size * (a->nr_lcores + 1) >
	    a->conf.max_populated) {
		PCPU_LOG(ERR, "lcore %u: populated-bytes limit reached",
			lcore_id);
		return -1;
	}
	ret = pcpu_alloc_span_lcore_add(lcore_id);
	if (ret != 0) {
		PCPU_LOG(ERR, "lcore %u: cannot populate: %s", lcore_id,
			strerror(-ret));
		return -1;
	}
	for (idx = 0; idx < a->nr_chunk_max; idx++) {
		struct pcpu_alloc_chunk *c = a->chunks[idx];

		if (c == NULL)
			continue;
		ret = populate_lcore_chunk(c, lcore_id);
		if (ret == 0)
			continue;
		PCPU_LOG(ERR, "lcore %u: cannot populate: %s", lcore_id,
			strerror(-ret));
		do {
			if (a->chunks[idx] != NULL)
				populate_unmap(a->chunks[idx], lcore_id);
		} while (idx-- > 0);
		pcpu_alloc_span_lcore_remove(lcore_id);
		return -1;
	}
	pcpu_alloc_index_lock();
	__atomic_fetch_or(&a->lcores[lcore_id / 64], UINT64_C(1) << (lcore_id % 64),
		__ATOMIC_RELAXED);
	a->nr_lcores++;
	a->lcores_on_socket[a->lcore_socket[lcore_id] < 0 ? 0 :
		a->lcore_socket[lcore_id]]++;
	if (pcpu_alloc_pages_bytes(a->populated_pages) > a->max_populated_bytes)
		a->max_populated_bytes = pcpu_alloc_pages_bytes(a->populated_pages);
	pcpu_alloc_index_unlock();
	return 1;
}

/* EAL lcore callback: an lcore appears (EAL start-up or a thread that
 * registers). */
static int
populate_lcore_init_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	struct pcpu_lcore_listener *l;
	int added;

	pthread_mutex_lock(&pcpu_alloc.mutex);
	added = populate_lcore_add(lcore_id, rte_lcore_to_socket_id(lcore_id));
	if (added == 0 && lcore_id == 0 && pcpu_alloc.unit0_borrowed) {
		/* its copies exist: the listeners set them up now */
		pcpu_alloc.unit0_borrowed = 0;
		added = 1;
	}
	pthread_mutex_unlock(&pcpu_alloc.mutex);
	if (added <= 0)
		return added;
	pthread_mutex_lock(&pcpu_listeners_lock);
	TAILQ_FOREACH(l, &pcpu_listeners, next)
		if (l->arrive != NULL)
			l->arrive(lcore_id);
	pthread_mutex_unlock(&pcpu_listeners_lock);
	/* now readers may see it: its copies are all set up */
	__atomic_fetch_or(&rte_pcpu_shared.lcore_mask[lcore_id / 64],
		UINT64_C(1) << (lcore_id % 64), __ATOMIC_RELEASE);
	/* lists of copies made before are out of date (before this lcore
	 * can use its memory: nothing it writes escapes a zeroing) */
	__atomic_fetch_add(&rte_pcpu_shared.lcore_gen, 1, __ATOMIC_RELEASE);
	/* the limits per copy shrank: stocks reserved against the old
	 * ones go back */
	pcpu_owner_lcores_grew();
	return 0;
}

/* A registered thread unregisters: its copies stay (their values still
 * count in sums and belong to the next thread with that lcore id). */
static void
populate_lcore_uninit_cb(unsigned int lcore_id, void *arg __rte_unused)
{
	struct pcpu_lcore_listener *l;

	pthread_mutex_lock(&pcpu_listeners_lock);
	TAILQ_FOREACH_REVERSE(l, &pcpu_listeners, pcpu_lcore_listener_list,
			next)
		if (l->leave != NULL)
			l->leave(lcore_id);
	pthread_mutex_unlock(&pcpu_listeners_lock);
}

int
pcpu_alloc_handle_unit_ensure(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	int added;

	pthread_mutex_lock(&a->mutex);
	if (!a->initialised) {
		pthread_mutex_unlock(&a->mutex);
		return -EINVAL;
	}
	/* unit 0 on the main lcore's node: control threads read the headers */
	added = populate_lcore_add(0,
		rte_lcore_to_socket_id(rte_get_main_lcore()));
	if (added == 1) {
		a->unit0_borrowed = 1;
		PCPU_LOG(INFO, "lcore 0 is not an lcore: unit 0 gets memory for "
			"the rte_mempool object headers at the handles");
	}
	pthread_mutex_unlock(&a->mutex);
	return added < 0 ? -ENOMEM : 0;
}

int
pcpu_alloc_lcores_start(void)
{
	void *cb;

	cb = pcpu_fault_rte_lcore_callback_register("pcpu_mempool",
		populate_lcore_init_cb, populate_lcore_uninit_cb, NULL);
	if (cb == NULL) {
		PCPU_LOG(ERR, "init: cannot register the lcore callback that "
			"gives lcores memory");
		return -1;
	}
	pthread_mutex_lock(&pcpu_alloc.mutex);
	pcpu_alloc.lcore_cb = cb;
	pthread_mutex_unlock(&pcpu_alloc.mutex);
	return 0;
}

void
pcpu_alloc_lcores_stop(void)
{
	void *cb;

	pthread_mutex_lock(&pcpu_alloc.mutex);
	cb = pcpu_alloc.lcore_cb;
	pcpu_alloc.lcore_cb = NULL;
	pthread_mutex_unlock(&pcpu_alloc.mutex);
	if (cb != NULL)
		rte_lcore_callback_unregister(cb);
}
