/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * CUnit tests of the chunk bitmap allocator (pcpu_chunk.c), no EAL.
 *
 * Environment knobs: PCPU_SEED (model test seed), PCPU_MODEL_OPS (default
 * 200000), PCPU_TIMING_OPS (default 1048576; lower it under valgrind).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>

#include "pcpu_chunk.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static unsigned long
env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtoul(v, NULL, 0) : def;
}

static void
audit_ok(const struct pcpu_chunk *c)
{
	char msg[256] = "";
	int rc = pcpu_chunk_audit(c, msg, sizeof(msg));

	if (rc != 0)
		fprintf(stderr, "\naudit: %s\n", msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void
check_block(const struct pcpu_chunk *c, uint32_t b, uint32_t contig,
		uint32_t contig_start, uint32_t left, uint32_t right,
		uint32_t scan, uint32_t scan_start)
{
	const struct pcpu_block_md *md = &c->md_blocks[b];

	CU_ASSERT_EQUAL(md->contig_hint, contig);
	CU_ASSERT_EQUAL(md->contig_hint_start, contig_start);
	CU_ASSERT_EQUAL(md->left_free, left);
	CU_ASSERT_EQUAL(md->right_free, right);
	CU_ASSERT_EQUAL(md->scan_hint, scan);
	if (scan)
		CU_ASSERT_EQUAL(md->scan_hint_start, scan_start);
}

/* A deep copy of the allocator state, for "nothing changed" checks. */
struct snap {
	uint64_t *alloc, *bound, *pop;
	uint32_t *busy;
	struct pcpu_block_md *md;
	struct pcpu_block_md chunk_md;
	uint32_t free_bytes, nr_alloc, nr_populated, nr_empty;
};

static void
snap_take(struct snap *s, const struct pcpu_chunk *c)
{
	size_t aw = c->map_bits / 64, pw = (c->nr_pages + 63) / 64;

	s->alloc = malloc(aw * 8);
	s->bound = malloc((aw + 1) * 8);
	s->pop = malloc(pw * 8);
	s->busy = malloc(c->nr_pages * 4);
	s->md = malloc(c->nr_blocks * sizeof(*s->md));
	memcpy(s->alloc, c->alloc_map, aw * 8);
	memcpy(s->bound, c->bound_map, (aw + 1) * 8);
	memcpy(s->pop, c->populated, pw * 8);
	memcpy(s->busy, c->page_busy_blocks, c->nr_pages * 4);
	memcpy(s->md, c->md_blocks, c->nr_blocks * sizeof(*s->md));
	s->chunk_md = c->chunk_md;
	s->free_bytes = c->free_bytes;
	s->nr_alloc = c->nr_alloc;
	s->nr_populated = c->nr_populated;
	s->nr_empty = c->nr_empty_pop_pages;
}

static int
snap_same(const struct snap *s, const struct pcpu_chunk *c)
{
	size_t aw = c->map_bits / 64, pw = (c->nr_pages + 63) / 64;

	return memcmp(s->alloc, c->alloc_map, aw * 8) == 0 &&
		memcmp(s->bound, c->bound_map, (aw + 1) * 8) == 0 &&
		memcmp(s->pop, c->populated, pw * 8) == 0 &&
		memcmp(s->busy, c->page_busy_blocks, c->nr_pages * 4) == 0 &&
		memcmp(s->md, c->md_blocks, c->nr_blocks * sizeof(*s->md)) == 0 &&
		memcmp(&s->chunk_md, &c->chunk_md, sizeof(s->chunk_md)) == 0 &&
		s->free_bytes == c->free_bytes && s->nr_alloc == c->nr_alloc &&
		s->nr_populated == c->nr_populated &&
		s->nr_empty == c->nr_empty_pop_pages;
}

static void
snap_free(struct snap *s)
{
	free(s->alloc);
	free(s->bound);
	free(s->pop);
	free(s->busy);
	free(s->md);
}

/* ---------------------------------------------------------------------- */

static void
test_init(void)
{
	struct pcpu_chunk c;

	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 64 * KIB, 2048), -EINVAL);
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 64 * KIB, 12288), -EINVAL);
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 0, 4096), -EINVAL);
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 6 * KIB, 4096), -EINVAL);
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 3 * MIB, 2 * MIB), -EINVAL);
	CU_ASSERT_EQUAL(pcpu_chunk_init(&c, 4ULL << 30, 4096), -EINVAL);

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(c.map_bits, 16384);
	CU_ASSERT_EQUAL(c.nr_blocks, 16);
	CU_ASSERT_EQUAL(c.nr_pages, 16);
	CU_ASSERT_EQUAL(c.blocks_per_page, 1);
	CU_ASSERT_EQUAL(c.free_bytes, 64 * KIB);
	CU_ASSERT_EQUAL(c.nr_alloc, 0);
	CU_ASSERT_EQUAL(c.nr_populated, 0);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16384);
	CU_ASSERT_EQUAL(c.chunk_md.nr_bits, 16384);
	check_block(&c, 7, 1024, 0, 1024, 1024, 0, 0);
	audit_ok(&c);
	pcpu_chunk_fini(&c);

	/* not a power of two number of blocks, 2 MiB pages */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 6 * MIB, 2 * MIB), 0);
	CU_ASSERT_EQUAL(c.nr_blocks, 1536);
	CU_ASSERT_EQUAL(c.nr_pages, 3);
	CU_ASSERT_EQUAL(c.blocks_per_page, 512);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 6 * MIB / 4);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 6 * MIB / 4, 1, 0), 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), -1);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 6 * MIB / 4);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 6 * MIB / 4);
	audit_ok(&c);
	pcpu_chunk_fini(&c);

	/* a single block chunk */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 4 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1024, 1, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 1024);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_slot(void)
{
	struct pcpu_chunk c;

	CU_ASSERT_EQUAL(pcpu_size_to_slot(0), 0);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(3), 0);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(4), 1);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(15), 1);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(16), 2);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(31), 2);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(32), 3);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(64), 4);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(4096), 10);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(65536), 14);
	CU_ASSERT_EQUAL(pcpu_size_to_slot(1u << 31), 29);

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), 14);
	/* 64 KiB - 40 B free in one run: contig 65496 B -> fls 16 -> 13 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 10, 1, 0), 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16374);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), 13);
	/* leave exactly 12 bytes free at the end: slot 1 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 16384 - 10 - 3, 1, 0), 10);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 3);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), 1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 3, 1, 0), 16381);
	CU_ASSERT_EQUAL(c.free_bytes, 0);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), 0);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* Hand-computed hints after a fixed sequence on a 64 KiB chunk. */
