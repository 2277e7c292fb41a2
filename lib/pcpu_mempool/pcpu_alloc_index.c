/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The allocator's index: its one instance (pcpu_alloc_index.h has the
 * locking rules and invariants), the lists chunks sit on, and what a free
 * does to them. The bottom of the allocator: its other files call this
 * one, never the other way.
 *
 * A chunk's list follows its largest free run (pcpu_chunk_slot()). Frees
 * change it lazily: the chunk bitmap defers hint updates per block
 * (pcpu_chunk_free_batch()), the allocator keeps at most
 * PCPU_PENDING_CHUNKS chunks with frees pending, settles them before
 * anything reads hints, and applies what each batch or settle did
 * (struct pcpu_chunk_free_effect) in one step: the page counts, the
 * chunk's list, and whether the balance has work.
 */

#include <stdint.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>

#include "pcpu_alloc_index.h"

struct pcpu_alloc pcpu_alloc = {
	.mutex = PTHREAD_MUTEX_INITIALIZER,
};

void
pcpu_alloc_list_move(struct pcpu_alloc_chunk *c, int list, int head)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	if (c->list >= 0) {
		TAILQ_REMOVE(&a->lists[c->list], c, next);
		if (c->list < PCPU_NR_ACTIVE_SLOTS &&
		    TAILQ_EMPTY(&a->lists[c->list]))
			a->active_mask &= ~(UINT64_C(1) << c->list);
	}
	c->list = list;
	if (head)
		TAILQ_INSERT_HEAD(&a->lists[list], c, next);
	else
		TAILQ_INSERT_TAIL(&a->lists[list], c, next);
	if (list < PCPU_NR_ACTIVE_SLOTS)
		a->active_mask |= UINT64_C(1) << list;
}

void
pcpu_alloc_relocate(struct pcpu_alloc_chunk *c)
{
	int nslot;

	if (c->isolated)
		return;
	if (pcpu_alloc_chunk_unused(c))
		nslot = PCPU_LIST_FREE;
	else if (c->list == PCPU_LIST_SIDELINED)
		return;
	else
		nslot = pcpu_chunk_slot(&c->bm);
	if (nslot == c->list)
		return;
	pcpu_alloc_list_move(c, nslot, nslot > c->list);
}

const char *
pcpu_alloc_list_name(int list)
{
	switch (list) {
	case PCPU_LIST_SIDELINED:
		return "sidelined";
	case PCPU_LIST_FREE:
		return "free";
	case PCPU_LIST_TO_DEPOP:
		return "to_depopulate";
	default:
		return "active";
	}
}

void
pcpu_alloc_empty_track(const struct pcpu_alloc_chunk *c, uint32_t before)
{
	pcpu_alloc.empty_pop_pages += (int64_t)c->bm.nr_empty_pop_pages - before;
}

int
pcpu_alloc_should_isolate(const struct pcpu_alloc_chunk *c)
{
	uint32_t quarter = RTE_MAX(c->bm.nr_pages / 4, 1u);

	if (c->isolated || pcpu_alloc_chunk_unused(c))
		return 0;
	return c->bm.nr_empty_pop_pages >= quarter &&
		pcpu_alloc.empty_pop_pages >
		pcpu_alloc.reserve + c->bm.nr_empty_pop_pages;
}

/*
 * What a batch of frees or a settle did to chunk @p c: page counts, its
 * slot, and the balance work it leaves. Index lock held.
 */
void
pcpu_alloc_apply_effect(struct pcpu_alloc_chunk *c,
		const struct pcpu_chunk_free_effect *eff)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	a->empty_pop_pages += eff->empty_pages;
	/* as Linux, move only when the slot the hint asks for changes;
	 * while the hints are stale the slot follows the free bytes, which
	 * every free changes */
	if (eff->contig_after != eff->contig_before || pcpu_alloc_chunk_unused(c) ||
	    pcpu_chunk_hints_stale(&c->bm))
		pcpu_alloc_relocate(c);
	if (pcpu_alloc_chunk_unused(c)) {
		if (TAILQ_FIRST(&a->lists[PCPU_LIST_FREE]) != c ||
		    TAILQ_NEXT(c, next) != NULL)
			a->need_balance = 1;
	} else if (eff->empty_pages != 0 && pcpu_alloc_should_isolate(c)) {
		/* only a free that emptied a page can make it qualify */
		pcpu_alloc_list_move(c, PCPU_LIST_TO_DEPOP, 0);
		c->isolated = 1;
		a->need_balance = 1;
	}
}

void
pcpu_alloc_settle_chunk(struct pcpu_alloc_chunk *c)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_chunk_free_effect eff;
	uint32_t i;

	if (!c->on_pending)
		return;
	for (i = 0; a->pending[i] != c; i++)
		;
	memmove(&a->pending[i], &a->pending[i + 1],
		(a->nr_pending - i - 1) * sizeof(a->pending[0]));
	a->nr_pending--;
	c->on_pending = 0;
	pcpu_chunk_settle(&c->bm, &eff);
	pcpu_alloc_apply_effect(c, &eff);
}

void
pcpu_alloc_settle_block(struct pcpu_alloc_chunk *c)
{
	struct pcpu_chunk_free_effect eff;

	pcpu_chunk_settle(&c->bm, &eff);
	pcpu_alloc_apply_effect(c, &eff);
}

void
pcpu_alloc_settle(void)
{
	while (pcpu_alloc.nr_pending != 0)
		pcpu_alloc_settle_chunk(pcpu_alloc.pending[0]);
}
