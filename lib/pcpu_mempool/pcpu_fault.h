/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_FAULT_H_
#define _PCPU_FAULT_H_

/**
 * @file
 * @internal Failure points. Every call the library makes that can fail
 * for a reason outside it (the kernel, libc, libnuma, EAL and the DPDK
 * libraries) goes through one of the wrappers below. A normal build
 * compiles each wrapper to the call itself. A build with
 * -Dfault_injection=true (PCPU_FAULT_INJECTION, for tests only) counts
 * the calls of each point and can make the N-th one fail, with the error
 * the real call would give (pcpu_fault.c), so that a test can fail every
 * call in turn and check that the library stays correct, as SQLite's
 * malloc and I/O error tests do (app/test/test_pcpu_fault.c).
 *
 * A new failure point is one line in PCPU_FAULT_POINTS and one wrapper.
 * The wrappers of calls that need _GNU_SOURCE or DPDK's headers are
 * macros, so that this header needs neither (pcpu_chunk.c is built
 * without EAL); a caller includes what it calls. Their arguments are
 * evaluated once.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <numa.h>
#include <numaif.h>

/** The failure points: identifier and name (for reports). */
#define PCPU_FAULT_POINTS(X) \
	X(MMAP, "mmap") \
	X(MUNMAP, "munmap") \
	X(MADVISE, "madvise") \
	X(MBIND, "mbind") \
	X(NUMA, "libnuma") \
	X(MEMFD_CREATE, "memfd_create") \
	X(FTRUNCATE, "ftruncate") \
	X(FALLOCATE, "fallocate") \
	X(MALLOC, "malloc/calloc/realloc") \
	X(RTE_MALLOC, "rte_malloc") \
	X(MEMZONE, "rte_memzone_reserve") \
	X(RING, "rte_ring_create") \
	X(RCU_DQ, "rte_rcu_qsbr_dq_create") \
	X(HASH, "rte_hash_create") \
	X(TELEMETRY, "telemetry registration") \
	X(LCORE_CB, "lcore callback registration") \
	X(MP, "rte_mp request/action")

/** A failure point. */
enum pcpu_fault_point {
#define PCPU_FAULT_ENUM(id, name) PCPU_FAULT_ ## id,
	PCPU_FAULT_POINTS(PCPU_FAULT_ENUM)
#undef PCPU_FAULT_ENUM
	PCPU_FAULT_NB
};

#ifdef PCPU_FAULT_INJECTION

/** Count a call of @p point; 1 if this call must fail. MT-safe. */
int pcpu_fault_hit(enum pcpu_fault_point point);

/** Account @p bytes of address space the library mapped (positive) or
 * unmapped (negative) with a mapping of its own (not MAP_FIXED). */
void pcpu_fault_map_account(int64_t bytes);

/*
 * Test control, fault-injection builds only. Counts start at 0 at
 * pcpu_fault_arm() and pcpu_fault_reset().
 */

/** Make call @p nth (1: the next one) of @p point fail, once; 0: none. */
void pcpu_fault_arm(enum pcpu_fault_point point, uint64_t nth);

/** Disarm every point and zero the call and failure counts. */
void pcpu_fault_reset(void);

/** Calls of @p point since it was armed or reset. */
uint64_t pcpu_fault_calls(enum pcpu_fault_point point);

/** Calls of @p point made to fail since it was armed or reset. */
uint64_t pcpu_fault_fired(enum pcpu_fault_point point);

/** Name of @p point. */
const char *pcpu_fault_name(enum pcpu_fault_point point);

/** Bytes of address space the library holds in mappings of its own. */
int64_t pcpu_fault_mapped_bytes(void);

#else /* !PCPU_FAULT_INJECTION */

#define pcpu_fault_hit(point) 0
#define pcpu_fault_map_account(bytes) do { } while (0)

#endif /* PCPU_FAULT_INJECTION */

