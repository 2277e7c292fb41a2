/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The allocator's part of the statistics, the dump and the audit
 * (rte_pcpu_stats_get(), rte_pcpu_dump() and rte_pcpu_audit() in
 * pcpu_stats.c put the layers' parts together). Everything is read under
 * the mutex and the index lock, so the figures of one call agree with
 * each other; the pending chunk is settled first.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcpu_alloc_index.h"

/* Fill @p s. Mutex and index lock held. */
static void
audit_counters_locked(struct pcpu_alloc_counters *s)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	unsigned int i;

	s->nr_alloc = a->nr_alloc;
	s->nr_dealloc = a->nr_dealloc;
	s->nr_max_alloc = a->nr_max_alloc;
	s->nr_alloc_fail = a->nr_alloc_fail;
	s->nr_chunks = a->nr_chunks;
	s->nr_max_chunks = a->nr_max_chunks;
	s->min_alloc_size = a->min_alloc_size;
	s->max_alloc_size = a->max_alloc_size;
	s->populated_pages = a->populated_pages;
	s->empty_pop_pages = a->empty_pop_pages;
	s->max_populated_bytes = a->max_populated_bytes;
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		s->populated_bytes_socket[i] = a->populated_pages *
			a->page_size * a->lcores_on_socket[i];
	s->page_size = a->page_size;
	s->nr_lcores = a->nr_lcores;
	s->nr_huge_fallback = a->nr_huge_fallback;
	s->nr_spans = a->nr_spans;
	s->base = a->arena.base;
	s->shared = (uint32_t)a->arena.shm;
	s->nr_depop_deferred = a->nr_depop_deferred;
	s->conf = a->conf;
}

void
pcpu_alloc_counters(struct pcpu_alloc_counters *s)
{
	memset(s, 0, sizeof(*s));
	s->min_alloc_size = UINT64_MAX;
	pthread_mutex_lock(&pcpu_alloc.mutex);
	if (pcpu_alloc.initialised) {
		/* a system call: before the index lock */
		s->readers = (uint32_t)pcpu_arena_readers(&pcpu_alloc.arena);
		pcpu_alloc_index_lock();
		pcpu_alloc_settle();
		audit_counters_locked(s);
		pcpu_alloc_index_unlock();
	}
	pthread_mutex_unlock(&pcpu_alloc.mutex);
}

void
pcpu_alloc_dump_chunks(FILE *f)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_chunk_frag fr;
	uint32_t idx;

	pthread_mutex_lock(&a->mutex);
	pcpu_alloc_index_lock();
	pcpu_alloc_settle();
	for (idx = 0; a->initialised && idx < a->nr_chunk_max; idx++) {
		struct pcpu_alloc_chunk *c = a->chunks[idx];

		if (c == NULL)
			continue;
		/* exact figures (a free may have left the hints stale) */
		pcpu_chunk_refresh(&c->bm);
		pcpu_alloc_relocate(c);
		pcpu_chunk_frag_stats(&c->bm, &fr);
		fprintf(f, "  chunk %u (%s slot %d): nr_alloc %u free_bytes %u"
			" contig_bytes %u sum_frag %u max_frag %u first_bit %u"
			" min_alloc %u max_alloc %u pages %u/%u empty %u\n",
			c->index, pcpu_alloc_list_name(c->list), c->list, fr.nr_alloc,
			fr.free_bytes, fr.contig_bytes, fr.sum_frag,
			fr.max_frag, fr.first_free, fr.min_alloc, fr.max_alloc,
			fr.populated_pages, c->bm.nr_pages, fr.empty_pop_pages);
	}
	if (a->initialised)
		pcpu_alloc_span_dump(f);
	pcpu_alloc_index_unlock();
	pthread_mutex_unlock(&a->mutex);
}

/* The public slot number of list @p list (rte_pcpu_chunk_stats.slot). */
static int32_t
audit_public_slot(int list)
{
	switch (list) {
	case PCPU_LIST_SIDELINED:
		return -1;
	case PCPU_LIST_FREE:
		return -2;
	case PCPU_LIST_TO_DEPOP:
		return -3;
	default:
		return list;
	}
}

