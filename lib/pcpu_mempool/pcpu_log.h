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

extern int pcpu_logtype;

#define PCPU_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, pcpu_logtype, "PCPU: " fmt "\n", \
		##__VA_ARGS__)

#endif /* _PCPU_LOG_H_ */
