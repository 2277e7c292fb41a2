/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Telemetry commands of the percpu allocator and its pools:
 *
 *   /pcpu/info                  page size, unit stride, chunk size, limit,
 *                               lcores with memory
 *   /pcpu/stats                 every field of struct rte_pcpu_stats
 *   /pcpu/audit                 rte_pcpu_audit() and every pool's
 *                               rte_pcpu_mempool_audit(): the results
 *   /pcpu/owners                owner names, the root first
 *   /pcpu/owner,<name>          one owner: what it holds, its peak,
 *                               limit and counts, per NUMA socket
 *   /pcpu_mempool/list          pool names
 *   /pcpu_mempool/info,<name>   one pool: configuration, counts, budget,
 *                               statistics, per-lcore caches
 *
 * Callbacks run on the telemetry thread (not an lcore): they read
 * per-lcore state with relaxed atomic loads through the library's locked
 * read functions, never through rte_lcore_id(). Dict keys use only
 * [A-Za-z0-9_/], as DPDK 22.11 requires; 22.11 has only the int and u64
 * value types.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_telemetry.h>

#include "rte_pcpu.h"
#include "rte_pcpu_mempool.h"
#include "rte_pcpu_owner.h"
#include "pcpu_fault.h"
#include "pcpu_init.h"
#include "pcpu_compat.h"
#include "pcpu_log.h"
#include "pcpu_mempool_audit.h"

/* Add @p v[] under @p key as an array up to the last NUMA node with a
 * non-zero value (node 0 at least). */
static void
tel_add_per_socket(struct rte_tel_data *d, const char *key,
		const uint64_t v[RTE_MAX_NUMA_NODES])
{
	struct rte_tel_data *sock;
	unsigned int i, last = 0;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (v[i] != 0)
			last = i;
	sock = rte_tel_data_alloc();
	if (sock == NULL)
		return;
	rte_tel_data_start_array(sock, RTE_TEL_UINT_VAL);
	for (i = 0; i <= last; i++)
		rte_tel_data_add_array_uint(sock, v[i]);
	if (rte_tel_data_add_dict_container(d, key, sock, 0) != 0)
		rte_tel_data_free(sock);
}

static int
tel_pcpu_info(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	struct rte_pcpu_stats s;
	struct rte_tel_data *lcores;
	unsigned int lcore_id;

	if (rte_pcpu_stats_get(&s) != 0)
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "initialised",
		__atomic_load_n(&rte_pcpu_shared.initialised,
			__ATOMIC_ACQUIRE) != 0);
	rte_tel_data_add_dict_uint(d, "page_size", s.page_size);
	rte_tel_data_add_dict_uint(d, "unit_stride", s.unit_stride);
	rte_tel_data_add_dict_uint(d, "chunk_size", s.chunk_size);
	rte_tel_data_add_dict_uint(d, "max_populated", s.max_populated);
	rte_tel_data_add_dict_uint(d, "max_size", RTE_PCPU_MAX_SIZE);
	rte_tel_data_add_dict_uint(d, "max_align", RTE_PCPU_MAX_ALIGN);
	rte_tel_data_add_dict_uint(d, "nr_lcores", s.nr_lcores);
	lcores = rte_tel_data_alloc();
	if (lcores == NULL)
		return 0;
	rte_tel_data_start_array(lcores, RTE_TEL_UINT_VAL);
	for (lcore_id = __rte_pcpu_lcore_next(0); lcore_id < RTE_MAX_LCORE;
	     lcore_id = __rte_pcpu_lcore_next(lcore_id + 1))
		rte_tel_data_add_array_uint(lcores, lcore_id);
	if (rte_tel_data_add_dict_container(d, "lcores", lcores, 0) != 0)
		rte_tel_data_free(lcores);
	return 0;
}

/* The fields of struct rte_pcpu_stats that /pcpu/stats gives under their
 * own names, in order (the per-socket list follows them). */
#define TEL_STATS_FIELDS(X) \
	X(nr_alloc) X(nr_dealloc) X(nr_cur_alloc) X(nr_max_alloc) \
	X(nr_alloc_fail) X(nr_chunks) X(nr_max_chunks) X(min_alloc_size) \
	X(max_alloc_size) X(populated_bytes) X(max_populated_bytes) \
	X(populated_pages) X(empty_pop_pages) X(page_size) X(max_populated) \
	X(unit_stride) X(chunk_size) X(nr_lcores) X(nr_huge_fallback) \
	X(cached_objs) X(cached_bytes) X(base_addr) X(shared) X(readers) \
	X(nr_depop_deferred)

