/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FC_MONITOR_H_
#define _FC_MONITOR_H_

#include <stdio.h>

/*
 * dpdk-flowcount --monitor: a DPDK secondary process that prints a running
 * dpdk-flowcount's statistics and top flows by summing its percpu
 * counters, and writes its flow dump, without taking any part in the
 * primary's work (fc_monitor.c).
 *
 * The primary publishes where things are in a memzone (fc_monitor_publish()
 * before its workers start, fc_monitor_unpublish() once they stopped);
 * everything it points to is EAL memory or percpu memory, which the
 * secondary maps at the same addresses.
 */

/* Primary: tell monitors where the counters are (before the launch). */
void fc_monitor_publish(void);

/* Primary: the workers stopped, the counts are final: monitors end, and
 * those writing a dump read it now (a bounded wait); then nothing reads
 * the table (before any change or teardown). */
void fc_monitor_unpublish(void);

/* Secondary: the monitor's loop, reports to @out; returns the exit
 * status. */
int fc_monitor_main(FILE *out);

#endif /* _FC_MONITOR_H_ */
