/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FC_REPORT_H_
#define _FC_REPORT_H_

/*
 * What dpdk-flowcount reports, each over one snapshot of the counters:
 * the statistics table or its JSON line (periodic and final), the CSV
 * flow dump, and the telemetry commands.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "flow_table.h"
#include "flowcount.h"

#define FC_MAX_TOP 64

/* Every counter summed over the lcores at one moment. */
struct fc_snapshot {
	double secs;                 /* since the workers started */
	double interval;             /* since the previous report; 0: none */
	bool final;                  /* after the workers stopped */
	struct fc_port_stats port[FC_MAX_PORTS];
	struct fc_port_stats total;  /* over the ports */
	uint64_t non_ip_pkts, non_ip_bytes;
	uint64_t malformed_pkts, malformed_bytes;
	uint64_t overflow_pkts, overflow_bytes;  /* untracked + totals full */
	uint64_t flows_created;
	struct flow_table_info fi;
	struct {
		uint64_t rx_pkts;
		uint64_t rx_bytes;
		uint64_t flows_created;
		uint64_t hash_lookups; /* looked up in the rte_hash */
		uint64_t cpu_ns;     /* final only */
		double mpps;         /* over the interval (final: the run) */
	} lcore[RTE_MAX_LCORE];
	unsigned int nb_top;
	enum flow_scope top_scope;
	struct flow_stat top[FC_MAX_TOP];
};

/* Take a snapshot, with the top @nb_top flows of @top_scope (@rcu_id: the
 * caller's RCU id). @prev is the snapshot of the previous report (NULL:
 * rates over the whole run). */
void fc_snapshot_take(struct fc_snapshot *s, const struct fc_snapshot *prev,
		bool final, unsigned int nb_top, enum flow_scope top_scope,
		unsigned int rcu_id);

/* The statistics of @s to @out, as a table or one JSON line
 * (--stats-format). */
void fc_report_stats(const struct fc_snapshot *s, FILE *out);

/*
 * Check before any traffic that @path can be written: a dump is written to
 * "<path>.tmp" and renamed over @path, so the directory must be writable.
 * "-" (stdout) always can. Returns 0, or -1 after printing why.
 */
int fc_report_check_dump_path(const char *path);

/* Write the CSV dump of @flows (sorted, see flow_table_flows()) and the
 * bucket rows of @s to @path ("-": stdout). Returns 0 or -1 (printed). */
int fc_report_dump(const char *path, const struct flow_stat *flows, int n,
		const struct fc_snapshot *s);

/* Register the telemetry commands and let them read (before launch). */
void fc_telemetry_start(void);

/* Stop the telemetry commands from reading anything (before teardown). */
void fc_telemetry_stop(void);

#endif /* _FC_REPORT_H_ */
