/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _RTE_PCPU_LCORE_VAR_H_
#define _RTE_PCPU_LCORE_VAR_H_

/**
 * @file
 * DPDK 24.11's lcore variables (rte_lcore_var.h) on top of percpu memory,
 * for code written against DPDK 24.11 that has to build with DPDK 22.11.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice (as DPDK's
 * rte_lcore_var API, also experimental).
 *
 * Define ALLOW_EXPERIMENTAL_API before including it, as for DPDK 24.11's
 * API: without it the compiler warns at the calls of rte_pcpu_alloc() and
 * rte_pcpu_free() in this header, as well as in the application.
 *
 * Opt-in: the pkg-config package (and meson dependency)
 * @c libpcpu_mempool_lcore_var puts the directory of this header on the
 * include path and, with a DPDK older than 24.11 only, its @c compat
 * subdirectory, whose <rte_lcore_var.h> includes this header. With 24.11
 * and later <rte_lcore_var.h> is DPDK's own; a program written to DPDK
 * 24.11's documentation therefore builds unchanged on both.
 *
 * With a DPDK older than 24.11, this header provides the macros of 24.11
 * (RTE_LCORE_VAR_HANDLE(), RTE_LCORE_VAR_ALLOC(),
 * RTE_LCORE_VAR_ALLOC_SIZE(), RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(),
 * RTE_LCORE_VAR_LCORE(), RTE_LCORE_VAR(), RTE_LCORE_VAR_FOREACH()) and
 * rte_lcore_var_alloc() as thin wrappers of rte_pcpu_alloc(),
 * RTE_PCPU_LCORE(), RTE_PCPU() and RTE_PCPU_FOREACH(), plus
 * rte_pcpu_lcore_var_free(), which DPDK's lcore variables do not have.
 * With DPDK 24.11 or later it includes DPDK's <rte_lcore_var.h> and adds
 * only rte_pcpu_lcore_var_free(), which then fails with ENOTSUP.
 *
 * The semantics differ from DPDK 24.11 in ways a port must check: only
 * lcore ids that have percpu memory have copies (and
 * RTE_LCORE_VAR_FOREACH() visits only those), a thread registered later
 * finds zeroed copies, allocation needs rte_eal_init() first (so the
 * RTE_LCORE_VAR_INIT() family, which allocates in constructors, is a
 * compile-time error), and the memory is NUMA-local percpu memory rather
 * than libc heap. The programmer's guide lists every difference ("Migrating from
 * rte_lcore_var").
 */

#include <rte_version.h>

#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0) && !defined(__DOXYGEN__)

/* DPDK has lcore variables: use them (the opt-in package puts no
 * <rte_lcore_var.h> of its own on the include path then). */
#include <errno.h>

#include <rte_lcore_var.h>
#include <rte_compat.h>
#include <rte_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

__rte_experimental
static inline int
rte_pcpu_lcore_var_free(void *handle)
{
	if (handle == NULL)
		return 0;
	rte_errno = ENOTSUP;
	return -1;
}

#ifdef __cplusplus
}
#endif

#else /* DPDK without lcore variables: percpu memory behind 24.11's API */

#include <stdalign.h>
#include <stddef.h>
#include <errno.h>

#include <rte_common.h>
#include <rte_compat.h>
#include <rte_debug.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include <rte_pcpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef RTE_MAX_LCORE_VAR
/**
 * Largest value of one lcore variable, in bytes per lcore id: DPDK
 * 24.11's default (its rte_config.h). rte_lcore_var_alloc() enforces it,
 * although percpu memory allows up to RTE_PCPU_MAX_SIZE, so that code that
 * works here also works with DPDK's own lcore variables.
 */
#define RTE_MAX_LCORE_VAR 131072
#endif

/**
 * Type of the handle of an lcore variable whose value has type @p type:
 * a pointer to @p type that must never be dereferenced itself (it is the
 * handle of a percpu object, see rte_pcpu_alloc()).
 */
#define RTE_LCORE_VAR_HANDLE_TYPE(type) type *

