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
 */

#include <stdint.h>

#include <rte_common.h>

#include "pcpu_alloc_index.h"

/* Depopulate empty pages of an isolated chunk, last page first, while the
 * global count exceeds the reserve. Index lock held; returns with it
 * held. Returns pages given back. */
static uint64_t
balance_depopulate(struct pcpu_alloc_chunk *c)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t rs, re, pe = c->bm.nr_pages;
	uint64_t pages = 0;

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
		pcpu_alloc_depopulate(c, rs, re);
		pcpu_alloc_index_lock();
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

uint64_t
pcpu_alloc_balance(int explicit)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_chunk *c, *tmp;
	uint64_t pages = 0, bytes_per_page;
	int l;

	pcpu_alloc_index_lock();
	a->need_balance = 0;
	pcpu_alloc_settle();
	bytes_per_page = a->page_size * a->nr_lcores;
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
	pcpu_alloc_index_lock();
	pcpu_alloc_settle();
	balance_destroy_free_chunks(1);
	pcpu_alloc_index_unlock();
}
