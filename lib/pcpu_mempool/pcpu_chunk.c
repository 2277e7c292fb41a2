/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Bitmap allocator for one chunk, after the design of Linux mm/percpu.c
 * (see pcpu_chunk.h and doc/guides). Written from the design description,
 * no kernel code.
 *
 * Block hints (struct pcpu_block_md, block-relative) are exact after every
 * allocation and every free: contig_hint is the largest free run of the
 * block, left/right_free are exact, first_free is a lower bound. The block
 * scan hint, when set, is a maximal free run that ends at or before the
 * contig start and no free run starting before it is longer ("prefix
 * maximum"), so a search for more than scan_hint bits may start right after
 * it.
 *
 * Chunk level: besides chunk_md, every chunk has a private summary tree over
 * its blocks (a segment tree of {left run, right run, largest run} per
 * node), stored behind md_blocks[nr_blocks] in the same allocation so the
 * public struct is unchanged. It replaces Linux's O(blocks) chunk rescans
 * and block walks: the leftmost block (or cross-block run) holding a free
 * run of bits + align - 1 is found in O(log blocks), and the exact chunk
 * contig hint is the root. Updates are lazy: operations only mark the
 * blocks they touch dirty, and the tree is brought up to date (O(dirty
 * blocks x log blocks)) before an allocation that needs a search, not
 * where Linux refreshes the chunk in full (a block became fully free, a
 * free spanned blocks). In between, chunk_md.contig_hint is never above
 * the truth and is exact unless marked stale: after an allocation that
 * cut into it, it is the larger remaining piece (stale); after a free, the
 * freed run merged with the neighbour blocks' edge runs (stale if a
 * neighbour is free as a whole, as the run may go on). While stale, the
 * chunk's slot follows its free bytes, so no allocation that fits passes
 * it by. The chunk scan hint is not used (always 0).
 *
 * A fit cache remembers the block the last search chose: no run of
 * hint_need bits starts before it, which stays true until a free at or
 * before it, so sequential allocations skip the tree entirely.
 *
 * "Not quite first fit", as Linux: a block qualifies if it holds a run of
 * bits + align - 1 (always fits once aligned); if no such run exists the
 * request is tried only in the chunk contig run, and otherwise the chunk is
 * skipped even if a luckily aligned smaller hole exists.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcpu_chunk.h"
#include "pcpu_fault.h"

#define BLK_BITS PCPU_BLOCK_BITS
#define WORD_BITS 64

/* One node of the block summary tree (all in bits). */
struct pcpu_tnode {
	uint32_t left;   /* Free run touching the left edge. */
	uint32_t right;  /* Free run touching the right edge. */
	uint32_t max;    /* Largest free run inside. */
	uint32_t pad;
};

/* Private per-chunk state, stored right after md_blocks[nr_blocks]. */
struct pcpu_chunk_priv {
	struct pcpu_tnode *tree; /* 1-based heap of 2 * nr_leaves nodes. */
	uint64_t *dirty;         /* One bit per block: leaf is stale. */
	uint32_t nr_leaves;      /* Power of two >= nr_blocks. */
	uint32_t nr_dirty;       /* Dirty leaves. */
	/* chunk_md.contig_hint may be below the largest free run (see the
	 * top of the file); chunk_refresh() clears it. */
	int hints_stale;
};

/* ---------------------------------------------------------------------- */
/* Bit helpers, all word-wise. */

static inline int
chunk_bit_test(const uint64_t *map, uint32_t bit)
{
	return (map[bit / WORD_BITS] >> (bit % WORD_BITS)) & 1;
}

static inline void
chunk_bit_set(uint64_t *map, uint32_t bit)
{
	map[bit / WORD_BITS] |= 1ULL << (bit % WORD_BITS);
}

static inline void
chunk_bit_clear(uint64_t *map, uint32_t bit)
{
	map[bit / WORD_BITS] &= ~(1ULL << (bit % WORD_BITS));
}

/* Mask of bits [s, e) of one word, 0 <= s < e <= 64. */
static inline uint64_t
chunk_word_mask(uint32_t s, uint32_t e)
{
	uint64_t hi = e == WORD_BITS ? ~0ULL : (1ULL << e) - 1;

	return hi & (~0ULL << s);
}

/* Set (@p set) or clear bits [s, e) of @p map. */
static inline void
chunk_range_apply(uint64_t *map, uint32_t s, uint32_t e, int set)
{
	uint32_t ws = s / WORD_BITS, we;
	uint64_t first, last;

	if (s >= e)
		return;
	we = (e - 1) / WORD_BITS;
	if (ws == we) {
		first = chunk_word_mask(s % WORD_BITS, (e - 1) % WORD_BITS + 1);
		map[ws] = set ? map[ws] | first : map[ws] & ~first;
		return;
	}
	first = ~0ULL << (s % WORD_BITS);
	last = chunk_word_mask(0, (e - 1) % WORD_BITS + 1);
	map[ws] = set ? map[ws] | first : map[ws] & ~first;
	/* relaxed atomic stores are plain stores, but a compiler does not
	 * turn a loop of them into a call to memset(), which for the one or
	 * two whole words of a typical object cost more than the stores */
	for (ws++; ws < we; ws++)
		__atomic_store_n(&map[ws], set ? ~0ULL : 0, __ATOMIC_RELAXED);
	map[we] = set ? map[we] | last : map[we] & ~last;
}

static inline void
chunk_range_set(uint64_t *map, uint32_t s, uint32_t e)
{
	chunk_range_apply(map, s, e, 1);
}

static inline void
chunk_range_clear(uint64_t *map, uint32_t s, uint32_t e)
{
	chunk_range_apply(map, s, e, 0);
}

/* First bit in [start, size) that differs from @p flip's bits (flip 0:
 * the first set bit, flip ~0: the first clear bit), or size. */
static inline uint32_t
chunk_next_bit(const uint64_t *map, uint32_t size, uint32_t start, uint64_t flip)
{
	uint32_t i, nw;
	uint64_t w;

	if (start >= size)
		return size;
	i = start / WORD_BITS;
	nw = (size + WORD_BITS - 1) / WORD_BITS;
	w = (map[i] ^ flip) & (~0ULL << (start % WORD_BITS));
	while (w == 0) {
		if (++i >= nw)
			return size;
		w = map[i] ^ flip;
	}
	start = i * WORD_BITS + (uint32_t)__builtin_ctzll(w);
	return start < size ? start : size;
}

/* First set bit in [start, size), or size. */
static inline uint32_t
chunk_next_set(const uint64_t *map, uint32_t size, uint32_t start)
{
	return chunk_next_bit(map, size, start, 0);
}

/* First clear bit in [start, size), or size. */
static inline uint32_t
chunk_next_zero(const uint64_t *map, uint32_t size, uint32_t start)
{
	return chunk_next_bit(map, size, start, ~0ULL);
}

/* Start of the clear run ending at @pos: one past the last set bit in
 * [lo, pos), or lo if there is none. */
static inline uint32_t
chunk_run_start(const uint64_t *map, uint32_t lo, uint32_t pos)
{
	uint32_t i, lw, r;
	uint64_t w;

	if (pos <= lo)
		return pos;
	i = (pos - 1) / WORD_BITS;
	lw = lo / WORD_BITS;
	w = map[i] & chunk_word_mask(0, (pos - 1) % WORD_BITS + 1);
	while (w == 0) {
		if (i == lw)
			return lo;
		w = map[--i];
	}
	r = i * WORD_BITS + 63 - (uint32_t)__builtin_clzll(w);
	return r < lo ? lo : r + 1;
}