/**
 * Define an lcore variable handle @p name for values of type @p type;
 * prefix with @c static for a handle private to one translation unit.
 * The handle is NULL (or indeterminate, for an automatic variable) until
 * one of the RTE_LCORE_VAR_ALLOC macros sets it.
 */
#define RTE_LCORE_VAR_HANDLE(type, name) RTE_LCORE_VAR_HANDLE_TYPE(type) name

/**
 * Allocate an lcore variable of @p size bytes per lcore id, aligned to
 * @p align (0: alignof(max_align_t)), every copy zeroed, and store its
 * handle in @p handle. Aborts on failure, as DPDK 24.11 does: see
 * rte_lcore_var_alloc().
 */
#define RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(handle, size, align) \
	((handle) = (__typeof__(handle))rte_lcore_var_alloc(size, align))

/**
 * Allocate an lcore variable of @p size bytes per lcore id, aligned for
 * any type (alignof(max_align_t)), into @p handle; see
 * RTE_LCORE_VAR_ALLOC_SIZE_ALIGN().
 */
#define RTE_LCORE_VAR_ALLOC_SIZE(handle, size) \
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(handle, size, 0)

/**
 * Allocate an lcore variable of the size and alignment of the type
 * @p handle points to, into @p handle; see RTE_LCORE_VAR_ALLOC_SIZE_ALIGN().
 */
#define RTE_LCORE_VAR_ALLOC(handle) \
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(handle, sizeof(*(handle)), \
		alignof(__typeof__(*(handle))))

/** @internal A static assertion in C and C++. */
#ifdef __cplusplus
#define RTE_PCPU_LCORE_VAR_STATIC_ASSERT static_assert
#else
#define RTE_PCPU_LCORE_VAR_STATIC_ASSERT _Static_assert
#endif

/**
 * Not available: DPDK 24.11 allocates here in a constructor (RTE_INIT),
 * before rte_eal_init(), and percpu memory needs EAL. Using it is a
 * compile-time error that says so; call RTE_LCORE_VAR_ALLOC() after
 * rte_eal_init() instead.
 */
#define RTE_LCORE_VAR_INIT_SIZE_ALIGN(name, size, align) \
	RTE_PCPU_LCORE_VAR_STATIC_ASSERT(0, "RTE_LCORE_VAR_INIT* allocate " \
		"before rte_eal_init(), which percpu memory cannot: call " \
		"RTE_LCORE_VAR_ALLOC() after rte_eal_init() instead")

/** Not available: see RTE_LCORE_VAR_INIT_SIZE_ALIGN(). */
#define RTE_LCORE_VAR_INIT_SIZE(name, size) \
	RTE_LCORE_VAR_INIT_SIZE_ALIGN(name, size, 0)

/** Not available: see RTE_LCORE_VAR_INIT_SIZE_ALIGN(). */
#define RTE_LCORE_VAR_INIT(name) \
	RTE_LCORE_VAR_INIT_SIZE_ALIGN(name, 0, 0)

/**
 * Untyped address of lcore @p lcore_id's value of the lcore variable
 * @p handle (RTE_PCPU_LCORE()). The value may be dereferenced only if
 * @p lcore_id has percpu memory (rte_pcpu_lcore_has_memory()): EAL and
 * service lcores, and threads that are or were registered. For any other
 * id below RTE_MAX_LCORE the address is valid to compute but not to
 * dereference (it faults); an id at or above RTE_MAX_LCORE, such as
 * LCORE_ID_ANY, fails an assertion in builds with RTE_ENABLE_ASSERT.
 *
 * @param lcore_id
 *   The lcore id whose value is wanted.
 * @param handle
 *   The lcore variable handle.
 * @return
 *   Address of that lcore id's value.
 *
 * Thread-safety: MT-safe, lock-free.
 */
static inline void *
rte_lcore_var_lcore(unsigned int lcore_id, void *handle)
{
	return RTE_PCPU_LCORE(lcore_id, handle);
}

/**
 * Lcore @p lcore_id's value of the lcore variable @p handle, typed as
 * @p handle; see rte_lcore_var_lcore() for which ids have a value.
 */
#define RTE_LCORE_VAR_LCORE(lcore_id, handle) \
	((__typeof__(handle))rte_lcore_var_lcore(lcore_id, handle))

