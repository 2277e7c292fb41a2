/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The shared backing of the arena: the area as a file that other
 * processes (DPDK secondary processes) map read-only at the same address.
 *
 * One memfd (MFD_HUGETLB for 2 MiB pages) of the area's size backs it:
 * the byte at offset o of the file is the byte base + o of the area in
 * every process. The owner maps what it uses, read-write, MAP_SHARED and
 * MAP_FIXED over its reservation:
 *
 * - 4 KiB pages: a chunk's range is mapped when the chunk is created
 *   (no memory yet) and bound to its lcore's node with mbind(2), which
 *   for a shared memory file sets the policy of that range of the file;
 *   populating is MADV_POPULATE_WRITE, as for private memory.
 * - 2 MiB pages: populating maps the range of the hugepage file and
 *   binds and faults it in; a shortage shows as mmap(2) failing (shared
 *   hugetlb mappings reserve their pages), and the range may then fall
 *   back to a second file of 4 KiB pages at the same offsets (below).
 *
 * Giving memory back is punching a hole in the file (fallocate(2)):
 * MADV_DONTNEED on a shared mapping neither frees nor zeroes the pages,
 * only the file's own pages going away does. A hole reads as zero, so
 * the allocator's rule "memory populated again reads as zero" holds.
 *
 * Readers. A reader maps the whole file read-only at the area's address
 * (MAP_NORESERVE: no hugepage is reserved for it), so it sees every range
 * the owner populates, now or later, without mapping again. It must never
 * touch a hole: a read fault there would allocate a page into the file
 * (or raise SIGBUS when no hugepage is free), behind the owner's back.
 * It reads only live objects, whose pages are populated; what keeps a
 * page it may still be reading from becoming a hole is the allocator's
 * business (it asks pcpu_arena_readers() before giving memory back). A
 * reader holds a POSIX read lock on byte 0 of the main file while it has
 * the area mapped: POSIX locks belong to the process, so the owner's
 * F_GETLK sees every other process's lock, and the kernel drops it when
 * the reader exits or is killed. No shared counter to leak, no timeout.
 *
 * The 4 KiB fall-back of a hugepage area. One file holds one page size,
 * so ranges that fall back are backed by a second file, and a reader maps
 * that file over them: which ranges, it reads from a bitmap in shared
 * memory (struct pcpu_arena_small_map) when it attaches. A bit is set
 * before its range is first populated and then never cleared, so every
 * reader that attached since maps the range right. A reader that attached
 * before would not: so the owner falls back only while no reader is
 * attached, checking the lock after setting the bits and clearing them if
 * it finds one (a reader takes its lock before reading the bits, so one
 * of the two sees the other); the seqlock around the change makes a
 * reader that read the bits meanwhile map again.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, fallocate, MAP_FIXED_NOREPLACE */
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/memfd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "pcpu_arena.h"
#include "pcpu_arena_shm.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"

#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21U << 26)
#endif

#define SHM_NAME "pcpu_mempool"
/* the byte of the main file that readers lock */
#define SHM_LOCK_BYTE 0

/* ---------------------------------------------------------------------- */
/* The files. */

/* A file of @p size bytes for the area; or -ENOMEM (logged with the
 * system's reason: rte_pcpu_init() documents ENOMEM for a system that
 * cannot give the area what it needs). */