static inline uint32_t
chunk_align_up(uint32_t v, uint32_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* Alignment quality of a start: more trailing zeros is better. */
static inline uint32_t
chunk_align_rank(uint32_t v)
{
	return v ? (uint32_t)__builtin_ctz(v) : 32;
}

static inline struct pcpu_chunk_priv *
chunk_priv(const struct pcpu_chunk *c)
{
	return (struct pcpu_chunk_priv *)(void *)(c->md_blocks + c->nr_blocks);
}

/* ---------------------------------------------------------------------- */
/* Block hints. */

static void
chunk_block_set_empty(struct pcpu_block_md *md)
{
	md->scan_hint = 0;
	md->scan_hint_start = 0;
	md->contig_hint = BLK_BITS;
	md->contig_hint_start = 0;
	md->left_free = BLK_BITS;
	md->right_free = BLK_BITS;
	md->first_free = 0;
}

/* Whether block @p b's map words are all 0. */
static inline int
chunk_block_is_empty(const struct pcpu_chunk *c, uint32_t b)
{
	const uint64_t *map = c->alloc_map + b * (BLK_BITS / WORD_BITS);
	uint64_t any = 0;
	uint32_t i;

	for (i = 0; i < BLK_BITS / WORD_BITS; i++)
		any |= map[i];
	return any == 0;
}

static void
chunk_block_set_full(struct pcpu_block_md *md)
{
	md->scan_hint = 0;
	md->scan_hint_start = 0;
	md->contig_hint = 0;
	md->contig_hint_start = 0;
	md->left_free = 0;
	md->right_free = 0;
	md->first_free = BLK_BITS;
}

/*
 * Feed the maximal free run [s, e) (block-relative) into a block's hints,
 * keeping contig exact and the scan hint a prefix maximum before contig.
 */
static void
chunk_block_update(struct pcpu_block_md *md, uint32_t s, uint32_t e)
{
	uint32_t len = e - s;
	uint32_t old_ff = md->first_free;

	if (s < md->first_free)
		md->first_free = s;
	if (s == 0)
		md->left_free = len;
	if (e == md->nr_bits)
		md->right_free = len;

	if (len > md->contig_hint) {
		if (md->contig_hint && s > md->contig_hint_start) {
			/* the old contig, the largest so far, lies before */
			md->scan_hint = md->contig_hint;
			md->scan_hint_start = md->contig_hint_start;
		} else if (md->scan_hint &&
				md->scan_hint_start + md->scan_hint > s) {
			md->scan_hint = 0;
			md->scan_hint_start = 0;
		}
		md->contig_hint = len;
		md->contig_hint_start = s;
	} else if (len == md->contig_hint) {
		uint32_t cs = md->contig_hint_start;

		if (s == cs)
			return;
		if (s > cs) {
			/* ties move right unless alignment gets worse */
			if (chunk_align_rank(s) >= chunk_align_rank(cs)) {
				md->scan_hint = len;
				md->scan_hint_start = cs;
				md->contig_hint_start = s;
			}
		} else if (chunk_align_rank(s) > chunk_align_rank(cs)) {
			md->contig_hint_start = s;
			if (md->scan_hint &&
					md->scan_hint_start + md->scan_hint > s) {
				md->scan_hint = 0;
				md->scan_hint_start = 0;
			}
		} else if (md->scan_hint < len || md->scan_hint_start < s) {
			/* as large as anything: a valid prefix maximum */
			md->scan_hint = len;
			md->scan_hint_start = s;
		}
	} else if (e <= md->contig_hint_start) {
		/* smaller run before the contig */
		if (md->scan_hint == 0) {
			if (s <= old_ff) {
				/* nothing free before it */
				md->scan_hint = len;
				md->scan_hint_start = s;
			}
		} else if (s <= md->scan_hint_start && len > md->scan_hint) {
			md->scan_hint = len;
			md->scan_hint_start = s;
		}
	}
}

/* Recompute a block's contig/scan/right hints from the map. */
static void
chunk_block_refresh(struct pcpu_chunk *c, uint32_t b)
{
	struct pcpu_block_md *md = &c->md_blocks[b];
	uint32_t base = b * BLK_BITS, lim = base + BLK_BITS;
	uint32_t pos, s, e, tail;

	if (md->scan_hint) {
		pos = md->scan_hint_start + md->scan_hint;
		md->contig_hint = md->scan_hint;
		md->contig_hint_start = md->scan_hint_start;
		md->scan_hint = 0;
		md->scan_hint_start = 0;
	} else {
		pos = chunk_next_zero(c->alloc_map, lim, base + md->first_free) - base;
		md->first_free = pos;
		md->contig_hint = 0;
		md->contig_hint_start = 0;
	}
	/* right_free is exact here: the run touching the end needs no scan */
	tail = BLK_BITS - md->right_free;
	md->right_free = 0;
	while (pos < BLK_BITS) {
		s = chunk_next_zero(c->alloc_map, lim, base + pos);
		if (s >= lim)
			break;
		if (s - base >= tail)
			e = lim;
		else
			e = chunk_next_set(c->alloc_map, lim, s + 1);
		chunk_block_update(md, s - base, e - base);
		pos = e - base;
	}
}

/* ---------------------------------------------------------------------- */
/* Page accounting. */

static inline void
chunk_page_block_busy(struct pcpu_chunk *c, uint32_t b)
{
	uint32_t p = b / c->blocks_per_page;

	if (c->page_busy_blocks[p]++ == 0 && chunk_bit_test(c->populated, p))
		c->nr_empty_pop_pages--;
}

static inline void
chunk_page_block_idle(struct pcpu_chunk *c, uint32_t b)
{
	uint32_t p = b / c->blocks_per_page;

	if (--c->page_busy_blocks[p] == 0 && chunk_bit_test(c->populated, p))
		c->nr_empty_pop_pages++;
}

/* ---------------------------------------------------------------------- */
/* Summary tree. */

static inline void
chunk_leaf_dirty(struct pcpu_chunk *c, uint32_t b)
{
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint64_t m = 1ULL << (b % WORD_BITS);

	if (!(pv->dirty[b / WORD_BITS] & m)) {
		pv->dirty[b / WORD_BITS] |= m;
		pv->nr_dirty++;
	}
}

/* Recompute node @p n from its children, each @p hw bits wide; returns
 * whether it changed. */
static inline int
chunk_tree_node_update(struct pcpu_tnode *t, uint32_t n, uint32_t hw)
{
	const struct pcpu_tnode *l = &t[2 * n], *r = &t[2 * n + 1];
	uint32_t left, right, max, x;

	left = l->left == hw ? hw + r->left : l->left;
	right = r->right == hw ? hw + l->right : r->right;
	max = l->max > r->max ? l->max : r->max;
	x = l->right + r->left;
	if (x > max)
		max = x;
	if (t[n].left == left && t[n].right == right && t[n].max == max)
		return 0;
	t[n].left = left;
	t[n].right = right;
	t[n].max = max;
	return 1;
}

static inline void
chunk_tree_set_leaf(struct pcpu_chunk *c, uint32_t b)
{
	struct pcpu_tnode *t = &chunk_priv(c)->tree[chunk_priv(c)->nr_leaves + b];
	const struct pcpu_block_md *md = &c->md_blocks[b];

	t->left = md->left_free;
	t->right = md->right_free;
	t->max = md->contig_hint;
}

static void
chunk_tree_update_leaf(struct pcpu_chunk *c, uint32_t b)
{
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t n = pv->nr_leaves + b, hw = BLK_BITS;

	chunk_tree_set_leaf(c, b);
	for (n >>= 1; n >= 1; n >>= 1, hw <<= 1)
		if (!chunk_tree_node_update(pv->tree, n, hw))
			break;
}

/* Every inner node from the leaves up, a level at a time (padding leaves
 * stay zero: fully allocated, never chosen). */
static void
chunk_tree_build(struct pcpu_chunk *c)
{
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t lo, n, hw = BLK_BITS;

	for (lo = pv->nr_leaves / 2; lo >= 1; lo /= 2, hw <<= 1)
		for (n = lo; n < 2 * lo; n++)
			chunk_tree_node_update(pv->tree, n, hw);
}

static void
chunk_tree_flush(struct pcpu_chunk *c)
{
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t i, nw, left = pv->nr_dirty;
	/* many dirty leaves: one pass over the tree beats a climb per leaf */
	int rebuild = pv->nr_dirty > pv->nr_leaves / 16;

	if (left == 0)
		return;
	nw = (c->nr_blocks + WORD_BITS - 1) / WORD_BITS;
	for (i = 0; i < nw && left != 0; i++) {
		uint64_t w = pv->dirty[i];

		while (w) {
			uint32_t b = i * WORD_BITS + (uint32_t)__builtin_ctzll(w);

			w &= w - 1;
			if (rebuild)
				chunk_tree_set_leaf(c, b);
			else
				chunk_tree_update_leaf(c, b);
			left--;
		}
		pv->dirty[i] = 0;
	}
	pv->nr_dirty = 0;
	if (rebuild)
		chunk_tree_build(c);
}

/*
 * Leftmost free run of at least @need bits (the tree must be clean and
 * root.max >= need). Returns the block index holding such a run inside it
 * and sets *pos = UINT32_MAX, or returns UINT32_MAX and sets *pos to the
 * start of a run crossing blocks.
 */
static uint32_t
chunk_tree_first_fit(const struct pcpu_chunk *c, uint32_t need, uint32_t *pos)
{
	const struct pcpu_chunk_priv *pv = chunk_priv(c);
	const struct pcpu_tnode *t = pv->tree;
	uint32_t n = 1, lo = 0, w = pv->nr_leaves * BLK_BITS;

	while (n < pv->nr_leaves) {
		const struct pcpu_tnode *l = &t[2 * n], *r = &t[2 * n + 1];

		w >>= 1;
		if (l->max >= need) {
			n = 2 * n;
		} else if (l->right + r->left >= need) {
			*pos = lo + w - l->right;
			return UINT32_MAX;
		} else {
			n = 2 * n + 1;
			lo += w;
		}
	}
	*pos = UINT32_MAX;
	return n - pv->nr_leaves;
}

/* Chunk-relative start of a free run of exactly root.max bits. */
static uint32_t
chunk_tree_max_start(const struct pcpu_chunk *c, uint32_t max)
{
	uint32_t pos, b;

	if (max == 0)
		return 0;
	b = chunk_tree_first_fit(c, max, &pos);
	if (b == UINT32_MAX)
		return pos;
	return b * BLK_BITS + c->md_blocks[b].contig_hint_start;
}

/* Make chunk_md's contig hint exact from the (clean) tree. */
static void
chunk_contig_exact(struct pcpu_chunk *c)
{
	uint32_t max = chunk_priv(c)->tree[1].max;

	if (max > c->map_bits)
		max = c->map_bits;
	if (max != c->chunk_md.contig_hint) {
		c->chunk_md.contig_hint = max;
		c->chunk_md.contig_hint_start = chunk_tree_max_start(c, max);
	}
	c->chunk_md.left_free = chunk_priv(c)->tree[1].left;
	if (c->chunk_md.left_free > c->map_bits)
		c->chunk_md.left_free = c->map_bits;
}

/* Bring the tree and the chunk's contig hint up to date. */
static void
chunk_refresh(struct pcpu_chunk *c)
{
	chunk_tree_flush(c);
	chunk_contig_exact(c);
	chunk_priv(c)->hints_stale = 0;
}

void
pcpu_chunk_refresh(struct pcpu_chunk *c)
{
	chunk_refresh(c);
}

int
pcpu_chunk_hints_stale(const struct pcpu_chunk *c)
{
	return chunk_priv(c)->hints_stale;
}

/* ---------------------------------------------------------------------- */
/* Set up / tear down. */

int
pcpu_chunk_init(struct pcpu_chunk *c, uint64_t chunk_size, uint64_t page_size)
{
	struct pcpu_chunk_priv *pv;
	uint32_t nw, leaves, b;
	size_t md_sz, tree_sz, dirty_sz, pop_sz, busy_sz;
	char *mem;

	if (c == NULL || page_size < PCPU_BLOCK_SIZE ||
			(page_size & (page_size - 1)) != 0 || chunk_size == 0 ||
			chunk_size > (1ULL << 31) || chunk_size % page_size ||
			chunk_size % PCPU_BLOCK_SIZE)
		return -EINVAL;

	/* no object, nothing populated, no fit cache, nothing pending */
	memset(c, 0, sizeof(*c));
	c->map_bits = (uint32_t)(chunk_size >> PCPU_MIN_ALLOC_SHIFT);
	c->nr_blocks = c->map_bits / BLK_BITS;
	c->nr_pages = (uint32_t)(chunk_size / page_size);
	c->blocks_per_page = (uint32_t)(page_size / PCPU_BLOCK_SIZE);
	c->free_bytes = (uint32_t)chunk_size;

	leaves = 1;
	while (leaves < c->nr_blocks)
		leaves <<= 1;
	nw = c->map_bits / WORD_BITS;
	md_sz = sizeof(struct pcpu_block_md) * c->nr_blocks;
	tree_sz = sizeof(struct pcpu_tnode) * 2 * leaves;
	dirty_sz = sizeof(uint64_t) * ((c->nr_blocks + WORD_BITS - 1) / WORD_BITS);

	/*
	 * All metadata in one zeroed allocation: hints and tree first (set
	 * up now), the maps last, so a large chunk's maps are only faulted
	 * in as they are used when calloc hands out fresh pages.
	 */
	pop_sz = sizeof(uint64_t) * ((c->nr_pages + WORD_BITS - 1) / WORD_BITS);
	busy_sz = sizeof(uint32_t) * c->nr_pages;
	busy_sz = (busy_sz + 7) & ~(size_t)7;
	mem = pcpu_fault_calloc(1, md_sz + sizeof(*pv) + tree_sz + dirty_sz + pop_sz +
			busy_sz + sizeof(uint64_t) * (2 * (size_t)nw + 1));
	if (mem == NULL) {
		c->md_blocks = NULL;
		pcpu_chunk_fini(c);
		return -ENOMEM;
	}
	c->md_blocks = (struct pcpu_block_md *)(void *)mem;
	mem += md_sz;
	pv = chunk_priv(c);
	mem += sizeof(*pv);
	pv->tree = (struct pcpu_tnode *)(void *)mem;
	mem += tree_sz;
	pv->dirty = (uint64_t *)(void *)mem;
	mem += dirty_sz;
	c->populated = (uint64_t *)(void *)mem;
	mem += pop_sz;
	c->page_busy_blocks = (uint32_t *)(void *)mem;
	mem += busy_sz;
	c->alloc_map = (uint64_t *)(void *)mem;
	c->bound_map = c->alloc_map + nw;
	pv->nr_leaves = leaves;
	pv->nr_dirty = 0;

	for (b = 0; b < c->nr_blocks; b++) {
		c->md_blocks[b].nr_bits = BLK_BITS;
		chunk_block_set_empty(&c->md_blocks[b]);
		pv->tree[leaves + b].left = BLK_BITS;
		pv->tree[leaves + b].right = BLK_BITS;
		pv->tree[leaves + b].max = BLK_BITS;
	}
	chunk_tree_build(c);

	memset(&c->chunk_md, 0, sizeof(c->chunk_md));
	c->chunk_md.nr_bits = c->map_bits;
	c->chunk_md.contig_hint = c->map_bits;
	c->chunk_md.left_free = c->map_bits;
	c->chunk_md.right_free = c->map_bits;
	return 0;
}

void
pcpu_chunk_fini(struct pcpu_chunk *c)
{
	if (c == NULL)
		return;
	/* one allocation holds all metadata (see pcpu_chunk_init()) */
	free(c->md_blocks);
	c->alloc_map = NULL;
	c->bound_map = NULL;
	c->populated = NULL;
	c->page_busy_blocks = NULL;
	c->md_blocks = NULL;
	c->map_bits = 0;
	c->nr_blocks = 0;
	c->nr_pages = 0;
}

/* ---------------------------------------------------------------------- */
/* Allocation. */

/* Where a search for @need bits may start inside a block (block-rel). */
static inline uint32_t
chunk_block_search_start(const struct pcpu_block_md *md, uint32_t need)
{
	if (md->scan_hint && need > md->scan_hint)
		return md->scan_hint_start + md->scan_hint;
	return md->first_free;
}

/* Whether a block surely holds an aligned fit: a run of @need bits, or
 * its contig run fits once aligned. */
static inline int
chunk_block_fits(const struct pcpu_block_md *md, uint32_t bs, uint32_t bits,
		uint32_t align, uint32_t need)
{
	uint32_t cs = bs + md->contig_hint_start;
	uint32_t a;

	if (md->contig_hint >= need)
		return 1;
	if (md->contig_hint < bits)
		return 0;
	a = chunk_align_up(cs, align);
	return a >= cs && (uint64_t)a + bits <= (uint64_t)cs + md->contig_hint;
}

/*
 * First aligned fit of @bits in [from, lim). Walks free runs; the largest
 * run it skipped (rightmost on ties) is returned in *skip_s / *skip_len.
 */
static int64_t
chunk_area_scan(const struct pcpu_chunk *c, uint32_t from, uint32_t lim,
		uint32_t bits, uint32_t align, uint32_t *skip_s,
		uint32_t *skip_len)
{
	uint32_t p = from, s, e, a;

	*skip_len = 0;
	*skip_s = 0;
	while (p < lim) {
		s = chunk_next_zero(c->alloc_map, lim, p);
		if (s >= lim)
			break;
		a = chunk_align_up(s, align);
		if (a >= s && (uint64_t)a + bits <= lim) {
			/* the first set bit after s ends the run */
			e = chunk_next_set(c->alloc_map, a + bits, s + 1);
			if (e >= a + bits)
				return a;
		} else {
			e = chunk_next_set(c->alloc_map, lim, s + 1);
		}
		if (e - s >= *skip_len) {
			*skip_len = e - s;
			*skip_s = s;
		}
		p = e;
	}
	return -1;
}

/* Use the largest run skipped by a search in block @b that started at a
 * valid search start: it is a prefix maximum, so it may become the scan
 * hint. */
static void
chunk_block_note_skip(struct pcpu_block_md *md, uint32_t s, uint32_t len)
{
	if (len == 0 || s + len > md->contig_hint_start ||
			len > md->contig_hint)
		return;
	if (len > md->scan_hint ||
			(len == md->scan_hint && s > md->scan_hint_start)) {
		md->scan_hint = len;
		md->scan_hint_start = s;
	}
}

/* Search the populated region [rs, re) block by block using the hints. */
static int64_t
chunk_region_search(struct pcpu_chunk *c, uint32_t rs, uint32_t re, uint32_t bits,
		uint32_t align)
{
	uint32_t b, carry_s = 0, carry_len = 0, skip_s, skip_len;
	int64_t off;

	for (b = rs / BLK_BITS; b < re / BLK_BITS; b++) {
		const struct pcpu_block_md *md = &c->md_blocks[b];
		uint32_t bs = b * BLK_BITS;

		if (carry_len) {
			uint32_t a;

			carry_len += md->contig_hint == BLK_BITS ?
				BLK_BITS : md->left_free;
			a = chunk_align_up(carry_s, align);
			if ((uint64_t)a + bits <= (uint64_t)carry_s + carry_len)
				return a;
			if (md->contig_hint == BLK_BITS)
				continue;
		}
		if (md->contig_hint >= bits) {
			off = chunk_area_scan(c, bs + chunk_block_search_start(md, bits),
					bs + BLK_BITS, bits, align, &skip_s,
					&skip_len);
			if (off >= 0)
				return off;
		}
		carry_len = md->right_free;
		carry_s = bs + BLK_BITS - carry_len;
	}
	return -1;
}

static int
chunk_range_populated(const struct pcpu_chunk *c, uint32_t off, uint32_t bits)
{
	uint32_t p0 = pcpu_chunk_bit_to_page(c, off);
	uint32_t p1 = pcpu_chunk_bit_to_page(c, off + bits - 1);

	return chunk_next_zero(c->populated, p1 + 1, p0) > p1;
}

static int64_t
chunk_pop_search(struct pcpu_chunk *c, uint32_t bits, uint32_t align)
{
	uint32_t ppb = c->blocks_per_page * BLK_BITS;
	uint32_t p = 0, ps, pe;
	int64_t off;

	while (p < c->nr_pages) {
		ps = chunk_next_set(c->populated, c->nr_pages, p);
		if (ps >= c->nr_pages)
			break;
		pe = chunk_next_zero(c->populated, c->nr_pages, ps);
		off = chunk_region_search(c, ps * ppb, pe * ppb, bits, align);
		if (off >= 0)
			return off;
		p = pe;
	}
	return -1;
}

/* Account the allocation [s, e) (block-relative) in block @b. */
static void
chunk_block_alloc(struct pcpu_chunk *c, uint32_t b, uint32_t s, uint32_t e)
{
	struct pcpu_block_md *md = &c->md_blocks[b];

	if (md->contig_hint == BLK_BITS)
		chunk_page_block_busy(c, b);
	if (s == 0 && e == BLK_BITS) {
		chunk_block_set_full(md);
	} else {
		uint32_t base = b * BLK_BITS;
		int at_first = s == md->first_free;

		if (at_first)
			md->first_free = chunk_next_zero(c->alloc_map,
					base + BLK_BITS, base + e) - base;
		if (s < md->left_free)
			md->left_free = s;
		if (e > BLK_BITS - md->right_free)
			md->right_free = BLK_BITS - e;
		if (md->scan_hint && s < md->scan_hint_start + md->scan_hint &&
				e > md->scan_hint_start) {
			md->scan_hint = 0;
			md->scan_hint_start = 0;
		}
		if (at_first && s == md->contig_hint_start &&
				s + md->contig_hint == BLK_BITS) {
			/* nothing free before s, the contig run is the tail:
			 * only [e, end) is left (first_free moved above) */
			md->contig_hint = BLK_BITS - e;
			md->contig_hint_start = md->contig_hint ? e : 0;
		} else if (md->contig_hint &&
				s < md->contig_hint_start + md->contig_hint &&
				e > md->contig_hint_start)
			chunk_block_refresh(c, b);
	}
	chunk_leaf_dirty(c, b);
}

/*
 * Chunk-level hints after [@p off, @p end) was allocated, all of it or
 * objects in it with free gaps between them (a batch; then @p gaps);
 * nothing before @p off changed.
 */
static inline void
chunk_hint_alloc(struct pcpu_chunk *c, uint32_t off, uint32_t end, int gaps)
{
	struct pcpu_block_md *cmd = &c->chunk_md;

	/* first_free <= off (off was free); the first free bit is at or
	 * after end, or in a gap */
	if (off == cmd->first_free)
		cmd->first_free = chunk_next_zero(c->alloc_map, c->map_bits,
			gaps ? off : end);
	if (off < cmd->left_free)
		cmd->left_free = off;
	if (end > c->map_bits - cmd->right_free)
		cmd->right_free = c->map_bits - end;

	if (cmd->contig_hint && off < cmd->contig_hint_start + cmd->contig_hint &&
			end > cmd->contig_hint_start) {
		/*
		 * The larger remaining piece of the old contig run is a lower
		 * bound; other runs are not larger than the old contig. The
		 * next allocation that needs the tree makes it exact again;
		 * until then the chunk's slot follows its free bytes.
		 */
		uint32_t cs = cmd->contig_hint_start;
		uint32_t ce = cs + cmd->contig_hint;
		uint32_t lp = off > cs ? off - cs : 0;
		uint32_t rp = ce > end ? ce - end : 0;

		chunk_priv(c)->hints_stale = 1;

		if (rp >= lp) {
			cmd->contig_hint = rp;
			cmd->contig_hint_start = rp ? end : 0;
		} else {
			cmd->contig_hint = lp;
		}
	}
}

static void
chunk_commit_alloc(struct pcpu_chunk *c, uint32_t off, uint32_t bits)
{
	uint32_t end = off + bits;
	uint32_t sb = off / BLK_BITS, eb = (end - 1) / BLK_BITS, b;

	chunk_range_set(c->alloc_map, off, end);
	chunk_bit_set(c->bound_map, off);
	chunk_bit_set(c->bound_map, end);
	chunk_range_clear(c->bound_map, off + 1, end);
	c->free_bytes -= bits << PCPU_MIN_ALLOC_SHIFT;
	c->nr_alloc++;

	if (sb == eb) {
		chunk_block_alloc(c, sb, off - sb * BLK_BITS, end - sb * BLK_BITS);
	} else {
		chunk_block_alloc(c, sb, off - sb * BLK_BITS, BLK_BITS);
		for (b = sb + 1; b < eb; b++)
			chunk_block_alloc(c, b, 0, BLK_BITS);
		chunk_block_alloc(c, eb, 0, end - eb * BLK_BITS);
	}
	chunk_hint_alloc(c, off, end, 0);
}

/*
 * Where pcpu_chunk_alloc() puts an object of @p bits aligned to
 * @p align_bits: the search and its side effects (hints refreshed, the fit
 * cache, scan hints learnt from skipped runs), without the allocation.
 * Returns the start bit, or -1 when the chunk cannot fit it.
 */
static int64_t
chunk_find_fit(struct pcpu_chunk *c, uint32_t bits, uint32_t align_bits,
		int pop_only)
{
	struct pcpu_block_md *cmd = &c->chunk_md;
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t need, b, pos, skip_s = 0, skip_len = 0;
	uint64_t need64;
	int64_t off = -1;

	if (bits == 0 || bits > c->map_bits || align_bits == 0 ||
			(align_bits & (align_bits - 1)) != 0 ||
			align_bits > c->map_bits)
		return -1;

	need64 = (uint64_t)bits + align_bits - 1;
	need = need64 > c->map_bits ? c->map_bits + 1 : (uint32_t)need64;

	/* fast path: the block the last search found still fits (with
	 * pop_only, if the fit is on populated pages) */
	if (c->fit_valid && need >= c->fit_need &&
			chunk_block_fits(&c->md_blocks[c->fit_block],
				c->fit_block * BLK_BITS, bits, align_bits,
				need)) {
		struct pcpu_block_md *md = &c->md_blocks[c->fit_block];
		uint32_t bs = c->fit_block * BLK_BITS;

		off = chunk_area_scan(c, bs + chunk_block_search_start(md, need),
				bs + BLK_BITS, bits, align_bits, &skip_s,
				&skip_len);
		if (off >= 0) {
			if (skip_len)
				chunk_block_note_skip(md, skip_s - bs, skip_len);
			if (!pop_only || chunk_range_populated(c,
					(uint32_t)off, bits))
				return off;
		}
	}

	chunk_refresh(c);
	if (bits > cmd->contig_hint)
		return -1;

	c->fit_valid = 0;
	if (pv->tree[1].max >= need) {
		b = chunk_tree_first_fit(c, need, &pos);
		if (b == UINT32_MAX) {
			off = chunk_align_up(pos, align_bits);
		} else {
			/* no run of need bits starts before block b, with
			 * or without pop_only */
			c->fit_valid = 1;
			c->fit_block = b;
			c->fit_need = need;
			struct pcpu_block_md *md = &c->md_blocks[b];
			uint32_t bs = b * BLK_BITS;

			off = chunk_area_scan(c, bs + chunk_block_search_start(md, need),
					bs + BLK_BITS, bits, align_bits,
					&skip_s, &skip_len);
			if (off >= 0 && skip_len)
				chunk_block_note_skip(md, skip_s - bs, skip_len);
		}
	} else {
		/* only the contig run itself may still fit when aligned */
		uint32_t cs = cmd->contig_hint_start;
		uint32_t a = chunk_align_up(cs, align_bits);

		if (a >= cs && (uint64_t)a + bits <=
				(uint64_t)cs + cmd->contig_hint)
			off = a;
	}
	if (off < 0)
		return -1;
	if (pop_only && !chunk_range_populated(c, (uint32_t)off, bits))
		off = chunk_pop_search(c, bits, align_bits);
	return off;
}

int
pcpu_chunk_alloc(struct pcpu_chunk *c, uint32_t bits, uint32_t align_bits,
		int pop_only)
{
	int64_t off = chunk_find_fit(c, bits, align_bits, pop_only);

	if (off < 0)
		return -1;
	chunk_commit_alloc(c, (uint32_t)off, bits);
	return (int)off;
}

static void chunk_block_rescan(struct pcpu_chunk *c, uint32_t b);

/*
 * Allocate @p k objects of @p bits, the first at @p off, each of the
 * others @p step bits after the one before (step >= bits; gaps between
 * them stay free), all inside one free run: the maps and counters, each
 * block touched once, the chunk's hints once.
 */
static void
chunk_commit_run(struct pcpu_chunk *c, uint32_t off, uint32_t bits,
		uint32_t step, uint32_t k)
{
	uint32_t end = off + (k - 1) * step + bits;
	uint32_t sb = off / BLK_BITS, eb = (end - 1) / BLK_BITS, b, i, s;

	c->free_bytes -= (k * bits) << PCPU_MIN_ALLOC_SHIFT;
	c->nr_alloc += k;
	if (step == bits) {
		/* one allocated range: its blocks' hints as for one object
		 * that large */
		chunk_range_set(c->alloc_map, off, end);
		chunk_range_clear(c->bound_map, off + 1, end);
		for (i = 0, s = off; i <= k; i++, s += bits)
			chunk_bit_set(c->bound_map, s);
		for (b = sb; b <= eb; b++)
			chunk_block_alloc(c, b, b == sb ? off - b * BLK_BITS : 0,
				b == eb ? end - b * BLK_BITS : BLK_BITS);
	} else {
		for (i = 0, s = off; i < k; i++, s += step) {
			chunk_range_set(c->alloc_map, s, s + bits);
			chunk_range_clear(c->bound_map, s + 1, s + bits);
			chunk_bit_set(c->bound_map, s);
			chunk_bit_set(c->bound_map, s + bits);
		}
		/* free gaps between the objects: each block rescanned */
		for (b = sb; b <= eb; b++) {
			/* the hints still describe the block before the run */
			if (c->md_blocks[b].contig_hint == BLK_BITS)
				chunk_page_block_busy(c, b);
			chunk_block_rescan(c, b);
			chunk_leaf_dirty(c, b);
		}
	}
	chunk_hint_alloc(c, off, end, step != bits);
}

unsigned int
pcpu_chunk_alloc_batch(struct pcpu_chunk *c, uint32_t bits,
		uint32_t align_bits, unsigned int n, int pop_only,
		uint32_t run_bits, uint32_t *offs)
{
	uint32_t step, lim, pe, k;
	uint64_t p;
	int64_t off;

	if (n == 0 || (run_bits & (run_bits - 1)) != 0)
		return 0;
	/* a stretch of its own: the first object where a free area of
	 * run_bits aligned to run_bits would go */
	off = chunk_find_fit(c, bits > run_bits ? bits : run_bits,
		align_bits > run_bits ? align_bits : run_bits, pop_only);
	if (off < 0)
		return 0;
	/* the free run that holds the first object ends at the next
	 * allocated bit (the first object fits, so none is below its end);
	 * no need to look beyond the n-th object */
	step = chunk_align_up(bits, align_bits);
	p = (uint64_t)off + (uint64_t)(n - 1) * step + bits;
	lim = chunk_next_set(c->alloc_map, p < c->map_bits ? (uint32_t)p :
		c->map_bits, (uint32_t)off + bits);
	if (pop_only) {
		pe = chunk_next_zero(c->populated, c->nr_pages,
			pcpu_chunk_bit_to_page(c, (uint32_t)off));
		if (lim > pe * c->blocks_per_page * BLK_BITS)
			lim = pe * c->blocks_per_page * BLK_BITS;
	}
	for (k = 0, p = (uint64_t)off; k < n && p + bits <= lim; k++, p += step)
		offs[k] = (uint32_t)p;
	chunk_commit_run(c, (uint32_t)off, bits, step, k);
	return k;
}

/* ---------------------------------------------------------------------- */
/* Free. */

/* Account the now free maximal run [s, e) (block-relative) in block @b;
 * returns 1 if the block became fully free. */
static int
chunk_block_free(struct pcpu_chunk *c, uint32_t b, uint32_t s, uint32_t e)
{
	struct pcpu_block_md *md = &c->md_blocks[b];

	chunk_leaf_dirty(c, b);
	if (s == 0 && e == BLK_BITS) {
		chunk_block_set_empty(md);
		chunk_page_block_idle(c, b);
		return 1;
	}
	chunk_block_update(md, s, e);
	return 0;
}

/* End (chunk-relative, capped at the block end) of the free run starting
 * at @pos in block @b; the block's right_free still describes the state
 * before the free. */
static inline uint32_t
chunk_free_run_end(const struct pcpu_chunk *c, uint32_t b, uint32_t pos)
{
	uint32_t lim = (b + 1) * BLK_BITS;

	if (pos >= lim - c->md_blocks[b].right_free)
		return lim;
	return chunk_next_set(c->alloc_map, lim, pos);
}

/*
 * Chunk-level hints after a free left [@p s, @p e) free: the maximal free
 * run of its blocks around the freed space (capped at the edges of those
 * blocks). Blocks emptied or spanned need no summary-tree climb now: their
 * leaves are dirty and the next allocation that searches the tree (or
 * pcpu_chunk_refresh()) brings it up to date; Linux refreshes the chunk
 * in full here instead.
 */
static inline void
chunk_hint_free(struct pcpu_chunk *c, uint32_t s, uint32_t e)
{
	struct pcpu_block_md *cmd = &c->chunk_md;
	struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t r;

	if (c->free_bytes == c->map_bits << PCPU_MIN_ALLOC_SHIFT) {
		/* all free: every hint is known */
		cmd->contig_hint = c->map_bits;
		cmd->contig_hint_start = 0;
		cmd->left_free = c->map_bits;
		cmd->right_free = c->map_bits;
		cmd->first_free = 0;
		pv->hints_stale = 0;
		return;
	}
	/* the run goes on into the neighbour blocks by their edge runs
	 * (exact block hints); a neighbour free as a whole may continue it
	 * further, and then the chunk's hint is only a lower bound */
	if (s % BLK_BITS == 0 && s > 0) {
		r = c->md_blocks[s / BLK_BITS - 1].right_free;
		s -= r;
		pv->hints_stale |= r == BLK_BITS;
	}
	if (e % BLK_BITS == 0 && e < c->map_bits) {
		r = c->md_blocks[e / BLK_BITS].left_free;
		e += r;
		pv->hints_stale |= r == BLK_BITS;
	}
	if (s < cmd->first_free)
		cmd->first_free = s;
	if (s == 0 && e > cmd->left_free)
		cmd->left_free = e;
	if (e == c->map_bits && e - s > cmd->right_free)
		cmd->right_free = e - s;
	if (e - s > cmd->contig_hint ||
			(e - s == cmd->contig_hint &&
			 chunk_align_rank(s) > chunk_align_rank(cmd->contig_hint_start))) {
		cmd->contig_hint = e - s;
		cmd->contig_hint_start = s;
	}
}

/* Bookkeeping common to both free paths: counters and the fit cache. */
static inline void
chunk_count_free_n(struct pcpu_chunk *c, uint32_t bits, uint32_t nobj,
		uint32_t sb)
{

	c->free_bytes += bits << PCPU_MIN_ALLOC_SHIFT;
	c->nr_alloc -= nobj;
	if (sb <= c->fit_block)
		c->fit_valid = 0;
}

static inline void
chunk_count_free(struct pcpu_chunk *c, uint32_t bits, uint32_t sb)
{
	chunk_count_free_n(c, bits, 1, sb);
}

/*
 * The common case: an object inside one word of the map, its end bound in
 * the same word or at the start of the next one. Everything is read from
 * the word already loaded: the neighbours' runs need no map scan unless
 * they reach past the word.
 */
static inline int
chunk_free_in_word(struct pcpu_chunk *c, uint32_t off, uint64_t a, uint32_t we)
{
	uint32_t w = off / WORD_BITS, sh = off % WORD_BITS;
	uint32_t b = off / BLK_BITS, bs = b * BLK_BITS, bits = we - sh;
	uint64_t low, high;
	uint32_t s, e;

	a &= ~chunk_word_mask(sh, we);
	c->alloc_map[w] = a;
	chunk_count_free(c, bits, b);
	/* start of the run: the last set bit below, in this word or before */
	low = sh != 0 ? a & chunk_word_mask(0, sh) : 0;
	if (low != 0)
		s = w * WORD_BITS + WORD_BITS - (uint32_t)__builtin_clzll(low);
	else if (off - bs <= c->md_blocks[b].left_free)
		s = bs;
	else
		s = chunk_run_start(c->alloc_map, bs, w * WORD_BITS);
	/* end of the run: the first set bit above */
	high = we < WORD_BITS ? a >> we : 0;
	if (high != 0)
		e = w * WORD_BITS + we + (uint32_t)__builtin_ctzll(high);
	else
		e = chunk_free_run_end(c, b, (w + 1) * WORD_BITS);
	chunk_block_free(c, b, s - bs, e - bs);
	chunk_hint_free(c, s, e);
	return (int)bits;
}

/* Any object: the general path. */
static int
chunk_free_area(struct pcpu_chunk *c, uint32_t off)
{
	uint32_t end, bits, sb, eb, b, s, e, bs;

	end = chunk_next_set(c->bound_map, c->map_bits + 1, off + 1);
	bits = end - off;

	chunk_range_clear(c->alloc_map, off, end);
	sb = off / BLK_BITS;
	eb = (end - 1) / BLK_BITS;
	bs = sb * BLK_BITS;
	chunk_count_free(c, bits, sb);
	/* left/right_free are exact: runs touching a block edge need no scan */
	if (off - bs <= c->md_blocks[sb].left_free)
		s = bs;
	else
		s = chunk_run_start(c->alloc_map, bs, off);
	if (sb == eb) {
		e = chunk_free_run_end(c, sb, end);
		chunk_block_free(c, sb, s - bs, e - bs);
	} else {
		chunk_block_free(c, sb, s - bs, BLK_BITS);
		for (b = sb + 1; b < eb; b++)
			chunk_block_free(c, b, 0, BLK_BITS);
		bs = eb * BLK_BITS;
		e = chunk_free_run_end(c, eb, end);
		chunk_block_free(c, eb, 0, e - bs);
	}
	chunk_hint_free(c, s, e);
	return (int)bits;
}

/*
 * Where the live object starting at @p off ends within its map word: the
 * end bound later in the word, or bit 0 of the next word (the bound map
 * has map_bits + 1 bits, so that word exists). Returns the end as a bit of
 * the word (sh + 1 .. 64), 0 if the object reaches past the word, -1 if
 * no live object starts at @p off. *a gets the map word.
 */
static inline int
chunk_obj_word_end(const struct pcpu_chunk *c, uint32_t off, uint64_t *a)
{
	uint32_t w = off / WORD_BITS, sh = off % WORD_BITS;
	uint64_t bound, above;

	if (off >= c->map_bits)
		return -1;
	*a = c->alloc_map[w];
	bound = c->bound_map[w];
	if (((*a & bound) >> sh & 1) == 0)
		return -1;
	above = sh < WORD_BITS - 1 ? bound >> (sh + 1) : 0;
	if (above != 0)
		return (int)(sh + 1 + (uint32_t)__builtin_ctzll(above));
	if (c->bound_map[w + 1] & 1)
		return WORD_BITS;
	return 0;
}

int
pcpu_chunk_free(struct pcpu_chunk *c, uint32_t off)
{
	uint64_t a = 0;
	int we = chunk_obj_word_end(c, off, &a);

	if (we < 0)
		return -1;
	if (we > 0)
		return chunk_free_in_word(c, off, a, (uint32_t)we);
	return chunk_free_area(c, off);
}

/*
 * Length of the longest run of set bits in @p x (x not 0 and not all
 * ones) and in *start the first bit of its last occurrence. Doubling:
 * r[k] has bit i set when bits i .. i + 2^k - 1 of x are all set; the
 * length is then built from the largest such k downwards.
 */
static inline uint32_t
chunk_longest_ones(uint64_t x, uint32_t *start)
{
	uint64_t r[6], cur, t;
	uint32_t k = 0, len, i;

	r[0] = x;
	while (k < 5 && (t = r[k] & (r[k] >> (1u << k))) != 0)
		r[++k] = t;
	cur = r[k];
	len = 1u << k;
	for (i = k; i-- > 0;) {
		t = cur & (r[i] >> len);
		if (t != 0) {
			cur = t;
			len += 1u << i;
		}
	}
	*start = 63 - (uint32_t)__builtin_clzll(cur);
	return len;
}

/*
 * Recompute block @p b's hints from the map alone, a word at a time: per
 * word the run reaching its bottom (joined to the one carried from below),
 * the longest run inside it and the run reaching its top (carried up), so
 * the cost does not grow with the number of runs. The contig hint is the
 * last of the largest runs and the scan hint the candidate it replaced (a
 * valid prefix maximum); unlike chunk_block_update() there is no alignment
 * preference.
 */
static void
chunk_block_rescan(struct pcpu_chunk *c, uint32_t b)
{
	struct pcpu_block_md *md = &c->md_blocks[b];
	const uint64_t *map = c->alloc_map + b * (BLK_BITS / WORD_BITS);
	uint32_t i, pos, lo, hi, len, st, carry = 0, ff = BLK_BITS, left = 0;
	uint32_t best = 0, best_s = 0, scan = 0, scan_s = 0;
	uint64_t w, in;

#define RESCAN_RUN(s_, l_) do {				\
		if ((l_) >= best) {				\
			scan = best;				\
			scan_s = best_s;			\
			best = (l_);				\
			best_s = (s_);				\
		}						\
	} while (0)
	for (i = 0; i < BLK_BITS / WORD_BITS; i++) {
		pos = i * WORD_BITS;
		w = map[i];
		if (w == ~0ULL) {
			/* allocated: ends the run carried from below */
			if (carry != 0) {
				if (pos == carry)
					left = carry;
				RESCAN_RUN(pos - carry, carry);
				carry = 0;
			}
			continue;
		}
		if (ff == BLK_BITS)
			ff = pos + (uint32_t)__builtin_ctzll(~w);
		if (w == 0) {
			carry += WORD_BITS;
			continue;
		}
		lo = (uint32_t)__builtin_ctzll(w);
		hi = (uint32_t)__builtin_clzll(w);
		if (carry + lo != 0) {
			if (pos == carry)
				left = carry + lo;
			RESCAN_RUN(pos - carry, carry + lo);
		}
		/* free bits between the word's first and last allocated bit */
		in = ~w & ~((1ULL << lo) - 1) & (~0ULL >> hi);
		if (in != 0) {
			/* one run (the common case): no doubling needed */
			if ((in & (in + (in & -in))) == 0) {
				st = (uint32_t)__builtin_ctzll(in);
				len = (uint32_t)__builtin_popcountll(in);
			} else {
				len = chunk_longest_ones(in, &st);
			}
			RESCAN_RUN(pos + st, len);
		}
		carry = hi;
	}
	if (carry != 0) {
		if (carry == BLK_BITS)
			left = BLK_BITS;
		RESCAN_RUN(BLK_BITS - carry, carry);
	}
#undef RESCAN_RUN
	md->first_free = ff;
	md->left_free = left;
	md->right_free = carry;
	md->contig_hint = best;
	md->contig_hint_start = best_s;
	md->scan_hint = scan;
	md->scan_hint_start = scan_s;
}