/** mmap(2): ENOMEM. */
static inline void *
pcpu_fault_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off)
{
	void *p;

	if (pcpu_fault_hit(PCPU_FAULT_MMAP)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	p = mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && !(flags & MAP_FIXED))
		pcpu_fault_map_account((int64_t)len);
	return p;
}

/** munmap(2) of a whole mapping made by pcpu_fault_mmap(): ENOMEM (the
 * limit on mappings, when unmapping splits one). */
static inline int
pcpu_fault_munmap(void *addr, size_t len)
{
	if (pcpu_fault_hit(PCPU_FAULT_MUNMAP)) {
		errno = ENOMEM;
		return -1;
	}
	if (munmap(addr, len) != 0)
		return -1;
	pcpu_fault_map_account(-(int64_t)len);
	return 0;
}

/** madvise(2): ENOMEM. */
static inline int
pcpu_fault_madvise(void *addr, size_t len, int advice)
{
	if (pcpu_fault_hit(PCPU_FAULT_MADVISE)) {
		errno = ENOMEM;
		return -1;
	}
	return madvise(addr, len, advice);
}

/** mbind(2) (libnuma's wrapper): ENOMEM. */
static inline long
pcpu_fault_mbind(void *addr, unsigned long len, int mode,
		const unsigned long *nodemask, unsigned long maxnode,
		unsigned int flags)
{
	if (pcpu_fault_hit(PCPU_FAULT_MBIND)) {
		errno = ENOMEM;
		return -1;
	}
	return mbind(addr, len, mode, nodemask, maxnode, flags);
}

/** numa_available(): -1, as on a system without NUMA support. */
static inline int
pcpu_fault_numa_available(void)
{
	if (pcpu_fault_hit(PCPU_FAULT_NUMA))
		return -1;
	return numa_available();
}

/** ftruncate(2): ENOSPC. */
static inline int
pcpu_fault_ftruncate(int fd, off_t len)
{
	if (pcpu_fault_hit(PCPU_FAULT_FTRUNCATE)) {
		errno = ENOSPC;
		return -1;
	}
	return ftruncate(fd, len);
}

