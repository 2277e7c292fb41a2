/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The public entry points of rte_pcpu_owner.h but rte_pcpu_alloc_owner()
 * (pcpu_front.c): argument checks, then one call down to the owners
 * (pcpu_owner.c).
 *
 * In a secondary process the owners are the primary's: the functions that
 * read (lookup, walk, statistics) ask the primary for all of them and
 * their figures (pcpu_proc.h, "Remote reads"), and keep a mirror of the
 * records so that an owner is the same kind of pointer in both; creating
 * and freeing are refused (ENOTSUP).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "rte_pcpu_owner.h"
#include "pcpu_fault.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"
#include "pcpu_util.h"

/* The prefixes of the owners the pools make for themselves ("pool:" and
 * the pool's name, "mempool:" and the rte_mempool's): a user's owner may
 * not take them, or it would pass for a pool's and take its name. */
static const char * const front_owner_reserved[] = { "pool:", "mempool:" };

/* One owner in the primary's answer. */
struct front_owner_remote {
	struct pcpu_owner_mirror rec;
	struct rte_pcpu_owner_stats st;
};

/* Primary, on its pcpu-mp thread: every owner and its figures. */
static void
front_owner_serve_one(struct rte_pcpu_owner *o, void *arg)
{
	struct front_owner_remote r;

	memset(&r, 0, sizeof(r));
	r.rec.id = o->id;
	r.rec.kind = o->kind;
	r.rec.limit = o->limit;
	memcpy(r.rec.name, o->name, sizeof(r.rec.name));
	pcpu_owner_stats(o, &r.st);
	fwrite(&r, sizeof(r), 1, arg);
}

static int
front_owner_serve(const void *arg __rte_unused, void *out __rte_unused,
		FILE *data)
{
	pcpu_owner_walk(front_owner_serve_one, data);
	return 0;
}

static struct pcpu_proc_op front_owner_op = {
	.id = PCPU_PROC_OP_OWNERS,
	.serve = front_owner_serve,
};

RTE_INIT(pcpu_front_owner_op_register)
{
	pcpu_proc_op_register(&front_owner_op);
}

/*
 * Secondary: the primary's owners and their figures, *nb of them in *out
 * (malloc'd, NULL when none), or -1 with rte_errno (one log line).
 */
static int
front_owner_fetch(struct front_owner_remote **out, size_t *nb)
{
	size_t len, n;
	void *data;

	if (pcpu_proc_call(PCPU_PROC_OP_OWNERS, NULL, NULL, &data, &len) != 0)
		return -1;
	n = len / sizeof(**out);
	if (len % sizeof(**out) != 0 || n > PCPU_OWNER_NB) {
		free(data);
		PCPU_LOG(ERR, "owners: the primary's answer has %zu bytes, "
			"not a multiple of %zu", len, sizeof(**out));
		rte_errno = EPROTO;
		return -1;
	}
	*out = data;
	*nb = n;
	return 0;
}

/* Secondary: fetch the owners and make the mirror records theirs. */
static int
front_owner_refresh(struct front_owner_remote **out, size_t *nb)
{
	struct pcpu_owner_mirror *m;
	size_t i;

	if (front_owner_fetch(out, nb) != 0)
		return -1;
	m = pcpu_fault_calloc(*nb + 1, sizeof(*m));
	if (m == NULL) {
		free(*out);
		rte_errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < *nb; i++)
		m[i] = (*out)[i].rec;
	pcpu_owner_mirror(m, (unsigned int)*nb);
	free(m);
	return 0;
}

/* Whether a user may name an owner @p name: 0, or -1 with EINVAL (one
 * log line) for a character outside the rule or a reserved prefix. */
static int
front_owner_name_check(const char *name)
{
	unsigned int i;

	if (pcpu_name_check("owner create", name) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(front_owner_reserved); i++) {
		if (strncmp(name, front_owner_reserved[i],
				strlen(front_owner_reserved[i])) == 0) {
			PCPU_LOG(ERR, "owner create: %s: the prefix \"%s\" is "
				"reserved for the owners of pools", name,
				front_owner_reserved[i]);
			rte_errno = EINVAL;
			return -1;
		}
	}
	return 0;
}

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
	if (front_owner_name_check(name) != 0)
		return NULL;
	if (pcpu_init_refuse("rte_pcpu_owner_create"))
		return NULL;
	if (pcpu_init_ensure("rte_pcpu_owner_create") != 0)
		return NULL;
	return pcpu_owner_create(name, limit_bytes, PCPU_OWNER_KIND_USER);
}

