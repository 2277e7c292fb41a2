/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_MEMPOOL_AUDIT_H_
#define _PCPU_MEMPOOL_AUDIT_H_

/**
 * @file
 * @internal What the telemetry commands (pcpu_telemetry.c) and
 * rte_pcpu_audit() (pcpu_stats.c) ask of the pools (pcpu_mempool_audit.c).
 */

#include <stdint.h>

#include <rte_telemetry.h>

/** Add every pool name to @p d (an array of strings already started).
 * Takes the registry lock. */
void pcpu_pool_tel_list(struct rte_tel_data *d);

/**
 * Fill dict @p d (already started) with the configuration, counts,
 * statistics and per-lcore caches of the pool named @p name. Takes the
 * registry lock, so the pool cannot go away meanwhile.
 * @return 0, or -ENOENT if there is no such pool, -ENOMEM if a container
 *   could not be allocated.
 */
int pcpu_pool_tel_info(const char *name, struct rte_tel_data *d);

/**
 * Add every pool's objects to its owner in @p bytes (bytes per copy, as
 * charged) and @p objs, arrays indexed by owner id (pcpu_owner.h). Takes
 * the registry lock and each pool's lock.
 */
void pcpu_pool_owner_sums(uint64_t *bytes, uint64_t *objs);

#endif /* _PCPU_MEMPOOL_AUDIT_H_ */