static void
test_hints(void)
{
	struct pcpu_chunk c;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);

	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	check_block(&c, 0, 1023, 1, 0, 1023, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 1);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16383);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 1);
	CU_ASSERT_EQUAL(c.chunk_md.first_free, 1);

	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 10, 1, 0), 1);
	check_block(&c, 0, 1013, 11, 0, 1013, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 11);

	/* 12 B aligned to 16 B: bit 11 is skipped and becomes a hole */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 3, 4, 0), 12);
	check_block(&c, 0, 1009, 15, 0, 1009, 1, 11);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 11);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16369);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 15);
	audit_ok(&c);

	/* 4400 B crosses from block 0 into block 1 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1100, 1, 0), 15);
	check_block(&c, 0, 1, 11, 0, 0, 0, 0);
	check_block(&c, 1, 933, 91, 0, 933, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[1].first_free, 91);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16384 - 1115);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 1115);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 1);
	CU_ASSERT_EQUAL(c.page_busy_blocks[1], 1);
	CU_ASSERT_EQUAL(c.page_busy_blocks[2], 0);
	audit_ok(&c);

	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 0), 1);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 1), 10);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 12), 3);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 13), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 15), 1100);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 11), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 1115), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 99999), 0);

	/* free of the cross-block object: block 1 becomes empty again */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 15), 1100);
	check_block(&c, 0, 1009, 15, 0, 1009, 1, 11);
	check_block(&c, 1, 1024, 0, 1024, 1024, 0, 0);
	CU_ASSERT_EQUAL(c.page_busy_blocks[1], 0);
	/* the tree waits: the hint keeps the run after the object (the
	 * freed run up to block 2's left run, 3057 bits, is shorter), the
	 * slot follows the free bytes */
	CU_ASSERT(pcpu_chunk_hints_stale(&c));
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16384 - 1115);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), pcpu_size_to_slot(c.free_bytes));
	audit_ok(&c);
	pcpu_chunk_refresh(&c);
	CU_ASSERT(!pcpu_chunk_hints_stale(&c));
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16369);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 15);
	audit_ok(&c);

	/* free inside block 0 merges with the hole and the contig run */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 12), 3);
	check_block(&c, 0, 1013, 11, 0, 1013, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 11);
	audit_ok(&c);

	/* free at bit 0: left_free becomes exactly 1 */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 1);
	check_block(&c, 0, 1013, 11, 1, 1013, 1, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 0);
	CU_ASSERT_EQUAL(c.chunk_md.first_free, 0);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1), 10);
	check_block(&c, 0, 1024, 0, 1024, 1024, 0, 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 16384);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 0);
	CU_ASSERT_EQUAL(c.nr_alloc, 0);
	CU_ASSERT_EQUAL(c.free_bytes, 64 * KIB);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* Exact left/right free and a completely filled block. */
static void
test_left_right(void)
{
	struct pcpu_chunk c;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 16 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1000, 1, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 24, 1, 0), 1000);
	check_block(&c, 0, 0, 0, 0, 0, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 1024);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 1, 0), 1024);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1016, 1, 0), 1028);
	check_block(&c, 1, 4, 1020, 0, 4, 0, 0);
	/* an object at the very end of the chunk */
	/* first fit would start at 2044; 4 KiB alignment skips to 2048 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2048, 1024, 0), 2048);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 4);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 2044);
	audit_ok(&c);

	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 1000);
	check_block(&c, 0, 1000, 0, 1000, 0, 0, 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 1000);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 0);
	/* equal runs: the better aligned one (bit 0) becomes contig */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1024), 4);
	check_block(&c, 1, 4, 0, 4, 4, 0, 0);
	audit_ok(&c);
	/* the object ending at map_bits has its end bound bit */
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 2048), 2048);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2048), 2048);
	check_block(&c, 2, 1024, 0, 1024, 1024, 0, 0);
	check_block(&c, 1, 4, 0, 4, 4, 0, 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 2052);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 2044);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1000), 24);
	check_block(&c, 0, 1024, 0, 1024, 1024, 0, 0);
	CU_ASSERT_EQUAL(c.md_blocks[0].first_free, 0);
	/* [0, 1028) is smaller than [2044, 4096) */
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 2052);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 2044);
	CU_ASSERT_EQUAL(c.chunk_md.left_free, 1028);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1028), 1016);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 4096);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_alignment(void)
{
	struct pcpu_chunk c;
	uint32_t a;
	int off;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 256 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1024, 0), 1024);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 2, 0), 2);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2, 2, 0), 4);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 16, 0), 16);
	/* bad arguments */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 3, 0), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 0, 0), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 0, 1, 0), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65537, 1, 0), -1);
	for (a = 1; a <= 1024; a <<= 1) {
		off = pcpu_chunk_alloc(&c, 3, a, 0);
		CU_ASSERT_FATAL(off >= 0);
		CU_ASSERT_EQUAL((uint32_t)off % a, 0);
	}
	audit_ok(&c);
	pcpu_chunk_fini(&c);

	/* the chunk contig run fits only if alignment allows */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 4 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1021, 1, 0), 1);
	/* free run [1022, 1024): 2 bits at an even start */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2, 4, 0), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2, 2, 0), 1022);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* Objects up to 256 KiB spanning many blocks. */
