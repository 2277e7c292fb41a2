/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_UTIL_H_
#define _TEST_PCPU_UTIL_H_

/**
 * @file
 * Helpers the percpu test commands share.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_pcpu.h>

/** Number of lcores the library says have memory. */
unsigned int pcpu_test_mem_lcores(void);

/** First lcore id >= @p lcore_id that has memory, or RTE_MAX_LCORE. */
unsigned int pcpu_test_lcore_next(unsigned int lcore_id);

/** rte_pcpu_cleanup() (if set up) then rte_pcpu_init(@p conf). */
int pcpu_test_reinit(const struct rte_pcpu_conf *conf);

/** Whether all @p len bytes at @p p equal @p v. */
int pcpu_test_all_bytes(const uint8_t *p, size_t len, uint8_t v);

/** The DPDK log, captured in memory (pcpu_test_log_start()). */
struct pcpu_test_log {
	FILE *mem;   /**< The memory stream logs go to meanwhile. */
	FILE *old;   /**< The stream before. */
	char *text;  /**< What was logged, after pcpu_test_log_stop(). */
	size_t len;  /**< Its length. */
};

/** Send every DPDK log line of this process to memory until
 * pcpu_test_log_stop(). 0 or -1. */
int pcpu_test_log_start(struct pcpu_test_log *l);

/** Restore the log stream; returns the captured text (owned by @p l,
 * released by pcpu_test_log_free()), also echoed to stdout. */
const char *pcpu_test_log_stop(struct pcpu_test_log *l);

/** Release the captured text. */
void pcpu_test_log_free(struct pcpu_test_log *l);

/** Lines of @p text that contain @p needle. */
unsigned int pcpu_test_count_lines(const char *text, const char *needle);

/** xorshift64*: the next value of the seeded, reproducible stream at
 * @p state (never 0). */
static inline uint64_t
pcpu_test_rnd(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

#endif /* _TEST_PCPU_UTIL_H_ */
