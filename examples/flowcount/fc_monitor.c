/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The monitor mode of dpdk-flowcount (fc_monitor.h).
 *
 * What the primary's workers pay for it: nothing they would not pay for
 * the primary's own report. The monitor writes no memory the primary
 * reads, takes none of its locks, has no RCU thread id (so its grace
 * periods never wait for it) and sends it nothing: it reads the percpu
 * counters and the flow table as the primary's main lcore reads them for
 * a report, the lines of the counters it reads then being shared, once
 * per report, instead of owned by their lcore.
 *
 * The end. Once its workers stopped, the primary clears @c running: the
 * counts are final, and monitors end their reports. Before it changes the
 * table (its own summary moves the live flows into the totals) it waits
 * for the monitors that write a dump (@c dumpers, which such a monitor
 * raises at attach and drops once it has read the flows), for at most
 * FC_MONITOR_DUMP_WAIT_MS; then it clears @c readable and waits until no
 * monitor is in the middle of a read (@c reading, which a monitor raises
 * around each read after seeing @c readable set), for at most
 * FC_MONITOR_WAIT_MS. Those bounds are what a monitor killed at the wrong
 * moment costs the primary.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>

#include <rte_pcpu.h>

#include "fc_monitor.h"
#include "fc_report.h"
#include "flowcount.h"

#define FC_MONITOR_MZ "flowcount_monitor"
#define FC_MONITOR_MAGIC 0x66636d6fu   /* "fcmo" */
/* Raised whenever what a monitor reads changes layout: this zone, struct
 * fc_lcore_stats (2: flow_worker_stats.hash_lookups), the flow table's
 * shared structures. */
#define FC_MONITOR_VERSION 3u
/* longest wait of the primary for a monitor's read in progress */
#define FC_MONITOR_WAIT_MS 100
/* longest wait of the primary for the monitors' final dumps */
#define FC_MONITOR_DUMP_WAIT_MS 2000

/* What the primary publishes. */
struct fc_monitor_zone {
	uint32_t magic;
	uint32_t version;
	uint32_t running;             /* the workers run */
	uint32_t readable;            /* the table may be read */
	uint32_t reading;             /* monitors reading the table now */
	uint32_t dumpers;             /* monitors yet to read their dump */
	uint32_t scheme;              /* enum flow_counters_scheme */
	int32_t pid;                  /* the primary */
	uint32_t portmask;
	struct flow_table *ft;        /* NULL: --no-count */
	struct fc_lcore_stats *stats; /* percpu statistics */
	uint64_t start_tsc;
	uint64_t workers[(RTE_MAX_LCORE + 63) / 64]; /* lcores with RX */
};

static struct fc_monitor_zone *fc_zone;

void
fc_monitor_publish(void)
{
	const struct rte_memzone *mz;
	struct fc_monitor_zone *z;
	unsigned int l;

	mz = rte_memzone_lookup(FC_MONITOR_MZ);
	if (mz == NULL)
		mz = rte_memzone_reserve(FC_MONITOR_MZ, sizeof(*z),
			SOCKET_ID_ANY, 0);
	if (mz == NULL) {
		/* the forwarder does not need it */
		printf("flowcount: no memzone for monitors (%s): --monitor "
			"cannot attach\n", rte_strerror(rte_errno));
		return;
	}
	z = mz->addr;
	memset(z, 0, sizeof(*z));
	z->magic = FC_MONITOR_MAGIC;
	z->version = FC_MONITOR_VERSION;
	z->scheme = (uint32_t)fc_opt.counters;
	z->pid = (int32_t)getpid();
	z->portmask = fc_opt.portmask;
	z->ft = fc_ftable;
	z->stats = fc_stats;
	z->start_tsc = fc_start_tsc;
	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (fc_lcore_conf[l].n_rx > 0)
			z->workers[l / 64] |= UINT64_C(1) << (l % 64);
	__atomic_store_n(&z->readable, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&z->running, 1, __ATOMIC_RELEASE);
	fc_zone = z;
}

