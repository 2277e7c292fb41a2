/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_INIT_H_
#define _PCPU_INIT_H_

/**
 * @file
 * @internal The library's life cycle (pcpu_init.c): rte_pcpu_init() sets
 * up the owners, the allocator, then the size-class caches, then every
 * registered upper layer (the pools) in registration order;
 * rte_pcpu_cleanup() takes them down in the reverse order: upper layers,
 * caches, allocator, owners.
 */

#include <sys/queue.h>

#include <rte_common.h>

/** An upper layer's part in the life cycle. */
struct pcpu_layer {
	TAILQ_ENTRY(pcpu_layer) next; /**< Registry link. */
	const char *name;             /**< For messages. */
	/** After the allocator and the caches are set up: 0, or -1 with
	 * rte_errno and one log line (rte_pcpu_init() then fails). */
	int (*init)(void);
	/** Before the caches and the allocator go: release everything. */
	void (*cleanup)(void);
};

/** Register @p l, from a constructor (RTE_INIT), before rte_pcpu_init(). */
void pcpu_init_layer_register(struct pcpu_layer *l);

/**
 * Define upper layer @p var (named @p lname, with the functions
 * @p init_fn and @p cleanup_fn, either NULL) and register it when the
 * library is loaded. Layers come up in the order their files' constructors
 * run and go down in the reverse order.
 */
#define PCPU_INIT_LAYER(var, lname, init_fn, cleanup_fn)		\
	static struct pcpu_layer var = {				\
		.name = (lname),					\
		.init = (init_fn),					\
		.cleanup = (cleanup_fn),				\
	};								\
	RTE_INIT(var##_register)					\
	{								\
		pcpu_init_layer_register(&var);				\
	}

/**
 * Whether EAL is up: rte_eal_init() ran and rte_eal_cleanup() did not
 * (as far as DPDK 22.11 lets one tell: pcpu_init.c). One system call;
 * for set-up paths, not fast paths.
 * @return 1 or 0.
 */
int pcpu_init_eal_running(void);

/**
 * Refuse @p what when EAL's memory is gone under the library: the
 * library was set up (or this is a secondary process) and
 * rte_eal_cleanup() ran, so the caches, pools and the secondary's view,
 * all in EAL memory, can no longer be read. Logs one line and sets
 * rte_errno to EINVAL. One system call (pcpu_init_eal_running()) when
 * the library is set up; for the entry points that are not fast paths.
 * @return 1 if refused, 0 otherwise.
 */
int pcpu_init_eal_gone(const char *what);

/**
 * Refuse @p what, an entry point that changes the allocator or reads EAL
 * memory, where it cannot run: in a secondary process, which only reads
 * (pcpu_proc_refuse(): ENOTSUP), or when EAL's memory is gone
 * (pcpu_init_eal_gone(): EINVAL). One log line either way.
 * @return 1 if refused, 0 otherwise.
 */
int pcpu_init_refuse(const char *what);

/**
 * Refuse @p what when the library is not set up (never, or cleaned up):
 * logs "WHAT: not set up" and sets rte_errno to EALREADY. For the entry
 * points that work on what the set-up built and do not set it up
 * themselves.
 * @return 1 if refused, 0 otherwise.
 */
int pcpu_init_not_set_up(const char *what);

/**
 * Make sure the library is set up: rte_pcpu_init(NULL) the first time.
 * @param what The public call that needs it, named in the log line of a
 *   refusal (EAL not initialised or cleaned up).
 * @return 0, or -1 with rte_errno from rte_pcpu_init().
 */
int pcpu_init_ensure(const char *what);

#endif /* _PCPU_INIT_H_ */
