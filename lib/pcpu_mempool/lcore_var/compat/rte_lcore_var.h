/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * <rte_lcore_var.h> for DPDK releases older than 24.11, which have none:
 * DPDK 24.11's lcore variable API on top of percpu memory
 * (rte_pcpu_lcore_var.h). The opt-in libpcpu_mempool_lcore_var (pkg-config
 * or meson dependency) puts this directory on the include path only with
 * such a DPDK; with 24.11 and later, <rte_lcore_var.h> is DPDK's own.
 */

#ifndef _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_
#define _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_

#include <rte_version.h>

#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#error "DPDK 24.11 and later have their own rte_lcore_var.h: this directory belongs on the include path of older releases only"
#endif

#include <rte_pcpu_lcore_var.h>

#endif /* _PCPU_MEMPOOL_COMPAT_RTE_LCORE_VAR_H_ */