static void
test_large(void)
{
	struct pcpu_chunk c;
	int i;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 1 * MIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 1024);
	CU_ASSERT_EQUAL(c.md_blocks[0].contig_hint, 1023);
	CU_ASSERT_EQUAL(c.md_blocks[1].contig_hint, 0);
	CU_ASSERT_EQUAL(c.md_blocks[64].contig_hint, 0);
	CU_ASSERT_EQUAL(c.md_blocks[65].contig_hint, 1024);
	CU_ASSERT_EQUAL(c.page_busy_blocks[64], 1);
	CU_ASSERT_EQUAL(c.page_busy_blocks[65], 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), 66560);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), 132096);
	/* 262144 - 197632 = 64512 bits left at the end */
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 64512);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), -1);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 66560), 65536);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 65536);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start, 66560);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), 66560);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1024), 65536);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 66560), 65536);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 132096), 65536);
	CU_ASSERT_EQUAL(c.nr_alloc, 0);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 262144);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), i * 65536);
	CU_ASSERT_EQUAL(c.free_bytes, 0);
	CU_ASSERT_EQUAL(pcpu_chunk_slot(&c), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), -1);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_bad_free(void)
{
	struct pcpu_chunk c;
	struct snap s;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	pcpu_chunk_set_populated(&c, 0, 4);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 8, 2, 0), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2000, 1, 0), 8);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 4, 0), 2008);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2008), 4);

	snap_take(&s, &c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 4), -1);      /* interior */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1500), -1);   /* interior */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2007), -1);   /* last bit */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2008), -1);   /* double free */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 5000), -1);   /* never */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 16383), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 16384), -1);  /* out of range */
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, UINT32_MAX), -1);
	CU_ASSERT(snap_same(&s, &c));
	snap_free(&s);
	audit_ok(&c);

	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 8), 2000);
	snap_take(&s, &c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 8), -1);
	CU_ASSERT(snap_same(&s, &c));
	snap_free(&s);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 8);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_pages_4k(void)
{
	struct pcpu_chunk c;
	uint32_t rs = 0, re = 0;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_next_unpop(&c, 0, 16, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 0);
	CU_ASSERT_EQUAL(re, 16);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 16, &rs, &re), 0);

	pcpu_chunk_set_populated(&c, 0, 4);
	CU_ASSERT_EQUAL(c.nr_populated, 4);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 4);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 3);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2000, 1, 0), 1);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 2);
	CU_ASSERT_EQUAL(pcpu_chunk_page_empty(&c, 1), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_page_empty(&c, 2), 1);
	CU_ASSERT_EQUAL(pcpu_chunk_next_unpop(&c, 0, 16, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 4);
	CU_ASSERT_EQUAL(re, 16);
	CU_ASSERT_EQUAL(pcpu_chunk_next_unpop(&c, 0, 4, &rs, &re), 0);
	/* an allocation on an unpopulated page does not change the count */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1024, 1024, 0), 2048);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1024, 4096, 0), 4096);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 1);
	pcpu_chunk_set_populated(&c, 4, 16);
	CU_ASSERT_EQUAL(c.nr_populated, 16);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 12);
	audit_ok(&c);

	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 1), 2000);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 13);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 0), 1);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 14);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 16, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 5);
	CU_ASSERT_EQUAL(re, 16);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 5, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 3);
	CU_ASSERT_EQUAL(re, 4);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 3, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 0);
	CU_ASSERT_EQUAL(re, 2);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 2, 3, &rs, &re), 0);

	pcpu_chunk_set_depopulated(&c, 10, 16);
	CU_ASSERT_EQUAL(c.nr_populated, 10);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 8);
	CU_ASSERT_EQUAL(pcpu_chunk_page_populated(&c, 9), 1);
	CU_ASSERT_EQUAL(pcpu_chunk_page_populated(&c, 10), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_next_unpop(&c, 0, 16, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 10);
	CU_ASSERT_EQUAL(re, 16);
	audit_ok(&c);
	/* a free on an unpopulated page does not count as empty populated */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1024, 0), 0);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 7);
	pcpu_chunk_set_depopulated(&c, 2, 3);
	CU_ASSERT_EQUAL(c.nr_populated, 9);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 7);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2048), 1024);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 7);
	CU_ASSERT_EQUAL(c.page_busy_blocks[2], 0);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_pages_2m(void)
{
	struct pcpu_chunk c;
	uint32_t rs = 0, re = 0;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 4 * MIB, 2 * MIB), 0);
	CU_ASSERT_EQUAL(c.nr_pages, 2);
	CU_ASSERT_EQUAL(c.blocks_per_page, 512);
	CU_ASSERT_EQUAL(pcpu_chunk_bit_to_page(&c, 524287), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_bit_to_page(&c, 524288), 1);
	pcpu_chunk_set_populated(&c, 0, 2);
	CU_ASSERT_EQUAL(c.nr_populated, 2);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 2);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 1);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1, 0), 1);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 65);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1024, 0), 66560);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 66);
	/* fill the rest of page 0 and spill into page 1 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 60000, 1024, 0), 67584);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 125);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 128000);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 193536);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 259072);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 324608);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 390144);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 455680);
	/* 455680 + 65536 = 521216: the next one crosses into page 1 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 65536, 1024, 0), 521216);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 512);
	CU_ASSERT_EQUAL(c.page_busy_blocks[1], 61);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 0);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 2, &rs, &re), 0);
	audit_ok(&c);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 521216), 65536);
	CU_ASSERT_EQUAL(c.page_busy_blocks[0], 509);
	CU_ASSERT_EQUAL(c.page_busy_blocks[1], 0);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 1);
	CU_ASSERT_EQUAL(pcpu_chunk_prev_empty_pop(&c, 0, 2, &rs, &re), 1);
	CU_ASSERT_EQUAL(rs, 1);
	CU_ASSERT_EQUAL(re, 2);
	pcpu_chunk_set_depopulated(&c, 1, 2);
	CU_ASSERT_EQUAL(c.nr_populated, 1);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 0);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

static void
test_pop_only(void)
{
	struct pcpu_chunk c;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 1), -1);
	pcpu_chunk_set_populated(&c, 3, 5);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 1), 3072);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1024, 1, 1), 3073);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1024, 1, 1), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1023, 2, 1), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1023, 1, 1), 4097);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 1), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 0);
	/* a run crossing populated pages 8 and 9 */
	pcpu_chunk_set_populated(&c, 8, 10);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1500, 4, 1), 8192);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 548, 1, 1), 9692);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 1), -1);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 3073), 1024);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 256, 256, 1), 3328);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 0);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* Batch allocation: placement, maps and hints as single allocations. */
static void
test_alloc_batch(void)
{
	struct pcpu_chunk c, ref;
	uint32_t offs[300], i, k, total, batches;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	/* 16 objects of 16 B (4 bits) aligned to 8 B: one map word */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 4, 2, 16, 0, 0, offs), 16u);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(offs[i], 4 * i);
	CU_ASSERT_EQUAL(c.alloc_map[0], ~0ULL);
	CU_ASSERT_EQUAL(c.nr_alloc, 16u);
	CU_ASSERT_EQUAL(c.free_bytes, 64 * KIB - 256);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 4 * i), 4u);
	check_block(&c, 0, 960, 64, 0, 960, 0, 0);
	audit_ok(&c);
	/* 12 B objects aligned to 16 B: a free granule after each */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 3, 4, 8, 0, 0, offs), 8u);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(offs[i], 64 + 4 * i);
		CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, offs[i]), 3u);
		CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, offs[i] + 3), 0u);
	}
	CU_ASSERT_EQUAL(c.free_bytes, 64 * KIB - 256 - 96);
	audit_ok(&c);
	pcpu_chunk_fini(&c);

	/* the run ends at a live object: the batch stops before it */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 1, 0), (int)(4 * i));
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 4), 4);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 1, 1, 300, 0, 0, offs), 4u);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(offs[i], 4 + i);
	audit_ok(&c);
	/* across blocks: the whole block in between becomes full; the gap
	 * before the first (alignment) stays free */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 8, 8, 300, 0, 0, offs), 300u);
	CU_ASSERT_EQUAL(offs[0], 16);
	CU_ASSERT_EQUAL(offs[299], 2408);
	CU_ASSERT_EQUAL(pcpu_chunk_obj_bits(&c, 2408), 8u);
	check_block(&c, 0, 4, 12, 0, 0, 0, 0);
	check_block(&c, 1, 0, 0, 0, 0, 0, 0);
	check_block(&c, 2, 656, 368, 0, 656, 0, 0);
	CU_ASSERT_EQUAL(c.nr_alloc, 2u + 4u + 300u);
	audit_ok(&c);
	pcpu_chunk_fini(&c);

	/* inside a block, batches place their objects where single
	 * allocations would, and leave the same maps and hints (across
	 * blocks the two may differ: single allocations are "not quite first
	 * fit", led by block hints that a batch does not rebuild per object;
	 * the model test checks batches everywhere) */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&ref, 64 * KIB, 4096), 0);
	for (i = 0; i < 40; i++) {
		CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 5, 2, 0), (int)(6 * i));
		CU_ASSERT_EQUAL(pcpu_chunk_alloc(&ref, 5, 2, 0), (int)(6 * i));
	}
	for (i = 0; i < 40; i += 3) {
		CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 6 * i), 5);
		CU_ASSERT_EQUAL(pcpu_chunk_free(&ref, 6 * i), 5);
	}
	for (total = 0, batches = 0; total < 110; total += k, batches++) {
		k = pcpu_chunk_alloc_batch(&c, 6, 2, 110 - total > 64 ?
			64 : 110 - total, 0, 0, offs);
		CU_ASSERT_FATAL(k > 0);
		for (i = 0; i < k; i++)
			CU_ASSERT_EQUAL(pcpu_chunk_alloc(&ref, 6, 2, 0),
				(int)offs[i]);
	}
	/* one batch per hole left by the frees (but the first, shorter
	 * than a fit with alignment slack), then the run at the end */
	CU_ASSERT_EQUAL(batches, 12u + 2u);
	CU_ASSERT_EQUAL(offs[k - 1], 234u + 97u * 6u);
	CU_ASSERT_EQUAL(memcmp(c.alloc_map, ref.alloc_map, c.map_bits / 8), 0);
	CU_ASSERT_EQUAL(memcmp(c.bound_map, ref.bound_map,
		c.map_bits / 8 + 8), 0);
	pcpu_chunk_refresh(&c);
	pcpu_chunk_refresh(&ref);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, ref.chunk_md.contig_hint);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint_start,
		ref.chunk_md.contig_hint_start);
	for (i = 0; i < c.nr_blocks; i++) {
		CU_ASSERT_EQUAL(c.md_blocks[i].contig_hint,
			ref.md_blocks[i].contig_hint);
		CU_ASSERT_EQUAL(c.md_blocks[i].left_free,
			ref.md_blocks[i].left_free);
		CU_ASSERT_EQUAL(c.md_blocks[i].right_free,
			ref.md_blocks[i].right_free);
	}
	CU_ASSERT_EQUAL(c.free_bytes, ref.free_bytes);
	CU_ASSERT_EQUAL(c.nr_alloc, ref.nr_alloc);
	audit_ok(&c);
	audit_ok(&ref);
	pcpu_chunk_fini(&ref);
	pcpu_chunk_fini(&c);

	/* pop_only: populated pages only, cut at the first unpopulated one;
	 * empty populated pages are counted as they fill */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 64 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 4, 2, 8, 1, 0, offs), 0u);
	pcpu_chunk_set_populated(&c, 2, 4);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 2u);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 64, 16, 1000, 1, 0, offs), 32u);
	CU_ASSERT_EQUAL(offs[0], 2048);
	CU_ASSERT_EQUAL(offs[31], 4032);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 0u);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 4, 2, 8, 1, 0, offs), 0u);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 4, 2, 8, 0, 0, offs), 8u);
	CU_ASSERT_EQUAL(offs[0], 0);
	audit_ok(&c);
	/* nothing fits: nothing changes */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 16 * KIB, 1, 1, 0, 0, offs), 0u);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc_batch(&c, 4, 2, 0, 0, 0, offs), 0u);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* ---------------------------------------------------------------------- */