/** malloc(3) of metadata: ENOMEM. */
static inline void *
pcpu_fault_malloc(size_t size)
{
	if (pcpu_fault_hit(PCPU_FAULT_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(size);
}

/** calloc(3) of metadata: ENOMEM. */
static inline void *
pcpu_fault_calloc(size_t n, size_t size)
{
	if (pcpu_fault_hit(PCPU_FAULT_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return calloc(n, size);
}

/** realloc(3) of metadata: ENOMEM, @p p left as it was. */
static inline void *
pcpu_fault_realloc(void *p, size_t size)
{
	if (pcpu_fault_hit(PCPU_FAULT_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, size);
}

/** memfd_create(2) (needs _GNU_SOURCE): ENOMEM. */
#define pcpu_fault_memfd_create(name, flags) \
	(pcpu_fault_hit(PCPU_FAULT_MEMFD_CREATE) ? (errno = ENOMEM, -1) : \
		memfd_create(name, flags))

/** fdopen(3), which allocates its FILE: the malloc point, ENOMEM. */
#define pcpu_fault_fdopen(fd, mode) \
	(pcpu_fault_hit(PCPU_FAULT_MALLOC) ? (errno = ENOMEM, (FILE *)NULL) : \
		fdopen(fd, mode))

/** fallocate(2) (needs _GNU_SOURCE): ENOSPC. */
#define pcpu_fault_fallocate(fd, mode, off, len) \
	(pcpu_fault_hit(PCPU_FAULT_FALLOCATE) ? (errno = ENOSPC, -1) : \
		fallocate(fd, mode, off, len))

/*
 * DPDK calls: NULL (or a negative errno) with rte_errno = ENOMEM, as
 * when EAL's memory runs out. The caller includes the DPDK header of
 * the call and <rte_errno.h>.
 */

/** rte_malloc(). */
#define pcpu_fault_rte_malloc(type, size, align) \
	(pcpu_fault_hit(PCPU_FAULT_RTE_MALLOC) ? \
		(rte_errno = ENOMEM, (void *)NULL) : \
		rte_malloc(type, size, align))

/** rte_zmalloc(). */
#define pcpu_fault_rte_zmalloc(type, size, align) \
	(pcpu_fault_hit(PCPU_FAULT_RTE_MALLOC) ? \
		(rte_errno = ENOMEM, (void *)NULL) : \
		rte_zmalloc(type, size, align))

/** rte_zmalloc_socket(). */
#define pcpu_fault_rte_zmalloc_socket(type, size, align, socket) \
	(pcpu_fault_hit(PCPU_FAULT_RTE_MALLOC) ? \
		(rte_errno = ENOMEM, (void *)NULL) : \
		rte_zmalloc_socket(type, size, align, socket))

/** rte_memzone_reserve_aligned(). */
#define pcpu_fault_rte_memzone_reserve_aligned(name, len, socket, flags, \
		align) \
	(pcpu_fault_hit(PCPU_FAULT_MEMZONE) ? \
		(rte_errno = ENOMEM, (const struct rte_memzone *)NULL) : \
		rte_memzone_reserve_aligned(name, len, socket, flags, align))

/** rte_ring_create(). */
#define pcpu_fault_rte_ring_create(name, count, socket, flags) \
	(pcpu_fault_hit(PCPU_FAULT_RING) ? \
		(rte_errno = ENOMEM, (struct rte_ring *)NULL) : \
		rte_ring_create(name, count, socket, flags))

/** rte_ring_create_elem(). */
#define pcpu_fault_rte_ring_create_elem(name, esize, count, socket, flags) \
	(pcpu_fault_hit(PCPU_FAULT_RING) ? \
		(rte_errno = ENOMEM, (struct rte_ring *)NULL) : \
		rte_ring_create_elem(name, esize, count, socket, flags))

/** rte_rcu_qsbr_dq_create(). */
#define pcpu_fault_rte_rcu_qsbr_dq_create(params) \
	(pcpu_fault_hit(PCPU_FAULT_RCU_DQ) ? \
		(rte_errno = ENOMEM, (struct rte_rcu_qsbr_dq *)NULL) : \
		rte_rcu_qsbr_dq_create(params))

/** rte_hash_create(). */
#define pcpu_fault_rte_hash_create(params) \
	(pcpu_fault_hit(PCPU_FAULT_HASH) ? \
		(rte_errno = ENOMEM, (struct rte_hash *)NULL) : \
		rte_hash_create(params))

/** rte_telemetry_register_cmd(): -ENOMEM. */
#define pcpu_fault_rte_telemetry_register_cmd(cmd, fn, help) \
	(pcpu_fault_hit(PCPU_FAULT_TELEMETRY) ? -ENOMEM : \
		rte_telemetry_register_cmd(cmd, fn, help))

/** rte_lcore_callback_register(): NULL (EAL sets no rte_errno). */
#define pcpu_fault_rte_lcore_callback_register(name, init, uninit, arg) \
	(pcpu_fault_hit(PCPU_FAULT_LCORE_CB) ? (void *)NULL : \
		rte_lcore_callback_register(name, init, uninit, arg))

/*
 * EAL's multi-process channel (rte_mp), as when EAL cannot allocate for
 * the message or the action: -1 with rte_errno = ENOMEM. The caller
 * includes <rte_eal.h>.
 */

/** rte_mp_action_register(). */
#define pcpu_fault_rte_mp_action_register(name, action) \
	(pcpu_fault_hit(PCPU_FAULT_MP) ? (rte_errno = ENOMEM, -1) : \
		rte_mp_action_register(name, action))

/** rte_mp_request_sync(): nothing sent (@p reply zeroed, as EAL does
 * first). */
#define pcpu_fault_rte_mp_request_sync(req, reply, ts) \
	(pcpu_fault_hit(PCPU_FAULT_MP) ? \
		(memset(reply, 0, sizeof(*(reply))), rte_errno = ENOMEM, -1) : \
		rte_mp_request_sync(req, reply, ts))

#endif /* _PCPU_FAULT_H_ */