/* ---------------------------------------------------------------------- */
/*
 * Deferred frees.
 *
 * A batch of frees (a cache flush, a pool's objects, a run of single frees
 * under the caller's lock) tends to free many objects of one block in a
 * row, and updating the block's and the chunk's hints after each costs
 * more than the free itself. So frees only clear map bits and count; the
 * block they fall into is *pending* until a free goes to another block of
 * the chunk or the caller settles the chunk. Settling replays a lone
 * pending free exactly (pcpu_chunk_free(): a block rescan costs about as
 * much as two or three such frees) or rescans the block from its map.
 *
 * Invariant: only the pending block's hints miss frees; they stay
 * conservative (they miss free space, never claim any), and free_bytes
 * and nr_alloc are always exact.
 */

/* Pending frees of a single object up to this many are replayed. */
#define PENDING_REPLAY_MAX 1

/* Apply the pending block's frees to the hints and page counts; counts
 * the block in @p eff. */
static void
chunk_pending_settle(struct pcpu_chunk *c, struct pcpu_chunk_free_effect *eff)
{
	uint32_t b = c->pending_block, n = c->pending_n, end;
	struct pcpu_block_md *md = &c->md_blocks[b];
	struct pcpu_block_md *cmd = &c->chunk_md;
	int full;

	if (n == 0)
		return;
	c->pending_n = 0;
	eff->settled++;
	if (n <= PENDING_REPLAY_MAX) {
		/* put the object back and free it exactly */
		end = chunk_next_set(c->bound_map, c->map_bits + 1,
			c->pending_off + 1);
		chunk_range_set(c->alloc_map, c->pending_off, end);
		c->free_bytes -= (end - c->pending_off) << PCPU_MIN_ALLOC_SHIFT;
		c->nr_alloc++;
		pcpu_chunk_free(c, c->pending_off);
		return;
	}
	/* rescan: the hints were exact before the first pending free, so
	 * the block was busy then. A block the frees emptied needs no scan
	 * (the OR of its words, without branches). */
	full = chunk_block_is_empty(c, b);
	if (full) {
		chunk_block_set_empty(md);
		chunk_page_block_idle(c, b);
	} else {
		chunk_block_rescan(c, b);
	}
	chunk_leaf_dirty(c, b);
	/* the runs that may have grown: the block's largest, and the ones
	 * at its edges, which may join the neighbours' */
	chunk_hint_free(c, b * BLK_BITS + md->contig_hint_start,
		b * BLK_BITS + md->contig_hint_start + md->contig_hint);
	if (!full && md->left_free != 0)
		chunk_hint_free(c, b * BLK_BITS, b * BLK_BITS + md->left_free);
	if (!full && md->right_free != 0)
		chunk_hint_free(c, (b + 1) * BLK_BITS - md->right_free,
			(b + 1) * BLK_BITS);
	if (b * BLK_BITS + md->first_free < cmd->first_free)
		cmd->first_free = b * BLK_BITS + md->first_free;
}

