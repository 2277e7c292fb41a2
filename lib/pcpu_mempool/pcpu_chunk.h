/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_CHUNK_H_
#define _PCPU_CHUNK_H_

/**
 * @file
 * @internal Bitmap allocator for one chunk (no EAL dependency).
 *
 * The design follows Linux mm/percpu.c (the 2017 bitmap allocator with the
 * 2019 scan hints): a 4-byte granule, an allocation map, a boundary map
 * (start bit and the bit just past the end of every object, so free needs
 * no size), per-block metadata (a block is 1024 bits, 4 KiB of one unit)
 * with contig hint, scan hint, left/right free and first free, and a
 * chunk-level hint set. Block hints are exact after every allocation and
 * every settled free; frees are batched per block (pcpu_chunk_free_batch(),
 * pcpu_chunk_settle()), and only the one pending block's hints may miss
 * free space meanwhile. Every position passed to the hint updates is
 * chunk-relative (Linux mixes a block-relative end into a chunk-level
 * update there).
 *
 * Population is tracked per *page* (4 KiB or 2 MiB: one page covers
 * blocks_per_page blocks). A page is *empty* when all its blocks are
 * fully free.
 *
 * All functions assume the caller holds the lock that guards the chunk.
 * Positions and sizes are in bits (granules of 4 bytes) unless named
 * *_bytes.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCPU_MIN_ALLOC_SHIFT 2                      /**< 4 B granule. */
#define PCPU_MIN_ALLOC_SIZE (1u << PCPU_MIN_ALLOC_SHIFT)
#define PCPU_BLOCK_SIZE 4096u                       /**< Bytes per block. */
#define PCPU_BLOCK_BITS (PCPU_BLOCK_SIZE >> PCPU_MIN_ALLOC_SHIFT) /**< 1024 */

/** Hints of one block, or of the whole chunk (all in bits). */
struct pcpu_block_md {
	uint32_t scan_hint;        /**< A free run before the contig hint. */
	uint32_t scan_hint_start;
	uint32_t contig_hint;      /**< Largest free run (chunk: lower bound). */
	uint32_t contig_hint_start;
	uint32_t left_free;        /**< Free run touching bit 0. */
	uint32_t right_free;       /**< Free run touching the last bit. */
	uint32_t first_free;       /**< Lower bound on the first free bit. */
	uint32_t nr_bits;          /**< Bits covered. */
};

/**
 * One chunk's bitmap state: what is allocated, the hints that speed up the
 * search, and which pages are populated. Where the chunk sits in the
 * percpu allocator (its slot list, its index in the unit) is the
 * allocator's business (struct pcpu_alloc_chunk in pcpu_alloc_index.h).
 */
struct pcpu_chunk {
	uint32_t map_bits;         /**< chunk_size / 4. */
	uint32_t nr_blocks;        /**< map_bits / PCPU_BLOCK_BITS. */
	uint32_t nr_pages;         /**< chunk_size / page_size. */
	uint32_t blocks_per_page;  /**< page_size / PCPU_BLOCK_SIZE. */

	uint32_t free_bytes;       /**< Free bytes (per unit); exact even
				     *  while frees are pending. */
	uint32_t nr_alloc;         /**< Live objects; exact even while frees
				     *  are pending. */
	uint32_t nr_populated;     /**< Populated pages. */
	uint32_t nr_empty_pop_pages; /**< Populated pages that are empty. */

	/**
	 * Fit cache: while @c fit_valid, no free run of @c fit_need bits or
	 * more starts before block @c fit_block, so a request needing at
	 * least that much may go straight to that block. Frees at or
	 * before that block drop it.
	 */
	uint32_t fit_block;
	uint32_t fit_need;
	int fit_valid;
	/** Deferred frees (pcpu_chunk_free_batch()): @c pending_n objects
	 * freed in block @c pending_block since its hints were last exact,
	 * the first of them at bit @c pending_off. */
	uint32_t pending_block;
	uint32_t pending_n;
	uint32_t pending_off;

	uint64_t *alloc_map;       /**< map_bits bits, 1 = allocated. */
	uint64_t *bound_map;       /**< map_bits + 1 bits. */
	uint64_t *populated;       /**< nr_pages bits, 1 = populated. */
	uint32_t *page_busy_blocks; /**< Per page: blocks not fully free. */
	struct pcpu_block_md *md_blocks; /**< nr_blocks entries. */
	struct pcpu_block_md chunk_md;   /**< Chunk-wide hints. */
};

