/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_COMPAT_H_
#define _PCPU_COMPAT_H_

/*
 * The API differences between the DPDK releases this tree builds against
 * (22.11, 24.11, 25.11), chosen at compile time from RTE_VERSION. The code
 * is written to the newest API; each block below names the release that
 * changed it and gives older releases the newer spelling.
 *
 * Internal: the library's sources, its tests and apps and the flowcount
 * example include it; it is not installed, and no installed header
 * includes it.
 */

#include <stdint.h>

#include <rte_version.h>
#include <rte_common.h>
/* RTE_IS_POWER_OF_2() and rte_log2_u64() are in rte_common.h up to 23.07
 * and in rte_bitops.h since 23.11; every release has rte_bitops.h. */
#include <rte_bitops.h>

/* 23.03: rte_tel_data_add_dict_uint(), rte_tel_data_add_array_uint() and
 * RTE_TEL_UINT_VAL replace the _u64 functions (deprecated in 24.11, gone
 * in 25.11) and RTE_TEL_U64_VAL. */
#if RTE_VERSION < RTE_VERSION_NUM(23, 3, 0, 0)
#define RTE_TEL_UINT_VAL RTE_TEL_U64_VAL
#define rte_tel_data_add_dict_uint rte_tel_data_add_dict_u64
#define rte_tel_data_add_array_uint rte_tel_data_add_array_u64
#endif

/*
 * 23.11: rte_thread_create_control() (an rte_thread_t, a function that
 * returns uint32_t, joined with rte_thread_join()) replaces
 * rte_ctrl_thread_create() (a pthread_t). Both return 0 or a negative
 * errno value.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
#include <rte_thread.h>

typedef rte_thread_t pcpu_thread_t;
typedef uint32_t pcpu_thread_ret_t;
#define PCPU_THREAD_RET_NONE 0
#define pcpu_ctrl_thread_create(thread, name, fn, arg) \
	rte_thread_create_control(thread, name, fn, arg)
#define pcpu_thread_join(thread) rte_thread_join(thread, NULL)
#else
#include <pthread.h>
#include <rte_lcore.h>

typedef pthread_t pcpu_thread_t;
typedef void *pcpu_thread_ret_t;
#define PCPU_THREAD_RET_NONE NULL
#define pcpu_ctrl_thread_create(thread, name, fn, arg) \
	rte_ctrl_thread_create(thread, name, NULL, fn, arg)
#define pcpu_thread_join(thread) pthread_join(thread, NULL)
#endif

/*
 * 24.11: IPv6 addresses are a struct rte_ipv6_addr (16 bytes, alignment
 * 1) in struct rte_ipv6_hdr and in rte_lpm6_add() and rte_lpm6_lookup(),
 * where they were a uint8_t[16]. PCPU_LPM6_ADDR(p) gives the 16 bytes at
 * @p p in the type rte_lpm6 takes.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define PCPU_LPM6_ADDR(p) ((const struct rte_ipv6_addr *)(const void *)(p))
#else
#define PCPU_LPM6_ADDR(p) ((const uint8_t *)(p))
#endif

/* 24.11: DPDK's own lcore variables (rte_lcore_var.h), which
 * libpcpu_mempool_lcore_var then uses instead of its compat layer. */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define PCPU_HAVE_RTE_LCORE_VAR 1
#endif

#endif /* _PCPU_COMPAT_H_ */
