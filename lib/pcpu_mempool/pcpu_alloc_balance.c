/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Giving memory back, as Linux 5.14's partial depopulation: a chunk that
 * a free leaves with at least a quarter of its pages empty (beyond the
 * reserve of empty pages, pcpu_alloc.reserve) is isolated on the
 * to-depopulate list; the balance gives its empty pages back, last page
 * first, down to the reserve, and sidelines it (sidelined chunks are tried
 * after the active slots, so allocations fill other chunks first). Fully
 * free chunks beyond one spare are destroyed, unless the reserve needs
 * their pages. Frees only mark the work as due (pcpu_alloc.need_balance):
 * it runs in the next allocation that takes the mutex anyway, or in
 * rte_pcpu_reclaim(), which also isolates every chunk with empty pages.
 *
 * Runs with the mutex held; takes the index lock itself and drops it
 * around each system call (the pages it gives back are marked unpopulated
 * and empty first, so no allocation uses them and no free touches them).
 *
 * A shared area that a secondary process reads gives nothing back: a
 * secondary reads pages without the primary's locks, and a page given
 * back is a hole in the file, which a late read would fill again (or die
 * on with SIGBUS, hugepages). So while pcpu_arena_readers() says one is
 * attached, the balance only puts the isolated chunks back in use and
 * marks itself deferred; a new page is then handed out from the empty
 * populated ones, zeroed by the allocator as any reused memory (the
 * known-zero map). The deferred balance runs, as an explicit one, at the
 * first chance once no secondary is attached: when one detaches
 * (pcpu_alloc_retry_deferred()), at the next allocation that takes the
 * mutex, at rte_pcpu_reclaim(), or from an EAL alarm every second (which
 * finds a secondary that died without detaching: the kernel dropped its
 * lock).
 */

#include <stdint.h>

#include <rte_alarm.h>
#include <rte_common.h>

#include "pcpu_alloc_index.h"
#include "pcpu_log.h"

/* Retry period of a deferred balance, microseconds. */
#define BALANCE_RETRY_US (1000 * 1000)
/* Delay of the retry when a secondary process detaches, microseconds. */
#define BALANCE_SOON_US 1000

/* Depopulate empty pages of an isolated chunk, last page first, while the
 * global count exceeds the reserve. Index lock held; returns with it
 * held. Returns pages given back. */
static uint64_t
balance_depopulate(struct pcpu_alloc_chunk *c)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t rs, re, pe = c->bm.nr_pages;
	uint64_t pages = 0;
	int ret;

	while (a->empty_pop_pages > a->reserve && c->bm.nr_empty_pop_pages > 0 &&
	       pcpu_chunk_prev_empty_pop(&c->bm, 0, pe, &rs, &re)) {
		uint32_t n = re - rs, before = c->bm.nr_empty_pop_pages;

		/* keep the reserve */
		if (a->empty_pop_pages - n < a->reserve) {
			rs = re - (uint32_t)(a->empty_pop_pages - a->reserve);
			n = re - rs;
		}
		pcpu_chunk_set_depopulated(&c->bm, rs, re);
		pcpu_alloc_empty_track(c, before);
		a->populated_pages -= n;
		pcpu_alloc_index_unlock();
		ret = pcpu_alloc_depopulate(c, rs, re);
		pcpu_alloc_index_lock();
		if (ret != 0) {
			/* kept: populated and empty again, and no more tries
			 * now (the next balance tries again) */
			before = c->bm.nr_empty_pop_pages;
			pcpu_chunk_set_populated(&c->bm, rs, re);
			pcpu_alloc_empty_track(c, before);
			a->populated_pages += n;
			break;
		}
		pages += n;
		pe = rs;
	}
	return pages;
}

/*
 * Destroy the fully free chunks beyond one spare, but for those whose
 * populated pages the reserve of empty pages needs (destroying them would
 * give back pages that the reserve keeps and the next allocations
 * populate again); with @p no_spare, every one of them, the spare
 * included (a span needs their address space). Index lock held; dropped
 * once around the system calls, with the chunks already out of the index.
 * Returns pages given back.
 */
static uint64_t
balance_destroy_free_chunks(int no_spare)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_chunk_list *free_list = &a->lists[PCPU_LIST_FREE];
	struct pcpu_chunk_list doomed = TAILQ_HEAD_INITIALIZER(doomed);
	struct pcpu_alloc_chunk *c, *tmp, *keep;
	uint64_t pages = 0;

	/* the spare is the one with the most populated pages: those are the
	 * reserve of empty pages, which destroying it would give back */
	keep = TAILQ_FIRST(free_list);
	TAILQ_FOREACH(c, free_list, next)
		if (c->bm.nr_populated > keep->bm.nr_populated)
			keep = c;
	if (keep == NULL)
		return 0;
	if (keep != TAILQ_FIRST(free_list))
		pcpu_alloc_list_move(keep, PCPU_LIST_FREE, 1);
	for (c = no_spare ? keep : TAILQ_NEXT(keep, next); c != NULL; c = tmp) {
		tmp = TAILQ_NEXT(c, next);
		/* a fully free chunk's populated pages are all empty */
		if (!no_spare &&
		    a->empty_pop_pages - c->bm.nr_empty_pop_pages < a->reserve)
			continue;
		TAILQ_REMOVE(free_list, c, next);
		c->list = -1;
		a->chunks[c->index] = NULL;
		a->nr_chunks--;
		a->populated_pages -= c->bm.nr_populated;
		a->empty_pop_pages -= c->bm.nr_empty_pop_pages;
		TAILQ_INSERT_TAIL(&doomed, c, next);
	}
	if (TAILQ_EMPTY(&doomed))
		return 0;
	pcpu_alloc_index_unlock();
	while ((c = TAILQ_FIRST(&doomed)) != NULL) {
		TAILQ_REMOVE(&doomed, c, next);
		pages += pcpu_alloc_chunk_destroy(c);
	}
	pcpu_alloc_index_lock();
	return pages;
}