int
rte_pcpu_owner_free(struct rte_pcpu_owner *owner)
{
	if (owner == NULL)
		return 0;
	if (pcpu_init_refuse("rte_pcpu_owner_free"))
		return -1;
	return pcpu_owner_free(owner, 1u << PCPU_OWNER_KIND_USER);
}

struct rte_pcpu_owner *
rte_pcpu_owner_lookup(const char *name)
{
	struct front_owner_remote *r;
	struct rte_pcpu_owner *o;
	size_t n;

	if (name == NULL) {
		PCPU_LOG(ERR, "owner lookup: name NULL");
		rte_errno = EINVAL;
		return NULL;
	}
	/* an owner found then could not be used: its figures are gone */
	if (pcpu_init_eal_gone("rte_pcpu_owner_lookup"))
		return NULL;
	if (pcpu_proc_secondary()) {
		if (front_owner_refresh(&r, &n) != 0)
			return NULL;
		free(r);
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
		if (owner == NULL)
			PCPU_LOG(ERR, "owner name: owner NULL");
		else
			PCPU_LOG(ERR, "owner name: %p is not a live owner",
				(const void *)owner);
		rte_errno = EINVAL;
		return NULL;
	}
	return o->name;
}

/* Secondary: the primary's figures of owner @p o (a mirror record). */
static int
front_owner_remote_stats(const struct rte_pcpu_owner *o,
		struct rte_pcpu_owner_stats *stats)
{
	char name[RTE_PCPU_OWNER_NAMESIZE];
	struct front_owner_remote *r;
	uint32_t id = o->id;
	size_t n, i;

	memcpy(name, o->name, sizeof(name));
	if (front_owner_fetch(&r, &n) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (r[i].rec.id == id &&
		    strncmp(r[i].rec.name, name, sizeof(name)) == 0)
			break;
	if (i == n) {
		free(r);
		rte_errno = ENOENT;
		return -1;
	}
	*stats = r[i].st;
	free(r);
	return 0;
}

int
rte_pcpu_owner_stats_get(const struct rte_pcpu_owner *owner,
		struct rte_pcpu_owner_stats *stats)
{
	const struct rte_pcpu_owner *o = pcpu_owner_valid(owner);

	if (o == NULL || stats == NULL) {
		if (owner == NULL)
			PCPU_LOG(ERR, "owner stats: owner NULL");
		else if (o == NULL)
			PCPU_LOG(ERR, "owner stats: %p is not a live owner",
				(const void *)owner);
		else
			PCPU_LOG(ERR, "owner stats %s: stats NULL", o->name);
		rte_errno = EINVAL;
		return -1;
	}
	/* the per-lcore counters are in EAL memory */
	if (pcpu_init_eal_gone("rte_pcpu_owner_stats_get"))
		return -1;
	if (pcpu_proc_secondary())
		return front_owner_remote_stats(o, stats);
	pcpu_owner_stats(o, stats);
	return 0;
}

void
rte_pcpu_owner_walk(void (*fn)(struct rte_pcpu_owner *owner, void *arg),
		void *arg)
{
	struct front_owner_remote *r;
	size_t n, i;

	if (fn == NULL || pcpu_init_eal_gone("rte_pcpu_owner_walk"))
		return;
	if (!pcpu_proc_secondary()) {
		pcpu_owner_walk(fn, arg);
		return;
	}
	/* the primary's owners, over their mirror records, without the
	 * lock: fn may read an owner's figures, which asks the primary
	 * again (a secondary that cannot ask walks nothing, logged) */
	if (front_owner_refresh(&r, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		if (r[i].rec.id > PCPU_OWNER_NONE && r[i].rec.id < PCPU_OWNER_NB)
			fn(&pcpu_owners.rec[r[i].rec.id], arg);
	free(r);
}