static int
tel_pcpu_stats(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	struct rte_pcpu_stats s;

	if (rte_pcpu_stats_get(&s) != 0)
		return -1;
	rte_tel_data_start_dict(d);
#define TEL_STATS_ADD(field) \
	rte_tel_data_add_dict_uint(d, #field, s.field);
	TEL_STATS_FIELDS(TEL_STATS_ADD)
#undef TEL_STATS_ADD
	tel_add_per_socket(d, "populated_bytes_socket",
		s.populated_bytes_socket);
	return 0;
}

/* Audit of every pool, counted. */
struct tel_audit {
	unsigned int pools;
	unsigned int failures;
	char first[RTE_PCPU_MEMPOOL_NAMESIZE];
};

static void
tel_audit_pool(struct rte_pcpu_mempool *mp, void *arg)
{
	struct tel_audit *a = arg;

	a->pools++;
	if (rte_pcpu_mempool_audit(mp) == 0)
		return;
	if (a->failures++ == 0)
		snprintf(a->first, sizeof(a->first), "%s",
			rte_pcpu_mempool_name(mp));
}

static int
tel_pcpu_audit(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	struct tel_audit a = { 0 };
	int ret;

	ret = rte_pcpu_audit() == 0 ? 0 : -rte_errno;
	rte_pcpu_mempool_walk(tel_audit_pool, &a);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "allocator", ret);
	rte_tel_data_add_dict_uint(d, "pools", a.pools);
	rte_tel_data_add_dict_uint(d, "pool_failures", a.failures);
	rte_tel_data_add_dict_string(d, "first_failed_pool", a.first);
	return 0;
}

static void
tel_owner_name(struct rte_pcpu_owner *o, void *arg)
{
	rte_tel_data_add_array_string(arg, rte_pcpu_owner_name(o));
}

static int
tel_owner_list(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_pcpu_owner_walk(tel_owner_name, d);
	return 0;
}

static int
tel_owner_info(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct rte_pcpu_owner_stats st;
	struct rte_pcpu_owner *o;

	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	o = rte_pcpu_owner_lookup(params);
	if (o == NULL || rte_pcpu_owner_stats_get(o, &st) != 0)
		return -ENOENT;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", params);
	rte_tel_data_add_dict_uint(d, "id", st.id);
	rte_tel_data_add_dict_uint(d, "live_bytes", st.live_bytes);
	rte_tel_data_add_dict_uint(d, "live_copy_bytes", st.live_copy_bytes);
	rte_tel_data_add_dict_uint(d, "peak_bytes", st.peak_bytes);
	rte_tel_data_add_dict_uint(d, "limit_bytes", st.limit_bytes);
	rte_tel_data_add_dict_uint(d, "nr_alloc", st.nr_alloc);
	rte_tel_data_add_dict_uint(d, "nr_free", st.nr_free);
	rte_tel_data_add_dict_uint(d, "nr_live", st.nr_live);
	rte_tel_data_add_dict_uint(d, "nr_fail", st.nr_fail);
	rte_tel_data_add_dict_uint(d, "nr_lcores", st.nr_lcores);
	tel_add_per_socket(d, "live_bytes_socket", st.live_bytes_socket);
	return 0;
}

static int
tel_pool_list(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	pcpu_pool_tel_list(d);
	return 0;
}

static int
tel_pool_info(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	return pcpu_pool_tel_info(params, d);
}

static struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
	int registered;
} tel_cmds[] = {
	{ "/pcpu/info", tel_pcpu_info,
		"Percpu allocator configuration. Takes no parameters", 0 },
	{ "/pcpu/stats", tel_pcpu_stats,
		"Percpu allocator statistics. Takes no parameters", 0 },
	{ "/pcpu/audit", tel_pcpu_audit,
		"Audits of the percpu allocator and of every pool. Takes no "
		"parameters", 0 },
	{ "/pcpu/owners", tel_owner_list,
		"Names of the owners of percpu memory. Takes no parameters",
		0 },
	{ "/pcpu/owner", tel_owner_info,
		"One owner of percpu memory. Parameters: string owner name",
		0 },
	{ "/pcpu_mempool/list", tel_pool_list,
		"Names of the percpu pools. Takes no parameters", 0 },
	{ "/pcpu_mempool/info", tel_pool_info,
		"One percpu pool. Parameters: string pool name", 0 },
};

/*
 * Register the commands not registered yet. Telemetry is not worth
 * failing for: a command that cannot be registered is logged and tried
 * again at the next rte_pcpu_init(). DPDK 22.11 cannot unregister a
 * command, nor refuses one registered twice: each goes in once.
 * Single-threaded: constructors, and rte_pcpu_init() under its lock.
 */
static void
tel_register(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(tel_cmds); i++) {
		if (tel_cmds[i].registered)
			continue;
		ret = pcpu_fault_rte_telemetry_register_cmd(tel_cmds[i].cmd,
			tel_cmds[i].fn, tel_cmds[i].help);
		if (ret == 0)
			tel_cmds[i].registered = 1;
		else
			PCPU_LOG(WARNING, "telemetry command %s not registered: "
				"%s (tried again at the next rte_pcpu_init())",
				tel_cmds[i].cmd, strerror(-ret));
	}
}

static int
tel_layer_init(void)
{
	tel_register();
	return 0;
}

PCPU_INIT_LAYER(tel_layer, "telemetry", tel_layer_init, NULL)

/* In a constructor, as DPDK's libraries do: the commands exist as soon as
 * the application is linked with the library. */
RTE_INIT(pcpu_telemetry_init)
{
	tel_register();
}