static void balance_retry_cb(void *arg);

/* The EAL alarm that retries a deferred balance. Mutex held. */
static void
balance_arm_retry(void)
{
	if (pcpu_alloc.retry_armed)
		return;
	if (rte_eal_alarm_set(BALANCE_RETRY_US, balance_retry_cb, NULL) == 0)
		pcpu_alloc.retry_armed = 1;
	else
		PCPU_LOG(DEBUG, "cannot set the alarm that retries giving "
			"memory back: the next allocation will");
}

/* On the EAL interrupt thread. */
static void
balance_retry_cb(void *arg __rte_unused)
{
	pthread_mutex_lock(&pcpu_alloc.mutex);
	pcpu_alloc.retry_armed = 0;
	if (pcpu_alloc.initialised && pcpu_alloc.depop_deferred)
		pcpu_alloc_balance(0);
	pthread_mutex_unlock(&pcpu_alloc.mutex);
}

void
pcpu_alloc_balance_stop(void)
{
	/* not under the mutex: a callback under way may wait for it, and
	 * the cancel waits for the callback */
	rte_eal_alarm_cancel(balance_retry_cb, NULL);
	pthread_mutex_lock(&pcpu_alloc.mutex);
	pcpu_alloc.retry_armed = 0;
	pthread_mutex_unlock(&pcpu_alloc.mutex);
}

void
pcpu_alloc_retry_deferred(void)
{
	/* an extra alarm beside the periodic one: the callback is idempotent
	 * and pcpu_alloc_balance_stop() cancels both */
	if (__atomic_load_n(&pcpu_alloc.depop_deferred, __ATOMIC_RELAXED) &&
	    rte_eal_alarm_set(BALANCE_SOON_US, balance_retry_cb, NULL) != 0)
		PCPU_LOG(DEBUG, "cannot set the alarm that gives memory back");
}

void
pcpu_alloc_defer(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	if (!a->depop_deferred)
		a->nr_depop_deferred++;
	__atomic_store_n(&a->depop_deferred, 1, __ATOMIC_RELAXED);
	balance_arm_retry();
}

/* A secondary process reads the area: give nothing back, put isolated
 * chunks back in use, and try again later. Mutex held, index lock not. */
static void
balance_defer(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c;

	pcpu_alloc_index_lock();
	a->need_balance = 0;
	pcpu_alloc_settle();
	while ((c = TAILQ_FIRST(&a->lists[PCPU_LIST_TO_DEPOP])) != NULL) {
		c->isolated = 0;
		pcpu_alloc_relocate(c);
	}
	pcpu_alloc_index_unlock();
	pcpu_alloc_defer();
}

uint64_t
pcpu_alloc_balance(int explicit)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c, *tmp;
	uint64_t pages = 0, bytes_per_page;
	int l;

	/* a system call: not under the index lock */
	if (pcpu_arena_readers(&a->arena)) {
		balance_defer();
		return 0;
	}
	/* what was put off: frees isolated chunks that the deferral put back
	 * in use, so look at every chunk; freed spans kept */
	bytes_per_page = a->page_size * a->nr_lcores;
	if (a->depop_deferred) {
		__atomic_store_n(&a->depop_deferred, 0, __ATOMIC_RELAXED);
		explicit = 1;
		pages += pcpu_alloc_span_release_freed();
	}
	pcpu_alloc_index_lock();
	a->need_balance = 0;
	pcpu_alloc_settle();
	/* first, so that their pages are not depopulated one by one */
	pages += balance_destroy_free_chunks(0);
	for (l = 0; explicit && l < PCPU_NR_LISTS; l++) {
		if (l == PCPU_LIST_TO_DEPOP)
			continue;
		for (c = TAILQ_FIRST(&a->lists[l]); c != NULL; c = tmp) {
			tmp = TAILQ_NEXT(c, next);
			if (c->bm.nr_empty_pop_pages == 0)
				continue;
			pcpu_alloc_list_move(c, PCPU_LIST_TO_DEPOP, 0);
			c->isolated = 1;
		}
	}
	while ((c = TAILQ_FIRST(&a->lists[PCPU_LIST_TO_DEPOP])) != NULL) {
		pages += balance_depopulate(c);
		c->isolated = 0;
		if (pcpu_alloc_chunk_unused(c))
			pcpu_alloc_list_move(c, PCPU_LIST_FREE, 0);
		else
			pcpu_alloc_list_move(c, PCPU_LIST_SIDELINED, 0);
	}
	/* chunks found free while isolated: one call leaves one spare */
	pages += balance_destroy_free_chunks(0);
	pcpu_alloc_index_unlock();
	return pages * bytes_per_page;
}

void
pcpu_alloc_drop_free_chunks(void)
{
	/* a secondary may read what was freed there: keep it (a span then
	 * finds no room, ENOMEM, until it detaches) */
	if (pcpu_arena_readers(&pcpu_alloc.arena)) {
		pcpu_alloc_defer();
		return;
	}
	pcpu_alloc_index_lock();
	pcpu_alloc_settle();
	balance_destroy_free_chunks(1);
	pcpu_alloc_index_unlock();
}
