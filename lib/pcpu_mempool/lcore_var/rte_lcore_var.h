/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * <rte_lcore_var.h> for the opt-in include directory of pcpu_mempool
 * (pkg-config / meson dependency libpcpu_mempool_lcore_var).
 *
 * DPDK 24.11 and later have a header of this name: it is included with
 * #include_next, which continues the search in the directories after this
 * one, so DPDK's own lcore variables are used whatever the order of the
 * include path. Older DPDK releases have none: rte_pcpu_lcore_var.h
 * provides the same API on top of percpu memory.
 */

#ifndef _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_
#define _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_

#include <rte_version.h>

#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#include_next <rte_lcore_var.h>
#endif

#include "rte_pcpu_lcore_var.h"

#endif /* _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_ */
