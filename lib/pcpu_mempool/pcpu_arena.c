/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The reserved address area and page population.
 *
 * One PROT_NONE, MAP_NORESERVE mapping covers RTE_MAX_LCORE units, unit i
 * at base + i * (unit_stride + PCPU_ARENA_COLOUR_STEP) (pcpu_arena.h says
 * why the colour); it costs address space only. Two ways of backing it:
 *
 * - 4 KiB pages: when a chunk is created, its range in the unit of every
 *   lcore with memory is mapped read-write (MAP_NORESERVE, no memory yet)
 *   and bound to the lcore's NUMA node with mbind(2). Populating pages is
 *   then one MADV_POPULATE_WRITE, depopulating one MADV_DONTNEED: one
 *   system call each, no mapping churn.
 * - 2 MiB hugepages: populating maps an anonymous MAP_HUGETLB range over
 *   the reservation with MAP_FIXED, binds it, then faults it in;
 *   depopulating maps PROT_NONE over it again.
 *
 * Faulting in with MADV_POPULATE_WRITE makes a shortage an error code
 * rather than a SIGBUS or an OOM kill at first touch.
 *
 * That is the private backing. A shared area (one that other processes
 * can read) is backed by a file instead: pcpu_arena_shm.c, which the
 * functions here hand over to when pcpu_arena.shm is set.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

#include <rte_common.h>

#include "pcpu_arena.h"
#include "pcpu_arena_shm.h"
#include "pcpu_compat.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_util.h"
#include "pcpu_asan.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define RESERVE_PROT PROT_NONE
#define RESERVE_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

uint64_t
pcpu_arena_span(uint64_t unit_stride)
{
	/* the last unit ends at (RTE_MAX_LCORE - 1) * step + stride */
	return (unit_stride + PCPU_ARENA_COLOUR_STEP) * RTE_MAX_LCORE;
}

