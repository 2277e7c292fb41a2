/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_ARENA_SHM_H_
#define _PCPU_ARENA_SHM_H_

/**
 * @file
 * @internal The shared backing of the arena (pcpu_arena_shm.c): the
 * arena's own operations on a shared area, which pcpu_arena.c hands over
 * to when pcpu_arena.shm is set. Same contracts as their pcpu_arena.h
 * counterparts.
 */

#include <stdint.h>

#include "pcpu_arena.h"

/*
 * Helpers of pcpu_arena.c that both backings use.
 */

/** Put the reservation (PROT_NONE, no memory) back over [addr, addr +
 * len) (logged on failure). */
void pcpu_arena_rereserve(void *addr, size_t len);

/** Bind [addr, addr + len) to NUMA node @p socket (negative: none) if
 * libnuma is usable; a failure other than "not supported" is logged. */
void pcpu_arena_bind(const struct pcpu_arena *a, void *addr, size_t len,
		int socket);

/** Fault a mapped, bound range in, writing; -ENOMEM if the system has no
 * memory for it. @p step: its page size. */
int pcpu_arena_touch(void *addr, uint64_t len, uint64_t step);

/** pcpu_arena_map() of a shared area. */
int pcpu_arena_shm_map(struct pcpu_arena *a, int socket, void *addr,
		uint64_t len);

/** pcpu_arena_unmap() of a shared area. */
void pcpu_arena_shm_unmap(struct pcpu_arena *a, void *addr, uint64_t len);

/** pcpu_arena_populate() of a shared area. */
int pcpu_arena_shm_populate(struct pcpu_arena *a, int socket, void *addr,
		uint64_t len, enum pcpu_backing how);

/** pcpu_arena_depopulate() of a shared area. */
int pcpu_arena_shm_depopulate(struct pcpu_arena *a, void *addr, uint64_t len,
		enum pcpu_backing how);

/** pcpu_arena_release() of a shared area or view: the files. */
void pcpu_arena_shm_release(struct pcpu_arena *a);

#endif /* _PCPU_ARENA_SHM_H_ */