/* Frees are about to go to block @p b: settle any other pending block. */
static inline void
chunk_pending_enter(struct pcpu_chunk *c, uint32_t b,
		struct pcpu_chunk_free_effect *eff)
{

	if (c->pending_n != 0 && c->pending_block != b)
		chunk_pending_settle(c, eff);
}

/* @p nobj objects (@p bits bits), the first at bit @p off, were freed in
 * block @p b without a hint update. */
static inline void
chunk_pending_add(struct pcpu_chunk *c, uint32_t b, uint32_t off, uint32_t nobj,
		uint32_t bits)
{

	chunk_count_free_n(c, bits, nobj, b);
	if (c->pending_n == 0) {
		c->pending_block = b;
		c->pending_off = off;
	}
	c->pending_n += nobj;
}

/*
 * End of the live object that starts at @p off and reaches past its map
 * word, if it ends inside its block (at the block's end at the latest):
 * only the block's words of the bound map are read. Returns 0 if the
 * object spans blocks.
 */
static inline uint32_t
chunk_obj_end_in_block(const struct pcpu_chunk *c, uint32_t off)
{
	/* the word of the bound map holding the block's end: it exists, as
	 * the bound map has map_bits + 1 bits */
	uint32_t i, lim = (off / BLK_BITS + 1) * (BLK_BITS / WORD_BITS);
	uint64_t x;

	for (i = off / WORD_BITS + 1; i < lim && c->bound_map[i] == 0; i++)
		;
	x = c->bound_map[i];
	if (i == lim && (x & 1) == 0)
		return 0;
	return i * WORD_BITS + (uint32_t)__builtin_ctzll(x);
}