int
pcpu_alloc_chunk_stats(struct rte_pcpu_chunk_stats **out)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct rte_pcpu_chunk_stats *v = NULL;
	struct pcpu_chunk_frag fr;
	uint32_t idx, n = 0, cap;

	*out = NULL;
	pthread_mutex_lock(&a->mutex);
	/* no allocation under the index lock: room for the most chunks */
	cap = a->initialised ? a->nr_chunks : 0;
	if (cap != 0) {
		v = calloc(cap, sizeof(*v));
		if (v == NULL) {
			pthread_mutex_unlock(&a->mutex);
			return -1;
		}
	}
	pcpu_alloc_index_lock();
	pcpu_alloc_settle();
	for (idx = 0; cap != 0 && idx < a->nr_chunk_max && n < cap; idx++) {
		struct pcpu_alloc_chunk *c = a->chunks[idx];
		struct rte_pcpu_chunk_stats *cs = &v[n];

		if (c == NULL)
			continue;
		pcpu_chunk_refresh(&c->bm);
		pcpu_alloc_relocate(c);
		pcpu_chunk_frag_stats(&c->bm, &fr);
		cs->index = c->index;
		cs->slot = audit_public_slot(c->list);
		cs->nr_alloc = fr.nr_alloc;
		cs->free_bytes = fr.free_bytes;
		cs->contig_bytes = fr.contig_bytes;
		cs->sum_frag = fr.sum_frag;
		cs->max_frag = fr.max_frag;
		cs->first_free = fr.first_free << PCPU_MIN_ALLOC_SHIFT;
		cs->min_alloc = fr.min_alloc;
		cs->max_alloc = fr.max_alloc;
		cs->populated_pages = fr.populated_pages;
		cs->empty_pages = fr.empty_pop_pages;
		cs->nr_pages = c->bm.nr_pages;
		n++;
	}
	pcpu_alloc_index_unlock();
	pthread_mutex_unlock(&a->mutex);
	*out = v;
	return (int)n;
}

static int
audit_list_holds(int list, const struct pcpu_alloc_chunk *c)
{
	const struct pcpu_alloc_chunk *it;

	if (list < 0 || list >= PCPU_NR_LISTS)
		return 0;
	TAILQ_FOREACH(it, &pcpu_alloc.lists[list], next)
		if (it == c)
			return 1;
	return 0;
}

/* Compare populated state with the real mappings of every lcore. */
static int
audit_mappings(struct pcpu_alloc_chunk *c, char *msg, size_t len)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	unsigned int lcore_id;
	uint32_t ps, pe;
	uint64_t bad;

	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1)) {
		for (ps = 0; ps < c->bm.nr_pages; ps = pe) {
			int pop = pcpu_chunk_page_populated(&c->bm, ps);

			for (pe = ps + 1; pe < c->bm.nr_pages &&
			     pcpu_chunk_page_populated(&c->bm, pe) == pop; pe++)
				;
			bad = pcpu_arena_check(&a->arena, lcore_id,
				pcpu_alloc_page_off(c, ps),
				(uint64_t)(pe - ps) * a->page_size, a->page_size,
				pop);
			if (bad != 0) {
				snprintf(msg, len, "lcore %u page %" PRIu64
					" is %s but the map says %s", lcore_id,
					ps + bad - 1,
					pop ? "not backed" : "backed",
					pop ? "populated" : "unpopulated");
				return -1;
			}
		}
	}
	return 0;
}

/* Every bit of the pool map starts a live allocation. */
static int
audit_pool_map(const struct pcpu_alloc_chunk *c, char *msg, size_t len)
{
	uint32_t w, bit;
	uint64_t m;

	if (c->pool_map == NULL)
		return 0;
	for (w = 0; w < (c->bm.map_bits + 63) / 64; w++)
		for (m = c->pool_map[w]; m != 0; m &= m - 1) {
			bit = w * 64 + (uint32_t)__builtin_ctzll(m);
			if (pcpu_chunk_obj_bits(&c->bm, bit) == 0) {
				snprintf(msg, len, "pool map bit %u is not the "
					"start of a live allocation", bit);
				return -1;
			}
		}
	return 0;
}