/* Wait at most @p ms for *@p count to be 0. */
static void
fc_monitor_wait_zero(const uint32_t *count, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms && __atomic_load_n(count, __ATOMIC_SEQ_CST) != 0;
	     i++)
		rte_delay_us_sleep(1000);
}

void
fc_monitor_unpublish(void)
{
	if (fc_zone == NULL)
		return;
	__atomic_store_n(&fc_zone->running, 0, __ATOMIC_SEQ_CST);
	fc_monitor_wait_zero(&fc_zone->dumpers, FC_MONITOR_DUMP_WAIT_MS);
	__atomic_store_n(&fc_zone->readable, 0, __ATOMIC_SEQ_CST);
	fc_monitor_wait_zero(&fc_zone->reading, FC_MONITOR_WAIT_MS);
	fc_zone = NULL;
}

/* Start reading the primary's table; false once it may not be read. */
static bool
fc_monitor_read_begin(void)
{
	__atomic_fetch_add(&fc_zone->reading, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&fc_zone->readable, __ATOMIC_SEQ_CST))
		return true;
	__atomic_fetch_sub(&fc_zone->reading, 1, __ATOMIC_RELEASE);
	return false;
}

/* End a read; false when the primary forbade reading meanwhile: its
 * bounded wait may have ended before the read did, and the table changed
 * under it (still allowed at the end: it waits for this read to end). */
static bool
fc_monitor_read_end(void)
{
	bool whole = __atomic_load_n(&fc_zone->readable, __ATOMIC_SEQ_CST);

	__atomic_fetch_sub(&fc_zone->reading, 1, __ATOMIC_RELEASE);
	return whole;
}

/* Sleep @p ms in 1 ms steps; false if told to stop meanwhile. */
static bool
fc_monitor_sleep(uint64_t ms)
{
	uint64_t i;

	for (i = 0; i < ms; i++) {
		if (fc_force_quit ||
		    !__atomic_load_n(&fc_zone->running, __ATOMIC_ACQUIRE))
			return false;
		rte_delay_us_sleep(1000);
	}
	return !fc_force_quit;
}

/* A monitor that writes a dump holds the primary's table until it has
 * read the flows (struct fc_monitor_zone.dumpers); this lets it go. */
static void
fc_monitor_dump_read(bool *dumper)
{
	if (*dumper)
		__atomic_fetch_sub(&fc_zone->dumpers, 1, __ATOMIC_SEQ_CST);
	*dumper = false;
}