/* Clear the map bits [@p off, @p end) of an object that reaches past its
 * map word (@p end - @p off > 64 - @p off % 64). */
static inline void
chunk_obj_clear_words(struct pcpu_chunk *c, uint32_t off, uint32_t end)
{
	uint32_t w = off / WORD_BITS, we = end / WORD_BITS;
	uint64_t *map = c->alloc_map;

	map[w] &= ~(~0ULL << (off % WORD_BITS));
	/* relaxed stores: no call to memset() for a few words */
	for (w++; w < we; w++)
		__atomic_store_n(&map[w], 0, __ATOMIC_RELAXED);
	/* the end's word holds no bit of the object if the end is its bit 0
	 * (and may lie past the map then) */
	if (end % WORD_BITS != 0)
		map[we] &= ~0ULL << (end % WORD_BITS);
}

uint32_t
pcpu_chunk_free_quick_words(struct pcpu_chunk *c, uint32_t off)
{
	uint32_t end = chunk_obj_end_in_block(c, off);

	if (end == 0)
		return 0;
	chunk_obj_clear_words(c, off, end);
	chunk_pending_add(c, off / BLK_BITS, off, 1, end - off);
	return end - off;
}

/*
 * Clear the map bits of the live objects that start at @p starts in map
 * word @p w, each ending inside the word or at its end; the counters are
 * left to the caller. Returns the bits cleared, 0 (nothing changed) if one
 * of them is not such an object.
 */