/* Seeded random model test. */

static uint64_t rng_state;

static uint64_t
rng(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct mobj {
	uint32_t off, bits;
};

/* The model: one bit per granule, independent of the allocator's code. */
static inline int
m_test(const uint64_t *m, uint32_t i)
{
	return (m[i / 64] >> (i % 64)) & 1;
}

/* Next bit at or after i whose value is v, or n. */
static uint32_t
m_next(const uint64_t *m, uint32_t n, uint32_t i, int v)
{
	while (i < n) {
		uint64_t w = v ? m[i / 64] : ~m[i / 64];

		w &= ~0ULL << (i % 64);
		if (w)
			return (i & ~63u) + (uint32_t)__builtin_ctzll(w) < n ?
				(i & ~63u) + (uint32_t)__builtin_ctzll(w) : n;
		i = (i & ~63u) + 64;
	}
	return n;
}

/* Largest free run of the model; *fits if some run has an aligned fit. */
static uint32_t
model_max_run(const uint64_t *m, uint32_t n, uint32_t align, uint32_t bits,
		int *fits)
{
	uint32_t i = 0, max = 0;

	*fits = 0;
	while (i < n) {
		uint32_t s = m_next(m, n, i, 0), a;

		if (s >= n)
			break;
		i = m_next(m, n, s, 1);
		if (i - s > max)
			max = i - s;
		a = (s + align - 1) & ~(align - 1);
		if (a + bits <= i)
			*fits = 1;
	}
	return max;
}

/* How the model frees: exactly, or deferred as the allocator does. */
struct defer {
	int on;                /* frees go through pcpu_chunk_free_batch();
				* 2: runs in address order in batches */
	unsigned long settles; /* pcpu_chunk_settle() calls that settled */
	unsigned long batches; /* batches of more than one object */
};

/* Settle the pending block, checking the effect record against the
 * chunk. */
static void
defer_settle(struct pcpu_chunk *c, struct defer *d)
{
	struct pcpu_chunk_free_effect eff;
	uint32_t contig = c->chunk_md.contig_hint;
	uint32_t empty = c->nr_empty_pop_pages;

	if (!pcpu_chunk_pending(c))
		return;
	pcpu_chunk_settle(c, &eff);
	CU_ASSERT_FALSE_FATAL(pcpu_chunk_pending(c));
	CU_ASSERT_EQUAL_FATAL(eff.settled, 1);
	CU_ASSERT_EQUAL_FATAL(eff.nr_objs, 0);
	CU_ASSERT_EQUAL_FATAL(eff.contig_before, contig);
	CU_ASSERT_EQUAL_FATAL(eff.contig_after, c->chunk_md.contig_hint);
	CU_ASSERT_EQUAL_FATAL(eff.empty_pages,
		(int32_t)(c->nr_empty_pop_pages - empty));
	d->settles++;
}

/* Free as the allocator does: deferred (half of them as its single free
 * does: another pending block settled, then pcpu_chunk_free_quick(); the
 * others, and those the quick path leaves, as a batch of one) or exactly.
 * Returns the bits or -1. */
static int
model_free(struct pcpu_chunk *c, struct defer *d, uint32_t off)
{
	struct pcpu_chunk_free_effect eff;
	uint32_t fb = c->free_bytes, na = c->nr_alloc, quick;
	unsigned int got;

	if (!d->on)
		return pcpu_chunk_free(c, off);
	if (rng() % 2) {
		if (pcpu_chunk_pending_elsewhere(c, off))
			defer_settle(c, d);
		fb = c->free_bytes;
		quick = pcpu_chunk_free_quick(c, off);
		if (quick != 0) {
			CU_ASSERT_EQUAL_FATAL(c->free_bytes - fb, quick * 4);
			CU_ASSERT_EQUAL_FATAL(na - c->nr_alloc, 1);
			CU_ASSERT_FATAL(pcpu_chunk_pending(c));
			CU_ASSERT_EQUAL_FATAL(c->pending_block,
				off / PCPU_BLOCK_BITS);
			return (int)quick;
		}
		/* nothing changed: not live, or spanning blocks */
		CU_ASSERT_EQUAL_FATAL(c->free_bytes, fb);
		CU_ASSERT_EQUAL_FATAL(c->nr_alloc, na);
	}
	got = pcpu_chunk_free_batch(c, &off, 1, &eff);
	CU_ASSERT_EQUAL_FATAL(eff.nr_objs, got);
	CU_ASSERT_EQUAL_FATAL(eff.bytes, c->free_bytes - fb);
	return got == 1 ? (int)(eff.bytes / 4) : -1;
}

/*
 * Free @p n objects in address order as a cache flush does (mode 2:
 * batches of up to 300, some with an interior bit after the first object,
 * where the batch must stop; mode 0 and 1 one at a time). With @p model,
 * the map must then equal it bit for bit.
 */
static void
model_free_sorted(struct pcpu_chunk *c, struct defer *d,
		const struct mobj *o, uint32_t n, const uint64_t *model)
{
	struct pcpu_chunk_free_effect eff;
	uint32_t *offs, k = 0, m, i, bits, fb, extra;
	unsigned int got;

	if (d->on != 2) {
		for (k = 0; k < n; k++)
			CU_ASSERT_EQUAL_FATAL(model_free(c, d, o[k].off),
				(int)o[k].bits);
		goto check;
	}
	offs = malloc((300 + 1) * sizeof(*offs));
	CU_ASSERT_FATAL(offs != NULL);
	while (k < n) {
		m = 1 + (uint32_t)(rng() % 300);
		if (m > n - k)
			m = n - k;
		extra = 0;
		for (i = 0, bits = 0; i < m; i++) {
			offs[i + (i > 0 ? extra : 0)] = o[k + i].off;
			bits += o[k + i].bits;
			if (i == 0 && o[k].bits > 1 && rng() % 4 == 0) {
				/* an interior bit: the batch stops there */
				offs[1] = o[k].off + 1;
				extra = 1;
			}
		}
		fb = c->free_bytes;
		got = pcpu_chunk_free_batch(c, offs, m + extra, &eff);
		if (extra) {
			CU_ASSERT_EQUAL_FATAL(got, 1);
			CU_ASSERT_EQUAL_FATAL(eff.bytes, o[k].bits * 4);
			k++;
		} else {
			CU_ASSERT_EQUAL_FATAL(got, m);
			CU_ASSERT_EQUAL_FATAL(eff.nr_objs, m);
			CU_ASSERT_EQUAL_FATAL(eff.bytes, bits * 4);
			d->batches += m > 1;
			k += m;
		}
		CU_ASSERT_EQUAL_FATAL(c->free_bytes - fb, eff.bytes);
	}
	free(offs);
check:
	if (model != NULL)
		CU_ASSERT_EQUAL_FATAL(memcmp(c->alloc_map, model,
			c->map_bits / 8), 0);
}

/*
 * A batch of 1 .. 64 objects (pcpu_chunk_alloc_batch()) checked against
 * the model: free space, alignment, consecutive aligned positions, on
 * populated pages with @p pop, and a batch shorter than asked only where
 * the next object would not fit (an allocated bit, the chunk's end, an
 * unpopulated page). A batch of none only when the chunk has no room.
 * The objects join @p live. Returns 0, or -1 on a failed check.
 */
static int
model_alloc_batch(struct pcpu_chunk *c, uint64_t *model, struct mobj *live,
		uint32_t *nlive, uint32_t bits, uint32_t align, int pop,
		uint32_t *used)
{
	const uint32_t nbits = c->map_bits;
	uint32_t offs[64], n = 1 + (uint32_t)(rng() % 64), k, i, j, next;
	/* half of the batches start a stretch of their own of 8 .. 64 bits */
	uint32_t run = rng() % 2 ? 0 : 8u << (rng() % 4);
	uint32_t first_bits = bits > run ? bits : run;
	uint32_t first_align = align > run ? align : run;

	k = pcpu_chunk_alloc_batch(c, bits, align, n, pop, run, offs);
	CU_ASSERT_FATAL(k <= n);
	if (k == 0) {
		int fits;
		uint32_t max = model_max_run(model, nbits, first_align,
			first_bits, &fits);

		if (!pop && max >= first_bits + first_align - 1) {
			CU_FAIL("batch failed with room");
			return -1;
		}
		return 0;
	}
	if (run != 0) {
		/* its own stretch: run bits free at a multiple of run */
		CU_ASSERT_EQUAL_FATAL(offs[0] % run, 0);
		CU_ASSERT_FATAL(offs[0] + run <= nbits);
		if (m_next(model, offs[0] + run, offs[0], 1) < offs[0] + run)
			CU_FAIL_FATAL("a stretch of its own was not free");
	}
	for (i = 0; i < k; i++) {
		CU_ASSERT_EQUAL_FATAL(offs[i] % align, 0);
		CU_ASSERT_FATAL(offs[i] + bits <= nbits);
		if (i > 0)
			CU_ASSERT_EQUAL_FATAL(offs[i], (offs[i - 1] + bits +
				align - 1) & ~(align - 1));
		if (m_next(model, offs[i] + bits, offs[i], 1) < offs[i] + bits)
			CU_FAIL_FATAL("overlapping allocation");
		if (pop)
			for (j = pcpu_chunk_bit_to_page(c, offs[i]);
			     j <= pcpu_chunk_bit_to_page(c, offs[i] + bits - 1);
			     j++)
				CU_ASSERT_FATAL(pcpu_chunk_page_populated(c, j));
		CU_ASSERT_EQUAL_FATAL(pcpu_chunk_obj_bits(c, offs[i]), bits);
	}
	if (k < n) {
		/* the next one would not have fitted in the run */
		next = (offs[k - 1] + bits + align - 1) & ~(align - 1);
		if (next + bits <= nbits &&
		    m_next(model, next + bits, offs[k - 1] + bits, 1) >=
		    next + bits) {
			int cut = 0;

			for (j = pcpu_chunk_bit_to_page(c, offs[k - 1] + bits);
			     pop && j <= pcpu_chunk_bit_to_page(c,
				next + bits - 1); j++)
				cut |= !pcpu_chunk_page_populated(c, j);
			CU_ASSERT_FATAL(cut);
		}
	}
	for (i = 0; i < k; i++) {
		for (j = offs[i]; j < offs[i] + bits; j++)
			model[j / 64] |= 1ULL << (j % 64);
		live[*nlive].off = offs[i];
		live[*nlive].bits = bits;
		(*nlive)++;
		*used += bits;
	}
	return 0;
}

static int
mobj_cmp(const void *a, const void *b)
{
	const struct mobj *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static void
model_run(uint32_t chunk, uint32_t page, uint32_t max_shift,
		unsigned long nops, uint64_t seed, int deferred)
{
	struct defer d = { .on = deferred };
	const uint32_t nbits = chunk / 4;
	struct pcpu_chunk c;
	uint64_t *model = calloc(nbits / 64, sizeof(uint64_t));
	struct mobj *live = calloc(nbits, sizeof(*live));
	uint32_t nlive = 0, i, used = 0;
	unsigned long op, nalloc = 0, nfail = 0, nfree = 0, nbad = 0, npop = 0;
	unsigned long forced = 0, npop_alloc = 0, nbatch = 0;

	printf("\n    model test: %u KiB chunk, %u KiB pages, objects up to "
		"%u KiB, %s frees, seed %" PRIu64 " (PCPU_SEED=%" PRIu64
		" to replay), %lu ops\n", chunk >> 10, page >> 10,
		1u << (max_shift - 8), deferred == 2 ? "deferred and grouped by "
		"word" : deferred ? "deferred" : "exact", seed,
		seed, nops);
	rng_state = seed;
	CU_ASSERT_FATAL(model != NULL && live != NULL);
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, chunk, page), 0);
	pcpu_chunk_set_populated(&c, 0, c.nr_pages / 2);

	for (op = 0; op < nops; op++) {
		uint32_t r = (uint32_t)rng();
		int do_free = nlive && (r % 100 < (used > nbits / 8 * 7 ? 65u : 40u));

		if (!do_free) {
			/* log-uniform size 1 .. 2^max_shift bits, align
			 * 1 .. 1024 bits (4 B .. 4 KiB) */
			uint32_t shift = (uint32_t)(rng() % (max_shift + 1));
			uint32_t bits = 1 + (uint32_t)(rng() % (1u << shift));
			uint32_t align = 1u << (rng() % 11);
			int pop = rng() % 8 == 0;
			int off;

			/* hints are read: deferred frees first */
			defer_settle(&c, &d);
			if (rng() % 4 == 0) {
				if (model_alloc_batch(&c, model, live, &nlive,
						bits, align, pop, &used) < 0)
					break;
				nbatch++;
				nalloc++;
				npop_alloc += pop;
				continue;
			}
			off = pcpu_chunk_alloc(&c, bits, align, pop);

			if (off < 0) {
				int fits;
				uint32_t max = model_max_run(model, nbits, align,
						bits, &fits);

				nfail++;
				/* a run of bits + align - 1 always fits */
				if (!pop && max >= bits + align - 1) {
					CU_FAIL("alloc failed with room");
					fprintf(stderr, "op %lu: bits %u align %u "
						"max %u\n", op, bits, align, max);
					break;
				}
				if (!pop && fits)
					forced++;
				continue;
			}
			CU_ASSERT_EQUAL_FATAL((uint32_t)off % align, 0);
			CU_ASSERT_FATAL((uint32_t)off + bits <= nbits);
			if (m_next(model, off + bits, off, 1) < off + bits)
				CU_FAIL_FATAL("overlapping allocation");
			for (i = off; i < off + bits; i++)
				model[i / 64] |= 1ULL << (i % 64);
			if (pop) {
				uint32_t p;

				for (p = pcpu_chunk_bit_to_page(&c, off);
						p <= pcpu_chunk_bit_to_page(&c,
							off + bits - 1); p++)
					CU_ASSERT_FATAL(
						pcpu_chunk_page_populated(&c, p));
			}
			live[nlive].off = (uint32_t)off;
			live[nlive].bits = bits;
			nlive++;
			used += bits;
			nalloc++;
			npop_alloc += pop;
		} else {
			uint32_t k = (uint32_t)(rng() % nlive);
			struct mobj o = live[k];

			if (o.bits > 1 && rng() % 16 == 0) {
				uint32_t in = o.off + 1 +
					(uint32_t)(rng() % (o.bits - 1));

				CU_ASSERT_EQUAL_FATAL(model_free(&c, &d, in), -1);
				CU_ASSERT_EQUAL_FATAL(pcpu_chunk_obj_bits(&c, in), 0);
				nbad++;
			}
			CU_ASSERT_EQUAL_FATAL(pcpu_chunk_obj_bits(&c, o.off),
				o.bits);
			CU_ASSERT_EQUAL_FATAL(model_free(&c, &d, o.off),
				(int)o.bits);
			for (i = o.off; i < o.off + o.bits; i++)
				model[i / 64] &= ~(1ULL << (i % 64));
			live[k] = live[--nlive];
			used -= o.bits;
			nfree++;
			/* a double free, unless the bit was reused */
			if (!m_test(model, o.off)) {
				CU_ASSERT_EQUAL_FATAL(model_free(&c, &d, o.off),
					-1);
				nbad++;
			}
		}
		/* population changes now and then (page counts are read) */
		if (r % 64 == 7 || r % 64 == 9)
			defer_settle(&c, &d);
		if (r % 64 == 7) {
			uint32_t rs, re, ps = (uint32_t)(rng() % c.nr_pages);

			if (pcpu_chunk_next_unpop(&c, ps, c.nr_pages, &rs, &re)) {
				re = rs + 1 + (uint32_t)(rng() % (re - rs));
				pcpu_chunk_set_populated(&c, rs, re);
				npop++;
			}
		} else if (r % 64 == 9) {
			uint32_t rs, re;

			if (pcpu_chunk_prev_empty_pop(&c, 0, c.nr_pages, &rs,
					&re)) {
				pcpu_chunk_set_depopulated(&c, rs, re);
				npop++;
			}
		}
		if (op == nops / 2) {
			uint32_t k, kept = 0, nodd = 0;
			struct mobj *odd = calloc(nlive / 2 + 1, sizeof(*odd));

			/* every other object in address order: runs of frees
			 * in one block that leave a free run per object */
			CU_ASSERT_FATAL(odd != NULL);
			qsort(live, nlive, sizeof(*live), mobj_cmp);
			for (k = 0; k < nlive; k++) {
				if (k % 2) {
					live[kept++] = live[k];
					continue;
				}
				odd[nodd++] = live[k];
				for (i = live[k].off;
				     i < live[k].off + live[k].bits; i++)
					model[i / 64] &= ~(1ULL << (i % 64));
				used -= live[k].bits;
				nfree++;
			}
			model_free_sorted(&c, &d, odd, nodd, model);
			free(odd);
			nlive = kept;
		}
		if (op % 1000 == 999 || op == nops / 2) {
			char msg[256];

			/* the map and the counters are exact while frees wait */
			CU_ASSERT_EQUAL_FATAL(c.nr_alloc, nlive);
			CU_ASSERT_EQUAL_FATAL(c.free_bytes, (nbits - used) * 4);
			defer_settle(&c, &d);
			if (pcpu_chunk_audit(&c, msg, sizeof(msg)) != 0) {
				fprintf(stderr, "op %lu seed %" PRIu64 ": %s\n",
					op, seed, msg);
				CU_FAIL_FATAL("audit failed");
			}
			CU_ASSERT_EQUAL_FATAL(c.nr_alloc, nlive);
			CU_ASSERT_EQUAL_FATAL(c.free_bytes, (nbits - used) * 4);
		}
	}
	defer_settle(&c, &d);
	audit_ok(&c);
	printf("    %lu allocs (%lu pop_only, %lu batches), %lu failed (%lu "
		"with a misaligned fit left), %lu frees, %lu bad frees "
		"rejected, %lu population changes, %lu settles, %u live\n",
		nalloc, npop_alloc, nbatch, nfail, forced, nfree, nbad, npop,
		d.settles, nlive);
	if (deferred)
		CU_ASSERT(d.settles > 0 && d.settles < nfree);
	CU_ASSERT(nalloc > nops / 4);
	CU_ASSERT(npop_alloc > 0);
	CU_ASSERT(nbatch > 0);
	/* the rest in address order, then everything is free */
	qsort(live, nlive, sizeof(*live), mobj_cmp);
	memset(model, 0, nbits / 8);
	model_free_sorted(&c, &d, live, nlive, model);
	nlive = 0;
	if (deferred == 2) {
		printf("    %lu batch frees\n", d.batches);
		CU_ASSERT(d.batches > 0);
	}
	defer_settle(&c, &d);
	CU_ASSERT_EQUAL(c.free_bytes, chunk);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, nbits);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, c.nr_populated);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
	free(model);
	free(live);
}

