/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Spans: objects larger than a chunk's bitmap places
 * (RTE_PCPU_CHUNK_OBJ_MAX_SIZE), up to RTE_PCPU_MAX_SIZE per lcore.
 *
 * A span is a run of whole chunk indexes, so it sits at the same offset in
 * every unit as any chunk object does and its handle works with every
 * access macro; RTE_PCPU(arr)[i] indexes it as an array. It has no bitmap:
 * one object fills it. Its pages [0, nr_pages) (enough to hold the object,
 * rounded up to the page size) are populated on every lcore with memory
 * when it is allocated, mapped then (hugepages when the allocator uses
 * them, with the page policy's fall-back) and bound to each lcore's NUMA
 * node; the rest of its chunks stays reserved. Fresh pages read as zero,
 * so a span is never cleared by hand, and its free gives every page back
 * at once: a span is too large to keep populated for a later allocation,
 * and it never shares a page with another object.
 *
 * Spans are placed from the top of the unit down and chunks are created
 * from the bottom up, so the two meet only in a nearly full unit. The span
 * index (pcpu_alloc.spans, one pointer per chunk index) makes a chunk
 * index either a chunk's, a span's or free; chunk creation skips span
 * indexes.
 *
 * Locking (pcpu_alloc_index.h): allocation and free hold the population
 * mutex throughout (they make system calls, and nothing else may take or
 * populate the address range meanwhile); the index lock guards the span
 * index, the list and the counters, which the free and statistics paths
 * read. A free removes the span from the index under both locks before it
 * depopulates, so a second free of the same handle finds nothing.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "pcpu_alloc_index.h"
#include "pcpu_asan.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"

/** One allocation of whole chunks. */
struct pcpu_alloc_span {
	/** In pcpu_alloc.span_list, or span_freed once freed. */
	TAILQ_ENTRY(pcpu_alloc_span) next;
	uint32_t first;     /**< First chunk index. */
	uint32_t nr_chunks; /**< Chunk indexes it covers. */
	uint32_t nr_pages;  /**< Populated pages per lcore, from its start. */
	int freed;          /**< Freed, its memory kept (below). */
	uint64_t size;      /**< Bytes asked for, per lcore. */
	uint32_t owner;     /**< Its owner's id (pcpu_owner.h), charged
			      *  pcpu_alloc_obj_size(size) per copy. */
};

/*
 * Spans freed while a secondary process read the shared area: their
 * memory goes back only once none does (pcpu_alloc_balance.c says why),
 * so they keep their chunk indexes (nothing may be placed there before
 * the range is a hole again: a new object there must read as zero) and
 * their pages, counted as populated, on this list, and are released by
 * pcpu_alloc_span_release_freed(). Both locks guard it.
 */
static struct pcpu_span_list span_freed = TAILQ_HEAD_INITIALIZER(span_freed);

/* Byte offset of a span inside a unit. */
static inline uint64_t
span_off(const struct pcpu_alloc_span *s)
{
	return (uint64_t)s->first << pcpu_alloc.chunk_shift;
}

static inline uint64_t
span_pop_bytes(const struct pcpu_alloc_span *s)
{
	return (uint64_t)s->nr_pages * pcpu_alloc.page_size;
}

int
pcpu_alloc_span_init(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;

	a->spans = pcpu_fault_calloc(a->nr_chunk_max, sizeof(*a->spans));
	if (a->spans == NULL)
		return -1;
	TAILQ_INIT(&a->span_list);
	a->nr_spans = 0;
	return 0;
}

void
pcpu_alloc_span_cleanup(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_span *s;

	while (a->spans != NULL && (s = TAILQ_FIRST(&a->span_list)) != NULL) {
		TAILQ_REMOVE(&a->span_list, s, next);
		free(s);
	}
	while ((s = TAILQ_FIRST(&span_freed)) != NULL) {
		TAILQ_REMOVE(&span_freed, s, next);
		free(s);
	}
	free(a->spans);
	a->spans = NULL;
	a->nr_spans = 0;
}

/* The highest run of @p n chunk indexes holding neither a chunk nor a
 * span; its first index, or UINT32_MAX. Mutex held. */
static uint32_t
span_find_run(uint32_t n)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t idx = a->nr_chunk_max, run = 0;

	while (idx-- > 0) {
		if (a->chunks[idx] != NULL || a->spans[idx] != NULL) {
			run = 0;
			continue;
		}
		if (++run == n)
			return idx;
	}
	return UINT32_MAX;
}