static inline uint64_t
chunk_word_clear(struct pcpu_chunk *c, uint32_t w, uint64_t starts)
{
	uint64_t a, bound, run, mask;

	a = c->alloc_map[w];
	bound = c->bound_map[w];
	if ((a & bound & starts) != starts)
		return 0;
	/* each object runs from its start up to the next bound bit. In run,
	 * the starts and every bit that is not a bound are set; adding the
	 * starts carries each one up through its object and stops at the
	 * bound that ends it, clearing exactly the object's bits (a start
	 * that follows a freed object directly is set back by the OR) */
	run = ~bound | starts;
	mask = (run & ~(run + starts)) | starts;
	/* the top object carried out of the word: it must end right there */
	if ((mask >> (WORD_BITS - 1)) != 0 && !(c->bound_map[w + 1] & 1))
		return 0;
	c->alloc_map[w] = a & ~mask;
	return mask;
}

/* Cut the group offs[i .. j) (starts in one map word) before its first
 * repeated offset, the second free of an object, which is refused: returns
 * the new end, the starts before it in *starts. */
static unsigned int
chunk_group_cut_repeat(const uint32_t *offs, unsigned int i, unsigned int j,
		uint64_t *starts)
{
	uint64_t seen = 0, m;
	unsigned int k;

	for (k = i; k < j; k++) {
		m = UINT64_C(1) << (offs[k] % WORD_BITS);
		if (seen & m)
			break;
		seen |= m;
	}
	*starts = seen;
	return k;
}

/* How pcpu_chunk_free_batch() frees the objects of one batch: they tend
 * to share a size, so what the first objects showed holds for the rest. */
enum chunk_batch_mode {
	CHUNK_BATCH_WORDS,  /* the objects that start in one map word at once */
	CHUNK_BATCH_SINGLE, /* objects inside their map word, one at a time */
	CHUNK_BATCH_LONG,   /* objects past their map word */
};

/*
 * Free deferred the leading objects of @p offs[0 .. n) that lie in the
 * block of offs[0] (below map_bits), after settling another pending
 * block: a run of a cache flush, or of a pool's objects. The counters and
 * the pending record are written once for the run. Stops at the first
 * offset outside the block or that is not the start of a live object
 * inside the block (one spanning blocks). Returns how many were freed,
 * their bits added to *@p bits.
 */
static unsigned int
chunk_free_block_run(struct pcpu_chunk *c, const uint32_t *offs,
		unsigned int n, enum chunk_batch_mode *modep, uint32_t *bits,
		struct pcpu_chunk_free_effect *eff)
{
	uint32_t b = offs[0] / BLK_BITS, freed_bits = 0, off, end, k;
	enum chunk_batch_mode mode = *modep;
	uint64_t starts, freed, a;
	unsigned int i = 0, j;
	int we;