/**
 * What a batch of frees, or a settle, did to a chunk's summary figures:
 * the percpu allocator moves the chunk to another slot list and keeps its
 * global empty-page count from it, in one step per batch.
 */
struct pcpu_chunk_free_effect {
	uint32_t nr_objs;       /**< Objects freed. */
	uint32_t bytes;         /**< Bytes freed (per unit). */
	uint32_t contig_before; /**< chunk_md.contig_hint before, bits. */
	uint32_t contig_after;  /**< chunk_md.contig_hint after, bits. */
	int32_t empty_pages;    /**< Change of nr_empty_pop_pages. */
	/** Blocks whose hints the call brought up to date (a pending block
	 * settled, an object spanning blocks freed exactly): 0 means the
	 * hints and page counts did not change. */
	uint32_t settled;
};

/** Fragmentation figures of one chunk, as Linux percpu_stats. */
struct pcpu_chunk_frag {
	uint32_t nr_alloc;        /**< Live objects. */
	uint32_t free_bytes;      /**< Free bytes. */
	uint32_t contig_bytes;    /**< Chunk contig hint in bytes. */
	uint32_t first_free;      /**< First free bit. */
	uint32_t sum_frag;        /**< Bytes of free runs before the last object. */
	uint32_t max_frag;        /**< Largest such run, bytes. */
	uint32_t min_alloc;       /**< Smallest live object, bytes (0 if none). */
	uint32_t max_alloc;       /**< Largest live object, bytes. */
	uint32_t empty_pop_pages; /**< Populated empty pages. */
	uint32_t populated_pages; /**< Populated pages. */
};

/**
 * Set up an empty, unpopulated chunk.
 * @param chunk_size Bytes per unit: a multiple of page_size and of 4 KiB,
 *   at most 2^31 bytes.
 * @param page_size Population granule: a power of two >= 4096.
 * @return 0, -EINVAL (bad sizes) or -ENOMEM (metadata).
 */
int pcpu_chunk_init(struct pcpu_chunk *c, uint64_t chunk_size,
		uint64_t page_size);

/** Release the metadata of a chunk set up by pcpu_chunk_init(). */
void pcpu_chunk_fini(struct pcpu_chunk *c);

/**
 * Allocate @p bits granules aligned to @p align_bits granules (a power of
 * two, >= 1). Takes the first fit the hints allow (Linux's "not quite first
 * fit"). With @p pop_only, only space on populated pages is used.
 * @return The start bit, or -1 when the chunk cannot fit the request.
 */
int pcpu_chunk_alloc(struct pcpu_chunk *c, uint32_t bits, uint32_t align_bits,
		int pop_only);

/**
 * Allocate up to @p n objects of @p bits granules, each aligned to
 * @p align_bits granules, with one search and one update of the hints:
 * the first where pcpu_chunk_alloc() would put it, the others after it in
 * the same free run, each at the first aligned bit after the end of the
 * one before (so the gaps between them, if @p bits is not a multiple of
 * @p align_bits, stay free). A cache refill takes a batch instead of one
 * search and one commit per object. With @p pop_only, every object lies
 * on populated pages: the first as pcpu_chunk_alloc() with pop_only puts
 * it, the run cut at the first unpopulated page.
 *
 * With @p run_bits (a power of two, 0 for none), the batch starts a free
 * stretch of its own: the first object at a multiple of @p run_bits, with
 * at least @p run_bits bits free from there. The size-class caches ask
 * for it so that no other lcore's objects share the cache lines of their
 * tags (pcpu_cache.c).
 *
 * @param offs
 *   Filled with the start bits, ascending (room for @p n).
 * @return
 *   How many were allocated: @p n, or fewer when the run ends; 0 when the
 *   chunk cannot fit one.
 */
unsigned int pcpu_chunk_alloc_batch(struct pcpu_chunk *c, uint32_t bits,
		uint32_t align_bits, unsigned int n, int pop_only,
		uint32_t run_bits, uint32_t *offs);

/**
 * Free the object that starts at bit @p off.
 * @return Its size in bits, or -1 (nothing changed) if no live object
 *   starts at @p off.
 */