/* Point the index entries of @p s at @p to (the span, or NULL). Both
 * locks held. */
static void
span_index_set(const struct pcpu_alloc_span *s, struct pcpu_alloc_span *to)
{
	uint32_t i;

	for (i = 0; i < s->nr_chunks; i++)
		pcpu_alloc.spans[s->first + i] = to;
}

static void
span_depopulate_lcore(const struct pcpu_alloc_span *s, unsigned int lcore_id)
{
	/* hugepages and their 4 KiB fall-back both go back as one mapping */
	pcpu_arena_depopulate(&pcpu_alloc.arena, lcore_id,
		pcpu_alloc.lcore_socket[lcore_id], span_off(s),
		span_pop_bytes(s), PCPU_BACKING_SMALL);
}

/* Populate the span on every lcore with memory, or on none. Mutex held.
 * 0 or -errno. */
static int
span_populate(const struct pcpu_alloc_span *s)
{
	unsigned int lcore_id, undo;
	int ret;

	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1)) {
		ret = pcpu_alloc_populate_range(lcore_id, span_off(s),
			span_pop_bytes(s));
		if (ret == 0)
			continue;
		for (undo = pcpu_alloc_lcore_next(0); undo < lcore_id;
		     undo = pcpu_alloc_lcore_next(undo + 1))
			span_depopulate_lcore(s, undo);
		return ret;
	}
	return 0;
}

/* Insert @p s into the list, which is kept in address order. Index lock
 * held. */
static void
span_list_insert(struct pcpu_alloc_span *s)
{
	struct pcpu_alloc_span *it;

	TAILQ_FOREACH(it, &pcpu_alloc.span_list, next) {
		if (it->first > s->first) {
			TAILQ_INSERT_BEFORE(it, s, next);
			return;
		}
	}
	TAILQ_INSERT_TAIL(&pcpu_alloc.span_list, s, next);
}

/* Count a failed allocation. */
static void
span_fail(void)
{
	pcpu_alloc_index_lock();
	pcpu_alloc.nr_alloc_fail++;
	pcpu_alloc_index_unlock();
	rte_errno = ENOMEM;
}