	chunk_pending_enter(c, b, eff);
	while (i < n && (off = offs[i]) / BLK_BITS == b) {
		if (mode != CHUNK_BATCH_LONG) {
			starts = UINT64_C(1) << (off % WORD_BITS);
			j = i + 1;
			if (mode == CHUNK_BATCH_WORDS) {
				/* the objects after it that start in the
				 * same word */
				for (; j < n && (offs[j] ^ off) < WORD_BITS; j++)
					starts |= UINT64_C(1) <<
						(offs[j] % WORD_BITS);
				if ((unsigned int)__builtin_popcountll(starts) !=
				    j - i)
					j = chunk_group_cut_repeat(offs, i, j,
						&starts);
			}
			freed = chunk_word_clear(c, off / WORD_BITS, starts);
			if (freed != 0) {
				k = (uint32_t)__builtin_popcountll(freed);
				freed_bits += k;
				/* no two objects of more than half a word
				 * start in one word */
				if (j - i == 1 && k > WORD_BITS / 2)
					mode = CHUNK_BATCH_SINGLE;
				i = j;
				continue;
			}
			if (j - i >= 2) {
				/* one of the group is not live or reaches
				 * past the word: one at a time */
				mode = CHUNK_BATCH_SINGLE;
				continue;
			}
		}
		/* alone: not live, or past its map word */
		we = chunk_obj_word_end(c, off, &a);
		if (we < 0)
			break;
		if (we > 0) {
			/* inside its word after all */
			mode = CHUNK_BATCH_SINGLE;
			continue;
		}
		end = chunk_obj_end_in_block(c, off);
		if (end == 0)
			break;
		mode = CHUNK_BATCH_LONG;
		chunk_obj_clear_words(c, off, end);
		freed_bits += end - off;
		i++;
	}
	if (i != 0)
		chunk_pending_add(c, b, offs[0], i, freed_bits);
	*modep = mode;
	*bits += freed_bits;
	return i;
}

/* Open an effect record: what the chunk looks like before. */
static inline void
chunk_effect_open(const struct pcpu_chunk *c, struct pcpu_chunk_free_effect *eff,
		uint32_t *empty_before)
{
	eff->nr_objs = 0;
	eff->bytes = 0;
	eff->settled = 0;
	eff->contig_before = c->chunk_md.contig_hint;
	*empty_before = c->nr_empty_pop_pages;
}

static inline void
chunk_effect_close(const struct pcpu_chunk *c, struct pcpu_chunk_free_effect *eff,
		uint32_t empty_before)
{
	eff->contig_after = c->chunk_md.contig_hint;
	eff->empty_pages = (int32_t)(c->nr_empty_pop_pages - empty_before);
}

unsigned int
pcpu_chunk_free_batch(struct pcpu_chunk *c, const uint32_t *offs,
		unsigned int n, struct pcpu_chunk_free_effect *eff)
{
	enum chunk_batch_mode mode = CHUNK_BATCH_WORDS;
	uint32_t empty_before, bits = 0;
	unsigned int i = 0, k;
	uint64_t a;
	int one;

	chunk_effect_open(c, eff, &empty_before);
	while (i < n && offs[i] < c->map_bits) {
		k = chunk_free_block_run(c, offs + i, n - i, &mode, &bits, eff);
		if (k != 0) {
			i += k;
			continue;
		}
		/* not live, or live and spanning blocks: that one exactly,
		 * after the pending block */
		if (chunk_obj_word_end(c, offs[i], &a) < 0)
			break;
		chunk_pending_settle(c, eff);
		eff->settled++;
		one = pcpu_chunk_free(c, offs[i]);
		bits += (uint32_t)one;
		i++;
	}
	eff->nr_objs = i;
	eff->bytes = bits << PCPU_MIN_ALLOC_SHIFT;
	chunk_effect_close(c, eff, empty_before);
	return i;
}

void
pcpu_chunk_settle(struct pcpu_chunk *c, struct pcpu_chunk_free_effect *eff)
{
	uint32_t empty_before;

	chunk_effect_open(c, eff, &empty_before);
	chunk_pending_settle(c, eff);
	chunk_effect_close(c, eff, empty_before);
}


uint32_t
pcpu_chunk_obj_bits(const struct pcpu_chunk *c, uint32_t off)
{
	if (off >= c->map_bits || !chunk_bit_test(c->alloc_map, off) ||
			!chunk_bit_test(c->bound_map, off))
		return 0;
	return chunk_next_set(c->bound_map, c->map_bits + 1, off + 1) - off;
}

/* ---------------------------------------------------------------------- */
/* Pages. */

int
pcpu_chunk_page_populated(const struct pcpu_chunk *c, uint32_t page)
{
	return page < c->nr_pages && chunk_bit_test(c->populated, page);
}

int
pcpu_chunk_page_empty(const struct pcpu_chunk *c, uint32_t page)
{
	return page < c->nr_pages && c->page_busy_blocks[page] == 0;
}

int
pcpu_chunk_next_unpop(const struct pcpu_chunk *c, uint32_t ps, uint32_t pe,
		uint32_t *rs, uint32_t *re)
{
	uint32_t s;

	if (pe > c->nr_pages)
		pe = c->nr_pages;
	s = chunk_next_zero(c->populated, pe, ps);
	if (s >= pe)
		return 0;
	*rs = s;
	*re = chunk_next_set(c->populated, pe, s);
	return 1;
}

static inline int
chunk_page_empty_pop(const struct pcpu_chunk *c, uint32_t p)
{
	return chunk_bit_test(c->populated, p) && c->page_busy_blocks[p] == 0;
}

int
pcpu_chunk_prev_empty_pop(const struct pcpu_chunk *c, uint32_t ps,
		uint32_t pe, uint32_t *rs, uint32_t *re)
{
	uint32_t p;

	if (pe > c->nr_pages)
		pe = c->nr_pages;
	for (p = pe; p > ps; p--) {
		if (chunk_page_empty_pop(c, p - 1))
			break;
	}
	if (p == ps)
		return 0;
	*re = p;
	while (p > ps && chunk_page_empty_pop(c, p - 1))
		p--;
	*rs = p;
	return 1;
}

/* Mark pages [ps, pe) populated (@p pop 1) or not, counting the changes. */
static void
chunk_pages_mark(struct pcpu_chunk *c, uint32_t ps, uint32_t pe, int pop)
{
	int d = pop ? 1 : -1;
	uint32_t p;

	if (pe > c->nr_pages)
		pe = c->nr_pages;
	for (p = ps; p < pe; p++) {
		if (chunk_bit_test(c->populated, p) == pop)
			continue;
		if (pop)
			chunk_bit_set(c->populated, p);
		else
			chunk_bit_clear(c->populated, p);
		c->nr_populated += d;
		if (c->page_busy_blocks[p] == 0)
			c->nr_empty_pop_pages += d;
	}
}

void
pcpu_chunk_set_populated(struct pcpu_chunk *c, uint32_t ps, uint32_t pe)
{
	chunk_pages_mark(c, ps, pe, 1);
}

void
pcpu_chunk_set_depopulated(struct pcpu_chunk *c, uint32_t ps, uint32_t pe)
{
	chunk_pages_mark(c, ps, pe, 0);
}

/* ---------------------------------------------------------------------- */
/* Slots and statistics. */

int
pcpu_size_to_slot(uint32_t bytes)
{
	int fls, slot;

	if (bytes < PCPU_MIN_ALLOC_SIZE)
		return 0;
	fls = 32 - __builtin_clz(bytes);
	slot = fls - 3;
	return slot > 1 ? slot : 1;
}

int
pcpu_chunk_slot(const struct pcpu_chunk *c)
{
	if (c->free_bytes < PCPU_MIN_ALLOC_SIZE || c->chunk_md.contig_hint == 0)
		return 0;
	if (c->free_bytes == c->map_bits * PCPU_MIN_ALLOC_SIZE)
		return pcpu_size_to_slot(c->map_bits * PCPU_MIN_ALLOC_SIZE);
	/* the largest free run is unknown until the next refresh: place
	 * the chunk by an upper bound, so every allocation that may fit
	 * tries it (and its search makes the hint exact) */
	if (chunk_priv(c)->hints_stale)
		return pcpu_size_to_slot(c->free_bytes);
	return pcpu_size_to_slot(c->chunk_md.contig_hint * PCPU_MIN_ALLOC_SIZE);
}

/* Last set bit of the map below @size, or UINT32_MAX if none. */
static uint32_t
chunk_last_set(const uint64_t *map, uint32_t size)
{
	uint32_t i = size / WORD_BITS;

	while (i > 0) {
		i--;
		if (map[i])
			return i * WORD_BITS + 63 -
				(uint32_t)__builtin_clzll(map[i]);
	}
	return UINT32_MAX;
}

void
pcpu_chunk_frag_stats(const struct pcpu_chunk *c, struct pcpu_chunk_frag *f)
{
	uint32_t last, pos, e;

	memset(f, 0, sizeof(*f));
	f->nr_alloc = c->nr_alloc;
	f->free_bytes = c->free_bytes;
	f->contig_bytes = c->chunk_md.contig_hint * PCPU_MIN_ALLOC_SIZE;
	f->first_free = chunk_next_zero(c->alloc_map, c->map_bits, 0);
	f->empty_pop_pages = c->nr_empty_pop_pages;
	f->populated_pages = c->nr_populated;

	last = chunk_last_set(c->alloc_map, c->map_bits);
	if (last == UINT32_MAX)
		return;
	pos = 0;
	while (pos <= last) {
		uint32_t bytes;

		if (chunk_bit_test(c->alloc_map, pos)) {
			e = chunk_next_set(c->bound_map, c->map_bits + 1, pos + 1);
			bytes = (e - pos) * PCPU_MIN_ALLOC_SIZE;
			if (f->min_alloc == 0 || bytes < f->min_alloc)
				f->min_alloc = bytes;
			if (bytes > f->max_alloc)
				f->max_alloc = bytes;
		} else {
			e = chunk_next_set(c->alloc_map, c->map_bits, pos);
			bytes = (e - pos) * PCPU_MIN_ALLOC_SIZE;
			f->sum_frag += bytes;
			if (bytes > f->max_frag)
				f->max_frag = bytes;
		}
		pos = e;
	}
}