static int
shm_file(int huge, uint64_t size)
{
	unsigned int flags = MFD_CLOEXEC | (huge ? MFD_HUGETLB | MFD_HUGE_2MB : 0);
	int fd;

	fd = pcpu_fault_memfd_create(SHM_NAME, flags);
	if (fd < 0) {
		PCPU_LOG(ERR, "shared area: memfd_create(%s) failed: %s",
			huge ? "MFD_HUGETLB" : "4 KiB pages", strerror(errno));
		return -ENOMEM;
	}
	/* sparse: no memory until a range is populated */
	if (pcpu_fault_ftruncate(fd, (off_t)size) != 0) {
		PCPU_LOG(ERR, "shared area: cannot size the file to %" PRIu64
			" bytes: %s", size, strerror(errno));
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* The file offset of address @p addr of the area. */
static inline uint64_t
shm_off(const struct pcpu_arena *a, const void *addr)
{
	return (uint64_t)((uintptr_t)addr - a->base);
}

/* Free the file's pages of [off, off + len): they read as zero again.
 * 0, or -ENOMEM (logged: the memory stays in the file, and the area is
 * marked: from then on every mapping punches its range first). */
static int
shm_punch(struct pcpu_arena *a, int fd, uint64_t off, uint64_t len)
{
	if (fd < 0 || len == 0)
		return 0;
	if (pcpu_fault_fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			(off_t)off, (off_t)len) == 0)
		return 0;
	a->shm_stale = 1;
	PCPU_LOG(ERR, "shared area: cannot give back %" PRIu64 " bytes at "
		"offset %#" PRIx64 ": %s", len, off, strerror(errno));
	return -ENOMEM;
}

/*
 * Map [addr, addr + len) of file @p fd read-write over the reservation.
 *
 * Once a punch has failed (shm_stale), the range of the file is punched
 * first: a range given back while the owner no longer mapped it (to the
 * reservation, or at the destruction of a chunk) keeps its pages if
 * punching failed then, and they must not show through as memory that
 * reads zero. That failure was logged; this punch frees them. Until a
 * punch fails every range not mapped is a hole already, and mapping pays
 * no extra system call.
 */
static int
shm_map_file(struct pcpu_arena *a, int fd, void *addr, uint64_t len,
		int noreserve)
{
	void *p;
	int ret;

	if (a->shm_stale) {
		ret = shm_punch(a, fd, shm_off(a, addr), len);
		if (ret != 0)
			return ret;
	}
	p = pcpu_fault_mmap(addr, len, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_FIXED | (noreserve ? MAP_NORESERVE : 0), fd,
		(off_t)shm_off(a, addr));
	if (p != MAP_FAILED)
		return 0;
	ret = -errno;
	/* a failed MAP_FIXED may have unmapped the old range */
	pcpu_arena_rereserve(addr, len);
	return ret;
}

int
pcpu_arena_reserve_shared(struct pcpu_arena *a, uint64_t unit_stride,
		uintptr_t base, int base_is_hint, int huge)
{
	uint64_t words;
	int ret;

	ret = pcpu_arena_reserve(a, unit_stride, base);
	if (ret == -EEXIST && base_is_hint) {
		PCPU_LOG(WARNING, "shared area: %#" PRIxPTR " is taken, the "
			"kernel chooses the address: a secondary process may "
			"find it taken too (set rte_pcpu_conf.base_addr)", base);
		ret = pcpu_arena_reserve(a, unit_stride, 0);
	}
	if (ret != 0)
		return ret;
	a->shm_fd = -1;
	a->shm_small_fd = -1;
	ret = shm_file(huge, a->span);
	if (ret < 0)
		goto fail;
	a->shm_fd = ret;
	if (huge) {
		ret = shm_file(0, a->span);
		if (ret < 0)
			goto fail;
		a->shm_small_fd = ret;
		words = (a->span / PCPU_HUGE_PAGE_SIZE + 63) / 64;
		a->shm_small = pcpu_fault_rte_zmalloc("pcpu_arena_small",
			sizeof(*a->shm_small) + words * sizeof(uint64_t), 0);
		if (a->shm_small == NULL) {
			PCPU_LOG(ERR, "shared area: no EAL memory for the map "
				"of fall-back ranges");
			ret = -ENOMEM;
			goto fail;
		}
		a->shm_small->nr_words = words;
	}
	a->shm = 1;
	a->shm_huge = huge;
	return 0;
fail:
	a->shm = 1;
	pcpu_arena_release(a);
	return ret;
}

void
pcpu_arena_shm_release(struct pcpu_arena *a)
{
	if (a->shm_fd >= 0)
		close(a->shm_fd);
	if (a->shm_small_fd >= 0)
		close(a->shm_small_fd);
	/* a reader's map is the owner's */
	if (!a->reader)
		rte_free(a->shm_small);
	a->shm_fd = -1;
	a->shm_small_fd = -1;
	a->shm_small = NULL;
}

/* ---------------------------------------------------------------------- */
/* Readers. */

int
pcpu_arena_readers(const struct pcpu_arena *a)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = SHM_LOCK_BYTE,
		.l_len = 1,
	};

	if (!a->shm || a->reader)
		return 0;
	if (fcntl(a->shm_fd, F_GETLK, &fl) != 0) {
		/* cannot tell: act as if one read */
		PCPU_LOG(ERR, "shared area: cannot test the readers' lock: %s",
			strerror(errno));
		return 1;
	}
	return fl.l_type != F_UNLCK;
}