void *
pcpu_alloc_span_alloc(size_t size, uint32_t owner)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_span *s;
	uint32_t first;
	void *h;
	int ret;

	s = pcpu_fault_calloc(1, sizeof(*s));
	if (s == NULL) {
		PCPU_LOG(ERR, "no memory for the record of a %zu-byte object",
			size);
		span_fail();
		return NULL;
	}
	pthread_mutex_lock(&a->mutex);
	/* frees may have left whole chunks to destroy: make room first */
	if (__atomic_load_n(&a->need_balance, __ATOMIC_RELAXED))
		pcpu_alloc_balance(0);
	s->size = size;
	s->owner = owner;
	s->nr_chunks = (uint32_t)((size + pcpu_alloc_chunk_bytes() - 1) >>
		a->chunk_shift);
	s->nr_pages = (uint32_t)((size + a->page_size - 1) / a->page_size);
	pcpu_alloc_index_lock();
	if (a->conf.max_populated != 0 &&
	    pcpu_alloc_pages_bytes(a->populated_pages + s->nr_pages) >
	    a->conf.max_populated) {
		pcpu_alloc_index_unlock();
		PCPU_LOG(DEBUG, "populated-bytes limit %" PRIu64 " reached",
			a->conf.max_populated);
		goto fail;
	}
	first = span_find_run(s->nr_chunks);
	if (first == UINT32_MAX && !TAILQ_EMPTY(&a->lists[PCPU_LIST_FREE])) {
		/* the spare free chunk may stand in the way */
		pcpu_alloc_index_unlock();
		pcpu_alloc_drop_free_chunks();
		pcpu_alloc_index_lock();
		first = span_find_run(s->nr_chunks);
	}
	if (first == UINT32_MAX) {
		pcpu_alloc_index_unlock();
		PCPU_LOG(ERR, "reserved address space: no %u free chunks in a "
			"row for a %zu-byte object (%u chunks of %" PRIu64
			" bytes per lcore)", s->nr_chunks, size,
			a->nr_chunk_max, pcpu_alloc_chunk_bytes());
		goto fail;
	}
	s->first = first;
	/* taken: chunk creation and other spans skip these indexes */
	span_index_set(s, s);
	pcpu_alloc_index_unlock();

	ret = span_populate(s);
	pcpu_alloc_index_lock();
	if (ret != 0) {
		span_index_set(s, NULL);
		pcpu_alloc_index_unlock();
		PCPU_LOG(ERR, "cannot populate %" PRIu64 " bytes per lcore: %s",
			span_pop_bytes(s), strerror(-ret));
		goto fail;
	}
	a->populated_pages += s->nr_pages;
	if (pcpu_alloc_pages_bytes(a->populated_pages) > a->max_populated_bytes)
		a->max_populated_bytes =
			pcpu_alloc_pages_bytes(a->populated_pages);
	a->nr_alloc++;
	if (pcpu_alloc_live() > a->nr_max_alloc)
		a->nr_max_alloc = pcpu_alloc_live();
	if (size < a->min_alloc_size)
		a->min_alloc_size = size;
	if (size > a->max_alloc_size)
		a->max_alloc_size = size;
	span_list_insert(s);
	a->nr_spans++;
	pcpu_alloc_index_unlock();
	pthread_mutex_unlock(&a->mutex);
	h = (void *)(a->arena.base + (uintptr_t)span_off(s));
	pcpu_asan_unpoison(h, size);
	return h;
fail:
	pthread_mutex_unlock(&a->mutex);
	free(s);
	span_fail();
	return NULL;
}

/* The live span starting at @p handle, or NULL. Index lock held. */
static struct pcpu_alloc_span *
span_at(const void *handle)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t off = (uintptr_t)handle - a->arena.base;
	struct pcpu_alloc_span *s;

	if (a->spans == NULL || off >= a->arena.unit_stride ||
	    (off & (pcpu_alloc_chunk_bytes() - 1)) != 0)
		return NULL;
	s = a->spans[off >> a->chunk_shift];
	return s != NULL && !s->freed && s->first == (off >> a->chunk_shift) ?
		s : NULL;
}

int
pcpu_alloc_span_free(void *handle, uint32_t *owner, uint64_t *bytes)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_span *s;
	unsigned int lcore_id;
	int readers;

	pthread_mutex_lock(&a->mutex);
	/* a system call: before the index lock */
	readers = a->initialised && pcpu_arena_readers(&a->arena);
	pcpu_alloc_index_lock();
	s = a->initialised ? span_at(handle) : NULL;
	if (s == NULL) {
		pcpu_alloc_index_unlock();
		pthread_mutex_unlock(&a->mutex);
		return -1;
	}
	/* before anyone can take the range again (they need the mutex) */
	pcpu_asan_poison(handle, s->size);
	TAILQ_REMOVE(&a->span_list, s, next);
	a->nr_spans--;
	a->nr_dealloc++;
	/* its user's charge ends now, whether its memory goes or is kept */
	*owner = s->owner;
	*bytes = pcpu_alloc_obj_size(s->size);
	if (readers) {
		/* keeps its indexes and pages until no secondary reads */
		s->freed = 1;
		TAILQ_INSERT_TAIL(&span_freed, s, next);
		pcpu_alloc_index_unlock();
		pcpu_alloc_defer();
		pthread_mutex_unlock(&a->mutex);
		return 0;
	}
	span_index_set(s, NULL);
	a->populated_pages -= s->nr_pages;
	pcpu_alloc_index_unlock();
	for (lcore_id = pcpu_alloc_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1))
		span_depopulate_lcore(s, lcore_id);
	pthread_mutex_unlock(&a->mutex);
	free(s);
	return 0;
}

