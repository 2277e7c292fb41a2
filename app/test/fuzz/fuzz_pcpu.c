/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * libFuzzer target: the percpu allocator, its cache buckets and the pools,
 * driven by an operation script decoded from the input and checked against
 * a reference model after every operation.
 *
 * EAL is initialised once (--no-huge -m 256 --no-pci --no-shconf, 2 lcores
 * on one CPU) and the allocator set up small (2 MiB of address space per
 * lcore in chunks of 512 KiB, a populated-bytes limit of 1.5 MiB per
 * lcore) so that the limit and the end of the address space are reached.
 *
 * Operations (one byte selects, the next bytes are arguments): alloc with
 * any size and alignment (bad ones included), free, bad frees (NULL,
 * interior, misaligned, outside the area, never allocated, double), pool
 * create (any n, size, cache, flags, budget, obj_init), get and bulk get,
 * put and bulk put, pool free (busy or not), cache flush, reclaim, stats.
 *
 * Model and checks: the live set of objects with their sizes; every result
 * is aligned, inside lcore 0's unit and overlaps no live object; every
 * lcore's copy is zero on allocation (and on get from a zeroing pool); a
 * per-object, per-lcore pattern written into every copy is intact when the
 * object is freed; errors are exactly the documented ones; pool in-use
 * counts equal the model's; rte_pcpu_audit() and rte_pcpu_mempool_audit()
 * are clean after every operation. At the end of an input everything is
 * given back and the allocator must have no live object left.
 * A broken check prints why and aborts (a crash for libFuzzer).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"

#define MAX_LIVE 256
#define MAX_POOLS 4
#define MAX_OPS 128
#define FREED_RING 16
#define UNIT_STRIDE (UINT64_C(2) << 20)
#define CHUNK_SIZE (UINT64_C(512) << 10)

struct obj {
	uint8_t *h;
	uint32_t size;
	uint8_t pat;
	int8_t pool;     /* -1: rte_pcpu_alloc(), else index in pools[] */
};

struct pool_m {
	struct rte_pcpu_mempool *mp;
	unsigned int n;
	unsigned int out;
	uint32_t elt;
	int zero;
};

/* First lcore id >= @p l that has memory, or RTE_MAX_LCORE. */
static unsigned int
fuzz_lcore_next(unsigned int l)
{
	while (l < RTE_MAX_LCORE && !rte_pcpu_lcore_has_memory(l))
		l++;
	return l;
}

static struct obj live[MAX_LIVE];
static unsigned int nlive;
static struct pool_m pools[MAX_POOLS];
static void *freed[FREED_RING];
static unsigned int nfreed;
static unsigned int pool_seq;

/* input cursor */
static const uint8_t *in;
static size_t in_len;

static unsigned int
next8(void)
{
	if (in_len == 0)
		return 0;
	in_len--;
	return *in++;
}

static unsigned int
next16(void)
{
	return next8() | next8() << 8;
}

/* The model's own loops need no coverage feedback (and its comparison
 * tracing would cost more than the library's work). */
#if defined(__clang__) && __clang_major__ >= 13
#define MODEL __attribute__((no_sanitize("coverage")))
#else
#define MODEL
#endif

#define FAIL(...) do {							\
	fprintf(stderr, "fuzz_pcpu: " __VA_ARGS__);			\
	fputc('\n', stderr);						\
	abort();							\
} while (0)

static MODEL int
overlaps(const uint8_t *h, uint32_t size, unsigned int skip)
{
	unsigned int i;

	for (i = 0; i < nlive; i++) {
		if (i == skip)
			continue;
		if (h < live[i].h + live[i].size && live[i].h < h + size)
			return (int)i;
	}
	return -1;
}

static MODEL void
check_zero(const uint8_t *h, uint32_t size, const char *what)
{
	unsigned int l, i;

	for (l = fuzz_lcore_next(0); l < RTE_MAX_LCORE;
	     l = fuzz_lcore_next(l + 1)) {
		const uint8_t *p = RTE_PCPU_LCORE(l, h);

		for (i = 0; i < size; i++)
			if (p[i] != 0)
				FAIL("%s: %p (%u B): lcore %u byte %u is %#x, "
					"not zero", what, (const void *)h, size,
					l, i, p[i]);
	}
}