void
pcpu_arena_describe(const struct pcpu_arena *a, struct pcpu_arena_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->base = a->base;
	d->span = a->span;
	d->unit_stride = a->unit_stride;
	d->unit_shift = a->unit_shift;
	d->huge = (uint32_t)a->shm_huge;
	d->small = a->shm_small;
}

unsigned int
pcpu_arena_fds(const struct pcpu_arena *a, int fds[2])
{
	unsigned int n = 0;

	if (!a->shm)
		return 0;
	fds[n++] = a->shm_fd;
	if (a->shm_small_fd >= 0)
		fds[n++] = a->shm_small_fd;
	return n;
}

/* Map the 4 KiB file over the pages of the reader's view that fell back,
 * as of one consistent read of the map. */
static int
shm_attach_small(struct pcpu_arena *view, const struct pcpu_arena_small_map *m)
{
	uint64_t seq, w, bit, page, npages = view->span / PCPU_HUGE_PAGE_SIZE;
	int mapped = 0;
	void *p;

	for (;;) {
		seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			sched_yield();
			continue;
		}
		if (mapped) {
			/* a change came in: start from the main file again */
			p = pcpu_fault_mmap((void *)view->base, view->span,
				PROT_READ, MAP_SHARED | MAP_NORESERVE |
				MAP_FIXED, view->shm_fd, 0);
			if (p == MAP_FAILED)
				return -errno;
		}
		for (w = 0; w < m->nr_words; w++) {
			uint64_t bits = __atomic_load_n(&m->bits[w],
				__ATOMIC_RELAXED);

			for (; bits != 0; bits &= bits - 1) {
				bit = (uint64_t)__builtin_ctzll(bits);
				page = w * 64 + bit;
				if (page >= npages)
					break;
				p = pcpu_fault_mmap((void *)(view->base +
					page * PCPU_HUGE_PAGE_SIZE),
					PCPU_HUGE_PAGE_SIZE, PROT_READ,
					MAP_SHARED | MAP_NORESERVE | MAP_FIXED,
					view->shm_small_fd,
					(off_t)(page * PCPU_HUGE_PAGE_SIZE));
				if (p == MAP_FAILED)
					return -errno;
				mapped = 1;
			}
		}
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&m->seq, __ATOMIC_RELAXED) == seq)
			return 0;
	}
}