uint64_t
pcpu_alloc_span_release_freed(void)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_span *s;
	unsigned int lcore_id;
	uint64_t pages = 0;

	pcpu_alloc_index_lock();
	while ((s = TAILQ_FIRST(&span_freed)) != NULL) {
		TAILQ_REMOVE(&span_freed, s, next);
		span_index_set(s, NULL);
		a->populated_pages -= s->nr_pages;
		pcpu_alloc_index_unlock();
		for (lcore_id = pcpu_alloc_lcore_next(0);
		     lcore_id < RTE_MAX_LCORE;
		     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1))
			span_depopulate_lcore(s, lcore_id);
		pages += s->nr_pages;
		free(s);
		pcpu_alloc_index_lock();
	}
	pcpu_alloc_index_unlock();
	return pages;
}

uint64_t
pcpu_alloc_span_bytes(const void *handle)
{
	const struct pcpu_alloc_span *s = span_at(handle);

	return s != NULL ? s->size : 0;
}

int
pcpu_alloc_span_holds(uint64_t off, uint64_t len, uint64_t *start,
		uint32_t *owner)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	const struct pcpu_alloc_span *s;

	if (a->spans == NULL || off >= a->arena.unit_stride)
		return 0;
	s = a->spans[off >> a->chunk_shift];
	if (s == NULL || s->freed || len > s->size ||
	    off - span_off(s) > s->size - len)
		return 0;
	*start = span_off(s);
	*owner = s->owner;
	return 1;
}

int
pcpu_alloc_span_lcore_add(unsigned int lcore_id)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	struct pcpu_alloc_span *s, *u;
	int ret;

	TAILQ_FOREACH(s, &a->span_list, next) {
		ret = pcpu_alloc_populate_range(lcore_id, span_off(s),
			span_pop_bytes(s));
		if (ret == 0)
			continue;
		TAILQ_FOREACH(u, &a->span_list, next) {
			if (u == s)
				break;
			span_depopulate_lcore(u, lcore_id);
		}
		return ret;
	}
	return 0;
}

void
pcpu_alloc_span_lcore_remove(unsigned int lcore_id)
{
	struct pcpu_alloc_span *s;

	TAILQ_FOREACH(s, &pcpu_alloc.span_list, next)
		span_depopulate_lcore(s, lcore_id);
}

/* Lcore @p lcore_id's mappings of span @p s: its pages backed, the rest
 * of its chunks not. */
static int
span_audit_mappings(const struct pcpu_alloc_span *s, unsigned int lcore_id,
		char *msg, size_t len)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint64_t all = (uint64_t)s->nr_chunks << a->chunk_shift;
	uint64_t pop = span_pop_bytes(s), bad;

	bad = pcpu_arena_check(&a->arena, lcore_id, span_off(s), pop,
		a->page_size, 1);
	if (bad != 0) {
		snprintf(msg, len, "span at chunk %u, lcore %u: page %" PRIu64
			" is not backed", s->first, lcore_id, bad - 1);
		return -1;
	}
	if (all == pop)
		return 0;
	bad = pcpu_arena_check(&a->arena, lcore_id, span_off(s) + pop,
		all - pop, a->page_size, 0);
	if (bad != 0) {
		snprintf(msg, len, "span at chunk %u, lcore %u: page %" PRIu64
			", past its end, is backed", s->first, lcore_id,
			s->nr_pages + bad - 1);
		return -1;
	}
	return 0;
}

