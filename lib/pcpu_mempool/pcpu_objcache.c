/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The per-lcore cache engine's slow paths (pcpu_objcache.h). The fast pop
 * and push are inline in rte_pcpu_core.h, where the pools' inline get and
 * put need them.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "pcpu_objcache.h"

/* Counters are read by statistics on other threads: relaxed stores. */
#define OBJCACHE_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (n), __ATOMIC_RELAXED)

void
pcpu_objcache_init(struct rte_pcpu_objcache *oc, uintptr_t *objs,
		uint32_t capacity)
{
	memset(oc, 0, sizeof(*oc));
	oc->objs = objs;
	oc->capacity = capacity;
}

static int
objcache_cmp_desc(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

	return a > b ? -1 : a < b;
}

/*
 * Lay @p v out in descending address order, so that pops (from the end)
 * ascend. A refill from the percpu allocator arrives ascending (first
 * fit): reverse it; anything else is sorted.
 */
static void
objcache_order(uintptr_t *v, unsigned int n)
{
	unsigned int i, up = 1, down = 1;
	uintptr_t t;

	for (i = 1; i < n && (up || down); i++) {
		up &= v[i] > v[i - 1];
		down &= v[i] < v[i - 1];
	}
	if (down)
		return;
	if (up) {
		for (i = 0; i < n / 2; i++) {
			t = v[i];
			v[i] = v[n - 1 - i];
			v[n - 1 - i] = t;
		}
		return;
	}
	qsort(v, n, sizeof(*v), objcache_cmp_desc);
}

unsigned int
pcpu_objcache_refill(struct rte_pcpu_objcache *oc, unsigned int n,
		pcpu_objcache_source_t *source, void *arg)
{
	unsigned int got = source(arg, &oc->objs[oc->len], n);

	objcache_order(&oc->objs[oc->len], got);
	__atomic_store_n(&oc->len, oc->len + got, __ATOMIC_RELAXED);
	OBJCACHE_ADD(oc->refilled, got);
	OBJCACHE_ADD(oc->nr_refill, 1);
	return got;
}

void
pcpu_objcache_flush_oldest(struct rte_pcpu_objcache *oc, unsigned int n,
		pcpu_objcache_sink_t *sink, void *arg)
{
	if (n == 0)
		return;
	sink(arg, oc->objs, n);
	memmove(oc->objs, oc->objs + n, (oc->len - n) * sizeof(uintptr_t));
	__atomic_store_n(&oc->len, oc->len - n, __ATOMIC_RELAXED);
	OBJCACHE_ADD(oc->flushed, n);
	OBJCACHE_ADD(oc->nr_flush, 1);
}

unsigned int
pcpu_objcache_take(struct rte_pcpu_objcache *oc, uintptr_t *dst,
		unsigned int n)
{
	unsigned int i;

	n = RTE_MIN(n, oc->len);
	for (i = 0; i < n; i++)
		dst[i] = oc->objs[oc->len - 1 - i];
	__atomic_store_n(&oc->len, oc->len - n, __ATOMIC_RELAXED);
	OBJCACHE_ADD(oc->nr_get, n);
	return n;
}

void
pcpu_objcache_put_spill(struct rte_pcpu_objcache *oc, const uintptr_t *objs,
		unsigned int n, unsigned int keep, pcpu_objcache_sink_t *sink,
		void *arg)
{
	unsigned int len = oc->len, total = len + n, out, j;

	OBJCACHE_ADD(oc->nr_put, n);
	if (total <= oc->capacity) {
		memcpy(&oc->objs[len], objs, n * sizeof(uintptr_t));
		__atomic_store_n(&oc->len, total, __ATOMIC_RELAXED);
		return;
	}
	/* the sequence cache bottom..top, then objs: the first ones out */
	keep = RTE_MIN(keep, total);
	out = total - keep;
	if (out <= len) {
		sink(arg, oc->objs, out);
		memmove(oc->objs, oc->objs + out, (len - out) *
			sizeof(uintptr_t));
		memcpy(&oc->objs[len - out], objs, n * sizeof(uintptr_t));
	} else {
		uintptr_t spill[64];
		unsigned int from_objs = out - len, k;

		/* the whole cache, then the first from_objs of objs */
		if (len != 0)
			sink(arg, oc->objs, len);
		for (j = 0; j < from_objs; j += k) {
			k = RTE_MIN(from_objs - j, (unsigned int)RTE_DIM(spill));
			memcpy(spill, objs + j, k * sizeof(uintptr_t));
			sink(arg, spill, k);
		}
		memcpy(oc->objs, objs + from_objs, keep * sizeof(uintptr_t));
	}
	__atomic_store_n(&oc->len, keep, __ATOMIC_RELAXED);
	OBJCACHE_ADD(oc->flushed, out);
	OBJCACHE_ADD(oc->nr_flush, 1);
}

unsigned int
pcpu_objcache_drain(struct rte_pcpu_objcache *oc, pcpu_objcache_sink_t *sink,
		void *arg)
{
	unsigned int n = oc->len;

	pcpu_objcache_flush_oldest(oc, n, sink, arg);
	return n;
}

int
pcpu_objcache_counts_ok(const struct rte_pcpu_objcache *oc)
{
	return oc->refilled + oc->nr_put - oc->nr_get - oc->flushed == oc->len;
}

void
pcpu_objcache_copies_rebuild(struct rte_pcpu_copies *cp)
{
	unsigned int n = 0, w;
	uint64_t m;

	/* the generation first: a change of the mask after this read moves
	 * it on, and the next check sees that the list is out of date */
	cp->gen = __atomic_load_n(&rte_pcpu_shared.lcore_gen, __ATOMIC_ACQUIRE);
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++) {
		m = __atomic_load_n(&rte_pcpu_shared.lcore_mask[w],
			__ATOMIC_ACQUIRE);
		for (; m != 0; m &= m - 1)
			cp->offs[n++] = (uintptr_t)(w * 64 +
				(unsigned int)__builtin_ctzll(m)) *
				(uintptr_t)rte_pcpu_shared.unit_step;
	}
	cp->nr = n;
}