int
pcpu_arena_attach(struct pcpu_arena *view, const struct pcpu_arena_desc *d,
		const int *fds, unsigned int nfds)
{
	struct flock fl = {
		.l_type = F_RDLCK,
		.l_whence = SEEK_SET,
		.l_start = SHM_LOCK_BYTE,
		.l_len = 1,
	};
	int replace, ret, fd_small = nfds > 1 ? fds[1] : -1;
	unsigned int i;
	void *p;

	if (nfds < 1 || (d->huge && nfds < 2)) {
		ret = -EINVAL;
		goto close_fds;
	}
	/* the lock first: from now on the owner keeps what we may read */
	if (fcntl(fds[0], F_SETLK, &fl) != 0) {
		ret = -errno;
		goto close_fds;
	}
	/* our own overlay of an earlier attach may be there: replace it
	 * if it is the same range, else take it away first */
	replace = view->reader && view->map_addr == (void *)d->base &&
		view->map_len == d->span;
	if (view->reader && !replace && view->map_addr != NULL) {
		pcpu_fault_munmap(view->map_addr, view->map_len);
		view->map_addr = NULL;
	}
	p = pcpu_fault_mmap((void *)d->base, d->span, PROT_READ, MAP_SHARED |
		MAP_NORESERVE | (replace ? MAP_FIXED : MAP_FIXED_NOREPLACE),
		fds[0], 0);
	if (p == MAP_FAILED) {
		ret = errno == EEXIST ? -EADDRINUSE : -errno;
		goto close_fds;
	}
	if ((uintptr_t)p != d->base) {
		/* a kernel before 4.17 took MAP_FIXED_NOREPLACE as a hint */
		pcpu_fault_munmap(p, d->span);
		ret = -EADDRINUSE;
		goto close_fds;
	}
	memset(view, 0, sizeof(*view));
	view->map_addr = p;
	view->map_len = d->span;
	view->base = d->base;
	view->span = d->span;
	view->unit_stride = d->unit_stride;
	view->unit_shift = d->unit_shift;
	view->unit_step = d->unit_stride + PCPU_ARENA_COLOUR_STEP;
	view->shm = 1;
	view->shm_huge = (int)d->huge;
	view->shm_fd = fds[0];
	view->shm_small_fd = fd_small;
	view->shm_small = (struct pcpu_arena_small_map *)(uintptr_t)d->small;
	view->reader = 1;
	if (d->small != NULL) {
		ret = shm_attach_small(view, d->small);
		if (ret != 0) {
			pcpu_arena_detach(view, 0);
			return ret;
		}
	}
	return 0;
close_fds:
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

void
pcpu_arena_detach(struct pcpu_arena *view, int keep)
{
	void *p;

	if (!view->reader)
		return;
	if (view->shm && keep) {
		/* zero pages under the readers that may still run */
		p = pcpu_fault_mmap(view->map_addr, view->map_len, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
			-1, 0);
		if (p == MAP_FAILED) {
			PCPU_LOG(ERR, "shared area: cannot cover the view: %s",
				strerror(errno));
			keep = 0;
		}
	}
	if (!keep && view->map_addr != NULL) {
		pcpu_fault_munmap(view->map_addr, view->map_len);
		view->map_addr = NULL;
		view->map_len = 0;
	}
	/* closing the file drops our lock */
	if (view->shm)
		pcpu_arena_shm_release(view);
	view->shm = 0;
	view->shm_huge = 0;
}

/* ---------------------------------------------------------------------- */
/* The owner's operations. */

int
pcpu_arena_shm_map(struct pcpu_arena *a, int socket, void *addr, uint64_t len)
{
	int ret = shm_map_file(a, a->shm_fd, addr, len, 1);

	if (ret == 0)
		pcpu_arena_bind(a, addr, len, socket);
	return ret;
}

void
pcpu_arena_shm_unmap(struct pcpu_arena *a, void *addr, uint64_t len)
{
	uint64_t off = shm_off(a, addr);

	pcpu_arena_rereserve(addr, len);
	shm_punch(a, a->shm_fd, off, len);
	shm_punch(a, a->shm_small_fd, off, len);
}

/* Whether any page of [off, off + len) fell back to the 4 KiB file. */
static int
shm_small_any(const struct pcpu_arena *a, uint64_t off, uint64_t len)
{
	uint64_t p;

	if (a->shm_small == NULL)
		return 0;
	for (p = off / PCPU_HUGE_PAGE_SIZE;
	     p < (off + len) / PCPU_HUGE_PAGE_SIZE; p++)
		if (__atomic_load_n(&a->shm_small->bits[p / 64],
				__ATOMIC_RELAXED) >> (p % 64) & 1)
			return 1;
	return 0;
}

static inline int
shm_small_test(const struct pcpu_arena *a, uint64_t page)
{
	return (int)(a->shm_small->bits[page / 64] >> (page % 64) & 1);
}

/* Pages that one fall-back may claim at once: a chunk's, at most 1 GiB. */
#define SHM_CLAIM_MAX_PAGES 512

/*
 * Mark the pages of [off, off + len) as backed by the 4 KiB file, unless
 * a reader is attached (it would not map them so). Returns 0, or -EBUSY
 * (nothing changed) if a reader is attached.
 */
static int
shm_small_claim(struct pcpu_arena *a, uint64_t off, uint64_t len)
{
	struct pcpu_arena_small_map *m = a->shm_small;
	uint64_t was[SHM_CLAIM_MAX_PAGES / 64] = { 0 };
	uint64_t p, first = off / PCPU_HUGE_PAGE_SIZE,
		end = (off + len) / PCPU_HUGE_PAGE_SIZE;
	int busy;

	if (end - first > SHM_CLAIM_MAX_PAGES || pcpu_arena_readers(a))
		return -EBUSY;
	__atomic_store_n(&m->seq, m->seq + 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (p = first; p < end; p++) {
		/* pages claimed before stay claimed */
		if (shm_small_test(a, p))
			was[(p - first) / 64] |= UINT64_C(1) << ((p - first) % 64);
		__atomic_fetch_or(&m->bits[p / 64], UINT64_C(1) << (p % 64),
			__ATOMIC_SEQ_CST);
	}
	/* a reader that locked before this saw none of these bits; one that
	 * locks after sees them all */
	busy = pcpu_arena_readers(a);
	if (busy)
		for (p = first; p < end; p++)
			if (!(was[(p - first) / 64] >> ((p - first) % 64) & 1))
				__atomic_fetch_and(&m->bits[p / 64],
					~(UINT64_C(1) << (p % 64)),
					__ATOMIC_SEQ_CST);
	__atomic_store_n(&m->seq, m->seq + 1, __ATOMIC_RELEASE);
	return busy ? -EBUSY : 0;
}

/* Populate [addr, addr + len) from file @p fd (its page size @p step):
 * map, bind, fault in. On failure the range is reserved again and holds
 * no memory. */
static int
shm_populate_file(struct pcpu_arena *a, int fd, int socket, void *addr,
		uint64_t len, uint64_t step, int noreserve)
{
	int ret = shm_map_file(a, fd, addr, len, noreserve);

	if (ret != 0)
		return ret;
	pcpu_arena_bind(a, addr, len, socket);
	ret = pcpu_arena_touch(addr, len, step);
	if (ret != 0) {
		pcpu_arena_rereserve(addr, len);
		shm_punch(a, fd, shm_off(a, addr), len);
	}
	return ret;
}

/* A hugepage area's range with pages that fell back before: each 2 MiB
 * page from the file its bit names. */
static int
shm_populate_mixed(struct pcpu_arena *a, int socket, void *addr, uint64_t len)
{
	uint64_t done, page;
	int ret = 0;

	for (done = 0; done < len; done += PCPU_HUGE_PAGE_SIZE) {
		page = (shm_off(a, addr) + done) / PCPU_HUGE_PAGE_SIZE;
		if (shm_small_test(a, page))
			ret = shm_populate_file(a, a->shm_small_fd, socket,
				RTE_PTR_ADD(addr, done), PCPU_HUGE_PAGE_SIZE,
				PCPU_SMALL_PAGE_SIZE, 1);
		else
			ret = shm_populate_file(a, a->shm_fd, socket,
				RTE_PTR_ADD(addr, done), PCPU_HUGE_PAGE_SIZE,
				PCPU_HUGE_PAGE_SIZE, 0);
		if (ret != 0)
			break;
	}
	if (ret != 0 && done != 0)
		pcpu_arena_shm_depopulate(a, addr, done, PCPU_BACKING_HUGE);
	return ret;
}

int
pcpu_arena_shm_populate(struct pcpu_arena *a, int socket, void *addr,
		uint64_t len, enum pcpu_backing how)
{
	uint64_t off = shm_off(a, addr);
	int ret;

	switch (how) {
	case PCPU_BACKING_MAPPED:
		ret = pcpu_arena_touch(addr, len, PCPU_SMALL_PAGE_SIZE);
		if (ret != 0)
			shm_punch(a, a->shm_fd, off, len);
		return ret;
	case PCPU_BACKING_HUGE:
		if (shm_small_any(a, off, len))
			return shm_populate_mixed(a, socket, addr, len);
		/* without MAP_NORESERVE the mapping reserves its hugepages:
		 * a shortage is an error here, not a SIGBUS later */
		ret = shm_populate_file(a, a->shm_fd, socket, addr, len,
			PCPU_HUGE_PAGE_SIZE, 0);
		return ret == -EINVAL ? -ENOMEM : ret;
	case PCPU_BACKING_SMALL:
	default:
		/* a 4 KiB area: its own file, mapped now (spans) */
		if (!a->shm_huge)
			return shm_populate_file(a, a->shm_fd, socket, addr,
				len, PCPU_SMALL_PAGE_SIZE, 1);
		/* a hugepage area's fall-back */
		if (shm_small_claim(a, off, len) != 0) {
			PCPU_LOG(DEBUG, "shared area: a secondary process reads "
				"the area: no fall-back to 4 KiB pages");
			return -ENOMEM;
		}
		return shm_populate_file(a, a->shm_small_fd, socket, addr, len,
			PCPU_SMALL_PAGE_SIZE, 1);
	}
}

/*
 * A range that stays mapped (PCPU_BACKING_MAPPED) is given back by the
 * hole alone: if punching fails, nothing changed and the caller keeps the
 * pages populated. A range that goes back to the reservation is given
 * back whatever happens: pages that a failed punch leaves in the file
 * are no longer mapped here, and the next mapping of the range punches
 * them out first (shm_map_file()).
 */
int
pcpu_arena_shm_depopulate(struct pcpu_arena *a, void *addr, uint64_t len,
		enum pcpu_backing how)
{
	uint64_t off = shm_off(a, addr);

	if (how == PCPU_BACKING_MAPPED)
		return shm_punch(a, a->shm_fd, off, len);
	pcpu_arena_rereserve(addr, len);
	shm_punch(a, a->shm_fd, off, len);
	shm_punch(a, a->shm_small_fd, off, len);
	return 0;
}
