/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The public entry points of rte_pcpu_owner.h but rte_pcpu_alloc_owner()
 * (pcpu_front.c): argument checks, then one call down to the owners
 * (pcpu_owner.c).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rte_pcpu_owner.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"

struct rte_pcpu_owner *
rte_pcpu_owner_create(const char *name, uint64_t limit_bytes)
{
	if (name == NULL || name[0] == '\0') {
		PCPU_LOG(ERR, "owner create: no name");
		rte_errno = EINVAL;
		return NULL;
	}
	if (strnlen(name, RTE_PCPU_OWNER_NAMESIZE) >= RTE_PCPU_OWNER_NAMESIZE) {
		PCPU_LOG(ERR, "owner create: name longer than %u characters",
			RTE_PCPU_OWNER_NAMESIZE - 1);
		rte_errno = ENAMETOOLONG;
		return NULL;
	}
	if (pcpu_init_ensure() != 0)
		return NULL;
	return pcpu_owner_create(name, limit_bytes, PCPU_OWNER_KIND_USER);
}

int
rte_pcpu_owner_free(struct rte_pcpu_owner *owner)
{
	if (owner == NULL)
		return 0;
	return pcpu_owner_free(owner, 1u << PCPU_OWNER_KIND_USER);
}

struct rte_pcpu_owner *
rte_pcpu_owner_lookup(const char *name)
{
	struct rte_pcpu_owner *o;

	if (name == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	o = pcpu_owner_find(name);
	if (o == NULL)
		rte_errno = ENOENT;
	return o;
}

const char *
rte_pcpu_owner_name(const struct rte_pcpu_owner *owner)
{
	const struct rte_pcpu_owner *o = pcpu_owner_valid(owner);

	if (o == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	return o->name;
}

int
rte_pcpu_owner_stats_get(const struct rte_pcpu_owner *owner,
		struct rte_pcpu_owner_stats *stats)
{
	const struct rte_pcpu_owner *o = pcpu_owner_valid(owner);

	if (o == NULL || stats == NULL) {
		rte_errno = EINVAL;
		return -1;
	}
	pcpu_owner_stats(o, stats);
	return 0;
}

void
rte_pcpu_owner_walk(void (*fn)(struct rte_pcpu_owner *owner, void *arg),
		void *arg)
{
	if (fn != NULL)
		pcpu_owner_walk(fn, arg);
}