int
pcpu_alloc_span_audit(struct pcpu_alloc_counters *sum, char *msg, size_t len)
{
	const struct pcpu_alloc *a = &pcpu_alloc;
	const struct pcpu_alloc_span *s;
	unsigned int lcore_id;
	uint32_t i, nr = 0, prev_end = 0, covered = 0;

	TAILQ_FOREACH(s, &a->span_list, next) {
		if (s->nr_chunks == 0 || s->first + s->nr_chunks >
		    a->nr_chunk_max || s->first < prev_end ||
		    s->size <= RTE_PCPU_CHUNK_OBJ_MAX_SIZE ||
		    s->size > (uint64_t)s->nr_chunks << a->chunk_shift ||
		    span_pop_bytes(s) < s->size) {
			snprintf(msg, len, "span at chunk %u: bad record (%u "
				"chunks, %u pages, %" PRIu64 " bytes)", s->first,
				s->nr_chunks, s->nr_pages, s->size);
			return -1;
		}
		for (i = 0; i < s->nr_chunks; i++) {
			if (a->spans[s->first + i] != s ||
			    a->chunks[s->first + i] != NULL) {
				snprintf(msg, len, "span at chunk %u: index %u "
					"not its own", s->first, s->first + i);
				return -1;
			}
		}
		for (lcore_id = pcpu_alloc_lcore_next(0);
		     lcore_id < RTE_MAX_LCORE;
		     lcore_id = pcpu_alloc_lcore_next(lcore_id + 1))
			if (span_audit_mappings(s, lcore_id, msg, len) != 0)
				return -1;
		prev_end = s->first + s->nr_chunks;
		covered += s->nr_chunks;
		sum->live_objs++;
		sum->populated_pages += s->nr_pages;
		nr++;
	}
	/* freed ones kept for a secondary: their indexes and pages */
	TAILQ_FOREACH(s, &span_freed, next) {
		for (i = 0; i < s->nr_chunks; i++) {
			if (a->spans[s->first + i] != s) {
				snprintf(msg, len, "freed span at chunk %u: "
					"index %u not its own", s->first,
					s->first + i);
				return -1;
			}
		}
		covered += s->nr_chunks;
		sum->populated_pages += s->nr_pages;
	}
	/* no index entry outside the listed spans */
	for (i = 0; i < a->nr_chunk_max; i++)
		covered -= a->spans[i] != NULL;
	if (covered != 0) {
		snprintf(msg, len, "span index entries and listed spans' chunks "
			"differ by %d", (int)covered);
		return -1;
	}
	if (nr != a->nr_spans) {
		snprintf(msg, len, "%u spans listed, counter says %u", nr,
			a->nr_spans);
		return -1;
	}
	sum->nr_spans = nr;
	return 0;
}

int
pcpu_alloc_span_owner_sums(struct pcpu_alloc_owner_sums *sum, char *msg,
		size_t len)
{
	const struct pcpu_alloc_span *s;

	TAILQ_FOREACH(s, &pcpu_alloc.span_list, next) {
		if (s->owner == PCPU_OWNER_NONE || s->owner >= PCPU_OWNER_NB ||
		    pcpu_owners.rec[s->owner].kind == PCPU_OWNER_KIND_FREE) {
			snprintf(msg, len, "span at chunk %u: owner %u is not a "
				"live owner", s->first, s->owner);
			return -1;
		}
		sum->bytes[s->owner] += pcpu_alloc_obj_size(s->size);
		sum->objs[s->owner]++;
		sum->live_bytes += pcpu_alloc_obj_size(s->size);
	}
	return 0;
}

void
pcpu_alloc_span_dump(FILE *f)
{
	const struct pcpu_alloc_span *s;

	TAILQ_FOREACH(s, &pcpu_alloc.span_list, next)
		fprintf(f, "  span at chunk %u: %u chunks, %" PRIu64
			" bytes, pages %u, owner %s\n", s->first, s->nr_chunks,
			s->size, s->nr_pages, pcpu_owners.rec[s->owner].name);
	TAILQ_FOREACH(s, &span_freed, next)
		fprintf(f, "  freed span at chunk %u: %u chunks, pages %u "
			"(kept while a secondary process reads)\n", s->first,
			s->nr_chunks, s->nr_pages);
}
