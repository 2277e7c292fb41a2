/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FLOWCOUNT_H_
#define _FLOWCOUNT_H_

/*
 * dpdk-flowcount: what main.c (options, ports, launch), fc_worker.c (the
 * datapath), fc_route.c (routes) and fc_report.c (table, JSON, telemetry,
 * dump) share. As in l3fwd, the configuration is global and written only
 * before the workers start; the per-lcore statistics are a percpu object
 * that each worker writes its own copy of.
 */

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_pcpu.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "flow_counters.h"
#include "flow_table.h"

#define FC_APP "dpdk-flowcount"

#define FC_MAX_PKT_BURST 32
#define FC_MAX_RX_QUEUE_PER_LCORE 64
#define FC_BURST_TX_DRAIN_US 100
#define FC_NB_SOCKETS 8
/* ports in a port mask (-p) */
#if RTE_MAX_ETHPORTS < 32
#define FC_MAX_PORTS RTE_MAX_ETHPORTS
#else
#define FC_MAX_PORTS 32
#endif

/* RCU thread ids: lcore ids, plus one for the telemetry thread */
#define FC_RCU_TEL_ID RTE_MAX_LCORE
#define FC_RCU_NB_IDS (RTE_MAX_LCORE + 1)

/* Per-port counters of one lcore, by the port they count at. */
struct fc_port_stats {
	uint64_t rx_pkts;      /* received (RX port) */
	uint64_t rx_bytes;
	uint64_t tx_pkts;      /* sent (TX port) */
	uint64_t tx_drop;      /* TX queue full (TX port) */
	uint64_t no_route;     /* no route or no paired port (RX port) */
	uint64_t ttl_exceeded; /* TTL or hop limit <= 1 (RX port) */
	uint64_t bad_ip;       /* failed the RFC 1812 checks (RX port) */
};

/* One lcore's statistics; a percpu object, every lcore writes its copy. */
struct fc_lcore_stats {
	struct fc_port_stats port[FC_MAX_PORTS];
	uint64_t non_ip_pkts;
	uint64_t non_ip_bytes;
	uint64_t malformed_pkts;
	uint64_t malformed_bytes;
	struct flow_worker_stats fw;
	uint64_t last_rx_tsc;                 /* last non-empty RX burst */
	uint64_t cpu_ns;                      /* worker thread CPU time */
};

struct fc_routes;

/* What a worker lcore polls and where it sends. */
struct fc_lcore_conf {
	uint16_t n_rx;
	struct {
		uint16_t port;
		uint16_t queue;
	} rx[FC_MAX_RX_QUEUE_PER_LCORE];
	uint16_t txq[FC_MAX_PORTS];
	struct rte_eth_dev_tx_buffer *txb[FC_MAX_PORTS];
	/* non-NULL when the TX queue is shared with other lcores */
	rte_spinlock_t *txlock[FC_MAX_PORTS];
	const struct fc_routes *routes;       /* this lcore's socket's */
} __rte_cache_aligned;

/* Output formats of the periodic statistics. */
enum fc_stats_format {
	FC_STATS_TABLE = 0,
	FC_STATS_JSON,
};

/* Application options (l3fwd's, then flowcount's own). */
struct fc_options {
	uint32_t portmask;
	bool portmask_set;
	bool promisc;
	bool numa;                 /* memory on each lcore's socket */
	bool per_port_pool;
	bool parse_ptype;          /* accepted; always done in software */
	uint32_t max_pkt_len;      /* 0: the ports' default MTU */
	uint16_t nb_rxd;
	uint16_t nb_txd;
	const char *rule_ipv4;
	const char *rule_ipv6;
	uint32_t max_flows;
	uint64_t flow_timeout_ms;
	uint64_t stats_ms;
	enum fc_stats_format stats_format;
	const char *stats_file;    /* NULL: stdout */
	unsigned int top;
	const char *dump_file;     /* "-": stdout */
	uint64_t idle_ms;
	bool no_count;
	bool lookup_only;
	bool count_floor;
	bool pipeline;
	uint32_t mbufs;
	uint32_t flow_cache;
	enum flow_counters_scheme counters;
	bool monitor;              /* a secondary reading a running primary */
	uint64_t monitor_count;    /* reports before the monitor ends; 0: on */
};

extern struct fc_options fc_opt;
extern volatile bool fc_force_quit;
/* a worker could not set up its flow state: the run stopped, and fails */
extern volatile bool fc_worker_failed;
extern struct fc_lcore_conf fc_lcore_conf[RTE_MAX_LCORE];
extern RTE_PCPU_HANDLE(struct fc_lcore_stats, fc_stats);
extern struct flow_table *fc_ftable;
extern struct rte_rcu_qsbr *fc_qsbr;
extern uint64_t fc_start_tsc;
extern const char *fc_prgname;

/*
 * The Ethernet header a packet leaves each port with: destination (from
 * --eth-dest, default 02:00:00:00:00:<port> as l3fwd) and source (the
 * port's own address), 12 bytes copied over the received ones.
 */
struct fc_eth_rewrite {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
};
extern struct fc_eth_rewrite fc_eth[FC_MAX_PORTS];

/* Without rule files: each port's paired port (port ^ 1), or FC_NO_PORT. */
#define FC_NO_PORT UINT16_MAX
extern uint16_t fc_pair_port[FC_MAX_PORTS];

/* A counter that only the owning lcore writes: a relaxed store is a plain
 * store, and readers load it atomically. */
static inline void
fc_counter_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

static inline uint64_t
fc_counter_load(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/*
 * The number at @s in @base, for every number the options, rule files and
 * telemetry take: it must start with a digit (a hex digit in base 16, as
 * -p takes "ff"), or '+' and one. strtoull() alone would also skip white
 * space and take a minus sign, negating the value ("-1" would be
 * UINT64_MAX). Returns 0 with the value in @v and @end after it; -1 when
 * there is no number at @s or it does not fit.
 */
static inline int
fc_strtou64(const char *s, char **end, int base, uint64_t *v)
{
	const char *d = *s == '+' ? s + 1 : s;

	errno = 0;
	if (!(base == 16 ? isxdigit((unsigned char)*d) :
			isdigit((unsigned char)*d)))
		return -1;
	*v = strtoull(s, end, base);
	return errno != 0 ? -1 : 0;
}

/* the worker loop (fc_worker.c), launched on every worker lcore */
int fc_worker_main(void *arg);

#endif /* _FLOWCOUNT_H_ */