static MODEL void
write_pattern(const struct obj *o)
{
	unsigned int l;

	for (l = fuzz_lcore_next(0); l < RTE_MAX_LCORE;
	     l = fuzz_lcore_next(l + 1))
		memset(RTE_PCPU_LCORE(l, o->h), o->pat ^ (uint8_t)l, o->size);
}

static MODEL void
check_pattern(const struct obj *o, const char *what)
{
	unsigned int l, i;

	for (l = fuzz_lcore_next(0); l < RTE_MAX_LCORE;
	     l = fuzz_lcore_next(l + 1)) {
		const uint8_t *p = RTE_PCPU_LCORE(l, o->h);

		for (i = 0; i < o->size; i++)
			if (p[i] != (uint8_t)(o->pat ^ l))
				FAIL("%s: %p (%u B): lcore %u byte %u lost its "
					"pattern", what, (const void *)o->h,
					o->size, l, i);
	}
}

/* A new object from the allocator or a pool: check it, add it. */
static MODEL void
add_obj(uint8_t *h, uint32_t size, int pool, int zero, const char *what)
{
	int j;

	if ((uintptr_t)h < rte_pcpu_shared.base ||
	    (uintptr_t)h - rte_pcpu_shared.base >= UNIT_STRIDE)
		FAIL("%s: %p outside lcore 0's unit", what, (void *)h);
	j = overlaps(h, size, UINT32_MAX);
	if (j >= 0)
		FAIL("%s: %p (%u B) overlaps live %p (%u B)", what, (void *)h,
			size, (void *)live[j].h, live[j].size);
	if (zero)
		check_zero(h, size, what);
	live[nlive].h = h;
	live[nlive].size = size;
	live[nlive].pool = (int8_t)pool;
	live[nlive].pat = (uint8_t)(0x11 * (nlive + 1) + size);
	write_pattern(&live[nlive]);
	nlive++;
}

static void
del_obj(unsigned int i)
{
	live[i] = live[--nlive];
}

static MODEL int
is_live(const void *h)
{
	unsigned int i;

	for (i = 0; i < nlive; i++)
		if (live[i].h == h)
			return 1;
	return 0;
}

static size_t
natural_align(size_t size)
{
	size_t r = (size + 7) & ~(size_t)7;

	r &= -r;
	return r < 64 ? r : 64;
}

static void
op_alloc(void)
{
	unsigned int v = next16(), a = next8();
	size_t size, align;
	int bad;
	uint8_t *h;

	if ((v & 0xfff0) == 0xfff0)
		size = RTE_PCPU_MAX_SIZE + (v & 0xf);  /* too big but the first */
	else if ((v & 0xf000) == 0xf000)
		size = (v & 0xfff) * 97;        /* up to ~390 KiB: spans too */
	else
		size = v % 1100;                /* 0 .. 1099, mostly cached */
	align = (a & 0x80) ? (a & 0x7f) : (a < 14 ? (size_t)1 << a : 0);
	if (a >= 14 && !(a & 0x80))
		align = 0;
	bad = size == 0 || size > RTE_PCPU_MAX_SIZE ||
		(align != 0 && ((align & (align - 1)) != 0 ||
			       align > RTE_PCPU_MAX_ALIGN));
	if (nlive == MAX_LIVE)
		return;
	h = rte_pcpu_alloc(size, align);
	if (h == NULL) {
		if (bad ? rte_errno != EINVAL : rte_errno != ENOMEM)
			FAIL("alloc(%zu, %zu): rte_errno %d", size, align,
				rte_errno);
		return;
	}
	if (bad)
		FAIL("alloc(%zu, %zu) succeeded", size, align);
	if (align == 0)
		align = natural_align(size);
	if (align < 8)
		align = 8;
	if (((uintptr_t)h & (align - 1)) != 0)
		FAIL("alloc(%zu, %zu) = %p misaligned", size, align, (void *)h);
	add_obj(h, (uint32_t)size, -1, 1, "alloc");
}

static void
pool_put_one(unsigned int i)
{
	struct pool_m *p = &pools[live[i].pool];
	int ret;

	check_pattern(&live[i], "before put");
	ret = rte_pcpu_mempool_put(p->mp, live[i].h);
	if (ret != 0)
		FAIL("put(%p): %d", (void *)live[i].h, ret);
	p->out--;
	del_obj(i);
}