static void
test_random_model(void)
{
	unsigned long nops = env_ul("PCPU_MODEL_OPS", 200000);
	uint64_t seed = env_ul("PCPU_SEED", (unsigned long)time(NULL));

	int deferred;

	/* frees exact (pcpu_chunk_free()), deferred as the allocator does
	 * single frees (pcpu_chunk_free_batch() of one, then
	 * pcpu_chunk_settle()), then in address-ordered batches as a cache
	 * flush frees them */
	for (deferred = 0; deferred <= 2; deferred++) {
		/* objects of 4 B .. 64 KiB, as the issue asks */
		model_run(1 * MIB, 4096, 14, nops, seed, deferred);
		/* up to 256 KiB objects, 2 MiB pages, not a power of two of
		 * blocks */
		model_run(6 * MIB, 2 * MIB, 16, nops / 4, seed, deferred);
		/* a small chunk: full chunk, cross-block and edge cases are
		 * common */
		model_run(64 * KIB, 4096, 12, nops / 4, seed, deferred);
	}
}

/* Fragmentation statistics on a known layout. */
static void
test_frag_stats(void)
{
	struct pcpu_chunk c;
	struct pcpu_chunk_frag f;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 16 * KIB, 4096), 0);
	pcpu_chunk_frag_stats(&c, &f);
	CU_ASSERT_EQUAL(f.nr_alloc, 0);
	CU_ASSERT_EQUAL(f.min_alloc, 0);
	CU_ASSERT_EQUAL(f.sum_frag, 0);
	CU_ASSERT_EQUAL(f.free_bytes, 16 * KIB);
	CU_ASSERT_EQUAL(f.contig_bytes, 16 * KIB);

	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2, 1, 0), 0);    /* 8 B */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 10, 1, 0), 2);   /* 40 B */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 100, 1, 0), 12); /* 400 B */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 1, 0), 112);  /* 16 B */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 1, 1, 0), 116);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 2), 10);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 112), 4);
	pcpu_chunk_set_populated(&c, 0, 4);
	pcpu_chunk_frag_stats(&c, &f);
	CU_ASSERT_EQUAL(f.nr_alloc, 3);
	CU_ASSERT_EQUAL(f.free_bytes, 16 * KIB - 8 - 400 - 4);
	CU_ASSERT_EQUAL(f.first_free, 2);
	CU_ASSERT_EQUAL(f.sum_frag, 40 + 16);
	CU_ASSERT_EQUAL(f.max_frag, 40);
	CU_ASSERT_EQUAL(f.min_alloc, 4);
	CU_ASSERT_EQUAL(f.max_alloc, 400);
	CU_ASSERT_EQUAL(f.contig_bytes, (4096 - 117) * 4);
	CU_ASSERT_EQUAL(f.populated_pages, 4);
	CU_ASSERT_EQUAL(f.empty_pop_pages, 3);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* Objects that share a map word, freed in one batch as a cache flush
 * frees them: one map update per word, the batch stopping at the first
 * offset that is not a live object, and one settle for the block. */