int
fc_monitor_main(FILE *out)
{
	static struct fc_snapshot s, prev;
	const char *dir = rte_eal_get_runtime_dir();
	const struct rte_memzone *mz;
	struct flow_stat *v = NULL;
	uint64_t reports = 0;
	unsigned int l;
	int n, ret = EXIT_SUCCESS;
	bool more, dumper;

	/* a primary that exited without --huge-unlink leaves its files, to
	 * which EAL attaches a secondary all the same */
	if (!rte_eal_primary_proc_alive(NULL)) {
		fprintf(stderr, "%s: no primary process running with file "
			"prefix '%s' (start dpdk-flowcount with hugepages and "
			"this --file-prefix first)\n", fc_prgname,
			strrchr(dir, '/') != NULL ? strrchr(dir, '/') + 1 : dir);
		return EXIT_FAILURE;
	}
	mz = rte_memzone_lookup(FC_MONITOR_MZ);
	if (mz == NULL) {
		fprintf(stderr, "%s: --monitor: no dpdk-flowcount runs with "
			"this --file-prefix (or it has not started)\n",
			fc_prgname);
		return EXIT_FAILURE;
	}
	fc_zone = mz->addr;
	if (fc_zone->magic != FC_MONITOR_MAGIC ||
	    fc_zone->version != FC_MONITOR_VERSION) {
		fprintf(stderr, "%s: --monitor: the primary is another version "
			"of dpdk-flowcount\n", fc_prgname);
		return EXIT_FAILURE;
	}
	/* raised before running is read: a primary that stops after this
	 * sees it, and keeps the table until the dump is read */
	dumper = fc_opt.dump_file != NULL;
	if (dumper)
		__atomic_fetch_add(&fc_zone->dumpers, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&fc_zone->running, __ATOMIC_SEQ_CST)) {
		fc_monitor_dump_read(&dumper);
		fprintf(stderr, "%s: --monitor: the primary's workers are not "
			"running\n", fc_prgname);
		return EXIT_FAILURE;
	}
	/* the primary's settings, for the reports (published before
	 * running was set) */
	fc_ftable = fc_zone->ft;
	if (dumper && fc_ftable == NULL) {
		fc_monitor_dump_read(&dumper);
		fprintf(stderr, "%s: --flow-dump: the primary counts no flows "
			"(--no-count)\n", fc_prgname);
		return EXIT_FAILURE;
	}
	fc_stats = fc_zone->stats;
	fc_start_tsc = fc_zone->start_tsc;
	fc_opt.portmask = fc_zone->portmask;
	fc_opt.counters = (enum flow_counters_scheme)fc_zone->scheme;
	for (l = 0; l < RTE_MAX_LCORE; l++)
		fc_lcore_conf[l].n_rx =
			(fc_zone->workers[l / 64] >> (l % 64) & 1) != 0;
	/* attaches to the primary's percpu area (any reading call would) */
	if (rte_pcpu_init(NULL) != 0) {
		fc_monitor_dump_read(&dumper);
		fprintf(stderr, "%s: --monitor: cannot read the primary's "
			"percpu memory: %s\n", fc_prgname,
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	printf("flowcount monitor: process %d, counters %s, %s\n",
		(int)fc_zone->pid, flow_counters_scheme_name(fc_opt.counters),
		fc_ftable != NULL ? "counting flows" : "flows not counted");
	memset(&prev, 0, sizeof(prev));
	do {
		more = fc_monitor_sleep(fc_opt.stats_ms);
		if (!fc_monitor_read_begin())
			break;
		fc_snapshot_take(&s, reports > 0 ? &prev : NULL, false,
			fc_opt.top, FLOW_SCOPE_LIVE, 0);
		if (!fc_monitor_read_end())
			break;          /* a report of a table that changed */
		fc_report_stats(&s, out);
		prev = s;
		reports++;
		if (fc_opt.monitor_count != 0 &&
		    reports >= fc_opt.monitor_count)
			more = false;
	} while (more);
	if (dumper) {
		/* the totals of the dump are the last report's */
		bool whole = reports > 0 && fc_monitor_read_begin();

		if (whole) {
			n = flow_table_flows_reader(fc_ftable, &v);
			whole = fc_monitor_read_end();
		}
		fc_monitor_dump_read(&dumper);
		if (!whole) {
			free(v);
			fprintf(stderr, "%s: the primary stopped before the "
				"dump (it waits %u ms for a monitor's; its own "
				"--flow-dump has every flow)\n", fc_prgname,
				FC_MONITOR_DUMP_WAIT_MS);
			rte_pcpu_cleanup();
			return EXIT_FAILURE;
		}
		if (n < 0) {
			fprintf(stderr, "%s: no memory for the dump\n",
				fc_prgname);
			ret = EXIT_FAILURE;
		} else if (fc_report_dump(fc_opt.dump_file, v, n, &s) != 0) {
			ret = EXIT_FAILURE;
		}
		free(v);
	}
	fc_monitor_dump_read(&dumper);
	if (!__atomic_load_n(&fc_zone->running, __ATOMIC_ACQUIRE))
		printf("flowcount monitor: the primary stopped\n");
	/* detach: the primary may give memory back at once */
	rte_pcpu_cleanup();
	return ret;
}