static void
op_free(void)
{
	unsigned int i;
	void *h;

	if (nlive == 0)
		return;
	i = next8() % nlive;
	if (live[i].pool >= 0) {
		pool_put_one(i);
		return;
	}
	check_pattern(&live[i], "before free");
	h = live[i].h;
	if (rte_pcpu_free(h) != 0)
		FAIL("free(%p): rte_errno %d", h, rte_errno);
	del_obj(i);
	freed[nfreed++ % FREED_RING] = h;
}

static void
op_bad_free(void)
{
	unsigned int kind = next8() % 6, i = next8();
	struct rte_pcpu_stats s0, s1;
	uint64_t local = 0;
	void *h = NULL;

	switch (kind) {
	case 0:
		if (rte_pcpu_free(NULL) != 0)
			FAIL("free(NULL) failed");
		return;
	case 1: /* interior */
	case 2: /* misaligned */
		if (nlive == 0)
			return;
		i %= nlive;
		if (live[i].size <= 8)
			return;
		h = live[i].h + (kind == 1 ? 8 : 1);
		break;
	case 3:
		h = &local;
		break;
	case 4: /* never allocated: the end of lcore 0's unit */
		h = (void *)(rte_pcpu_shared.base + UNIT_STRIDE - 8);
		if (overlaps(h, 8, UINT32_MAX) >= 0)
			return;
		break;
	case 5: /* double free, unless the space went to someone */
		if (nfreed == 0)
			return;
		h = freed[i % (nfreed < FREED_RING ? nfreed : FREED_RING)];
		if (is_live(h))
			return;
		break;
	}
	rte_pcpu_stats_get(&s0);
	rte_errno = 0;
	if (rte_pcpu_free(h) != -1 || rte_errno != EINVAL)
		FAIL("bad free %u of %p: not EINVAL (rte_errno %d)", kind, h,
			rte_errno);
	rte_pcpu_stats_get(&s1);
	if (s1.nr_cur_alloc != s0.nr_cur_alloc)
		FAIL("bad free %u of %p changed the live count", kind, h);
}

static void
obj_init_cb(struct rte_pcpu_mempool *mp, void *arg, void *obj,
		unsigned int lcore_id)
{
	(void)mp;
	memset(obj, (int)(0xc0 | (lcore_id & 0x3f)), (size_t)(uintptr_t)arg);
}

static void
op_pool_create(void)
{
	unsigned int n = 1 + next8() % 64, elt = 1 + next16() % 2048;
	unsigned int cache = next8(), f = next8(), b = next8(), flags = 0;
	unsigned int slot, nl = fuzz_lcore_next(0) < RTE_MAX_LCORE ?
		rte_lcore_count() : 1;
	struct rte_pcpu_mempool *mp;
	uint64_t max_bytes = 0;
	char name[RTE_PCPU_MEMPOOL_NAMESIZE];
	int init = f & 8;

	for (slot = 0; slot < MAX_POOLS; slot++)
		if (pools[slot].mp == NULL)
			break;
	if (slot == MAX_POOLS)
		return;
	cache %= n + 1;
	if (f & 1)
		flags |= RTE_PCPU_MEMPOOL_F_NO_ZERO;
	if (f & 2)
		flags |= RTE_PCPU_MEMPOOL_F_PREFILL;
	if (f & 4)
		flags |= RTE_PCPU_MEMPOOL_F_DEBUG;
	if (f & 16)
		max_bytes = (uint64_t)elt * nl * (1 + b % 8);
	snprintf(name, sizeof(name), "fz%u", pool_seq++);
	mp = rte_pcpu_mempool_create(name, n, elt, cache, max_bytes,
		init ? obj_init_cb : NULL, (void *)(uintptr_t)elt, flags);
	if (mp == NULL) {
		if (rte_errno != ENOMEM)
			FAIL("pool create n %u elt %u cache %u flags %#x: "
				"rte_errno %d", n, elt, cache, flags, rte_errno);
		return;
	}
	pools[slot].mp = mp;
	pools[slot].n = n;
	pools[slot].out = 0;
	pools[slot].elt = elt;
	pools[slot].zero = !init && !(flags & RTE_PCPU_MEMPOOL_F_NO_ZERO);
	nfreed = 0; /* freed space may now belong to the pool */
}

