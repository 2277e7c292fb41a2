/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Aliasing of lcores' copies: what touching several lcores' copies of one
 * object in a row costs, by how far apart the copies are. This is what
 * zeroing an object (a pool's get, a refill), rte_pcpu_sum_u64() and
 * RTE_PCPU_FOREACH() do.
 *
 * The copies of an object sit at the same offset of every lcore's unit.
 * With a power-of-two unit stride they differ only in the address bits at
 * and above log2(stride); some CPUs index a structure by a hash of
 * address bits that stops short of those (AMD Zen's L1D way predictor
 * uses bits 12 to 27), and then every copy evicts the previous one's
 * entry. The case maps its own copies (no library memory) at each layout
 * and times one operation on all copies of one object after another, the
 * layouts taking turns in interleaved rounds:
 *
 * - stride_2^27 .. stride_2^30: unit i at i * 2^s;
 * - coloured: unit i at i * rte_pcpu_shared.unit_step, the library's
 *   layout (the stride plus RTE_PCPU_UNIT_COLOUR, a whole hugepage, which
 *   makes bits 21 to 27 of the units' starts differ);
 * - sub_page: unit i at i * (2^30 + 448 B), a control that no page-based
 *   layout can give (copies differ in bits 6 to 11 too: other L1 sets, no
 *   4 KiB aliasing between them).
 *
 * Operations, per object: zero (one 16-byte store per copy, as
 * __rte_pcpu_copies_zero()), sum (one 8-byte load per copy, as
 * rte_pcpu_sum_u64()), inc (an 8-byte increment per copy). The objects
 * are 256 of 16 B (4 KiB per copy, a pool cache's worth), visited in
 * turn.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_pcpu.h>

#include "perf_bodies.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

#define ALIAS_MAX_COPIES 8u
#define ALIAS_OBJS 256u
#define ALIAS_OBJ_SIZE 16u
#define ALIAS_HUGE (UINT64_C(2) << 20)
#define ALIAS_SUB_PAGE 448u

enum alias_layout {
	ALIAS_STRIDE_27 = 0,
	ALIAS_STRIDE_28,
	ALIAS_STRIDE_29,
	ALIAS_STRIDE_30,
	ALIAS_COLOURED,
	ALIAS_SUB_PAGE_CTL,
	ALIAS_NB_LAYOUTS,
};

static const char * const alias_layout_names[ALIAS_NB_LAYOUTS] = {
	[ALIAS_STRIDE_27] = "stride_2^27",
	[ALIAS_STRIDE_28] = "stride_2^28",
	[ALIAS_STRIDE_29] = "stride_2^29",
	[ALIAS_STRIDE_30] = "stride_2^30",
	[ALIAS_COLOURED] = "coloured",
	[ALIAS_SUB_PAGE_CTL] = "sub_page",
};

const char *
perf_alias_op_name(enum perf_alias_op op)
{
	static const char * const names[PERF_ALIAS_OP_MAX] = {
		[PERF_ALIAS_ZERO] = "zero",
		[PERF_ALIAS_SUM] = "sum",
		[PERF_ALIAS_INC] = "inc",
	};

	return (unsigned int)op < PERF_ALIAS_OP_MAX ? names[op] : "?";
}

/* One layout's copies, mapped. */
struct alias_copies {
	enum perf_alias_op op;
	unsigned int nb;
	uintptr_t copy[ALIAS_MAX_COPIES];
	void *area;
	size_t area_len;
	uint64_t sum;
};

/* Distance between units of a layout (bytes), 0 if unknown. */
static uint64_t
alias_step(enum alias_layout l)
{
	switch (l) {
	case ALIAS_STRIDE_27:
	case ALIAS_STRIDE_28:
	case ALIAS_STRIDE_29:
	case ALIAS_STRIDE_30:
		return UINT64_C(1) << (27 + (l - ALIAS_STRIDE_27));
	case ALIAS_COLOURED:
		return rte_pcpu_shared.unit_step;
	case ALIAS_SUB_PAGE_CTL:
		return (UINT64_C(1) << 30) + ALIAS_SUB_PAGE;
	default:
		return 0;
	}
}

static void
alias_unmap(struct alias_copies *ac)
{
	if (ac->area != NULL)
		munmap(ac->area, ac->area_len);
	ac->area = NULL;
}

/*
 * Reserve the layout's span, then map (and touch) the pages under each
 * copy's 4 KiB. Returns 0, -ENOMEM when @p page's pages cannot be had
 * (hugepages: none free), -errno otherwise.
 */
static int
alias_map(struct alias_copies *ac, enum alias_layout l, unsigned int nb,
		uint64_t page)
{
	uint64_t step = alias_step(l), first, last;
	const uint64_t bytes = ALIAS_OBJS * ALIAS_OBJ_SIZE;
	uintptr_t base;
	unsigned int i;
	void *p;

	memset(ac, 0, sizeof(*ac));
	if (step == 0)
		return -EINVAL;
	ac->nb = nb;
	ac->area_len = (size_t)(step * (nb - 1) + bytes + 2 * ALIAS_HUGE);
	ac->area = mmap(NULL, ac->area_len, PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ac->area == MAP_FAILED) {
		ac->area = NULL;
		return -errno;
	}
	base = RTE_ALIGN_CEIL((uintptr_t)ac->area, ALIAS_HUGE);
	for (i = 0; i < nb; i++) {
		ac->copy[i] = base + (uintptr_t)(step * i);
		first = RTE_ALIGN_FLOOR(ac->copy[i], page);
		last = RTE_ALIGN_CEIL(ac->copy[i] + bytes, page);
		p = mmap((void *)(uintptr_t)first, last - first,
			PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			MAP_FIXED | (page == ALIAS_HUGE ? MAP_HUGETLB : 0),
			-1, 0);
		if (p == MAP_FAILED) {
			int ret = -errno;

			alias_unmap(ac);
			return ret;
		}
		memset(p, 0, last - first);
	}
	return 0;
}

/* A batch of operations between two TSC reads. */
#define ALIAS_BATCH 1024u

/* One operation on every copy of each object in turn; the compiler
 * barrier keeps every access a real load or store. */
#define ALIAS_LOOP(ac, deadline, BODY)					\
	__extension__ ({						\
		uint64_t ops_ = 0;					\
		unsigned int k_ = 0, b_, i_;				\
		do {							\
			for (b_ = 0; b_ < ALIAS_BATCH; b_++) {		\
				const uintptr_t o_ =			\
					(uintptr_t)k_ * ALIAS_OBJ_SIZE;	\
				for (i_ = 0; i_ < (ac)->nb; i_++) {	\
					uintptr_t p = (ac)->copy[i_] + o_; \
					BODY;				\
				}					\
				rte_compiler_barrier();			\
				k_ = (k_ + 1) % ALIAS_OBJS;		\
			}						\
			ops_ += ALIAS_BATCH;				\
		} while (rte_rdtsc() < (deadline));			\
		ops_;							\
	})

static uint64_t
alias_loop(void *arg, unsigned int idx, uint64_t deadline)
{
	struct alias_copies *ac = arg;
	uint64_t s = 0, ops;

	RTE_SET_USED(idx);
	switch (ac->op) {
	case PERF_ALIAS_ZERO:
		ops = ALIAS_LOOP(ac, deadline, ({
			((volatile uint64_t *)p)[0] = 0;
			((volatile uint64_t *)p)[1] = 0;
		}));
		break;
	case PERF_ALIAS_SUM:
		ops = ALIAS_LOOP(ac, deadline, ({
			s += __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
		}));
		break;
	default:
		ops = ALIAS_LOOP(ac, deadline, ({
			(*(volatile uint64_t *)p)++;
		}));
		break;
	}
	ac->sum += s;
	return ops;
}

int
perf_alias(enum perf_alias_op op, unsigned int nb_copies, int huge,
		struct perf_result *r)
{
	struct alias_copies ac[ALIAS_NB_LAYOUTS];
	struct perf_variant v[ALIAS_NB_LAYOUTS];
	struct perf_rounds_res *rr = calloc(1, sizeof(*rr));
	uint64_t page = huge ? ALIAS_HUGE : 4096;
	unsigned int l;
	int ret = -1, m;

	memset(ac, 0, sizeof(ac));
	if (rr == NULL)
		return perf_fail(r, "calloc");
	if (nb_copies < 2 || nb_copies > ALIAS_MAX_COPIES) {
		ret = perf_fail(r, "copies");
		goto out;
	}
	for (l = 0; l < ALIAS_NB_LAYOUTS; l++) {
		m = alias_map(&ac[l], (enum alias_layout)l, nb_copies, page);
		if (m == -ENOMEM && huge) {
			ret = perf_skip(r, "no free 2 MiB hugepages");
			goto out;
		}
		if (m != 0) {
			ret = perf_fail(r, "mmap");
			goto out;
		}
		ac[l].op = op;
		v[l] = (struct perf_variant){ .name = alias_layout_names[l],
			.fn = alias_loop, .arg = &ac[l] };
	}
	if (perf_rounds_run(1, v, ALIAS_NB_LAYOUTS, rr) != 0) {
		ret = perf_fail(r, "launch");
		goto out;
	}
	perf_rounds_report(r, rr, v);
	for (l = 0; l < ALIAS_NB_LAYOUTS; l++)
		if (l != ALIAS_COLOURED)
			perf_rounds_ratio(r, rr, v, l, ALIAS_COLOURED);
	perf_result_set(r, "copies", nb_copies);
	perf_result_set(r, "page_size", (double)page);
	perf_result_set(r, "coloured_step", (double)alias_step(ALIAS_COLOURED));
	perf_result_label(r, "%s of %u copies of one 16 B object per op, "
		"256 objects in turn; layouts interleaved",
		perf_alias_op_name(op), nb_copies);
	ret = 0;
out:
	for (l = 0; l < ALIAS_NB_LAYOUTS; l++)
		alias_unmap(&ac[l]);
	free(rr);
	return ret;
}