/* One chunk's invariants. Both locks held. */
static int
audit_chunk(uint32_t idx, struct pcpu_alloc_chunk *c, char *msg, size_t len)
{
	char sub[200];
	int want;

	if (c->index != idx) {
		snprintf(msg, len, "chunk %u records index %u", idx, c->index);
		return -1;
	}
	if (pcpu_chunk_audit(&c->bm, sub, sizeof(sub)) != 0 ||
	    audit_mappings(c, sub, sizeof(sub)) != 0 ||
	    audit_pool_map(c, sub, sizeof(sub)) != 0) {
		snprintf(msg, len, "chunk %u: %s", idx, sub);
		return -1;
	}
	if (!audit_list_holds(c->list, c)) {
		snprintf(msg, len, "chunk %u not on its list %d", idx, c->list);
		return -1;
	}
	if (c->isolated != (c->list == PCPU_LIST_TO_DEPOP)) {
		snprintf(msg, len, "chunk %u isolated %d but on list %s", idx,
			c->isolated, pcpu_alloc_list_name(c->list));
		return -1;
	}
	want = pcpu_alloc_chunk_unused(c) ? PCPU_LIST_FREE : pcpu_chunk_slot(&c->bm);
	if (c->list != want && c->list != PCPU_LIST_SIDELINED &&
	    c->list != PCPU_LIST_TO_DEPOP &&
	    !(c->list == 0 && want < PCPU_SLOT_FAIL_THRESHOLD)) {
		snprintf(msg, len, "chunk %u in slot %d, its hint says %d", idx,
			c->list, want);
		return -1;
	}
	return 0;
}

/* The global counters against the sums over the chunks. */
static int
audit_counters(const struct pcpu_alloc_counters *sum, char *msg, size_t len)
{
	const struct pcpu_alloc *a = &pcpu_alloc;

	if (sum->nr_chunks != a->nr_chunks)
		snprintf(msg, len, "%u chunks exist, counter says %u",
			sum->nr_chunks, a->nr_chunks);
	else if (sum->live_objs != pcpu_alloc_live())
		snprintf(msg, len, "chunks hold %" PRIu64 " objects, counter "
			"says %" PRIu64, sum->live_objs, pcpu_alloc_live());
	else if (sum->populated_pages != a->populated_pages)
		snprintf(msg, len, "chunks have %" PRIu64 " populated pages, "
			"counter %" PRIu64, sum->populated_pages,
			a->populated_pages);
	else if (sum->empty_pop_pages != a->empty_pop_pages)
		snprintf(msg, len, "chunks have %" PRIu64 " empty pages, "
			"counter %" PRIu64, sum->empty_pop_pages,
			a->empty_pop_pages);
	else if (a->conf.max_populated != 0 &&
		 pcpu_alloc_pages_bytes(a->populated_pages) > a->conf.max_populated)
		snprintf(msg, len, "populated %" PRIu64 " bytes above the "
			"limit %" PRIu64, pcpu_alloc_pages_bytes(a->populated_pages),
			a->conf.max_populated);
	else
		return 0;
	return -1;
}

int
pcpu_alloc_audit_lock(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	pthread_mutex_lock(&a->mutex);
	if (!a->initialised) {
		pthread_mutex_unlock(&a->mutex);
		return 0;
	}
	pcpu_alloc_index_lock();
	pcpu_alloc_settle();
	return 1;
}

void
pcpu_alloc_audit_unlock(void)
{
	pcpu_alloc_index_unlock();
	pthread_mutex_unlock(&pcpu_alloc.mutex);
}

int
pcpu_alloc_audit(struct pcpu_alloc_counters *s, char *msg, size_t len)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_counters sum;
	uint32_t idx;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	memset(&sum, 0, sizeof(sum));
	if (!pcpu_alloc_audit_lock())
		return 0;
	for (idx = 0; ret == 0 && idx < a->nr_chunk_max; idx++) {
		struct pcpu_alloc_chunk *c = a->chunks[idx];

		if (c == NULL)
			continue;
		ret = audit_chunk(idx, c, msg, len);
		sum.nr_chunks++;
		sum.live_objs += c->bm.nr_alloc;
		sum.populated_pages += c->bm.nr_populated;
		sum.empty_pop_pages += c->bm.nr_empty_pop_pages;
	}
	if (ret == 0)
		ret = pcpu_alloc_span_audit(&sum, msg, len);
	if (ret == 0)
		ret = audit_counters(&sum, msg, len);
	audit_counters_locked(s);
	s->live_objs = sum.live_objs;
	pcpu_alloc_audit_unlock();
	return ret;
}