/* ---------------------------------------------------------------------- */
/* Audit. */

#define AUDIT_FAIL(...) do { \
	if (msg != NULL && len > 0) \
		snprintf(msg, len, __VA_ARGS__); \
	return -1; \
} while (0)

static int
chunk_range_is_free(const struct pcpu_chunk *c, uint32_t s, uint32_t e)
{
	return chunk_next_set(c->alloc_map, e, s) >= e;
}

static int
chunk_audit_block(const struct pcpu_chunk *c, uint32_t b, uint32_t *busy,
		char *msg, size_t len)
{
	const struct pcpu_block_md *md = &c->md_blocks[b];
	uint32_t base = b * BLK_BITS, lim = base + BLK_BITS;
	uint32_t pos = base, s, e, max = 0, left = 0, right = 0;
	uint32_t ff = BLK_BITS, prefix_max = 0, ss = md->scan_hint_start;

	while (pos < lim) {
		s = chunk_next_zero(c->alloc_map, lim, pos);
		if (s >= lim)
			break;
		e = chunk_next_set(c->alloc_map, lim, s + 1);
		if (ff == BLK_BITS)
			ff = s - base;
		if (e - s > max)
			max = e - s;
		if (s == base)
			left = e - s;
		if (e == lim)
			right = e - s;
		if (md->scan_hint && s - base < ss && e - s > prefix_max)
			prefix_max = e - s;
		pos = e;
	}
	*busy = max != BLK_BITS;
	if (md->nr_bits != BLK_BITS)
		AUDIT_FAIL("block %u: nr_bits %u != %u", b, md->nr_bits, BLK_BITS);
	if (md->contig_hint != max)
		AUDIT_FAIL("block %u: contig_hint %u != largest free run %u",
			b, md->contig_hint, max);
	if (md->contig_hint && (md->contig_hint_start + md->contig_hint >
			BLK_BITS || !chunk_range_is_free(c, base + md->contig_hint_start,
			base + md->contig_hint_start + md->contig_hint)))
		AUDIT_FAIL("block %u: contig run %u+%u is not free", b,
			md->contig_hint_start, md->contig_hint);
	if (md->left_free != left)
		AUDIT_FAIL("block %u: left_free %u != %u", b, md->left_free, left);
	if (md->right_free != right)
		AUDIT_FAIL("block %u: right_free %u != %u", b, md->right_free,
			right);
	if (md->first_free > ff)
		AUDIT_FAIL("block %u: first_free %u after first free bit %u", b,
			md->first_free, ff);
	if (md->scan_hint) {
		uint32_t se = ss + md->scan_hint;

		if (se > md->contig_hint_start || md->scan_hint > md->contig_hint)
			AUDIT_FAIL("block %u: scan hint %u+%u not before contig "
				"%u+%u", b, ss, md->scan_hint,
				md->contig_hint_start, md->contig_hint);
		if (!chunk_range_is_free(c, base + ss, base + se) ||
				(ss > 0 && !chunk_bit_test(c->alloc_map, base + ss - 1)) ||
				(se < BLK_BITS && !chunk_bit_test(c->alloc_map, base + se)))
			AUDIT_FAIL("block %u: scan hint %u+%u is not a maximal "
				"free run", b, ss, md->scan_hint);
		if (prefix_max > md->scan_hint)
			AUDIT_FAIL("block %u: free run of %u before scan hint "
				"%u+%u", b, prefix_max, ss, md->scan_hint);
	}
	return 0;
}

int
pcpu_chunk_audit(const struct pcpu_chunk *c, char *msg, size_t len)
{
	const struct pcpu_chunk_priv *pv = chunk_priv(c);
	uint32_t b, p, busy, nw, i, pos, s, e, max = 0, ff, nstarts = 0;
	uint32_t nr_pop = 0, nr_empty = 0, nr_free_bits = 0, page_busy;
	const struct pcpu_block_md *cmd = &c->chunk_md;

	if (c->map_bits == 0 || c->nr_blocks * BLK_BITS != c->map_bits ||
			c->nr_pages * c->blocks_per_page != c->nr_blocks)
		AUDIT_FAIL("geometry: map_bits %u nr_blocks %u nr_pages %u "
			"blocks_per_page %u", c->map_bits, c->nr_blocks,
			c->nr_pages, c->blocks_per_page);
	if (c->pending_n != 0)
		AUDIT_FAIL("%u frees pending in block %u (settle first)",
			c->pending_n, c->pending_block);

	/* page by page, the page's blocks in order: no memory to allocate,
	 * so the audit cannot fail for want of it */
	for (b = 0, p = 0; p < c->nr_pages; p++) {
		for (page_busy = 0; b < (p + 1) * c->blocks_per_page; b++) {
			if (chunk_audit_block(c, b, &busy, msg, len) < 0)
				return -1;
			page_busy += busy;
		}
		if (page_busy != c->page_busy_blocks[p])
			AUDIT_FAIL("page %u: page_busy_blocks %u != %u busy blocks",
				p, c->page_busy_blocks[p], page_busy);
		if (chunk_bit_test(c->populated, p)) {
			nr_pop++;
			nr_empty += page_busy == 0;
		}
	}
	nw = (c->nr_pages + WORD_BITS - 1) / WORD_BITS;
	for (i = 0; i < nw; i++) {
		uint64_t w = c->populated[i];

		if (i == nw - 1 && c->nr_pages % WORD_BITS)
			w &= ~chunk_word_mask(c->nr_pages % WORD_BITS, WORD_BITS);
		if (w != c->populated[i])
			AUDIT_FAIL("populated bitmap has bits past page %u",
				c->nr_pages);
	}
	if (nr_pop != c->nr_populated)
		AUDIT_FAIL("nr_populated %u != %u populated pages",
			c->nr_populated, nr_pop);
	if (nr_empty != c->nr_empty_pop_pages)
		AUDIT_FAIL("nr_empty_pop_pages %u != %u populated empty pages",
			c->nr_empty_pop_pages, nr_empty);

	/* whole-map free runs and objects */
	ff = c->map_bits;
	pos = 0;
	while (pos < c->map_bits) {
		if (!chunk_bit_test(c->alloc_map, pos)) {
			e = chunk_next_set(c->alloc_map, c->map_bits, pos);
			if (ff == c->map_bits)
				ff = pos;
			if (e - pos > max)
				max = e - pos;
			nr_free_bits += e - pos;
			pos = e;
			continue;
		}
		/* an allocated run: must be tiled by objects */
		e = chunk_next_zero(c->alloc_map, c->map_bits, pos);
		while (pos < e) {
			if (!chunk_bit_test(c->bound_map, pos))
				AUDIT_FAIL("bound_map: allocated bit %u starts no "
					"object (no bound bit)", pos);
			s = chunk_next_set(c->bound_map, c->map_bits + 1, pos + 1);
			if (s > e)
				AUDIT_FAIL("bound_map: object at %u ends at %u past "
					"its allocated run end %u", pos, s, e);
			nstarts++;
			pos = s;
		}
	}
	if (nr_free_bits * PCPU_MIN_ALLOC_SIZE != c->free_bytes)
		AUDIT_FAIL("free_bytes %u != %u free bits x 4", c->free_bytes,
			nr_free_bits);
	if (nstarts != c->nr_alloc)
		AUDIT_FAIL("nr_alloc %u != %u live object starts", c->nr_alloc,
			nstarts);
	nw = c->map_bits / WORD_BITS;
	for (i = 0, s = 0; i < nw; i++)
		s += (uint32_t)__builtin_popcountll(c->alloc_map[i] &
				c->bound_map[i]);
	if (s != nstarts)
		AUDIT_FAIL("bound_map: %u allocated bound bits != %u objects", s,
			nstarts);
	if (cmd->nr_bits != c->map_bits)
		AUDIT_FAIL("chunk_md.nr_bits %u != map_bits %u", cmd->nr_bits,
			c->map_bits);
	if (cmd->contig_hint > max)
		AUDIT_FAIL("chunk contig_hint %u > largest free run %u",
			cmd->contig_hint, max);
	if (!pv->hints_stale && cmd->contig_hint != max)
		AUDIT_FAIL("chunk contig_hint %u != largest free run %u, not "
			"marked stale", cmd->contig_hint, max);
	if (cmd->contig_hint && (cmd->contig_hint_start + cmd->contig_hint >
			c->map_bits || !chunk_range_is_free(c, cmd->contig_hint_start,
			cmd->contig_hint_start + cmd->contig_hint)))
		AUDIT_FAIL("chunk contig run %u+%u is not free",
			cmd->contig_hint_start, cmd->contig_hint);
	if (cmd->first_free > ff)
		AUDIT_FAIL("chunk first_free %u after first free bit %u",
			cmd->first_free, ff);
	if (cmd->scan_hint != 0)
		AUDIT_FAIL("chunk scan_hint %u set (unused at chunk level)",
			cmd->scan_hint);
	if (pv->nr_dirty == 0 && pv->tree[1].max != max)
		AUDIT_FAIL("summary tree max %u != largest free run %u",
			pv->tree[1].max, max);
	if (pv->nr_dirty == 0) {
		for (b = 0; b < c->nr_blocks; b++) {
			const struct pcpu_tnode *t = &pv->tree[pv->nr_leaves + b];
			const struct pcpu_block_md *md = &c->md_blocks[b];

			if (t->max != md->contig_hint || t->left != md->left_free ||
					t->right != md->right_free)
				AUDIT_FAIL("summary tree leaf %u stale", b);
		}
	}
	return 0;
}
#undef AUDIT_FAIL