int pcpu_chunk_free(struct pcpu_chunk *c, uint32_t off);

/**
 * Free the objects that start at bits @p offs[0 .. n) of the chunk, in
 * that order, stopping at the first offset where no live object starts.
 *
 * The maps and the counters (free_bytes, nr_alloc) change at once; the
 * hints of the block the frees fall into are brought up to date only when
 * a later free goes to another block of the chunk, or at
 * pcpu_chunk_settle(): that block is *pending*, its hints and the
 * chunk's are conservative (they miss free space, never claim any) and
 * the page counts miss pages it emptied. Objects that share a 64-bit map
 * word are freed in one map update (a cache flush frees runs of nearby
 * objects). An object that spans blocks is freed exactly.
 *
 * @param offs
 *   Start bits of the objects.
 * @param n
 *   Number of entries of @p offs.
 * @param eff
 *   Filled with what the call did: objects and bytes freed, and the
 *   change of the contig hint and of the empty-page count that became
 *   visible (the pending block's part shows at the settle).
 * @return
 *   Number of objects freed: @p n, or the index of the first offset that
 *   is not the start of a live object (nothing is changed for it and the
 *   offsets after it).
 */
unsigned int pcpu_chunk_free_batch(struct pcpu_chunk *c, const uint32_t *offs,
		unsigned int n, struct pcpu_chunk_free_effect *eff);

/**
 * Bring the pending block (if any) up to date: its hints, the chunk's
 * hints and the page counts. Everything that reads hints or page counts
 * (pcpu_chunk_alloc(), pcpu_chunk_slot(), the page functions,
 * pcpu_chunk_refresh(), pcpu_chunk_frag_stats(), pcpu_chunk_audit())
 * needs a settled chunk.
 *
 * @param eff
 *   Filled as by pcpu_chunk_free_batch() (no objects, no bytes).
 */
void pcpu_chunk_settle(struct pcpu_chunk *c, struct pcpu_chunk_free_effect *eff);

/** Whether frees wait in a pending block (pcpu_chunk_settle() is due). */
static inline int
pcpu_chunk_pending(const struct pcpu_chunk *c)
{
	return c->pending_n != 0;
}

/** Whether frees wait in a pending block other than the one of bit
 * @p off: a free at @p off settles that block first. */
static inline int
pcpu_chunk_pending_elsewhere(const struct pcpu_chunk *c, uint32_t off)
{
	return c->pending_n != 0 && c->pending_block != off / PCPU_BLOCK_BITS;
}

/**
 * The part of pcpu_chunk_free_quick() for a live object that starts at
 * @p off and reaches past its map word, no other block pending: freed
 * deferred if it ends inside its block.
 *
 * @return The object's size in bits, or 0 (nothing changed) if it spans
 *   blocks.
 */
uint32_t pcpu_chunk_free_quick_words(struct pcpu_chunk *c, uint32_t off);

/**
 * The common case of pcpu_chunk_free_batch() for one object, inline for
 * the free paths of the percpu allocator: an object inside one block is
 * freed deferred, as the batch would free it. One that ends inside its
 * 64-bit map word is freed inline, a larger one by
 * pcpu_chunk_free_quick_words(). No other block may be pending
 * (pcpu_chunk_pending_elsewhere(): the caller settles it first, as the
 * batch would, and applies the effect).
 *
 * @return The object's size in bits, or 0 when the general path is needed
 *   (nothing changed): no live object starts at @p off, or it spans
 *   blocks.
 */
static inline uint32_t
pcpu_chunk_free_quick(struct pcpu_chunk *c, uint32_t off)
{
	uint32_t w = off / 64, sh = off % 64, b = off / PCPU_BLOCK_BITS, we;
	uint64_t a, bound, above;

	if (off >= c->map_bits)
		return 0;
	a = c->alloc_map[w];
	bound = c->bound_map[w];
	if (((a & bound) >> sh & 1) == 0)
		return 0;   /* no live object starts here */
	/* its end: the next bound bit in the word, or bit 0 of the next
	 * word (the bound map has map_bits + 1 bits) */
	above = sh < 63 ? bound >> (sh + 1) : 0;
	if (above != 0)
		we = sh + 1 + (uint32_t)__builtin_ctzll(above);
	else if (c->bound_map[w + 1] & 1)
		we = 64;
	else
		return pcpu_chunk_free_quick_words(c, off);
	c->alloc_map[w] = a & ~((we == 64 ? ~UINT64_C(0) :
		(UINT64_C(1) << we) - 1) & (~UINT64_C(0) << sh));
	c->free_bytes += (we - sh) << PCPU_MIN_ALLOC_SHIFT;
	c->nr_alloc--;
	if (b <= c->fit_block)
		c->fit_valid = 0;
	if (c->pending_n++ == 0) {
		c->pending_block = b;
		c->pending_off = off;
	}
	return we - sh;
}