static struct pool_m *
pick_pool(int *idx)
{
	unsigned int i = next8() % MAX_POOLS;

	*idx = (int)i;
	return pools[i].mp != NULL ? &pools[i] : NULL;
}

static void
op_pool_get(void)
{
	unsigned int n = 1 + next8() % 8, k;
	void *objs[8];
	struct pool_m *p;
	int idx, ret;

	p = pick_pool(&idx);
	if (p == NULL || nlive + n > MAX_LIVE)
		return;
	nfreed = 0;
	ret = n == 1 ? rte_pcpu_mempool_get(p->mp, &objs[0]) :
		rte_pcpu_mempool_get_bulk(p->mp, objs, n);
	if (ret != 0) {
		if ((ret != -ENOENT && ret != -ENOMEM && !(n > p->n &&
		     ret == -EINVAL)) || rte_errno != -ret)
			FAIL("get %u from a pool of %u (%u out): %d, rte_errno "
				"%d", n, p->n, p->out, ret, rte_errno);
		if (ret == -ENOENT && p->out + n <= p->n)
			FAIL("get %u: ENOENT with %u of %u out", n, p->out,
				p->n);
		return;
	}
	if (p->out + n > p->n)
		FAIL("pool of %u handed out %u more with %u out", p->n, n,
			p->out);
	for (k = 0; k < n; k++)
		add_obj(objs[k], p->elt, idx, p->zero, "pool get");
	p->out += n;
}

static void
op_pool_put(void)
{
	unsigned int want = 1 + next8() % 4, k = 0, i;
	void *objs[4];
	struct pool_m *p;
	int idx, ret;

	p = pick_pool(&idx);
	if (p == NULL || p->out == 0)
		return;
	if (want == 1) {
		for (i = 0; i < nlive; i++)
			if (live[i].pool == idx) {
				pool_put_one(i);
				return;
			}
		FAIL("pool %d: %u out, none in the model", idx, p->out);
	}
	for (i = 0; i < nlive && k < want; ) {
		if (live[i].pool != idx) {
			i++;
			continue;
		}
		check_pattern(&live[i], "before put_bulk");
		objs[k++] = live[i].h;
		del_obj(i);
	}
	ret = rte_pcpu_mempool_put_bulk(p->mp, objs, k);
	if (ret != 0)
		FAIL("put_bulk of %u: %d", k, ret);
	p->out -= k;
}

static void
op_pool_free(void)
{
	struct pool_m *p;
	int idx, ret;

	p = pick_pool(&idx);
	if (p == NULL)
		return;
	rte_errno = 0;
	ret = rte_pcpu_mempool_free(p->mp);
	if (p->out != 0) {
		if (ret != -1 || rte_errno != EBUSY)
			FAIL("free of a pool with %u out: %d, rte_errno %d",
				p->out, ret, rte_errno);
		return;
	}
	if (ret != 0)
		FAIL("free of an idle pool: rte_errno %d", rte_errno);
	memset(p, 0, sizeof(*p));
}

static unsigned int
nb_pools(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MAX_POOLS; i++)
		n += pools[i].mp != NULL;
	return n;
}

static void
op_misc(void)
{
	struct rte_pcpu_stats s;
	unsigned int what = next8() % 3, i, allocs = 0;

	switch (what) {
	case 0:
		if (rte_pcpu_cache_flush() < 0)
			FAIL("cache flush: rte_errno %d", rte_errno);
		break;
	case 1:
		if (rte_pcpu_reclaim() < 0)
			FAIL("reclaim: rte_errno %d", rte_errno);
		break;
	default:
		if (rte_pcpu_stats_get(&s) != 0)
			FAIL("stats: rte_errno %d", rte_errno);
		for (i = 0; i < nlive; i++)
			allocs += live[i].pool < 0;
		if (nb_pools() == 0 && s.nr_cur_alloc != allocs)
			FAIL("stats: %" PRIu64 " live objects, model %u",
				s.nr_cur_alloc, allocs);
		if (s.nr_cur_alloc < allocs)
			FAIL("stats: %" PRIu64 " live objects < model %u",
				s.nr_cur_alloc, allocs);
		break;
	}
}