int
pcpu_arena_reserve(struct pcpu_arena *a, uint64_t unit_stride, uintptr_t base)
{
	size_t len;
	void *p;

	if (unit_stride == 0 || !pcpu_is_pow2(unit_stride) ||
	    unit_stride > (UINT64_C(1) << 40) ||
	    (base & (PCPU_HUGE_PAGE_SIZE - 1)) != 0)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	if (base != 0) {
		/* exactly there, or not at all */
		len = pcpu_arena_span(unit_stride);
		p = pcpu_fault_mmap((void *)base, len, RESERVE_PROT,
			RESERVE_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			return errno == EEXIST ? -EEXIST : -ENOMEM;
		if ((uintptr_t)p != base) {
			/* a kernel before 4.17 took the flag as a hint */
			munmap(p, len);
			return -EEXIST;
		}
	} else {
		/* slack to align unit 0 on a hugepage boundary */
		len = pcpu_arena_span(unit_stride) + PCPU_HUGE_PAGE_SIZE;
		p = pcpu_fault_mmap(NULL, len, RESERVE_PROT, RESERVE_FLAGS, -1,
			0);
		if (p == MAP_FAILED)
			return -ENOMEM;
	}
	a->map_addr = p;
	a->map_len = len;
	a->base = RTE_ALIGN_CEIL((uintptr_t)p, PCPU_HUGE_PAGE_SIZE);
	a->unit_stride = unit_stride;
	a->unit_step = unit_stride + PCPU_ARENA_COLOUR_STEP;
	a->unit_shift = (uint32_t)rte_log2_u64(unit_stride);
	a->span = pcpu_arena_span(unit_stride);
	a->numa = pcpu_fault_numa_available() >= 0;
	return 0;
}

static void arena_discard(struct pcpu_arena *a, void *addr, size_t len,
		int rw, int socket);

void
pcpu_arena_release(struct pcpu_arena *a)
{
	if (a->map_addr != NULL &&
	    pcpu_fault_munmap(a->map_addr, a->map_len) != 0) {
		/* the address space stays taken; its memory need not */
		PCPU_LOG(ERR, "cannot unmap the reserved area (%zu bytes at "
			"%p): %s; its address space is lost", a->map_len,
			a->map_addr, strerror(errno));
		if (!a->shm)
			arena_discard(a, a->map_addr, a->map_len, 0, -1);
	}
	if (a->shm)
		pcpu_arena_shm_release(a);
	memset(a, 0, sizeof(*a));
}

void
pcpu_arena_rereserve(void *addr, size_t len)
{
	void *p = pcpu_fault_mmap(addr, len, RESERVE_PROT,
			RESERVE_FLAGS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		PCPU_LOG(ERR, "cannot re-reserve %zu bytes at %p: %s", len,
			addr, strerror(errno));
}

void
pcpu_arena_bind(const struct pcpu_arena *a, void *addr, size_t len,
		int socket)
{
	unsigned long mask[(RTE_MAX_NUMA_NODES + 63) / 64] = { 0 };

	if (!a->numa || socket < 0 || socket >= RTE_MAX_NUMA_NODES)
		return;
	mask[socket / 64] = 1UL << (socket % 64);
	if (pcpu_fault_mbind(addr, len, MPOL_BIND, mask, RTE_MAX_NUMA_NODES + 1,
			0) != 0 && errno != ENOSYS && errno != EPERM)
		PCPU_LOG(WARNING, "mbind to node %d failed: %s", socket,
			strerror(errno));
}

/* Map [addr, addr + len) read-write without memory, bound to @p socket.
 * 0 or -errno; the range is left as it was on failure. */
static int
arena_map_rw(struct pcpu_arena *a, void *addr, size_t len, int socket)
{
	void *p;

	p = pcpu_fault_mmap(addr, len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	pcpu_arena_bind(a, addr, len, socket);
	return 0;
}

/*
 * Give the memory of [addr, addr + len) back, leaving the range mapped
 * read-write and bound to @p socket (@p rw, the ranges of 4 KiB mode
 * mapped at chunk creation) or reserved. MADV_DONTNEED keeps a mapping, a
 * new mapping over the range replaces it; either frees the pages, and each
 * can fail where the other does not (madvise(2) of hugetlb ranges before
 * Linux 5.18, mmap(2) beyond the limit on mappings), so one is the other's
 * fall-back. A reserved range whose fall-back was MADV_DONTNEED stays
 * read-write without memory, which population maps over as it would over
 * a reservation. Only both failing keeps the memory: one ERR line.
 */
static void
arena_discard(struct pcpu_arena *a, void *addr, size_t len, int rw,
		int socket)
{
	int err;

	if (rw) {
		if (pcpu_fault_madvise(addr, len, MADV_DONTNEED) == 0)
			return;
		err = errno;
		if (arena_map_rw(a, addr, len, socket) == 0)
			return;
	} else {
		if (pcpu_fault_mmap(addr, len, RESERVE_PROT,
				RESERVE_FLAGS | MAP_FIXED, -1, 0) != MAP_FAILED)
			return;
		err = errno;
		if (pcpu_fault_madvise(addr, len, MADV_DONTNEED) == 0)
			return;
	}
	PCPU_LOG(ERR, "cannot give back %zu bytes at %p: %s", len, addr,
		strerror(err));
}

int
pcpu_arena_map(struct pcpu_arena *a, unsigned int lcore_id, int socket,
		uint64_t off, uint64_t len)
{
	void *addr = pcpu_arena_addr(a, lcore_id, off);
	int ret;

	if (a->shm)
		return pcpu_arena_shm_map(a, socket, addr, len);
	ret = arena_map_rw(a, addr, len, socket);
	if (ret != 0)
		/* a failed MAP_FIXED may have unmapped the old range */
		pcpu_arena_rereserve(addr, len);
	return ret;
}

void
pcpu_arena_unmap(struct pcpu_arena *a, unsigned int lcore_id, uint64_t off,
		uint64_t len)
{
	void *addr = pcpu_arena_addr(a, lcore_id, off);

	if (a->shm)
		pcpu_arena_shm_unmap(a, addr, len);
	else
		arena_discard(a, addr, len, 0, -1);
}

int
pcpu_arena_touch(void *addr, uint64_t len, uint64_t step)
{
	uint64_t i;
	int ret;

	if (pcpu_fault_madvise(addr, len, MADV_POPULATE_WRITE) == 0)
		return 0;
	ret = -errno;
	if (ret != -EINVAL)
		return ret == -EFAULT || ret == -EHWPOISON ? -ENOMEM : ret;
	/* kernel without MADV_POPULATE_WRITE (before 5.14): touch */
	for (i = 0; i < len; i += step)
		*((volatile char *)addr + i) = 0;
	return 0;
}

int
pcpu_arena_populate(struct pcpu_arena *a, unsigned int lcore_id, int socket,
		uint64_t off, uint64_t len, enum pcpu_backing how)
{
	void *addr = pcpu_arena_addr(a, lcore_id, off);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	int ret;
	void *p;

	/* no live object here: clear stale ASan poison (pcpu_asan.h) */
	pcpu_asan_unpoison_range(addr, len);
	if (a->shm)
		return pcpu_arena_shm_populate(a, socket, addr, len, how);
	if (how == PCPU_BACKING_MAPPED) {
		ret = pcpu_arena_touch(addr, len, PCPU_SMALL_PAGE_SIZE);
		if (ret != 0)
			arena_discard(a, addr, len, 1, socket);
		return ret;
	}
	if (how == PCPU_BACKING_HUGE)
		flags |= MAP_HUGETLB;
	p = pcpu_fault_mmap(addr, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		/* a failed MAP_FIXED may have unmapped the old range */
		pcpu_arena_rereserve(addr, len);
		return ret == -EINVAL && how == PCPU_BACKING_HUGE ? -ENOMEM :
			ret;
	}
	pcpu_arena_bind(a, addr, len, socket);
	ret = pcpu_arena_touch(addr, len, how == PCPU_BACKING_HUGE ?
		PCPU_HUGE_PAGE_SIZE : PCPU_SMALL_PAGE_SIZE);
	if (ret != 0)
		arena_discard(a, addr, len, 0, socket);
	return ret;
}

int
pcpu_arena_depopulate(struct pcpu_arena *a, unsigned int lcore_id,
		int socket, uint64_t off, uint64_t len, enum pcpu_backing how)
{
	void *addr = pcpu_arena_addr(a, lcore_id, off);

	if (a->shm)
		return pcpu_arena_shm_depopulate(a, addr, len, how);
	arena_discard(a, addr, len, how == PCPU_BACKING_MAPPED, socket);
	return 0;
}

uint64_t
pcpu_arena_check(struct pcpu_arena *a, unsigned int lcore_id, uint64_t off,
		uint64_t len, uint64_t page_size, int expect)
{
	unsigned char vec[512];
	uint64_t done, n, i, small_per_page;
	char *addr = pcpu_arena_addr(a, lcore_id, off);

	small_per_page = page_size / PCPU_SMALL_PAGE_SIZE;
	for (done = 0; done < len; done += n * PCPU_SMALL_PAGE_SIZE) {
		n = RTE_MIN((len - done) / PCPU_SMALL_PAGE_SIZE,
			(uint64_t)sizeof(vec));
		if (mincore(addr + done, n * PCPU_SMALL_PAGE_SIZE, vec) != 0)
			return done / page_size + 1;
		/* the first small page of each page tells */
		for (i = 0; i < n; i++) {
			uint64_t small = done / PCPU_SMALL_PAGE_SIZE + i;

			if (small % small_per_page != 0)
				continue;
			if ((int)(vec[i] & 1) != (expect != 0))
				return small / small_per_page + 1;
		}
	}
	return 0;
}

uint64_t
pcpu_arena_free_hugepages(void)
{
	unsigned long long n = 0;
	FILE *f;

	f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
		"r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}
