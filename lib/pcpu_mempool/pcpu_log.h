/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_LOG_H_
#define _PCPU_LOG_H_

/**
 * @file
 * @internal The library's log type (lib.pcpu_mempool) and its one macro.
 * Every error path logs exactly one line through it.
 */

#include <rte_log.h>
#include <rte_per_lcore.h>

extern int pcpu_logtype;

/** Lines this thread logged at ERR or above, so that a layer which adds
 * its context to a lower layer's failure knows whether that layer logged
 * the failure already (PCPU_LOG_CONTEXT()). */
RTE_DECLARE_PER_LCORE(unsigned int, pcpu_log_nr_err);

#define PCPU_LOG(level, fmt, ...) do { \
	if (RTE_LOG_ ## level <= RTE_LOG_ERR) \
		RTE_PER_LCORE(pcpu_log_nr_err)++; \
	rte_log(RTE_LOG_ ## level, pcpu_logtype, "PCPU: " fmt "\n", \
		##__VA_ARGS__); \
} while (0)

/** The count to give PCPU_LOG_CONTEXT(), read before the lower call. */
#define PCPU_LOG_MARK() RTE_PER_LCORE(pcpu_log_nr_err)

/** Log a failure's context at ERR, or at DEBUG when this thread logged an
 * ERR line since @p mark (PCPU_LOG_MARK()): one failure, one line. */
#define PCPU_LOG_CONTEXT(mark, fmt, ...) do { \
	if (RTE_PER_LCORE(pcpu_log_nr_err) == (mark)) \
		PCPU_LOG(ERR, fmt, ##__VA_ARGS__); \
	else \
		PCPU_LOG(DEBUG, fmt, ##__VA_ARGS__); \
} while (0)

#endif /* _PCPU_LOG_H_ */