static void
check_all(const char *after)
{
	unsigned int i;

	if (rte_pcpu_audit() != 0)
		FAIL("rte_pcpu_audit() failed after %s", after);
	for (i = 0; i < MAX_POOLS; i++) {
		if (pools[i].mp == NULL)
			continue;
		if (rte_pcpu_mempool_audit(pools[i].mp) != 0)
			FAIL("pool audit failed after %s", after);
		if (rte_pcpu_mempool_in_use_count(pools[i].mp) != pools[i].out)
			FAIL("pool %u: in use %u, model %u, after %s", i,
				rte_pcpu_mempool_in_use_count(pools[i].mp),
				pools[i].out, after);
	}
}

static void
release_all(void)
{
	struct rte_pcpu_stats s;
	unsigned int i;

	while (nlive > 0) {
		if (live[nlive - 1].pool >= 0) {
			pool_put_one(nlive - 1);
			continue;
		}
		check_pattern(&live[nlive - 1], "final free");
		if (rte_pcpu_free(live[nlive - 1].h) != 0)
			FAIL("final free: rte_errno %d", rte_errno);
		nlive--;
	}
	for (i = 0; i < MAX_POOLS; i++) {
		if (pools[i].mp == NULL)
			continue;
		if (rte_pcpu_mempool_free(pools[i].mp) != 0)
			FAIL("final pool free: rte_errno %d", rte_errno);
		memset(&pools[i], 0, sizeof(pools[i]));
	}
	nfreed = 0;
	rte_pcpu_cache_flush();
	rte_pcpu_reclaim();
	rte_pcpu_stats_get(&s);
	if (s.nr_cur_alloc != 0 || s.cached_objs != 0)
		FAIL("after giving everything back: %" PRIu64 " live, %" PRIu64
			" cached", s.nr_cur_alloc, s.cached_objs);
	check_all("the final release");
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rte_pcpu_conf conf = {
		.unit_stride = UNIT_STRIDE,
		.chunk_size = CHUNK_SIZE,
		.page_policy = RTE_PCPU_PAGE_NORMAL,
	};
	char lcores[64], *eal_argv[16];
	int eal_argc = 0, cpu = 0;
	cpu_set_t set;

	(void)argc;
	(void)argv;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
			cpu++;
	snprintf(lcores, sizeof(lcores), "--lcores=(0-1)@%d", cpu);
	eal_argv[eal_argc++] = (char *)"fuzz_pcpu";
	eal_argv[eal_argc++] = (char *)"--no-huge";
	eal_argv[eal_argc++] = (char *)"-m";
	eal_argv[eal_argc++] = (char *)"256";
	eal_argv[eal_argc++] = (char *)"--no-pci";
	eal_argv[eal_argc++] = (char *)"--no-shconf";
	eal_argv[eal_argc++] = (char *)"--no-telemetry";
	eal_argv[eal_argc++] = lcores;
	if (getenv("FUZZ_PCPU_VERBOSE") == NULL)
		eal_argv[eal_argc++] = (char *)"--log-level=2";
	eal_argv[eal_argc] = NULL;
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		FAIL("rte_eal_init: %s", rte_strerror(rte_errno));
	conf.max_populated = (UINT64_C(3) << 19) * rte_lcore_count();
	if (rte_pcpu_init(&conf) != 0)
		FAIL("rte_pcpu_init: %s", rte_strerror(rte_errno));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"alloc", "alloc", "alloc", "free", "free", "bad free",
		"pool create", "pool get", "pool put", "pool free", "misc",
		"pool get",
	};
	unsigned int ops = 0, op;

	in = data;
	in_len = size;
	while (in_len > 0 && ops++ < MAX_OPS) {
		op = next8() % RTE_DIM(names);
		switch (op) {
		case 0: case 1: case 2: op_alloc(); break;
		case 3: case 4: op_free(); break;
		case 5: op_bad_free(); break;
		case 6: op_pool_create(); break;
		case 7: case 11: op_pool_get(); break;
		case 8: op_pool_put(); break;
		case 9: op_pool_free(); break;
		default: op_misc(); break;
		}
		check_all(names[op]);
	}
	release_all();
	return 0;
}
