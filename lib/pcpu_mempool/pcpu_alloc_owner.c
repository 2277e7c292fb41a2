/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The allocator's record of who owns the objects it hands out itself
 * (pcpu_alloc_one(): objects above the caches' sizes, spans, and all the
 * allocations of threads without a cache), as Linux mm/percpu.c keeps an
 * obj_cgroup pointer per allocation slot of every chunk: no separate chunk
 * types, so accounted and unaccounted objects share chunks and the
 * chunks stay as full as without owners.
 *
 * Each chunk has an *owner vector*: one 16-bit owner id per 8-byte slot
 * (objects start on 8-byte boundaries), a quarter of the chunk's size,
 * mapped with the chunk as anonymous memory that the kernel backs only
 * where written. Only the objects the allocator hands out itself to an
 * owner other than the root write their slot, and those are mostly
 * larger than the caches' 512 bytes: a page of vector covers 16 KiB of
 * objects, 4 KiB of vector per 2 MiB of such objects at worst. The root's
 * objects are only counted (pcpu_alloc.root_bytes): an entry a line away
 * from everything else the free touches cost a cache miss per free (2.4x
 * the time of a 1 KiB free), and most objects are the root's. A chunk
 * counts its entries (nr_owner_ids), so that the free of an object in a
 * chunk without any reads no vector either. The audit checks both counts.
 * The caches' objects are recorded in their tags and pools' objects per
 * pool, so neither touches the vector. Spans record their owner in their
 * own record.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "pcpu_alloc_index.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"

/* Bytes of a chunk's owner vector: 2 per 8-byte slot. */
static inline size_t
owner_map_len(const struct pcpu_alloc_chunk *c)
{
	return (size_t)c->bm.map_bits;
}

int
pcpu_alloc_owner_map_new(struct pcpu_alloc_chunk *c)
{
	void *m = pcpu_fault_mmap(NULL, owner_map_len(c),
		PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED) {
		PCPU_LOG(ERR, "no address space for the owner vector of a "
			"chunk (%zu bytes)", owner_map_len(c));
		return -1;
	}
	c->owners = m;
	return 0;
}

void
pcpu_alloc_owner_map_free(struct pcpu_alloc_chunk *c)
{
	size_t len = owner_map_len(c);

	if (c->owners != NULL && pcpu_fault_munmap(c->owners, len) != 0) {
		/* the chunk goes all the same: its vector's memory with it */
		PCPU_LOG(ERR, "cannot unmap the owner vector of chunk %u (%zu "
			"bytes at %p): %s; its address space is lost", c->index,
			len, (void *)c->owners, strerror(errno));
		if (pcpu_fault_madvise(c->owners, len, MADV_DONTNEED) != 0)
			PCPU_LOG(ERR, "... and its memory: %s",
				strerror(errno));
	}
	c->owners = NULL;
}

/* Add one chunk's live objects to @p s. Both locks held, chunk settled. */
static int
owner_audit_chunk(const struct pcpu_alloc_chunk *c,
		struct pcpu_alloc_owner_sums *s, char *msg, size_t len)
{
	uint64_t starts, bytes, sum = 0;
	uint32_t w, bit, bits, owner, ids = 0;
	int pool;

	for (w = 0; w < (c->bm.map_bits + 63) / 64; w++) {
		starts = c->bm.alloc_map[w] & c->bm.bound_map[w];
		for (; starts != 0; starts &= starts - 1) {
			bit = w * 64 + (uint32_t)__builtin_ctzll(starts);
			bits = pcpu_chunk_obj_bits(&c->bm, bit);
			bytes = (uint64_t)bits << PCPU_MIN_ALLOC_SHIFT;
			owner = c->owners[bit >> 1];
			pool = c->pool_map != NULL &&
				(c->pool_map[bit / 64] >> (bit % 64) & 1);
			if ((bit & 1) != 0 || (pool && owner != 0) ||
			    (owner != 0 && pcpu_owners.rec[owner].kind ==
			     PCPU_OWNER_KIND_FREE)) {
				snprintf(msg, len, "chunk %u: object at bit %u "
					"(%s) has owner %u%s", c->index, bit,
					pool ? "a pool's" : "not a pool's", owner,
					owner != 0 && pcpu_owners.rec[owner].kind ==
					PCPU_OWNER_KIND_FREE ? ", not a live owner" :
					"");
				return -1;
			}
			sum += bytes;
			if (pool) {
				s->pool_bytes += bytes;
				s->pool_objs++;
			} else if (owner != 0) {
				s->bytes[owner] += bytes;
				s->objs[owner]++;
				ids++;
			} else {
				/* the root's, or a cache's */
				s->cache_bytes += bytes;
				s->cache_objs++;
			}
		}
	}
	if (ids != c->nr_owner_ids) {
		snprintf(msg, len, "chunk %u: %u objects have an owner id, "
			"it counts %u", c->index, ids, c->nr_owner_ids);
		return -1;
	}
	if (sum != pcpu_alloc_chunk_bytes() - c->bm.free_bytes) {
		snprintf(msg, len, "chunk %u: objects of %" PRIu64 " bytes, "
			"%" PRIu64 " bytes not free", c->index, sum,
			pcpu_alloc_chunk_bytes() - c->bm.free_bytes);
		return -1;
	}
	s->live_bytes += sum;
	return 0;
}

int
pcpu_alloc_owner_audit(struct pcpu_alloc_owner_sums *s, char *msg, size_t len)
{
	struct pcpu_alloc *a = &pcpu_alloc;
	uint32_t idx;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (!pcpu_alloc_audit_lock())
		return 0;
	for (idx = 0; ret == 0 && idx < a->nr_chunk_max; idx++)
		if (a->chunks[idx] != NULL)
			ret = owner_audit_chunk(a->chunks[idx], s, msg, len);
	/* the root's objects are among those without an id */
	if (ret == 0 && (s->cache_bytes < a->root_bytes ||
			 s->cache_objs < a->root_objs)) {
		snprintf(msg, len, "the root's objects (%" PRIu64 ", %" PRIu64
			" bytes) outnumber the chunks' objects without an "
			"owner id (%" PRIu64 ", %" PRIu64 " bytes)",
			a->root_objs, a->root_bytes, s->cache_objs,
			s->cache_bytes);
		ret = -1;
	} else if (ret == 0) {
		s->cache_bytes -= a->root_bytes;
		s->cache_objs -= a->root_objs;
		s->bytes[PCPU_OWNER_ROOT] += a->root_bytes;
		s->objs[PCPU_OWNER_ROOT] += a->root_objs;
	}
	if (ret == 0)
		ret = pcpu_alloc_span_owner_sums(s, msg, len);
	pcpu_alloc_audit_unlock();
	return ret;
}