static void
test_word_group_free(void)
{
	struct pcpu_chunk_free_effect eff;
	struct pcpu_chunk c;
	uint32_t offs[64], i;
	uint64_t a0;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 16 * KIB, 4096), 0);
	/* 64 objects of 8 B (2 bits): words 0 and 1 full */
	for (i = 0; i < 64; i++)
		CU_ASSERT_EQUAL_FATAL(pcpu_chunk_alloc(&c, 2, 1, 0), (int)(2 * i));
	/* 16 B at bit 128, 8 B at 132, then 240 B across words 2 and 3 */
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 1, 0), 128);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 2, 1, 0), 132);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 60, 1, 0), 134);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 4, 1, 0), 194);

	/* every other object of word 0: bits 0, 4, 8, ... */
	for (i = 0; i < 16; i++)
		offs[i] = 4 * i;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 16, &eff), 16);
	CU_ASSERT_EQUAL(eff.nr_objs, 16);
	CU_ASSERT_EQUAL(eff.bytes, 16 * 8);
	CU_ASSERT_EQUAL(eff.settled, 0);
	CU_ASSERT_EQUAL(c.alloc_map[0], 0xccccccccccccccccULL);
	CU_ASSERT_EQUAL(c.nr_alloc, 68 - 16);
	CU_ASSERT(pcpu_chunk_pending(&c));
	/* again: those are free now, nothing changes */
	a0 = c.alloc_map[0];
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 16, &eff), 0);
	CU_ASSERT_EQUAL(eff.nr_objs, 0);
	CU_ASSERT_EQUAL(c.alloc_map[0], a0);
	/* a live start, then an interior bit: the batch stops there */
	offs[0] = 2;
	offs[1] = 3;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 2, &eff), 1);
	CU_ASSERT_EQUAL(eff.bytes, 8);
	CU_ASSERT_EQUAL(c.alloc_map[0], a0 & ~0xcULL);
	/* a repeated offset in one word: the second free is refused, the
	 * batch stops there */
	offs[0] = 6;
	offs[1] = 10;
	offs[2] = 6;
	offs[3] = 14;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 4, &eff), 2);
	CU_ASSERT_EQUAL(eff.nr_objs, 2);
	CU_ASSERT_EQUAL(eff.bytes, 2 * 8);
	CU_ASSERT_EQUAL(c.alloc_map[0], a0 & ~0xcccULL);
	/* the rest of word 0, in one batch */
	for (i = 0; i < 13; i++)
		offs[i] = 4 * i + 14;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 13, &eff), 13);
	CU_ASSERT_EQUAL(c.alloc_map[0], 0);
	/* word 1, the last object ending at the word's end */
	for (i = 0; i < 32; i++)
		offs[i] = 64 + 2 * i;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 32, &eff), 32);
	CU_ASSERT_EQUAL(eff.bytes, 32 * 8);
	CU_ASSERT_EQUAL(c.alloc_map[1], 0);
	/* word 2: the object at 134 runs into word 3, so the word can not go
	 * in one update; the three go one at a time */
	offs[0] = 128;
	offs[1] = 132;
	offs[2] = 134;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 3, &eff), 3);
	CU_ASSERT_EQUAL(eff.bytes, (4 + 2 + 60) * 4);
	CU_ASSERT_EQUAL(c.nr_alloc, 1);
	CU_ASSERT_EQUAL(c.free_bytes, 16 * KIB - 4 * 4);
	/* past the end of the map */
	offs[0] = c.map_bits;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 1, &eff), 0);
	/* the block's hints were not touched; one settle (a rescan) */
	CU_ASSERT_EQUAL(c.md_blocks[0].left_free, 0);
	pcpu_chunk_settle(&c, &eff);
	CU_ASSERT_EQUAL(eff.settled, 1);
	CU_ASSERT_FALSE(pcpu_chunk_pending(&c));
	audit_ok(&c);
	CU_ASSERT_EQUAL(c.md_blocks[0].left_free, 194);
	CU_ASSERT_EQUAL(pcpu_chunk_free(&c, 194), 4);
	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, c.map_bits);
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* A batch over two blocks settles the first when it reaches the second;
 * the effect record shows that settle. */
