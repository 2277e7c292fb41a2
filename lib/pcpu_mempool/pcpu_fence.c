/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Asymmetric fences (pcpu_fence.h): membarrier(2) registration and the
 * heavy side.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include <rte_debug.h>

#include "pcpu_fence.h"
#include "pcpu_log.h"

int pcpu_fence_fallback;

void
pcpu_fence_init(void)
{
	long q;

	q = getenv("PCPU_MEMPOOL_NO_MEMBARRIER") != NULL ? -1 :
		syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	pcpu_fence_fallback = q < 0 ||
		!(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
		syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0;
	if (pcpu_fence_fallback)
		PCPU_LOG(INFO, "membarrier(2) unavailable: pool caches and "
			"owners' stocks use a full fence per operation");
}

void
pcpu_fence_heavy(void)
{
	if (pcpu_fence_fallback) {
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		return;
	}
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
	    != 0)
		rte_panic("pcpu_mempool: membarrier failed after registration: %s\n",
			strerror(errno));
}
