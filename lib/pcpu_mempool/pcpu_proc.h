/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_PROC_H_
#define _PCPU_PROC_H_

/**
 * @file
 * @internal The process model (pcpu_proc.c): what a DPDK secondary process
 * needs to read the primary's percpu memory, and the refusal of what it
 * may not do. Below the life cycle (pcpu_init.c), above the caches and
 * the allocator; the entry points, the pools and the statistics call it.
 *
 * The primary publishes, at the end of rte_pcpu_init() and for as long as
 * the allocator is set up, a memzone (struct pcpu_proc_zone) with what a
 * secondary reads without asking (the area's description, the lcore mask
 * and the lcores' nodes), and answers a request over EAL's multi-process
 * channel with the area's file descriptors. A secondary attaches on its
 * first reading call: it asks for the files, maps them read-only at the
 * area's address (pcpu_arena_attach()) and fills rte_pcpu_shared.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_eal.h>

/** Whether this process is a DPDK secondary process. */
static inline int
pcpu_proc_secondary(void)
{
	return rte_eal_process_type() == RTE_PROC_SECONDARY;
}

/** Non-zero while this process is a primary with the library set up
 * (pcpu_proc_primary_set()): the writers' check is then one load. */
extern int pcpu_proc_primary_ready;

/** Whether this process is a primary with the library set up: one load. */
static inline int
pcpu_proc_primary_is_ready(void)
{
	return __atomic_load_n(&pcpu_proc_primary_ready, __ATOMIC_RELAXED);
}

/** pcpu_proc_refuse() when the process is not known to be a primary. */
int pcpu_proc_refuse_slow(const char *what);

/** Called by the life cycle (pcpu_init.c) in a primary: @p ready 1 once
 * the library is set up, 0 when it is cleaned up. */
void pcpu_proc_primary_set(int ready);

/**
 * In a secondary process: log that @p what only reads there, set
 * rte_errno to ENOTSUP and return 1. In a primary: 0. On the allocation
 * and free paths: one load while the library is set up in a primary (the
 * EAL's process type is a call into EAL otherwise).
 */
static inline int
pcpu_proc_refuse(const char *what)
{
	if (likely(pcpu_proc_primary_is_ready()))
		return 0;
	return pcpu_proc_refuse_slow(what);
}

/** Whether the area can be shared: a primary with EAL's multi-process
 * channel (not --no-shconf, not --in-memory). */
int pcpu_proc_can_share(void);

/**
 * Primary, at the end of rte_pcpu_init() with a shared area: publish the
 * memzone and answer secondaries. 0, or -1 with rte_errno and one log
 * line (secondaries then cannot attach; the allocator works).
 */
int pcpu_proc_publish(void);

/** Primary, at the start of rte_pcpu_cleanup(): stop answering, tell the
 * attached secondaries that the allocator goes away. */
void pcpu_proc_unpublish(void);

/**
 * Secondary: attach to the primary's allocator (nothing if attached to
 * its current one). 0, or -1 with rte_errno (ENOENT: the primary has not
 * set it up; EADDRINUSE: the area's range is taken here; ETIMEDOUT, ...)
 * and one log line (ENOENT: at DEBUG level, it is a normal state).
 */
int pcpu_proc_attach(void);

/** Secondary: detach (rte_pcpu_cleanup()); the primary is told.
 * 0, or -1 with rte_errno EALREADY if it was not attached. */
int pcpu_proc_detach(void);

/** Secondary: NUMA node of the primary's lcore @p lcore_id (-1: none). */
int pcpu_proc_lcore_socket(unsigned int lcore_id);

/*
 * Remote reads (pcpu_proc_remote.c): the primary reads its allocator or
 * a pool for a secondary. Why on request rather than from counters in
 * shared memory: the allocator's figures are read under its locks so
 * that they agree with each other, and its chunks' metadata is
 * process-local; a secondary that took the primary's locks could hold
 * them forever if it were killed. The primary reads on a thread of its
 * own, pcpu-mp (not EAL's multi-process thread, which a thread holding
 * those locks may be waiting for), and answers in the reply message, and
 * in a memfd what does not fit.
 */

/** Bytes of an operation's argument and of its small answer. */
#define PCPU_PROC_OP_ARG_MAX 96

/** Operations of the layers above (ids unique). */
enum pcpu_proc_op_id {
	PCPU_PROC_OP_STATS = 1,   /**< struct rte_pcpu_stats, as data. */
	PCPU_PROC_OP_DUMP,        /**< rte_pcpu_dump() text, as data. */
	PCPU_PROC_OP_AUDIT,       /**< rte_pcpu_audit(). */
	PCPU_PROC_OP_CACHE,       /**< rte_pcpu_cache_stats_get(). */
	PCPU_PROC_OP_CHUNKS,      /**< rte_pcpu_chunk_stats[], as data. */
	PCPU_PROC_OP_POOL_AUDIT,  /**< rte_pcpu_mempool_audit() by name. */
	PCPU_PROC_OP_OWNERS,      /**< Every owner and its statistics. */
};

/** An operation a secondary can have the primary do. */
struct pcpu_proc_op {
	struct pcpu_proc_op *next;    /**< Registry link. */
	enum pcpu_proc_op_id id;      /**< Which. */
	/**
	 * Primary, on the pcpu-mp thread: do it with the request's @p arg
	 * (PCPU_PROC_OP_ARG_MAX bytes), put a small answer in @p out (as
	 * many bytes) and anything larger into @p data.
	 * @return 0, or -1 with rte_errno (passed on to the secondary).
	 */
	int (*serve)(const void *arg, void *out, FILE *data);
};

/** Register @p op, from a constructor (RTE_INIT). */
void pcpu_proc_op_register(struct pcpu_proc_op *op);

/**
 * Secondary: have the primary do operation @p id.
 *
 * @param arg Its argument, PCPU_PROC_OP_ARG_MAX bytes (NULL: zeros).
 * @param out Receives the small answer, PCPU_PROC_OP_ARG_MAX bytes (NULL:
 *   not wanted).
 * @param data Receives a malloc'd, NUL-terminated copy of the data
 *   written (NULL: not wanted; *data NULL if there was none).
 * @param len Its size in bytes (without the NUL).
 * @return The operation's 0 or -1 (rte_errno its rte_errno), or -1 with
 *   rte_errno ENOENT (no allocator in the primary), ETIMEDOUT (no
 *   answer in 5 s), ENOMEM, EPROTO; one log line for the last three.
 */
int pcpu_proc_call(enum pcpu_proc_op_id id, const void *arg, void *out,
		void **data, size_t *len);

/** Primary, in pcpu_proc_publish(): start answering remote reads. */
int pcpu_proc_remote_start(void);

/** Primary, in pcpu_proc_unpublish(): stop, after answering what came. */
void pcpu_proc_remote_stop(void);

#endif /* _PCPU_PROC_H_ */