static void
test_batch_effect(void)
{
	struct pcpu_chunk_free_effect eff;
	struct pcpu_chunk c;
	uint32_t offs[2];

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 16 * KIB, 4096), 0);
	pcpu_chunk_set_populated(&c, 0, c.nr_pages);
	/* one 4 KiB object per block (page): all 4 pages busy */
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_alloc(&c, 1024, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_alloc(&c, 1024, 1, 0), 1024);
	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_alloc(&c, 1024, 1, 0), 2048);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 1);
	offs[0] = 0;
	offs[1] = 1024;
	CU_ASSERT_EQUAL(pcpu_chunk_free_batch(&c, offs, 2, &eff), 2);
	/* block 0 settled (a replay) when block 1 was reached */
	CU_ASSERT_EQUAL(eff.settled, 1);
	CU_ASSERT_EQUAL(eff.empty_pages, 1);
	CU_ASSERT_EQUAL(eff.contig_after - eff.contig_before, 0u);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 2);
	pcpu_chunk_settle(&c, &eff);
	CU_ASSERT_EQUAL(eff.settled, 1);
	CU_ASSERT_EQUAL(eff.empty_pages, 1);
	CU_ASSERT_EQUAL(eff.contig_before, 1024);
	CU_ASSERT_EQUAL(eff.contig_after, 2048);
	CU_ASSERT_EQUAL(c.nr_empty_pop_pages, 3);
	audit_ok(&c);
	/* nothing pending: a settle does nothing */
	pcpu_chunk_settle(&c, &eff);
	CU_ASSERT_EQUAL(eff.settled, 0);
	CU_ASSERT_EQUAL(eff.empty_pages, 0);
	pcpu_chunk_fini(&c);
}