/**
 * The calling thread's value of the lcore variable @p handle (RTE_PCPU()).
 * For EAL and service lcores and registered threads only, as in DPDK.
 */
#define RTE_LCORE_VAR(handle) RTE_PCPU(handle)

/**
 * Iterate over the values of the lcore variable @p handle: @p lcore_id
 * (unsigned int) takes each lcore id that has percpu memory, in
 * increasing order, and @p value (typed as @p handle) points to its value
 * (RTE_PCPU_FOREACH()). DPDK 24.11 visits every id below RTE_MAX_LCORE;
 * ids without memory have no value here.
 */
#define RTE_LCORE_VAR_FOREACH(lcore_id, value, handle) \
	RTE_PCPU_FOREACH(lcore_id, value, handle)

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate an lcore variable: rte_pcpu_alloc() with DPDK 24.11's limits
 * and failure behaviour. Every lcore id with percpu memory gets a zeroed
 * value (and so does every thread that registers later); the handle is
 * never NULL.
 *
 * As DPDK 24.11's rte_lcore_var_alloc(), it does not return on failure:
 * a size of 0 or above RTE_MAX_LCORE_VAR, an alignment that is not a
 * power of two or is above RTE_CACHE_LINE_SIZE, a call before
 * rte_eal_init(), and a shortage of memory (ENOMEM from rte_pcpu_alloc(),
 * which DPDK's libc-heap allocation would meet as a failed malloc)
 * each log one line naming the cause and call rte_panic(). Code that
 * wants to handle ENOMEM calls rte_pcpu_alloc() itself.
 *
 * @param size
 *   Bytes per lcore id, 1 .. RTE_MAX_LCORE_VAR.
 * @param align
 *   0 for alignof(max_align_t), or a power of two up to
 *   RTE_CACHE_LINE_SIZE.
 * @return
 *   The handle (see RTE_LCORE_VAR()); never NULL.
 *
 * Thread-safety: MT-safe (DPDK 24.11's is not), from any thread after
 * rte_eal_init().
 */
__rte_experimental
static inline void *
rte_lcore_var_alloc(size_t size, size_t align)
{
	void *handle;

	if (align == 0)
		align = alignof(max_align_t);
	if (size == 0 || size > RTE_MAX_LCORE_VAR ||
			align > RTE_CACHE_LINE_SIZE ||
			!rte_is_power_of_2((uint32_t)align))
		rte_panic("rte_lcore_var_alloc(%zu, %zu): size must be 1..%u "
			"bytes and align a power of two up to %u, as with "
			"DPDK 24.11\n", size, align,
			(unsigned int)RTE_MAX_LCORE_VAR,
			(unsigned int)RTE_CACHE_LINE_SIZE);
	handle = rte_pcpu_alloc(size, align);
	if (handle == NULL)
		rte_panic("rte_lcore_var_alloc(%zu, %zu): %s%s\n", size, align,
			rte_strerror(rte_errno), rte_errno == EINVAL ?
			" (called before rte_eal_init()? percpu memory needs "
			"EAL)" : "");
	return handle;
}

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free an lcore variable, which DPDK's lcore variables cannot do: the
 * values of every lcore id go back at once (rte_pcpu_free()), and the
 * handle, and every pointer to a value, must not be used afterwards.
 * No thread may be using the variable.
 *
 * @param handle
 *   The handle from an RTE_LCORE_VAR_ALLOC macro or rte_lcore_var_alloc();
 *   NULL is a no-op.
 * @return
 *   0 on success; -1 with rte_errno set: EINVAL if @p handle is not a live
 *   lcore variable (never allocated, already freed: one log line, nothing
 *   changes), ENOTSUP with DPDK 24.11 and later, whose own lcore variables
 *   (used then instead of this header's) cannot be freed.
 *
 * Thread-safety: MT-safe.
 */
__rte_experimental
static inline int
rte_pcpu_lcore_var_free(void *handle)
{
	return rte_pcpu_free(handle);
}

#ifdef __cplusplus
}
#endif

#endif /* RTE_VERSION */

#endif /* _RTE_PCPU_LCORE_VAR_H_ */