/**
 * Size in bits of the live object starting at @p off, or 0 if no live
 * object starts there.
 */
uint32_t pcpu_chunk_obj_bits(const struct pcpu_chunk *c, uint32_t off);

/** Page index holding bit @p bit. */
static inline uint32_t
pcpu_chunk_bit_to_page(const struct pcpu_chunk *c, uint32_t bit)
{
	return bit / (c->blocks_per_page * PCPU_BLOCK_BITS);
}

/** Whether page @p page is populated. */
int pcpu_chunk_page_populated(const struct pcpu_chunk *c, uint32_t page);

/** Whether page @p page holds no allocated bit. */
int pcpu_chunk_page_empty(const struct pcpu_chunk *c, uint32_t page);

/**
 * Find the first run of unpopulated pages inside [@p ps, @p pe).
 * @return 1 and the run in [*rs, *re), or 0 if every page is populated.
 */
int pcpu_chunk_next_unpop(const struct pcpu_chunk *c, uint32_t ps, uint32_t pe,
		uint32_t *rs, uint32_t *re);

/**
 * Find the last run of populated empty pages inside [@p ps, @p pe)
 * (searching from the end, as Linux reclaims last page first).
 * @return 1 and the run in [*rs, *re), or 0 if there is none.
 */
int pcpu_chunk_prev_empty_pop(const struct pcpu_chunk *c, uint32_t ps,
		uint32_t pe, uint32_t *rs, uint32_t *re);

/** Mark pages [@p ps, @p pe) populated (they must not be); updates the
 * populated and empty-page counters. */
void pcpu_chunk_set_populated(struct pcpu_chunk *c, uint32_t ps, uint32_t pe);

/** Mark pages [@p ps, @p pe) depopulated (they must be populated and
 * empty); updates the counters. */
void pcpu_chunk_set_depopulated(struct pcpu_chunk *c, uint32_t ps,
		uint32_t pe);

/**
 * Slot for a free run of @p bytes: max(fls(bytes) - 3, 1), 0 for fewer
 * than 4 bytes (as Linux's pcpu_size_to_slot()).
 */
int pcpu_size_to_slot(uint32_t bytes);

/** Slot the chunk belongs in by its contig hint (0 if it has no free
 * space); a fully free chunk maps to pcpu_size_to_slot(chunk bytes). While
 * pcpu_chunk_hints_stale(), by its free bytes instead (an upper bound of
 * its largest free run). */
int pcpu_chunk_slot(const struct pcpu_chunk *c);

/**
 * Whether chunk_md.contig_hint may be below the chunk's largest free run:
 * after an allocation that cut into that run, or a free whose run reaches
 * a neighbour block free as a whole (otherwise the hint is exact). The
 * next allocation that searches the summary tree, or pcpu_chunk_refresh(),
 * makes it exact; until then pcpu_chunk_slot() places the chunk by its
 * free bytes.
 */
int pcpu_chunk_hints_stale(const struct pcpu_chunk *c);

/** Make the chunk-level hints exact (flush the summary tree), as an
 * allocation that searches does; for statistics and tests. */
void pcpu_chunk_refresh(struct pcpu_chunk *c);

/** Fill @p f for the chunk. */
void pcpu_chunk_frag_stats(const struct pcpu_chunk *c,
		struct pcpu_chunk_frag *f);

/**
 * Check every invariant of the chunk by recomputing from the maps: no
 * frees pending, block hints exact-or-conservative as documented,
 * left/right free, first free not after the first free bit, chunk hint
 * never above the truth, free_bytes, nr_alloc from the boundary map, page
 * counters.
 * @return 0, or -1 with a description of the first broken one in @p msg.
 */
int pcpu_chunk_audit(const struct pcpu_chunk *c, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* _PCPU_CHUNK_H_ */