static void
test_audit_detects(void)
{
	struct pcpu_chunk c;
	char msg[256];
	uint32_t save;

	CU_ASSERT_EQUAL_FATAL(pcpu_chunk_init(&c, 16 * KIB, 4096), 0);
	CU_ASSERT_EQUAL(pcpu_chunk_alloc(&c, 10, 1, 0), 0);
	audit_ok(&c);

	save = c.md_blocks[0].contig_hint;
	c.md_blocks[0].contig_hint++;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "contig_hint"));
	c.md_blocks[0].contig_hint = save;

	c.md_blocks[0].left_free = 3;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "left_free"));
	c.md_blocks[0].left_free = 0;

	CU_ASSERT_EQUAL(c.chunk_md.contig_hint, 4086);
	c.chunk_md.contig_hint = 4087;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "chunk contig_hint"));
	c.chunk_md.contig_hint = 4086;

	c.nr_alloc = 2;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nr_alloc"));
	c.nr_alloc = 1;

	c.bound_map[0] &= ~1ULL;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "bound_map"));
	c.bound_map[0] |= 1ULL;

	c.free_bytes -= 4;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "free_bytes"));
	c.free_bytes += 4;

	c.page_busy_blocks[1] = 1;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "page_busy_blocks"));
	c.page_busy_blocks[1] = 0;

	c.nr_empty_pop_pages = 1;
	CU_ASSERT_EQUAL(pcpu_chunk_audit(&c, msg, sizeof(msg)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nr_empty_pop_pages"));
	c.nr_empty_pop_pages = 0;
	audit_ok(&c);
	pcpu_chunk_fini(&c);
}

/* ---------------------------------------------------------------------- */
/* Timing (printed, never asserted). */

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct tobj {
	uint32_t chunk, off;
};

static double init_ms;

static int
timed_fill(struct pcpu_chunk *chunks, uint32_t *nchunks, uint32_t maxc,
		struct tobj *o, uint32_t n, uint32_t bits, uint32_t align)
{
	uint32_t i, cur = 0;

	for (i = 0; i < n; i++) {
		int off = pcpu_chunk_alloc(&chunks[cur], bits, align, 0);

		while (off < 0) {
			if (++cur >= *nchunks) {
				double t = now_ms();
				int rc;

				if (*nchunks >= maxc)
					return -1;
				rc = pcpu_chunk_init(&chunks[(*nchunks)++], 2 * MIB,
						4096);
				init_ms += now_ms() - t;
				if (rc != 0)
					return -1;
			}
			off = pcpu_chunk_alloc(&chunks[cur], bits, align, 0);
		}
		o[i].chunk = cur;
		o[i].off = (uint32_t)off;
	}
	return 0;
}

static void
test_timing(void)
{
	static const uint32_t sizes[] = { 4, 16, 64, 256, 1024 };
	static const double lx_alloc[] = { 490, 515, 610, 950, 3520 };
	static const double lx_free[] = { 70, 75, 80, 100, 200 };
	uint32_t n = (uint32_t)env_ul("PCPU_TIMING_OPS", 1u << 20);
	uint32_t maxc = (uint32_t)(((uint64_t)n * 1024 * 2) / (2 * MIB) + 4);
	struct pcpu_chunk *chunks = calloc(maxc, sizeof(*chunks));
	struct tobj *o = calloc(n, sizeof(*o));
	uint32_t si, order, i, nchunks;

	CU_ASSERT_FATAL(chunks != NULL && o != NULL);
	memset(o, 0xff, (size_t)n * sizeof(*o)); /* fault it in before timing */
	printf("\n    chunk-level timing: %u objects of each size, natural "
		"alignment (>= 8 B),\n    2 MiB chunks created on demand "
		"(included), process CPU time, worst of in-order,\n    "
		"alternating and reverse frees; Linux bitmap allocator's "
		"figures in brackets\n", n);
	printf("    %6s %5s %13s %13s %12s %12s %7s\n", "size", "align",
		"alloc ms", "free ms", "alloc ns/op", "free ns/op", "chunks");
	printf("    %6s %5s %13s %13s %12s %12s\n", "", "", "", "",
		"(excl. init)", "");
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		uint32_t bits = sizes[si] / 4;
		uint32_t align = (sizes[si] < 8 ? 8 : sizes[si]) / 4;
		double worst_a = 0, worst_f = 0, worst_ax = 0;

		for (order = 0; order < 3; order++) {
			double t0, t1, t2;
			int bad = 0;

			nchunks = 0;
			if (pcpu_chunk_init(&chunks[nchunks++], 2 * MIB, 4096))
				break;
			init_ms = 0;
			t0 = now_ms();
			CU_ASSERT_EQUAL_FATAL(timed_fill(chunks, &nchunks, maxc,
				o, n, bits, align), 0);
			t1 = now_ms();
			if (order == 0) {
				for (i = 0; i < n; i++)
					bad |= pcpu_chunk_free(&chunks[o[i].chunk],
						o[i].off) != (int)bits;
			} else if (order == 1) {
				for (i = 0; i < n; i += 2)
					bad |= pcpu_chunk_free(&chunks[o[i].chunk],
						o[i].off) != (int)bits;
				for (i = 1; i < n; i += 2)
					bad |= pcpu_chunk_free(&chunks[o[i].chunk],
						o[i].off) != (int)bits;
			} else {
				for (i = n; i-- > 0;)
					bad |= pcpu_chunk_free(&chunks[o[i].chunk],
						o[i].off) != (int)bits;
			}
			t2 = now_ms();
			CU_ASSERT_EQUAL(bad, 0);
			for (i = 0; i < nchunks; i++) {
				CU_ASSERT_EQUAL(chunks[i].nr_alloc, 0);
				CU_ASSERT_EQUAL(chunks[i].chunk_md.contig_hint,
					chunks[i].map_bits);
				pcpu_chunk_fini(&chunks[i]);
			}
			if (t1 - t0 > worst_a)
				worst_a = t1 - t0;
			if (t1 - t0 - init_ms > worst_ax)
				worst_ax = t1 - t0 - init_ms;
			if (t2 - t1 > worst_f)
				worst_f = t2 - t1;
		}
		printf("    %6u %5u %6.1f [%4.0f] %6.1f [%4.0f] %12.1f %12.1f "
			"%7u\n", sizes[si], align * 4, worst_a, lx_alloc[si],
			worst_f, lx_free[si], worst_ax * 1e6 / n,
			worst_f * 1e6 / n, nchunks);
	}
	free(chunks);
	free(o);
}

int
main(void)
{
	CU_pSuite s;
	unsigned int fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("pcpu_chunk", NULL, NULL);
	if (s == NULL ||
			!CU_add_test(s, "init and geometry", test_init) ||
			!CU_add_test(s, "slots", test_slot) ||
			!CU_add_test(s, "hints after alloc and free", test_hints) ||
			!CU_add_test(s, "exact left/right free", test_left_right) ||
			!CU_add_test(s, "alignment", test_alignment) ||
			!CU_add_test(s, "objects up to 256 KiB", test_large) ||
			!CU_add_test(s, "bad frees change nothing", test_bad_free) ||
			!CU_add_test(s, "pages 4 KiB", test_pages_4k) ||
			!CU_add_test(s, "pages 2 MiB", test_pages_2m) ||
			!CU_add_test(s, "pop_only", test_pop_only) ||
			!CU_add_test(s, "batch allocation", test_alloc_batch) ||
			!CU_add_test(s, "fragmentation stats", test_frag_stats) ||
			!CU_add_test(s, "word-group frees", test_word_group_free) ||
			!CU_add_test(s, "batch effect record", test_batch_effect) ||
			!CU_add_test(s, "audit detects damage", test_audit_detects) ||
			!CU_add_test(s, "random model", test_random_model) ||
			!CU_add_test(s, "timing (printed)", test_timing)) {
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
